package dev.hetrace.ctf;

import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import java.util.List;

/**
 * Merges the events of every stream of one or more traces in timestamp order. Ties are broken
 * deterministically (by trace, then stream), so the same input always gives the same order.
 * The cursor reuses its decoders: an event seen through it is valid until the next call.
 *
 * <p>Losses the packet contexts reveal ({@link Discarded}) take their place in the merge at
 * the start of their time range, as babeltrace2's messages do, and go to a
 * {@link DiscardedListener}. {@link #seek} starts every stream at a given time using the packet
 * indexes; {@link #stopAfter} ends the merge at a given time.
 */
public final class EventCursor {
    /** Told of the items tracers lost, in merged order: before the events that follow the loss. */
    @FunctionalInterface
    public interface DiscardedListener {
        /**
         * @param trace  the trace of the stream that lost them
         * @param stream index of that stream in {@link CtfTrace#streams()}
         */
        void discarded(Discarded items, CtfTrace trace, int stream);
    }

    private static final int EVENT = 0;
    private static final int DISCARDED_EVENTS = 1;
    private static final int DISCARDED_PACKETS = 2;

    /** Streams decoded with a decoder each, at most (more when none can be parked); the others are parked. */
    static final int DEFAULT_MAX_LIVE = 1024;

    private static final byte HELD = 1;
    private static final byte HAS_EVENT = 2;
    /** The stream's decoder is parked: its state is in the p* arrays. */
    private static final byte PARKED = 4;

    private static final byte P_HAVE_PREVIOUS = 8;
    private static final byte P_UUID_WARNED = 16;

    private final List<CtfTrace> traces;
    private final int streamCount;
    /** Index of the first stream of each trace (and the stream count at the end). */
    private final int[] traceFirst;

    private final int[] traceOfStream;
    private final int[] traceRank;
    /** The live decoder of each stream, or null (not started, parked, or done). */
    private final StreamDecoder[] decoders;
    /** Streams by their head item, in merge order. */
    private final IndexHeap heap;
    /** Time of each stream's head item (its next event or loss). */
    private final long[] time;
    /** HELD: the decoder has moved to an item (an event, or the end) that has not become the stream's head yet. */
    private final byte[] flags;
    /** The event class of each stream's head event (or of its held event). */
    private final EventPlan[] headEvent;
    /** The stream's head is this loss rather than the decoder's event. */
    private final Discarded[] loss;
    /** The times of each stream's events (null until its first event). */
    private final StreamClock[] clocks;
    /** The clock value of each stream's head event whose time is saturated, or null while none is. */
    private long[] saturatedCycles;
    /** With {@link #monotonicTimes()}: the latest time of each stream's events so far; else null. */
    private long[] latest;
    /** After a seek: the seek time, until the stream reaches it; else {@link Long#MIN_VALUE}; null before a seek. */
    private long[] skipBefore;

    private boolean started;
    private int current = -1;
    private long stopAfter = Long.MAX_VALUE;
    private DiscardedListener discardedListener = (items, trace, stream) -> {};

    // Streams with a live decoder, and where to resume those that were parked.
    private final int maxLive;
    private int[] live;
    private int liveCount;
    private int evictFrom;
    /** Where each stream is in {@link #live} (null for few streams: searched). */
    private final int[] livePos;

    private int[] pFile;
    private long[] pPacket;
    private long[] pNumber;
    private long[] pEvent;
    private long[] pClock;
    private long[] pDiscarded;
    private long[] pSeqNum;
    private long[] pEnd;
    private final long[] lossState = new long[4];

    public EventCursor(List<CtfTrace> traces) {
        this(traces, DEFAULT_MAX_LIVE);
    }

    /** A cursor that keeps at most {@code maxLive} decoders (about a kilobyte each), parking the other streams. */
    EventCursor(List<CtfTrace> traces, int maxLive) {
        this.traces = traces;
        traceFirst = new int[traces.size() + 1];
        long n = 0;
        for (int t = 0; t < traces.size(); t++) {
            traceFirst[t] = (int) n;
            n += traces.get(t).streams().size();
            if (n > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("too many streams: " + n);
            }
        }
        streamCount = (int) n;
        traceFirst[traces.size()] = streamCount;
        traceOfStream = new int[streamCount];
        for (int t = 0; t < traces.size(); t++) {
            java.util.Arrays.fill(traceOfStream, traceFirst[t], traceFirst[t + 1], t);
        }
        decoders = new StreamDecoder[streamCount];
        heap = new IndexHeap(streamCount, this::less);
        time = new long[streamCount];
        flags = new byte[streamCount];
        headEvent = new EventPlan[streamCount];
        loss = new Discarded[streamCount];
        clocks = new StreamClock[streamCount];
        traceRank = MergeOrder.traceRanks(traces);
        this.maxLive = Math.max(2, maxLive);
        live = new int[Math.min(this.maxLive, Math.max(2, streamCount))];
        livePos = streamCount > 64 ? new int[streamCount] : null;
    }

    /** Where losses go (by default nowhere). */
    public void onDiscarded(DiscardedListener listener) {
        this.discardedListener = listener;
    }

    /**
     * Makes each stream's times never go back: an event whose time is before the previous event
     * of its stream is given that event's time, before the merge orders it. What an analysis
     * needs (an interval never ends before it begins, every table agrees), while {@code print}
     * shows the times as recorded. The stream's decoder says where it happens ({@link
     * StreamDecoder#watchTimeOrder}). To be called before the first {@link #next()}.
     */
    public void monotonicTimes() {
        if (latest == null) {
            latest = new long[streamCount];
            java.util.Arrays.fill(latest, Long.MIN_VALUE);
        }
    }

    /**
     * Ends the merge at the first event or loss later than {@code nanos}, as babeltrace2's
     * trimmer ends all streams at the first message past its end time. A loss whose range goes
     * past that time is cut there, and how many items it counted becomes unknown.
     */
    public void stopAfter(long nanos) {
        stopAfter = nanos;
    }

    /**
     * Moves to the next event in time order, first telling the listener of losses that come
     * before it.
     *
     * @return false when every stream is exhausted (or the stop time is passed)
     */
    public boolean next() throws StreamDecodingException {
        if (!started) {
            started = true;
            for (int i = 0; i < streamCount; i++) {
                if (advance(i)) {
                    heap.push(i);
                }
            }
        } else if (current >= 0) {
            int c = current;
            if (advance(c)) {
                if (loss[c] == null && time[c] <= stopAfter && (heap.size() == 0 || time[c] < time[heap.peek()])) {
                    // still before every other stream's head (streams run in bursts): no heap work
                    return true;
                }
                heap.push(c);
            }
        }
        current = -1;
        while (heap.size() > 0) {
            int top = heap.pop();
            if (time[top] > stopAfter) {
                heap.clear();
                return false;
            }
            Discarded items = loss[top];
            if (items != null) {
                if (items.hasTimeRange() && items.endNanos() > stopAfter) {
                    items = items.endingAt(snap(top, stopAfter));
                }
                discardedListener.discarded(items, traces.get(traceOfStream[top]), streamOf(top));
                if (advance(top)) {
                    heap.push(top);
                }
                continue;
            }
            live(top);
            current = top;
            return true;
        }
        return false;
    }

    /**
     * Makes stream {@code i}'s next item its head: a loss found at a packet boundary the
     * decoder crossed, else the event the decoder stands on (decoding it first if needed).
     * After a seek, items before the seek time are skipped as babeltrace2's seek skips them.
     *
     * @return false when the stream has nothing left
     */
    private boolean advance(int i) throws StreamDecodingException {
        while (nextItem(i)) {
            long from = skipBefore == null ? Long.MIN_VALUE : skipBefore[i];
            if (from == Long.MIN_VALUE) {
                return true;
            }
            Discarded items = loss[i];
            if (items != null) {
                if (!items.hasTimeRange()) {
                    return true;
                }
                if (items.beginNanos() >= from) {
                    skipBefore[i] = Long.MIN_VALUE;
                    return true;
                }
                if (items.endNanos() >= from) {
                    // Straddles the seek time: kept from that time on, but the events before
                    // it in this stream are still skipped. It keeps its place in the merge
                    // (its original start), as babeltrace2 seeks in the merged messages.
                    loss[i] = items.startingAt(snap(i, from));
                    return true;
                }
                continue; // lost entirely before the seek time
            }
            if (decoders[i].streamPlan().defaultClock < 0 || time[i] >= from) {
                skipBefore[i] = Long.MIN_VALUE;
                return true;
            }
        }
        return false;
    }

    private boolean nextItem(int i) throws StreamDecodingException {
        StreamDecoder d = live(i);
        if ((flags[i] & HELD) == 0) {
            flags[i] = (byte) (flags[i] | HELD);
            if (d.next()) {
                flags[i] = (byte) (flags[i] | HAS_EVENT);
                headEvent[i] = d.event();
            } else {
                flags[i] = (byte) (flags[i] & ~HAS_EVENT);
                headEvent[i] = null;
            }
        }
        Discarded items = d.pollDiscarded();
        if (items != null) {
            loss[i] = items;
            time[i] = items.hasTimeRange() ? items.beginNanos() : Long.MIN_VALUE;
            return true;
        }
        loss[i] = null;
        flags[i] = (byte) (flags[i] & ~HELD);
        if ((flags[i] & HAS_EVENT) == 0) {
            release(i);
            return false;
        }
        long t = streamTime(i, d);
        if (latest != null) {
            if (t < latest[i]) {
                t = latest[i];
            } else {
                latest[i] = t;
            }
        }
        time[i] = t;
        return true;
    }

    // ------------------------------------------------------------------ live and parked decoders

    private int streamOf(int i) {
        return i - traceFirst[traceOfStream[i]];
    }

    /**
     * The decoder of stream {@code i}, made live if it is not: a new one for a stream not
     * started, or one resumed where the stream was parked (its head or held event decoded
     * again). Another stream may be parked to make room.
     */
    private StreamDecoder live(int i) throws StreamDecodingException {
        StreamDecoder d = decoders[i];
        if (d != null) {
            return d;
        }
        if (liveCount >= maxLive) {
            evictOne(i);
        }
        CtfTrace trace = traces.get(traceOfStream[i]);
        d = trace.decoder(streamOf(i));
        if ((flags[i] & PARKED) != 0) {
            byte f = flags[i];
            d.resume(
                    pFile[i],
                    pPacket[i],
                    pNumber[i],
                    pEvent[i],
                    pClock[i],
                    (f & P_HAVE_PREVIOUS) != 0,
                    pDiscarded[i],
                    pSeqNum[i],
                    pEnd[i],
                    (f & P_UUID_WARNED) != 0);
            if (!d.next() || d.pollDiscarded() != null) {
                throw new IllegalStateException("a parked stream did not resume where it was");
            }
            flags[i] = (byte) (f & ~(PARKED | P_HAVE_PREVIOUS | P_UUID_WARNED));
        }
        decoders[i] = d;
        if (liveCount == live.length) {
            growLive();
        }
        if (livePos != null) {
            livePos[i] = liveCount;
        }
        live[liveCount++] = i;
        return d;
    }

    /** No live stream could be parked (each has losses waiting): more decoders than the limit, for a while. */
    private void growLive() {
        live = java.util.Arrays.copyOf(live, Math.min(streamCount, live.length * 2));
    }

    /** The stream is done: its decoder is dropped. */
    private void release(int i) {
        if (decoders[i] != null) {
            decoders[i] = null;
            removeLive(i);
        }
    }

    private void removeLive(int i) {
        int at = livePos != null ? livePos[i] : indexInLive(i);
        int last = live[--liveCount];
        live[at] = last;
        if (livePos != null) {
            livePos[last] = at;
        }
    }

    private int indexInLive(int i) {
        for (int k = 0; k < liveCount; k++) {
            if (live[k] == i) {
                return k;
            }
        }
        throw new IllegalStateException("stream " + i + " is not live");
    }

    /** Parks a live stream other than {@code keep} and the current one, if one can be parked. */
    private void evictOne(int keep) {
        for (int tries = 0; tries < liveCount; tries++) {
            if (evictFrom >= liveCount) {
                evictFrom = 0;
            }
            int j = live[evictFrom++];
            if (j != keep && j != current && decoders[j].parkable()) {
                park(j);
                return;
            }
        }
    }

    private void park(int j) {
        if (pFile == null) {
            pFile = new int[streamCount];
            pPacket = new long[streamCount];
            pNumber = new long[streamCount];
            pEvent = new long[streamCount];
            pClock = new long[streamCount];
            pDiscarded = new long[streamCount];
            pSeqNum = new long[streamCount];
            pEnd = new long[streamCount];
        }
        StreamDecoder d = decoders[j];
        pFile[j] = d.fileIndex();
        pPacket[j] = d.packet().offsetBits();
        pNumber[j] = d.packet().number();
        pEvent[j] = d.eventBitOffset();
        pClock[j] = d.clockBeforeEvent();
        d.lossState(lossState);
        pDiscarded[j] = lossState[1];
        pSeqNum[j] = lossState[2];
        pEnd[j] = lossState[3];
        flags[j] = (byte)
                (flags[j] | PARKED | (lossState[0] != 0 ? P_HAVE_PREVIOUS : 0) | (d.uuidWarned() ? P_UUID_WARNED : 0));
        decoders[j] = null;
        removeLive(j);
    }

    /** {@link #timeOf}, by the stream's {@link StreamClock}. */
    private long streamTime(int i, StreamDecoder d) {
        StreamClock c = clocks[i];
        if (c == null) {
            c = new StreamClock(traces.get(traceOfStream[i]));
            clocks[i] = c;
        }
        long t = c.time(d);
        if (t == Long.MAX_VALUE) {
            saturated(i, d.clockValue());
        }
        return t;
    }

    /** Keeps the value of stream {@code i}'s event whose time is saturated, to order it among the others. */
    private void saturated(int i, long cycles) {
        if (saturatedCycles == null) {
            saturatedCycles = new long[streamCount];
        }
        saturatedCycles[i] = cycles;
    }

    /** The time of the decoder's event ({@link ClockClass#time}), or {@link Long#MIN_VALUE} when its stream has no clock. */
    static long timeOf(StreamDecoder d) {
        int clock = d.streamPlan().defaultClock;
        return clock < 0 ? Long.MIN_VALUE : d.plan().clocks.get(clock).time(d.clockValue());
    }

    /** The time babeltrace2 gives a loss cut at {@code nanos}: a value of the stream's clock. */
    private long snap(int i, long nanos) {
        ClockClass clock = decoders[i].defaultClock();
        return clock == null ? nanos : clock.snap(nanos);
    }

    // ------------------------------------------------------------------ seeking

    /**
     * Positions every stream at its first event at or after {@code nanos} (nanoseconds from
     * the epoch), so that {@link #next()} continues as a full read would from that time. Each
     * stream starts at the packet the packet index says holds that time (building the indexes
     * if needed, in parallel), then skips the earlier events of that packet. As babeltrace2
     * does, a loss whose range straddles the time is kept, starting at that time and with an
     * unknown count; earlier losses are dropped. Streams without a clock are not positioned:
     * all their events remain.
     */
    public void seek(long nanos) throws StreamDecodingException {
        CtfTrace.indexAll(traces);
        heap.clear();
        current = -1;
        started = true;
        if (skipBefore == null) {
            skipBefore = new long[streamCount];
        }
        for (int i = 0; i < streamCount; i++) {
            position(i, nanos);
            skipBefore[i] = nanos;
            if (advance(i)) {
                heap.push(i);
            }
        }
    }

    private void position(int i, long nanos) throws StreamDecodingException {
        CtfTrace trace = traces.get(traceOfStream[i]);
        PacketIndex idx = trace.index(streamOf(i));
        release(i);
        flags[i] = 0; // not parked: a new decoder, positioned below
        if (latest != null) {
            latest[i] = Long.MIN_VALUE;
        }
        StreamDecoder d = live(i);
        loss[i] = null;
        int k = idx.seekable() ? idx.firstEndingAtOrAfter(nanos) : 0;
        // One packet earlier: tracers are known to write a packet's last events after its
        // timestamp_end (the corpus's lttng-event-after-packet), and decoding one packet too
        // many costs little. This also starts at the last packet when all end before the time.
        k = Math.max(0, k - 1);
        if (k == 0) {
            d.seek(0, 0, 0, false, PacketInfo.ABSENT, PacketInfo.ABSENT, PacketInfo.ABSENT);
        } else {
            d.seek(
                    idx.file(k),
                    idx.offsetBytes(k) * 8,
                    idx.numberInFile(k),
                    true,
                    idx.eventsDiscarded(k - 1),
                    idx.sequenceNumber(k - 1),
                    idx.endCycles(k - 1));
        }
    }

    /**
     * The time of the first message babeltrace2 would see with a time: the earliest first
     * packet's timestamp_begin (or first event, for streams whose packets have no time range),
     * or {@link Long#MIN_VALUE} when no stream has a time. babeltrace2 takes the date of
     * {@code --begin=HH:MM:SS} from it.
     */
    public long firstTimeNanos() throws StreamDecodingException {
        long first = Long.MAX_VALUE;
        for (int i = 0; i < streamCount; i++) {
            CtfTrace trace = traces.get(traceOfStream[i]);
            // Quiet decoders: what they might warn about is told when the events are read.
            List<dev.hetrace.ctf.decode.StreamDecoder.StreamFile> files =
                    trace.streams().get(streamOf(i));
            StreamDecoder probe = new StreamDecoder(trace.plan(), files);
            if (!probe.nextPacket() || probe.defaultClock() == null) {
                continue;
            }
            PacketInfo p = probe.packet();
            long t;
            if (p.has(p.timestampBegin())) {
                t = probe.defaultClock().time(p.timestampBegin());
            } else {
                StreamDecoder events = new StreamDecoder(trace.plan(), files);
                if (!events.next()) {
                    continue;
                }
                t = timeOf(events);
            }
            first = Math.min(first, t);
        }
        return first == Long.MAX_VALUE ? Long.MIN_VALUE : first;
    }

    // ------------------------------------------------------------------ the current event

    /** The decoder holding the current event. */
    public StreamDecoder decoder() {
        return decoders[current];
    }

    public CtfTrace trace() {
        return traces.get(traceOfStream[current]);
    }

    /** Index of the current event's stream in {@code trace().streams()}. */
    public int stream() {
        return streamOf(current);
    }

    /** Whether the current event has a time (its stream has a clock). */
    public boolean hasTime() {
        return decoders[current].streamPlan().defaultClock >= 0;
    }

    /** Nanoseconds from the epoch of the current event. */
    public long timeNanos() {
        return time[current];
    }

    // ------------------------------------------------------------------ merge order

    private int kind(int i) {
        Discarded items = loss[i];
        if (items == null) {
            return EVENT;
        }
        return items.kind() == Discarded.Kind.EVENTS ? DISCARDED_EVENTS : DISCARDED_PACKETS;
    }

    /**
     * Order of items with equal times, as babeltrace2's muxer decides it: trace (UUID, then
     * name), stream class id, stream id, then events before discarded events before discarded
     * packets; events by event class id and name; then the stream's path.
     */
    private boolean less(int a, int b) {
        if (time[a] != time[b]) {
            return time[a] < time[b];
        }
        if (time[a] == Long.MAX_VALUE && saturatedCycles != null && loss[a] == null && loss[b] == null) {
            int c = ClockClass.compareTimes(
                    clocks[a].clock(), saturatedCycles[a], clocks[b].clock(), saturatedCycles[b]);
            if (c != 0) {
                return c < 0;
            }
        }
        int ta = traceOfStream[a];
        int tb = traceOfStream[b];
        if (traceRank[ta] != traceRank[tb]) {
            return traceRank[ta] < traceRank[tb];
        }
        CtfTrace xa = traces.get(ta);
        CtfTrace xb = traces.get(tb);
        int qa = a - traceFirst[ta];
        int qb = b - traceFirst[tb];
        long sa = xa.streamClassId(qa);
        long sb = xb.streamClassId(qb);
        if (sa != sb) {
            return Long.compareUnsigned(sa, sb) < 0;
        }
        long ia = xa.streamId(qa);
        long ib = xb.streamId(qb);
        if (ia != ib) {
            return Long.compareUnsigned(ia, ib) < 0;
        }
        int ka = kind(a);
        int kb = kind(b);
        if (ka != kb) {
            return ka < kb;
        }
        if (ka == EVENT) {
            long ea = headEvent[a].cls.id();
            long eb = headEvent[b].cls.id();
            if (ea != eb) {
                return Long.compareUnsigned(ea, eb) < 0;
            }
            String na = headEvent[a].cls.name();
            String nb = headEvent[b].cls.name();
            if (na != null && nb != null && !na.equals(nb)) {
                return na.compareTo(nb) < 0;
            }
        }
        int c = xa.streamPath(qa).compareTo(xb.streamPath(qb));
        return c != 0 ? c < 0 : a < b;
    }
}
