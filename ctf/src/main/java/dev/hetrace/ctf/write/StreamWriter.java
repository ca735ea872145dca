package dev.hetrace.ctf.write;

import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * One data stream being written: events are encoded into the current packet, which is closed
 * (its header and context completed) and appended to the file when the next event does not
 * fit or when the stream is flushed or closed. Memory use is one packet.
 *
 * <p>Timestamps are in cycles of the stream's clock and must not go backwards. Event header
 * fields are chosen by the writer: integers named {@code id} get the event class id, integers
 * mapped to the clock get the timestamp (truncated to their width, which readers undo as long
 * as less than one wrap separates two events), and a variant in the header takes the first
 * option that can represent both, as LTTng's compact and extended headers need.
 */
public final class StreamWriter implements AutoCloseable {
    private static final long CTF_MAGIC = 0xC1FC1FC1L;
    private static final int DEFAULT_PACKET_BYTES = 64 * 1024;

    private final TracePlan plan;
    private final StreamPlan stream;
    private final long instanceId;
    private final Path file;
    private final FileChannel channel;
    private final int packetAlignBits;
    private final BitWriter out;
    /** Encodes the values of fields; holds the registers and the clock as a reader rebuilds them. */
    private final FieldEncoder enc;
    /** Whether the packet context says where a packet ends; if not, the whole file is one packet. */
    private final boolean packeted;

    private final boolean hasPacketSize;

    private long packetCapacityBits;
    private final Map<String, Object> packetContextValues = new HashMap<>();
    private final Map<String, Object> packetHeaderValues = new HashMap<>();

    private boolean packetOpen;
    private long contextEndBits;
    private long packetSeqNum;
    private long eventsDiscarded;
    private long tsBegin;
    private long lastTimestamp;
    private boolean anyEvent;
    /** The clock (as a reader reconstructs it) when the current packet opened. */
    private long clockAtOpen;

    private boolean closed;

    StreamWriter(TracePlan plan, StreamPlan stream, long instanceId, Path file, int packetAlignBits)
            throws IOException {
        this.plan = plan;
        this.stream = stream;
        this.instanceId = instanceId;
        this.file = file;
        this.packetAlignBits = packetAlignBits;
        this.out = new BitWriter(DEFAULT_PACKET_BYTES);
        this.packetCapacityBits = roundUp(8L * DEFAULT_PACKET_BYTES, packetAlignBits);
        UUID uuid = plan.trace.uuid();
        byte[] uuidBytes = new byte[16];
        if (uuid != null) {
            ByteBuffer.wrap(uuidBytes).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        }
        this.enc = new FieldEncoder(out, plan.registerCount, uuidBytes, file);
        this.hasPacketSize = hasRole(stream.packetContext, Node.ROLE_PACKET_SIZE);
        this.packeted = hasPacketSize || hasRole(stream.packetContext, Node.ROLE_CONTENT_SIZE);
        this.channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /** Packet size in bytes for the packets opened from now on (rounded up to the trace's largest alignment). */
    public StreamWriter packetSize(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("packet size must be positive: " + bytes);
        }
        packetCapacityBits = roundUp(8L * bytes, packetAlignBits);
        return this;
    }

    /** Value of a packet context member the writer does not fill itself (e.g. {@code cpu_id}), for the next packets. */
    public StreamWriter packetContext(String member, Object value) {
        packetContextValues.put(member, value);
        return this;
    }

    /** Value of a packet header member the writer does not fill itself, for the next packets. */
    public StreamWriter packetHeader(String member, Object value) {
        packetHeaderValues.put(member, value);
        return this;
    }

    /** Counts {@code count} events as lost by the tracer; the next packet's events_discarded says so. */
    public void discard(long count) {
        eventsDiscarded += count;
    }

    public Path file() {
        return file;
    }

    public long packetsWritten() {
        return packetSeqNum;
    }

    /** Writes an event with only a payload (a struct value: a Map by member name, a List, or an Object[]). */
    public void event(long eventClassId, long timestamp, Object payload) throws IOException {
        event(eventClassId, timestamp, null, null, payload);
    }

    /**
     * Writes an event.
     *
     * @param timestamp     clock cycles; not before the previous event's
     * @param streamContext the stream's event context value, or null if the stream has none
     * @param context       the event class's specific context value, or null if it has none
     * @param payload       the payload value, or null if the event class has none
     */
    public void event(long eventClassId, long timestamp, Object streamContext, Object context, Object payload)
            throws IOException {
        if (closed) {
            throw new IllegalStateException(file + ": stream is closed");
        }
        EventPlan ep = stream.event(eventClassId);
        if (ep == null) {
            throw new IllegalArgumentException(
                    "event class " + eventClassId + " is not declared in stream class " + stream.cls.id());
        }
        if (stream.eventHeader == null && stream.events.size() > 1) {
            throw new IllegalArgumentException("stream class " + stream.cls.id() + " has several event classes but no"
                    + " event header to tell them apart");
        }
        if (anyEvent && Long.compareUnsigned(timestamp, lastTimestamp) < 0) {
            throw new IllegalArgumentException(
                    "event '" + ep.cls.name() + "': timestamp " + Long.toUnsignedString(timestamp)
                            + " is before the previous event's (" + Long.toUnsignedString(lastTimestamp) + ")");
        }
        if (!packetOpen) {
            openPacket(timestamp);
        }
        long mark = out.pos;
        byte partial = out.byteAt(mark);
        long clockBefore = enc.clock;
        long[] regsBefore = enc.regs.clone();
        try {
            encodeEvent(ep, timestamp, streamContext, context, payload);
        } catch (RuntimeException e) {
            // A value the field cannot hold: the event is not written at all.
            out.rewind(mark, partial);
            enc.clock = clockBefore;
            System.arraycopy(regsBefore, 0, enc.regs, 0, enc.regs.length);
            throw e;
        }
        if (packeted && out.pos > packetCapacityBits && mark > contextEndBits) {
            // Does not fit: the event starts the next packet instead (whose header sets the clock anew).
            out.rewind(mark, partial);
            enc.clock = clockBefore;
            System.arraycopy(regsBefore, 0, enc.regs, 0, enc.regs.length);
            closePacket();
            openPacket(timestamp);
            encodeEvent(ep, timestamp, streamContext, context, payload);
        }
        lastTimestamp = timestamp;
        anyEvent = true;
    }

    private void encodeEvent(EventPlan ep, long timestamp, Object streamContext, Object context, Object payload) {
        long start = out.pos;
        enc.headerId = ep.cls.id();
        enc.headerTimestamp = timestamp;
        enc.depth = 0;
        if (stream.eventHeader != null) {
            enc.headerTags.clear();
            enc.scopeMode = FieldEncoder.SCOPE_EVENT_HEADER;
            enc.scopeName = "event header";
            enc.chooseHeaderOptions(stream.eventHeader);
            enc.encode(stream.eventHeader, null);
        }
        enc.scopeMode = FieldEncoder.SCOPE_USER;
        scope("stream event context", stream.eventContext, streamContext, ep);
        scope("event context", ep.context, context, ep);
        scope("payload", ep.payload, payload, ep);
        if (out.pos == start) {
            throw new IllegalArgumentException(
                    "event '" + ep.cls.name() + "' would have a length of 0 bits, which CTF" + " forbids");
        }
    }

    private void scope(String name, Node root, Object value, EventPlan ep) {
        if (root == null) {
            if (value != null) {
                throw new IllegalArgumentException("event '" + ep.cls.name() + "': a " + name + " value was given but"
                        + " the metadata declares no " + name);
            }
            return;
        }
        enc.scopeName = "event '" + ep.cls.name() + "' " + name;
        enc.depth = 0;
        enc.encode(root, value);
    }

    /**
     * Writes the current packet to the file (the next event opens a new one). A stream whose
     * packet context has neither packet_size nor content_size is a single packet: it is
     * written when the stream is closed.
     */
    public void flush() throws IOException {
        if (packetOpen && packeted) {
            closePacket();
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            if (packetOpen) {
                closePacket();
            }
        } finally {
            closed = true;
            channel.close();
        }
    }

    // ------------------------------------------------------------------ packets

    private void openPacket(long timestamp) {
        tsBegin = timestamp;
        clockAtOpen = enc.clock;
        Arrays.fill(enc.regs, 0);
        out.rewind(0, (byte) 0);
        encodePacketScopes(timestamp, timestamp, packetCapacityBits, packetCapacityBits);
        contextEndBits = out.pos;
        packetOpen = true;
    }

    private void closePacket() throws IOException {
        long content = out.pos;
        // Without packet_size, readers take the content rounded up to a byte as the packet.
        long packetBits =
                hasPacketSize ? roundUp(Math.max(content, packetCapacityBits), packetAlignBits) : roundUp(content, 8);
        long end = out.pos;
        long clockAfter = enc.clock;
        long[] regsAfter = enc.regs.clone();
        out.pos = 0;
        enc.clock = clockAtOpen;
        Arrays.fill(enc.regs, 0);
        encodePacketScopes(tsBegin, anyEvent ? Math.max(lastTimestamp, tsBegin) : tsBegin, packetBits, content);
        if (out.pos != contextEndBits) {
            throw new IllegalStateException(
                    "the packet context's size depends on its values; this writer cannot" + " complete it");
        }
        out.pos = end;
        enc.clock = clockAfter;
        System.arraycopy(regsAfter, 0, enc.regs, 0, enc.regs.length);
        int bytes = Math.toIntExact(packetBits >>> 3);
        out.ensure(packetBits - out.pos);
        ByteBuffer b = ByteBuffer.wrap(out.buf, 0, bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
        enc.fileBits += packetBits;
        packetSeqNum++;
        packetOpen = false;
        out.rewind(0, (byte) 0);
    }

    private void encodePacketScopes(long begin, long end, long packetBits, long contentBits) {
        Arrays.fill(enc.roleValues, Long.MIN_VALUE);
        enc.roleValues[Node.ROLE_MAGIC] = CTF_MAGIC;
        enc.roleValues[Node.ROLE_STREAM_ID] = stream.cls.id();
        enc.roleValues[Node.ROLE_STREAM_INSTANCE_ID] = instanceId;
        enc.roleValues[Node.ROLE_TIMESTAMP_BEGIN] = begin;
        enc.roleValues[Node.ROLE_TIMESTAMP_END] = end;
        enc.roleValues[Node.ROLE_PACKET_SIZE] = packetBits;
        enc.roleValues[Node.ROLE_CONTENT_SIZE] = contentBits;
        enc.roleValues[Node.ROLE_EVENTS_DISCARDED] = eventsDiscarded;
        enc.roleValues[Node.ROLE_PACKET_SEQ_NUM] = packetSeqNum;
        enc.scopeMode = FieldEncoder.SCOPE_PACKET;
        enc.depth = 0;
        if (plan.packetHeader != null) {
            enc.scopeName = "packet header";
            enc.encode(plan.packetHeader, packetHeaderValues);
        }
        if (stream.packetContext != null) {
            enc.scopeName = "packet context";
            enc.encode(stream.packetContext, packetContextValues);
        }
    }

    private static boolean hasRole(Node scope, int role) {
        if (scope == null) {
            return false;
        }
        for (Node c : scope.children) {
            if (c.role == role) {
                return true;
            }
        }
        return false;
    }

    private static long roundUp(long v, long multiple) {
        return (v + multiple - 1) / multiple * multiple;
    }
}
