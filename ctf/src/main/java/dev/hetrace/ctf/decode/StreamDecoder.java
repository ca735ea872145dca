package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Decodes the packets and events of one data stream (one or more files, in order) through a
 * reusable cursor: {@link #next()} decodes the next event into a tape of longs and keeps the
 * state (clock value, registers, packet fields) that the CTF semantics need. Nothing is
 * allocated per event once the tape has grown to the largest event.
 *
 * <p>This file is larger than most (about 1,400 lines) on purpose: it is the per-event hot
 * path. The tree walker ({@code decodeNode}) and the steps that compiled scopes
 * ({@link FlatCode}) call read and write the cursor (position, limit, segment, tape,
 * registers, clock) as plain fields of this one object, and {@link FlatCode} binds those
 * steps as method handles through this class's private lookup; moving them to another
 * object would put a field indirection or a call the JIT may not inline in every field
 * decoded. What runs per packet or less lives elsewhere: {@link PacketLosses} (losses
 * between packets), {@link TimeOrderText} (warnings of time going back), {@link ErrorPath}
 * (the path of the field where decoding fails), {@link TracePlan} and {@link PlanCompiler}
 * (the plan).
 */
public final class StreamDecoder {
    private static final long CTF_MAGIC = 0xC1FC1FC1L;

    private final TracePlan plan;
    private final List<StreamFile> files;
    private int fileIndex = -1;
    private MemorySegment seg;
    private Path file;
    private long fileBits;

    private final long[] regs;
    private long pos;
    /** Where the current packet starts, in bits: fields align on multiples of their alignment from there (CTF 1.8 §4.1.2). */
    private long packetStart;

    private long limit;

    // Packet state.
    private PacketInfo packet;
    private long packetNumber;
    private long nextPacketOffset;
    private StreamPlan stream;
    private long[] packetTape = new long[16];
    /** Values of the packet header and context members with a role, by role ({@link PacketInfo#ABSENT} if none). */
    private final long[] roleValues = new long[Node.ROLE_COUNT];

    private int packetTapeLen;
    private int packetContextStart;

    // Event state.
    private long[] tape = new long[32];
    private int tapeLen;
    private EventPlan event;
    private long eventId;
    private int headerStart;
    private int streamContextStart;
    private int contextStart;
    private int payloadStart;
    private long eventBitOffset;

    // What the previous packet of this stream said, to find lost events and packets.
    private final PacketLosses losses = new PacketLosses();

    private boolean uuidWarned;
    /** The root of the scope being decoded, for errors to name where it is defined; null between scopes. */
    private Node scopeRoot;
    /** The path of the field where decoding failed, noted as the error leaves the walk; null until an error. */
    private ErrorPath failedPath;

    private Consumer<String> warnings = w -> {};
    /** Told where the stream's time first goes back, of each kind; null: not watched. */
    private TimeOrderListener timeOrder;
    /** The time (clock value) of the previous event of the stream: an event before it goes back in time. */
    private long previousEventClock;
    /** Bits of the kinds of time going back already told by this decoder (see {@link #watchTimeOrder}). */
    private int timeOrderTold;

    private long clock;
    private long eventClock;
    /** The clock before the current event (its header may move it), to decode the event again after a resume. */
    private long clockBefore;
    /** The clock before the current packet's context (which may move it), for {@link ClockFields}. */
    private long clockBeforePacket;

    /** One file of a data stream, mapped. */
    public record StreamFile(Path path, MemorySegment segment) {}

    public StreamDecoder(TracePlan plan, List<StreamFile> files) {
        this.plan = plan;
        this.files = files;
        this.regs = new long[Math.max(1, plan.registerCount)];
    }

    public TracePlan plan() {
        return plan;
    }

    /** Where to report problems that do not stop decoding (UUID mismatch, discarded events). */
    public void warnings(Consumer<String> sink) {
        this.warnings = sink;
    }

    /** An event whose time is before the previous event's in the stream. */
    public static final int EVENT_BEFORE_PREVIOUS = 0;
    /** A packet whose timestamp_begin is before the previous packet's timestamp_end in the stream. */
    public static final int PACKET_BEFORE_PREVIOUS_END = 1;

    /** Told where time goes back in a stream. */
    @FunctionalInterface
    public interface TimeOrderListener {
        /**
         * @param kind    {@link #EVENT_BEFORE_PREVIOUS} or {@link #PACKET_BEFORE_PREVIOUS_END}
         * @param warning one line saying where and by how much (without the word "warning")
         */
        void told(int kind, String warning);
    }

    /**
     * Watches the stream's times: the first event earlier than the one before it, and the first
     * packet that begins before its predecessor ends, are told to {@code listener} (once per kind
     * for this decoder; several decoders may read one stream, so the listener decides what the
     * user is told). The events are decoded as they are either way.
     */
    public void watchTimeOrder(TimeOrderListener listener) {
        this.timeOrder = listener;
    }

    // ------------------------------------------------------------------ iteration

    /**
     * Decodes the next event, moving to the next packet or file as needed.
     *
     * @return false at the end of the stream
     */
    public boolean next() throws StreamDecodingException {
        while (true) {
            if (packet != null && pos < limit) {
                try {
                    decodeEvent();
                } catch (StreamDecodingException e) {
                    throw noStart ? e.explained(NO_START) : e;
                }
                // one unsigned compare per event: clock values of one stream are of one clock
                if (Long.compareUnsigned(eventClock, previousEventClock) < 0) {
                    eventBeforePrevious();
                }
                previousEventClock = eventClock;
                return true;
            }
            if (!nextPacket()) {
                return false;
            }
            eventClock = clock;
        }
    }

    /** Packets this decoder may still read (see {@link #limitPackets}). */
    private long packetBudget = Long.MAX_VALUE;

    /** Ends the stream, for this decoder, after {@code count} more packets (a worker's share of a stream). */
    public void limitPackets(long count) {
        packetBudget = count;
    }

    /**
     * Moves to the next packet (its header and context decoded), without decoding events.
     *
     * @return false at the end of the stream
     */
    public boolean nextPacket() throws StreamDecodingException {
        endPacket();
        if (packetBudget == 0) {
            packet = null;
            return false;
        }
        packetBudget--;
        while (true) {
            if (seg == null || nextPacketOffset >= fileBits) {
                if (!nextFile()) {
                    packet = null;
                    return false;
                }
                continue;
            }
            readPacket(nextPacketOffset, false);
            return true;
        }
    }

    /**
     * At the end of a packet the clock moves to its timestamp_end, unless that would move it
     * back (tracers known to write events after the end time) or the end is 0 (a crashed
     * LTTng session's last packet).
     */
    private void endPacket() {
        if (packet != null && packet.has(packet.timestampEnd()) && stream.defaultClock >= 0) {
            long end = packet.timestampEnd();
            boolean crashed = end == 0 && packet.has(packet.timestampBegin()) && packet.timestampBegin() != 0;
            if (!crashed && Long.compareUnsigned(end, clock) >= 0) {
                clock = end;
            }
        }
        packet = null;
    }

    private boolean nextFile() {
        fileIndex++;
        if (fileIndex >= files.size()) {
            seg = null;
            return false;
        }
        StreamFile f = files.get(fileIndex);
        seg = f.segment();
        file = f.path();
        fileBits = seg.byteSize() * 8;
        nextPacketOffset = 0;
        packetNumber = -1;
        return true;
    }

    private StreamDecodingException error(long at, String message) {
        return error(at, message, null);
    }

    /**
     * An error at bit {@code at} of the file; {@code field}, or else the scope being decoded,
     * names where CTF 2 metadata defines it (its fragment and JSON path).
     */
    private StreamDecodingException error(long at, String message, Node field) {
        String place = field != null && field.place != null ? field.place : scopeRoot != null ? scopeRoot.place : null;
        return new StreamDecodingException(
                file, Math.max(0, packetNumber), at, place == null ? message : message + " (metadata " + place + ")");
    }

    /** An error in the packet header or context field that has {@code role}, named by its path. */
    private StreamDecodingException roleError(long at, String message, int role) {
        Node f = roleField(role);
        return error(at, message, f).in(null, packetFieldPath(f));
    }

    /** The path of a field of the packet header or context ({@code "packet_context.content_size"}), or null. */
    private String packetFieldPath(Node f) {
        String p = stream == null ? null : ErrorPath.to(stream.packetContext, f, "packet_context");
        return p != null ? p : ErrorPath.to(plan.packetHeader, f, "packet_header");
    }

    /** The field of the packet header or context that has {@code role}, or null. */
    private Node roleField(int role) {
        Node found = stream == null ? null : withRole(stream.packetContext, role);
        return found != null ? found : withRole(plan.packetHeader, role);
    }

    private static Node withRole(Node n, int role) {
        if (n == null) {
            return null;
        }
        if (n.role == role) {
            return n;
        }
        for (Node c : n.children) {
            Node found = withRole(c, role);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private void readPacket(long offset, boolean again) throws StreamDecodingException {
        packetNumber++;
        scopeRoot = null;
        pos = offset;
        packetStart = offset;
        limit = fileBits;
        packetTapeLen = 0;
        clockBeforePacket = clock;
        Arrays.fill(regs, 0);
        Arrays.fill(roleValues, PacketInfo.ABSENT);
        if (plan.packetHeader != null) {
            decodePacketScope(plan.packetHeader, "packet header", 0);
        }
        long magic = roleValues[Node.ROLE_MAGIC];
        long streamId = roleValues[Node.ROLE_STREAM_ID];
        long instanceId = roleValues[Node.ROLE_STREAM_INSTANCE_ID];
        if (roleValues[Node.ROLE_UUID] != PacketInfo.ABSENT) {
            checkUuid(roleValues[Node.ROLE_UUID]);
        }
        if (magic != PacketInfo.ABSENT && magic != CTF_MAGIC) {
            throw roleError(
                    offset, String.format("bad packet magic 0x%08X (expected 0xC1FC1FC1)", magic), Node.ROLE_MAGIC);
        }
        StreamPlan sp;
        if (streamId != PacketInfo.ABSENT) {
            sp = plan.stream(streamId);
            if (sp == null) {
                throw roleError(
                        offset,
                        "packet refers to stream class " + streamId + ", which the metadata does not declare",
                        Node.ROLE_STREAM_ID);
            }
        } else {
            if (plan.streamCount() != 1) {
                throw error(
                        offset,
                        plan.streamCount() == 0
                                ? "the metadata declares no stream class"
                                : "packet has no stream_id but the metadata declares several stream classes");
            }
            sp = plan.onlyStream();
        }
        if (stream != null && stream != sp) {
            throw error(
                    offset,
                    "packet belongs to stream class " + sp.cls.id() + " but earlier packets of this"
                            + " stream to class " + stream.cls.id());
        }
        stream = sp;
        packetContextStart = packetTapeLen;
        if (sp.packetContext != null) {
            decodePacketScope(sp.packetContext, "packet context", packetContextStart);
        }
        long packetBits = roleValues[Node.ROLE_PACKET_SIZE];
        long contentBits = roleValues[Node.ROLE_CONTENT_SIZE];
        long tsBegin = roleValues[Node.ROLE_TIMESTAMP_BEGIN];
        long tsEnd = roleValues[Node.ROLE_TIMESTAMP_END];
        long seq = roleValues[Node.ROLE_PACKET_SEQ_NUM];
        long discarded = roleValues[Node.ROLE_EVENTS_DISCARDED];
        if (!again && offset == 0 && plan.packetHeader == null && sp.packetContext == null) {
            // a packetless stream (the whole file one run of events): a capture of it may
            // begin in the middle of an event
            long first = firstDecodableEvent();
            // when no byte qualifies, the first event's error is told, saying so
            noStart = first < 0;
            first = Math.max(first, 0);
            if (first > 0) {
                warnings.accept(file + ": the capture begins in the middle of an event: " + (first >>> 3)
                        + " bytes skipped before the first event that decodes");
                offset = first;
            }
            pos = offset;
            packetStart = offset;
        }
        long headerBits = pos - offset;
        long remaining = fileBits - offset;
        if (packetBits == PacketInfo.ABSENT) {
            packetBits = contentBits != PacketInfo.ABSENT ? contentBits : remaining;
            if (contentBits != PacketInfo.ABSENT) {
                // Without packet_size, the packet ends where its content ends (rounded up to a byte).
                packetBits = (contentBits + 7) & ~7L;
                if (contentBits < 0 || Long.compareUnsigned(packetBits, remaining) > 0) {
                    throw roleError(
                            offset,
                            "content_size " + Long.toUnsignedString(contentBits) + " bits goes past the end"
                                    + " of the file (" + remaining + " bits left)",
                            Node.ROLE_CONTENT_SIZE);
                }
            }
        } else {
            if (packetBits <= 0 || (packetBits & 7) != 0) {
                throw roleError(
                        offset,
                        "packet_size " + Long.toUnsignedString(packetBits)
                                + " bits is not a positive whole number of bytes",
                        Node.ROLE_PACKET_SIZE);
            }
            if (Long.compareUnsigned(packetBits, remaining) > 0) {
                throw roleError(
                        offset,
                        "packet_size " + Long.toUnsignedString(packetBits) + " bits goes past the end of"
                                + " the file (" + remaining + " bits left)",
                        Node.ROLE_PACKET_SIZE);
            }
        }
        if (contentBits == PacketInfo.ABSENT) {
            contentBits = packetBits;
        } else if (Long.compareUnsigned(contentBits, packetBits) > 0) {
            throw roleError(
                    offset,
                    "content_size " + Long.toUnsignedString(contentBits) + " bits is larger than packet_size "
                            + packetBits + " bits",
                    Node.ROLE_CONTENT_SIZE);
        }
        if (contentBits < headerBits) {
            throw roleError(
                    offset,
                    "content_size " + contentBits + " bits is smaller than the packet header and context (" + headerBits
                            + " bits)",
                    Node.ROLE_CONTENT_SIZE);
        }
        packet = new PacketInfo(
                file,
                packetNumber,
                offset,
                packetBits,
                contentBits,
                headerBits,
                sp.cls.id(),
                instanceId,
                tsBegin,
                tsEnd,
                seq,
                discarded);
        limit = offset + contentBits;
        nextPacketOffset = offset + packetBits;
        if (!again) {
            noteLosses(packet);
        }
    }

    /** Events that must decode one after the other from a byte for it to be taken as the start of an event. */
    private static final int RESYNC_EVENTS = 8;

    /**
     * Where the first event of a packetless file begins, in bits: the first byte from which
     * {@link #RESYNC_EVENTS} events decode one after the other (from the file's first byte,
     * every event up to the end of a shorter file, the last one possibly cut short by the end of
     * the capture), each less than half
     * the range of the event header's narrowest clock field after the one before it. The events
     * of a capture follow each other much closer than that (2.1 s for a 32-bit nanosecond
     * timestamp), while a header read from the middle of another event, often from the NULs
     * that pad a name, has an arbitrary time. When the file's first events decode but two are
     * farther apart, it begins with an event unless another start qualifies before the later of
     * the two (the first event is taken for a piece of another when only it is far from the
     * rest). Then, of the start found and a start inside its first event whose events meet its
     * events at an event, the one that reaches that event sooner is taken. −1 when no byte
     * qualifies: the file is not a stream of this metadata's events.
     */
    private long firstDecodableEvent() {
        long savedClock = clock;
        try {
            int bits = narrowestClockField(stream.eventHeader);
            long maxStep = bits <= 0 || bits >= 64 ? -1 : 1L << (bits - 1);
            long found = decodesFrom(0, maxStep) ? 0 : -1;
            // Where the first byte's events were too far apart in time: another start is looked
            // for before that event only (after the first event, when it is the second): a
            // file's events may be far apart.
            if (found < 0 && farApart > 0) {
                long end = farApart == 1 ? farApartAt + 8 : farApartAt;
                found = firstStart(8, end, maxStep);
                if (found < 0 && decodesFrom(0, -1)) {
                    found = 0;
                }
            }
            if (found < 0) {
                found = firstStart(8, fileBits, maxStep);
            }
            if (found < 0) {
                return -1;
            }
            // A start inside the first event found whose events meet the found ones at an event
            // and reach it sooner: the found start was read from the middle of an event.
            long[] chainAt = resyncAt.clone();
            long[] chainClock = resyncClock.clone();
            int chainLength = resyncLength;
            for (long at = found + 8; chainLength > 1 && at < chainAt[1]; at += 8) {
                if (!decodesFrom(at, maxStep)) {
                    continue;
                }
                for (int i = 1; i < chainLength; i++) {
                    int j = indexOf(resyncAt, resyncLength, chainAt[i]);
                    if (j >= 0) {
                        if (Long.compareUnsigned(resyncClock[j] - resyncClock[0], chainClock[i] - chainClock[0]) < 0) {
                            found = at;
                            chainAt = resyncAt.clone();
                            chainClock = resyncClock.clone();
                            chainLength = resyncLength;
                        }
                        break;
                    }
                }
            }
            return found;
        } finally {
            clock = savedClock;
            Arrays.fill(regs, 0);
            tapeLen = 0;
            event = null;
            eventId = -1;
            ranOut = false;
        }
    }

    /** The first byte in {@code [from, to)} bits from which events decode (see {@link #decodesFrom}), or -1. */
    private long firstStart(long from, long to, long maxStep) {
        for (long at = from; at < to; at += 8) {
            if (decodesFrom(at, maxStep)) {
                return at;
            }
        }
        return -1;
    }

    /** The size in bits of the narrowest integer of {@code n} that samples a clock, or 0 if none. */
    private static int narrowestClockField(Node n) {
        if (n == null) {
            return 0;
        }
        int best = n.clock >= 0 && n.size > 0 ? n.size : 0;
        for (Node c : n.children) {
            int b = narrowestClockField(c);
            if (b > 0 && (best == 0 || b < best)) {
                best = b;
            }
        }
        return best;
    }

    /**
     * Whether events decode one after the other from bit {@code at}, each less than
     * {@code maxStep} clock cycles after the one before it ({@code maxStep} -1: any); see
     * {@link #firstDecodableEvent}.
     */
    private boolean decodesFrom(long at, long maxStep) {
        pos = at;
        packetStart = at;
        clock = 0;
        Arrays.fill(regs, 0);
        ranOut = false;
        int decoded = 0;
        long previous = 0;
        resyncLength = 0;
        farApart = 0;
        try {
            while (decoded < RESYNC_EVENTS && pos < limit) {
                long eventAt = pos;
                decodeEvent();
                if (decoded > 0 && maxStep > 0 && Long.compareUnsigned(eventClock - previous, maxStep) >= 0) {
                    farApart = decoded;
                    farApartAt = eventAt;
                    return false;
                }
                previous = eventClock;
                resyncAt[decoded] = eventAt;
                resyncClock[decoded] = eventClock;
                resyncLength = ++decoded;
            }
            // from the first byte, a file of fewer events (the end of a short capture); from
            // another, all of them: a few bytes of garbage may decode as one event
            return decoded == RESYNC_EVENTS || at == 0 && decoded > 0;
        } catch (StreamDecodingException e) {
            // from the first byte, an event cut short by the end of the capture counts once one
            // before it decoded
            return at == 0 && decoded > 0 && ranOut;
        }
    }

    /** No byte of this packetless file is the start of a run of events ({@link #firstDecodableEvent}). */
    private boolean noStart;

    private static final String NO_START = "no " + RESYNC_EVENTS + " events decode one after the other from any"
            + " byte of the file: it is not a stream of the events this metadata declares";

    /** Where the events {@link #decodesFrom} decoded begin, in bits, and their clock values; how many. */
    private final long[] resyncAt = new long[RESYNC_EVENTS];

    private final long[] resyncClock = new long[RESYNC_EVENTS];
    private int resyncLength;
    /** The event of {@link #decodesFrom} too far in time from the one before it (0: none), and where it begins. */
    private int farApart;

    private long farApartAt;

    private static int indexOf(long[] a, int length, long v) {
        for (int i = 0; i < length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }

    /** Set when a field went past the end of the packet content (the slow path of bounds checks). */
    private boolean ranOut;

    /** Tells if the packet begins before the previous one ends, and queues the losses found since it. */
    private void noteLosses(PacketInfo p) {
        if (losses.havePrevious()
                && losses.previousEnd() != PacketInfo.ABSENT
                && p.has(p.timestampBegin())
                && stream.defaultClock >= 0
                && Long.compareUnsigned(p.timestampBegin(), losses.previousEnd()) < 0) {
            packetBeforePreviousEnd(p);
        }
        losses.note(p, defaultClock());
    }

    /** The oldest loss found at a packet boundary and not taken yet, or null. */
    public Discarded pollDiscarded() {
        return losses.poll();
    }

    // ------------------------------------------------------------------ seeking

    /**
     * Positions the decoder before packet {@code packetNumber} of file {@code fileIndex}, which
     * starts {@code offsetBits} into it, as if every packet before it had been read: the
     * previous packet's events_discarded, packet_seq_num and timestamp_end (or
     * {@link PacketInfo#ABSENT}; all three absent when it is the stream's first packet) let
     * losses be found as in a full read. The clock restarts from the packet's timestamp_begin,
     * so callers seek past the first packet only when that field sets the whole clock (64 bits).
     */
    public void seek(
            int fileIndex,
            long offsetBits,
            long packetNumber,
            boolean hasPrevious,
            long previousEventsDiscarded,
            long previousSeqNum,
            long previousEndCycles) {
        this.fileIndex = fileIndex - 1;
        nextFile();
        nextPacketOffset = offsetBits;
        this.packetNumber = packetNumber - 1;
        packet = null;
        pos = 0;
        limit = 0;
        clock = 0;
        eventClock = 0;
        previousEventClock = 0;
        losses.clear();
        losses.restore(hasPrevious, previousEventsDiscarded, previousSeqNum, previousEndCycles);
    }

    // ------------------------------------------------------------------ parking

    /**
     * Whether the decoder stands on an event and has no loss waiting to be taken: then what
     * {@link #resume} needs to decode that event again is the file index, the packet's offset
     * and number, {@link #eventBitOffset()}, {@link #clockBeforeEvent()}, the loss state of the
     * packet ({@link #lossState}) and {@link #uuidWarned()}. A reader of many streams keeps
     * those numbers rather than a decoder per stream.
     */
    public boolean parkable() {
        return packet != null && event != null && losses.isEmpty() && pos <= limit;
    }

    /** The clock value before the current event was decoded. */
    public long clockBeforeEvent() {
        return clockBefore;
    }

    /** The clock value before the current packet's context was decoded. */
    long clockBeforePacket() {
        return clockBeforePacket;
    }

    /**
     * What the current packet said for finding the next packet's losses: {@code [0]} 1 when
     * a packet was read, {@code [1]} its events_discarded, {@code [2]} packet_seq_num,
     * {@code [3]} timestamp_end.
     */
    public void lossState(long[] out) {
        losses.state(out);
    }

    public boolean uuidWarned() {
        return uuidWarned;
    }

    /**
     * Puts a new decoder where a {@link #parkable()} one stood: before the event at
     * {@code eventOffsetBits} of the packet at {@code packetOffsetBits} (the packet's header
     * and context are decoded again, quietly), so that {@link #next()} decodes that event again.
     */
    public void resume(
            int fileIndex,
            long packetOffsetBits,
            long packetNumber,
            long eventOffsetBits,
            long clockBefore,
            boolean hadPrevious,
            long previousEventsDiscarded,
            long previousSeqNum,
            long previousEndCycles,
            boolean uuidWarned)
            throws StreamDecodingException {
        this.fileIndex = fileIndex - 1;
        nextFile();
        this.packetNumber = packetNumber - 1;
        packet = null;
        stream = null;
        losses.clear();
        this.uuidWarned = uuidWarned;
        readPacket(packetOffsetBits, true);
        pos = eventOffsetBits;
        clock = clockBefore;
        eventClock = clockBefore;
        // the event decoded again was compared with the one before it when first decoded
        previousEventClock = 0;
        losses.restore(hadPrevious, previousEventsDiscarded, previousSeqNum, previousEndCycles);
    }

    /**
     * Decodes the one event that starts {@code eventOffsetBits} into the packet at
     * {@code packetOffsetBits} of file {@code fileIndex}, as {@link #next()} would have, but
     * reading nothing else than that packet's header and context (again only when the decoder
     * stands in another packet) and that event: its fields are those a full read decodes, for a
     * field's length or variant tag lies in the event itself or in the packet's header or context
     * (a reference cannot reach into an earlier event: {@link TracePlan} resolves it through
     * structs only). Its time is not: a compact timestamp counts from the clock the events before
     * it left, which is not known here. False when the offset is outside the packet's events.
     * Losses are not looked for; an error names packet 0 of the file (its number is not known).
     */
    public boolean decodeAt(int fileIndex, long packetOffsetBits, long eventOffsetBits) throws StreamDecodingException {
        if (packet == null || this.fileIndex != fileIndex || packet.offsetBits() != packetOffsetBits) {
            if (fileIndex < 0 || fileIndex >= files.size()) {
                return false;
            }
            this.fileIndex = fileIndex - 1;
            nextFile();
            if (packetOffsetBits < 0 || packetOffsetBits >= fileBits) {
                packet = null;
                return false;
            }
            packetNumber = -1;
            packet = null;
            stream = null;
            losses.clear();
            readPacket(packetOffsetBits, true);
        }
        if (eventOffsetBits < packetOffsetBits + packet.eventsBits() || eventOffsetBits >= limit) {
            return false;
        }
        pos = eventOffsetBits;
        decodeEvent();
        return true;
    }

    /** Index of the file being decoded among the stream's files. */
    public int fileIndex() {
        return fileIndex;
    }

    /** The default clock of the stream, once a packet has been read; null when it has none. */
    public ClockClass defaultClock() {
        return stream == null || stream.defaultClock < 0 ? null : plan.clocks.get(stream.defaultClock);
    }

    /**
     * Decodes a packet-level scope into the packet tape (kept for the whole packet, unlike the
     * event tape) and notes the values of its fields that have a role.
     */
    private void decodePacketScope(Node scope, String name, int start) throws StreamDecodingException {
        long[] eventTape = tape;
        int eventTapeLen = tapeLen;
        tape = packetTape;
        tapeLen = start;
        try {
            decodeScope(scope, name);
            scopeRoot = null;
        } finally {
            packetTape = tape;
            packetTapeLen = tapeLen;
            tape = eventTape;
            tapeLen = eventTapeLen;
        }
        noteRoles(scope, packetTape, start);
    }

    /**
     * Notes the values of the fields with a role in the field of node {@code n} whose tape
     * starts at {@code at}, at any depth of its structures, variants and optionals (CTF 2 puts
     * roles where it likes); returns the field's tape slots.
     */
    private int noteRoles(Node n, long[] t, int at) {
        if (n.role != Node.ROLE_NONE) {
            roleValues[n.role] = t[at];
        }
        return switch (n.kind) {
            case Node.STRUCT -> {
                int p = at;
                for (Node c : n.children) {
                    p += noteRoles(c, t, p);
                }
                yield p - at;
            }
            case Node.VARIANT -> 1 + noteRoles(n.children[n.entryOf((int) t[at])], t, at + 1);
            case Node.OPTIONAL -> t[at] != 0 ? 1 + noteRoles(n.element(), t, at + 1) : 1;
            default -> Tape.span(n, t, at);
        };
    }

    /**
     * A packet whose UUID differs from the metadata's is read anyway (babeltrace2 does not
     * check it and valid traces in the wild disagree), but the mismatch is reported once.
     */
    private void checkUuid(long bitPos) {
        UUID expected = plan.trace.uuid();
        if (expected == null || uuidWarned) {
            return;
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | BitReader.read(seg, bitPos + 8L * i, 8, false);
            lo = (lo << 8) | BitReader.read(seg, bitPos + 64 + 8L * i, 8, false);
        }
        UUID actual = new UUID(hi, lo);
        if (!actual.equals(expected)) {
            uuidWarned = true;
            warnings.accept(file + ": packet " + packetNumber + ": packet UUID " + actual
                    + " differs from the trace UUID " + expected + " (read anyway)");
        }
    }

    // ------------------------------------------------------------------ time going back

    private void eventBeforePrevious() {
        if (firstTimeOrderWarning(EVENT_BEFORE_PREVIOUS)) {
            ClockClass c = plan.clocks.get(stream.defaultClock);
            timeOrder.told(
                    EVENT_BEFORE_PREVIOUS,
                    eventBeforePrevious(
                            file,
                            packetNumber,
                            packet.offsetBits(),
                            eventBitOffset,
                            c.time(previousEventClock),
                            c.time(eventClock)));
        }
    }

    /**
     * The warning of an event before the previous one of its stream: in packet {@code packetNumber}
     * of {@code file}, the event at {@code eventOffsetBits}, at {@code nanos}, after one at
     * {@code previousNanos}.
     */
    public static String eventBeforePrevious(
            Path file, long packetNumber, long packetOffsetBits, long eventOffsetBits, long previousNanos, long nanos) {
        return TimeOrderText.eventBeforePrevious(
                file, packetNumber, packetOffsetBits, eventOffsetBits, previousNanos, nanos);
    }

    private void packetBeforePreviousEnd(PacketInfo p) {
        if (firstTimeOrderWarning(PACKET_BEFORE_PREVIOUS_END)) {
            ClockClass c = plan.clocks.get(stream.defaultClock);
            long begin = c.time(p.timestampBegin());
            long previous = c.time(losses.previousEnd());
            timeOrder.told(
                    PACKET_BEFORE_PREVIOUS_END,
                    TimeOrderText.packetBeforePreviousEnd(file, packetNumber, p.offsetBits(), previous, begin));
        }
    }

    /** Whether a warning of this kind is to be told: the first of this decoder (rare: called only when times go back). */
    private boolean firstTimeOrderWarning(int kind) {
        if (timeOrder == null || (timeOrderTold & (1 << kind)) != 0 || stream.defaultClock < 0) {
            return false;
        }
        timeOrderTold |= 1 << kind;
        return true;
    }

    // ------------------------------------------------------------------ events

    private void decodeEvent() throws StreamDecodingException {
        long start = pos;
        scopeRoot = null;
        clockBefore = clock;
        eventBitOffset = start;
        tapeLen = 0;
        eventId = -1;
        StreamPlan sp = stream;
        headerStart = 0;
        if (sp.eventHeader != null) {
            decodeHeader(sp.eventHeader);
        }
        // The event's time is the clock once its header is read; clock fields further on
        // (contexts, payload) move the clock for the events after it.
        eventClock = clock;
        EventPlan ep;
        if (eventId >= 0) {
            ep = sp.event(eventId);
            if (ep == null) {
                throw error(start, "event id " + eventId + " is not declared in stream class " + sp.cls.id())
                        .in(
                                null,
                                ErrorPath.lastDecodedWithRole(
                                        sp.eventHeader, tape, headerStart, Node.ROLE_EVENT_ID, "header"));
            }
        } else if (sp.eventCount() == 1) {
            ep = sp.onlyEvent();
        } else {
            throw error(
                    start,
                    sp.eventCount() == 0
                            ? "packet has content but stream class " + sp.cls.id() + " declares no event"
                            : "event header has no id field");
        }
        event = ep;
        streamContextStart = tapeLen;
        if (sp.eventContext != null) {
            decodeScope(sp.eventContext, "stream event context");
        }
        contextStart = tapeLen;
        if (ep.context != null) {
            decodeScope(ep.context, "event context");
        }
        payloadStart = tapeLen;
        if (ep.payload != null) {
            decodeScope(ep.payload, "event payload");
        }
        if (pos == start) {
            throw error(start, "event '" + ep.cls.name() + "' has a length of 0 bits, which CTF forbids");
        }
    }

    private void ensureTape(int more) {
        if (tapeLen + more > tape.length) {
            tape = Arrays.copyOf(tape, Math.max(tape.length * 2, tapeLen + more));
        }
    }

    private void align(int alignment, String scope) throws StreamDecodingException {
        if (alignment > 1) {
            // from the packet's start, not the file's: a packet may start anywhere a whole byte does
            long aligned = pos + ((packetStart - pos) & (alignment - 1));
            if (aligned > limit) {
                ranOut = true;
                throw error(pos, "alignment padding in the " + scope + " goes past the end of the packet content");
            }
            pos = aligned;
        }
    }

    private void need(long bits, String scope, String what) throws StreamDecodingException {
        if (bits > limit - pos) {
            ranOut = true;
            throw error(
                    pos, what + " in the " + scope + " (" + bits + " bits) goes past the end of the packet content");
        }
    }

    // ------------------------------------------------------------------ steps of compiled scopes (FlatCode)

    private long stepInt(int alignment, int size, boolean bigEndian, boolean signed, String scope)
            throws StreamDecodingException {
        align(alignment, scope);
        if (size > limit - pos) {
            need(size, scope, "an integer");
        }
        long v = BitReader.read(seg, pos, size, bigEndian);
        pos += size;
        return signed ? BitReader.signExtend(v, size) : v;
    }

    private void stepRegister(int register, long v) {
        regs[register] = v;
    }

    private long register(int register) {
        return regs[register];
    }

    private void stepEventId(long v) {
        eventId = v;
    }

    /** What decoding an integer does besides giving its value: tag or length, clock, event id. */
    private void stepEffects(Node n, long v, int size) {
        if (n.register >= 0) {
            regs[n.register] = v;
        }
        if (n.clock >= 0 && !n.signed && n.role != Node.ROLE_TIMESTAMP_END) {
            updateClock(v, size);
        }
        if (n.role == Node.ROLE_EVENT_ID) {
            eventId = v;
        }
    }

    /**
     * A LEB128 integer (CTF 2 variable-length integer), byte-aligned, byte after byte while
     * bit 7 is set. Its value must fit in 64 bits: the bits above bit 63, when some bytes go
     * that far, must be zeros (unsigned) or copies of the sign bit (signed).
     */
    private long stepVarInt(boolean signed, String scope) throws StreamDecodingException {
        align(8, scope);
        long start = pos;
        long v = 0;
        int shift = 0;
        // Whether every bit from bit 63 (signed) or 64 (unsigned) up is zero, or one.
        boolean highZero = true;
        boolean highOne = true;
        int b;
        do {
            need(8, scope, "a variable-length integer");
            b = (int) BitReader.read(seg, pos, 8, false);
            pos += 8;
            int bits = b & 0x7F;
            if (shift < 63) {
                v |= (long) bits << shift;
            } else {
                int high = bits;
                if (shift == 63) {
                    v |= (long) (bits & 1) << 63;
                    high = signed ? bits : bits >>> 1;
                }
                highZero &= high == 0;
                highOne &= high == (signed || shift > 63 ? 0x7F : 0x3F);
            }
            shift += 7;
        } while ((b & 0x80) != 0);
        if (shift > 63) {
            if (!(signed && (b & 0x40) != 0 ? highOne : highZero)) {
                throw error(start, "variable-length integer in the " + scope + " does not fit in 64 bits");
            }
        } else if (signed && (b & 0x40) != 0) {
            v |= -1L << shift;
        }
        return v;
    }

    private long stepFloat(int alignment, int size, boolean bigEndian, String scope) throws StreamDecodingException {
        align(alignment, scope);
        need(size, scope, "a floating point number");
        long v = BitReader.read(seg, pos, size, bigEndian);
        pos += size;
        return v;
    }

    private long stringLength;

    private long stepString(String scope) throws StreamDecodingException {
        align(8, scope);
        long startByte = pos >>> 3;
        long nul = findNul(startByte, limit >>> 3);
        if (nul < 0) {
            throw error(pos, "string in the " + scope + " has no terminating NUL before the end of the packet content");
        }
        stringLength = nul - startByte;
        pos = (nul + 1) << 3;
        return startByte;
    }

    private long stringLength() {
        return stringLength;
    }

    private void stepAlign(int alignment, String scope) throws StreamDecodingException {
        align(alignment, scope);
    }

    private int stepVariant(Node n, String scope) throws StreamDecodingException {
        long tag = regs[n.sourceRegister];
        int option = selectOption(n, tag);
        if (option < 0) {
            throw error(
                    pos,
                    "variant tag value " + (n.tagSigned ? Long.toString(tag) : Long.toUnsignedString(tag)) + " in the "
                            + scope + " selects no option",
                    n);
        }
        return option;
    }

    /** Byte address of a block of {@code bits} at the next byte boundary, or -1 if it does not fit. */
    private long stepBlock(int bits, String scope) throws StreamDecodingException {
        align(8, scope);
        if (bits > limit - pos) {
            ranOut = true;
            return -1;
        }
        return pos >>> 3;
    }

    private long blockRead(long b, int read) {
        return switch (read & ~FlatScope.REAL) {
            case FlatScope.U8 -> seg.get(ValueLayout.JAVA_BYTE, b) & 0xFFL;
            case FlatScope.S8 -> seg.get(ValueLayout.JAVA_BYTE, b);
            case FlatScope.U16 -> seg.get(LE_SHORT, b) & 0xFFFFL;
            case FlatScope.S16 -> seg.get(LE_SHORT, b);
            case FlatScope.U32 -> seg.get(LE_INT, b) & 0xFFFFFFFFL;
            case FlatScope.S32 -> seg.get(LE_INT, b);
            case FlatScope.X64 -> seg.get(LONG_LE, b);
            case FlatScope.U16 | FlatScope.BE -> seg.get(BE_SHORT, b) & 0xFFFFL;
            case FlatScope.S16 | FlatScope.BE -> seg.get(BE_SHORT, b);
            case FlatScope.U32 | FlatScope.BE -> seg.get(BE_INT, b) & 0xFFFFFFFFL;
            case FlatScope.S32 | FlatScope.BE -> seg.get(BE_INT, b);
            default -> seg.get(LONG_BE, b);
        };
    }

    private void advance(int bits) {
        pos += bits;
    }

    /**
     * The event header, like {@link #decodeScope}, from a call site of its own: all events of a
     * stream share one header plan, so the JIT sees one compiled header here and inlines it.
     */
    /** Decodes of a scope before it is compiled: compiling costs more than walking a few events. */
    private static final int COMPILE_AFTER = Integer.getInteger("hetrace.decode.compileAfter", 64);

    private void decodeHeader(Node root) throws StreamDecodingException {
        scopeRoot = root;
        FlatCode.Decoder code = root.code;
        FlatScope f = root.flat;
        if (code != null && f != null) {
            ensureTape(f.maxSlots);
            try {
                tapeLen = code.run(this, f, tape, tapeLen);
            } catch (StreamDecodingException e) {
                throw walkAgain(root, "event header", eventBitOffset, clockBefore, e);
            }
        } else {
            decodeScope(root, "event header");
        }
    }

    /**
     * Decodes an event scope: by its compiled flat plan when it has one ({@link FlatCode}), else
     * by walking its nodes. Both fill the tape and the state alike.
     */
    private void decodeScope(Node root, String scope) throws StreamDecodingException {
        scopeRoot = root;
        FlatScope f = root.flat;
        if (f == null && !root.flatChecked && (++root.uses < COMPILE_AFTER || !FlatCode.mayCompileMore())) {
            // Rare scopes (most event classes of traces that declare thousands) are walked.
            walk(root, scope);
            return;
        }
        if (f == null && !root.flatChecked) {
            // Built once; threads racing here build equal plans, and a reader seeing none walks.
            f = FlatScope.of(root);
            root.flat = f;
            root.flatChecked = true;
        }
        if (f != null) {
            FlatCode.Decoder code = root.code;
            if (code == null && !root.codeChecked) {
                code = FlatCode.compile(f, scope, MethodHandles.lookup());
                root.code = code;
                root.codeChecked = true;
            }
            if (code != null) {
                ensureTape(f.maxSlots);
                long start = pos;
                long clockAtStart = clock;
                try {
                    tapeLen = code.run(this, f, tape, tapeLen);
                } catch (StreamDecodingException e) {
                    throw walkAgain(root, scope, start, clockAtStart, e);
                }
                return;
            }
        }
        walk(root, scope);
    }

    /** Walks a scope's nodes; an error names the field it is in ({@link #inField}). */
    private void walk(Node root, String scope) throws StreamDecodingException {
        try {
            decodeNode(root, scope);
        } catch (StreamDecodingException e) {
            throw inField(e, scope);
        }
    }

    /**
     * A compiled scope failed: the compiled code does not track where it is, so the scope is
     * walked again from where it started (same position, clock and tape slot; registers and the
     * event id are written again before they are read), which fails at the same place, as the
     * compiled code keeps to the walk's errors, and names the field. Runs only on errors.
     */
    private StreamDecodingException walkAgain(
            Node root, String scope, long start, long clockAtStart, StreamDecodingException e) {
        if (failedPath != null) {
            failedPath.clear();
        }
        pos = start;
        clock = clockAtStart;
        try {
            decodeNode(root, scope);
        } catch (StreamDecodingException again) {
            if (again.bitOffset() == e.bitOffset()) {
                return inField(again, scope);
            }
        }
        if (failedPath != null) {
            failedPath.clear();
        }
        return e.in(eventOf(scope), null);
    }

    /** {@code e}, thrown by the walk of a scope's nodes, said to be in the field {@link #failedPath} names. */
    private StreamDecodingException inField(StreamDecodingException e, String scope) {
        String path = failedPath == null ? ErrorPath.scopePrefix(scope) : failedPath.take(scope);
        return e.in(eventOf(scope), path);
    }

    /** The event class of the event whose scope {@code scope} is decoded, as errors name it, or null. */
    private String eventOf(String scope) {
        EventPlan ep = switch (scope) {
            case "packet header", "packet context" -> null;
            case "event header" -> eventId >= 0 && stream != null ? stream.event(eventId) : null;
            default -> event;
        };
        return ep == null ? null : "event '" + ep.cls.name() + "' (id " + ep.cls.id() + ")";
    }

    /** Notes that the error leaving the walk of a node is in its member or element {@code step} (a name or a Long index). */
    private StreamDecodingException within(StreamDecodingException e, Object step) {
        if (failedPath == null) {
            failedPath = new ErrorPath();
        }
        failedPath.add(step);
        return e;
    }

    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * A block that does not fit in what is left of the packet: its fields one by one, so that
     * the error names the first one that goes past the end, as the tree walk would.
     */
    private int blockFallback(FlatScope f, int pc, long[] t, int len, String scope) throws StreamDecodingException {
        int[] reads = f.blockRead[pc];
        for (int readAndKind : reads) {
            boolean real = (readAndKind & FlatScope.REAL) != 0;
            int read = readAndKind & ~FlatScope.REAL;
            int size = switch (read & ~FlatScope.BE) {
                case FlatScope.U8, FlatScope.S8 -> 8;
                case FlatScope.U16, FlatScope.S16 -> 16;
                case FlatScope.U32, FlatScope.S32 -> 32;
                default -> 64;
            };
            need(size, scope, real ? "a floating point number" : "an integer");
            long v = BitReader.read(seg, pos, size, (read & FlatScope.BE) != 0);
            pos += size;
            if (read == FlatScope.S8
                    || (read & ~FlatScope.BE) == FlatScope.S16
                    || (read & ~FlatScope.BE) == FlatScope.S32) {
                v = BitReader.signExtend(v, size);
            }
            t[len++] = v;
        }
        return len;
    }

    /** Decodes one field and everything in it, appending to the tape. */
    private void decodeNode(Node n, String scope) throws StreamDecodingException {
        switch (n.kind) {
            case Node.INT -> {
                long v = stepInt(n.align, n.size, n.bigEndian, n.signed, scope);
                ensureTape(1);
                tape[tapeLen++] = v;
                stepEffects(n, v, n.size);
            }
            case Node.BOOL -> {
                long v = stepInt(n.align, n.size, n.bigEndian, false, scope);
                ensureTape(1);
                tape[tapeLen++] = v;
                if (n.register >= 0) {
                    regs[n.register] = v != 0 ? 1 : 0;
                }
            }
            case Node.VARINT -> {
                long start = pos;
                long v = stepVarInt(n.signed, scope);
                ensureTape(2);
                tape[tapeLen++] = v;
                tape[tapeLen++] = pos - start;
                stepEffects(n, v, 64);
            }
            case Node.BIG_INT -> {
                align(n.align, scope);
                need(n.size, scope, "an integer");
                ensureTape(1);
                tape[tapeLen++] = pos;
                pos += n.size;
            }
            case Node.FLOAT -> {
                align(n.align, scope);
                need(n.size, scope, "a floating point number");
                ensureTape(1);
                tape[tapeLen++] = BitReader.read(seg, pos, n.size, n.bigEndian);
                pos += n.size;
            }
            case Node.STRING -> {
                align(8, scope);
                long startByte = pos >>> 3;
                int unit = n.charset.unitBytes();
                if (unit > 1) {
                    long nul = findNulUnit(startByte, limit >>> 3, unit);
                    if (nul < 0) {
                        throw error(
                                pos,
                                "string in the " + scope + " has no terminating " + unit + "-byte NUL before"
                                        + " the end of the packet content",
                                n);
                    }
                    ensureTape(2);
                    tape[tapeLen++] = startByte;
                    tape[tapeLen++] = nul - startByte;
                    pos = (nul + unit) << 3;
                    return;
                }
                long nul = findNul(startByte, limit >>> 3);
                if (nul < 0) {
                    throw error(
                            pos,
                            "string in the " + scope + " has no terminating NUL before the end of the"
                                    + " packet content",
                            n);
                }
                ensureTape(2);
                tape[tapeLen++] = startByte;
                tape[tapeLen++] = nul - startByte;
                pos = (nul + 1) << 3;
            }
            case Node.STRUCT -> {
                align(n.align, scope);
                Node[] members = n.children;
                for (int i = 0; i < members.length; i++) {
                    try {
                        decodeNode(members[i], scope);
                    } catch (StreamDecodingException e) {
                        // a run names its member itself
                        throw members[i].kind == Node.RUN ? e : within(e, ErrorPath.member(n, i));
                    }
                }
            }
            case Node.VARIANT -> {
                checkGuards(n, scope);
                long tag = regs[n.sourceRegister];
                int option = selectOption(n, tag);
                if (option < 0) {
                    throw error(
                            pos,
                            "variant tag value " + (n.tagSigned ? Long.toString(tag) : Long.toUnsignedString(tag))
                                    + " in the " + scope + " selects no option",
                            n);
                }
                ensureTape(1);
                tape[tapeLen++] = option;
                if (n.register >= 0) {
                    regs[n.register] = n.entryOf(option);
                }
                try {
                    decodeNode(n.children[n.entryOf(option)], scope);
                } catch (StreamDecodingException e) {
                    throw within(e, n.optionName(option));
                }
            }
            case Node.OPTIONAL -> {
                checkGuards(n, scope);
                boolean enabled = n.optionalEnabled(regs[n.sourceRegister]);
                ensureTape(1);
                tape[tapeLen++] = enabled ? 1 : 0;
                if (n.register >= 0) {
                    regs[n.register] = enabled ? 1 : 0;
                }
                if (enabled) {
                    decodeNode(n.element(), scope);
                }
            }
            case Node.ARRAY, Node.RUN -> {
                align(n.align, scope);
                checkCount(n.length, n.element(), scope);
                for (long k = 0; k < n.length; k++) {
                    try {
                        decodeNode(n.element(), scope);
                    } catch (StreamDecodingException e) {
                        throw within(e, n.kind == Node.RUN ? ErrorPath.runMember(n, k) : (Object) k);
                    }
                }
            }
            case Node.SEQUENCE -> {
                checkGuards(n, scope);
                long count = regs[n.sourceRegister];
                align(n.align, scope);
                checkCount(count, n.element(), scope);
                ensureTape(1);
                tape[tapeLen++] = count;
                for (long k = 0; k < count; k++) {
                    try {
                        decodeNode(n.element(), scope);
                    } catch (StreamDecodingException e) {
                        throw within(e, k);
                    }
                }
            }
            case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> {
                checkGuards(n, scope);
                long count = n.kind != Node.PACKED_SEQUENCE ? n.length : regs[n.sourceRegister];
                align(n.align, scope);
                if (count < 0 || (count > 0 && Long.compareUnsigned(count, (limit - pos) / n.size) > 0)) {
                    throw error(
                            pos,
                            (n.kind == Node.PACKED_SEQUENCE
                                            ? "sequence"
                                            : n.kind == Node.PACKED_RUN ? "run of struct members" : "array")
                                    + " of "
                                    + Long.toUnsignedString(count) + " elements in the " + scope
                                    + " goes past the end of the packet content",
                            n);
                }
                ensureTape(2);
                tape[tapeLen++] = pos;
                tape[tapeLen++] = count;
                pos += count * n.size;
            }
            case Node.CHAIN -> decodeChain(n, scope);
            default -> throw new IllegalStateException("unknown node kind " + n.kind);
        }
    }

    /** A length or selector located through variants or optionals must be in the options decoded (CTF 2). */
    private void checkGuards(Node n, String scope) throws StreamDecodingException {
        if (n.guardRegisters != null && !n.guardsHold(regs)) {
            throw error(
                    pos,
                    "the " + (n.kind == Node.VARIANT || n.kind == Node.OPTIONAL ? "selector" : "length")
                            + " field of a field in the " + scope
                            + " is in a variant option or optional that was not decoded",
                    n);
        }
    }

    /** Nested structs of one shape (see {@link Node#CHAIN}), level by level, without recursion. */
    private void decodeChain(Node n, String scope) throws StreamDecodingException {
        if (n.minBits > limit - pos) {
            throw error(
                    pos,
                    n.length + " nested structs in the " + scope + " (at least " + n.minBits
                            + " bits) go past the end of the packet content");
        }
        Node level = n.element();
        Node[] members = level.children;
        int h = n.chainHole;
        long levels = n.length;
        // the level (1 = innermost) and member being decoded, for an error to name them
        long k = levels;
        int i = 0;
        try {
            align(n.align, scope);
            for (i = 0; i < h; i++) {
                decodeNode(members[i], scope);
            }
            for (k = levels - 1; k >= 1; k--) {
                align(level.align, scope);
                for (i = 0; i < h; i++) {
                    decodeNode(members[i], scope);
                }
            }
            k = 1;
            i = h;
            decodeNode(members[h], scope);
            if (h + 1 < members.length) {
                for (k = 1; k <= levels; k++) {
                    for (i = h + 1; i < members.length; i++) {
                        decodeNode(members[i], scope);
                    }
                }
            }
        } catch (StreamDecodingException e) {
            // member i of level k, in the holes of the levels above it
            within(e, ErrorPath.member(level, i));
            for (long above = k + 1; above <= levels; above++) {
                within(e, ErrorPath.chainHole(n, above));
            }
            throw e;
        }
    }

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Offset of the first NUL byte in {@code [from, to)}, or -1; reads 8 bytes at a time. */
    private long findNul(long from, long to) {
        long i = from;
        while (to - i >= 8) {
            long w = seg.get(LONG_LE, i);
            long zeros = (w - 0x0101010101010101L) & ~w & 0x8080808080808080L;
            if (zeros != 0) {
                return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
            }
            i += 8;
        }
        while (i < to) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
            i++;
        }
        return -1;
    }

    /**
     * Offset of the first NUL code unit of {@code unit} bytes (UTF-16 or UTF-32) in
     * {@code [from, to)}, counting units from {@code from}, or -1 when no whole one is there.
     */
    private long findNulUnit(long from, long to, int unit) {
        for (long i = from; to - i >= unit; i += unit) {
            boolean zero = unit == 2
                    ? seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, i) == 0
                    : seg.get(ValueLayout.JAVA_INT_UNALIGNED, i) == 0;
            if (zero) {
                return i;
            }
        }
        return -1;
    }

    /** Zero-size elements (empty structs) cost no bits; this many of them is surely garbage. */
    private static final long MAX_EMPTY_ELEMENTS = 1L << 24;

    private void checkCount(long count, Node element, String scope) throws StreamDecodingException {
        long left = limit - pos;
        boolean tooMany = element.minBits > 0
                ? Long.compareUnsigned(count, left / element.minBits) > 0
                : Long.compareUnsigned(count, Math.max(left, MAX_EMPTY_ELEMENTS)) > 0;
        if (tooMany) {
            throw error(
                    pos,
                    "array or sequence of " + Long.toUnsignedString(count) + " elements in the " + scope
                            + " cannot fit in the " + left + " bits left in the packet content");
        }
    }

    static int selectOption(Node n, long tag) {
        return n.selector.select(tag);
    }

    private void updateClock(long v, int size) {
        clock = ClockFields.updated(clock, v, size);
    }

    // ------------------------------------------------------------------ tape navigation

    // ------------------------------------------------------------------ accessors

    public MemorySegment segment() {
        return seg;
    }

    public Path file() {
        return file;
    }

    public PacketInfo packet() {
        return packet;
    }

    public StreamPlan streamPlan() {
        return stream;
    }

    public EventPlan event() {
        return event;
    }

    public long[] tape() {
        return tape;
    }

    public long[] packetTape() {
        return packetTape;
    }

    public int packetContextStart() {
        return packetContextStart;
    }

    public int headerStart() {
        return headerStart;
    }

    public int streamContextStart() {
        return streamContextStart;
    }

    public int contextStart() {
        return contextStart;
    }

    public int payloadStart() {
        return payloadStart;
    }

    /** Clock value (in cycles of the stream's default clock) of the current event. */
    public long clockValue() {
        return eventClock;
    }

    /** Clock value at the beginning of the current packet. */
    public long eventBitOffset() {
        return eventBitOffset;
    }

    /**
     * The packet_size field of the packet last read, as decoded ({@link PacketInfo#ABSENT} if
     * none), even when the packet was refused: a torn packet's size may still say where the
     * next one is.
     */
    public long packetSizeField() {
        return roleValues[Node.ROLE_PACKET_SIZE];
    }

    /** Where the decoder is, for error messages after the fact. */
    public long position() {
        return pos;
    }
}
