package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.Discarded;
import dev.hetrace.ctf.decode.PacketInfo;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.ClockClass;
import java.util.ArrayList;
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

    private final List<CtfTrace> traces;
    private final StreamDecoder[] decoders;
    private final int[] traceOfDecoder;
    private final int[] streamOfDecoder;
    /** Decoder indices in merge order. */
    private final IndexHeap heap;
    private final int[] traceRank;
    private final long[] streamId;
    private final String[] streamPath;
    /** Time of each stream's head item (its next event or loss). */
    private final long[] time;
    /** The decoder has moved to an item (an event, or the end) that has not become the stream's head yet. */
    private final boolean[] held;
    private final boolean[] hasEvent;
    /** The stream's head is this loss rather than the decoder's event. */
    private final Discarded[] loss;
    /** After a seek: the seek time, until the stream reaches it; else {@link Long#MIN_VALUE}. */
    private final long[] skipBefore;
    private boolean started;
    private int current = -1;
    private long stopAfter = Long.MAX_VALUE;
    private DiscardedListener discardedListener = (items, trace, stream) -> { };

    public EventCursor(List<CtfTrace> traces) {
        this.traces = traces;
        int n = 0;
        for (CtfTrace t : traces) {
            n += t.streams().size();
        }
        decoders = new StreamDecoder[n];
        traceOfDecoder = new int[n];
        streamOfDecoder = new int[n];
        heap = new IndexHeap(n, this::less);
        time = new long[n];
        traceRank = new int[n];
        streamId = new long[n];
        streamPath = new String[n];
        held = new boolean[n];
        hasEvent = new boolean[n];
        loss = new Discarded[n];
        skipBefore = new long[n];
        java.util.Arrays.fill(skipBefore, Long.MIN_VALUE);
        int[] rank = MergeOrder.traceRanks(traces);
        int i = 0;
        for (int t = 0; t < traces.size(); t++) {
            CtfTrace trace = traces.get(t);
            for (int s = 0; s < trace.streams().size(); s++, i++) {
                decoders[i] = trace.decoder(s);
                traceOfDecoder[i] = t;
                streamOfDecoder[i] = s;
                traceRank[i] = rank[t];
                streamId[i] = trace.streamId(s);
                streamPath[i] = trace.streamPath(s);
            }
        }
    }

    /** Where losses go (by default nowhere). */
    public void onDiscarded(DiscardedListener listener) {
        this.discardedListener = listener;
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
            for (int i = 0; i < decoders.length; i++) {
                if (advance(i)) {
                    heap.push(i);
                }
            }
        } else if (current >= 0) {
            if (advance(current)) {
                heap.push(current);
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
                discardedListener.discarded(items, traces.get(traceOfDecoder[top]), streamOfDecoder[top]);
                if (advance(top)) {
                    heap.push(top);
                }
                continue;
            }
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
            long from = skipBefore[i];
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
        StreamDecoder d = decoders[i];
        if (!held[i]) {
            hasEvent[i] = d.next();
            held[i] = true;
        }
        Discarded items = d.pollDiscarded();
        if (items != null) {
            loss[i] = items;
            time[i] = items.hasTimeRange() ? items.beginNanos() : Long.MIN_VALUE;
            return true;
        }
        loss[i] = null;
        held[i] = false;
        if (!hasEvent[i]) {
            return false;
        }
        time[i] = timeOf(d);
        return true;
    }

    static long timeOf(StreamDecoder d) throws StreamDecodingException {
        int clock = d.streamPlan().defaultClock;
        if (clock < 0) {
            return Long.MIN_VALUE;
        }
        ClockClass cc = d.plan().clocks.get(clock);
        try {
            return cc.nanosFromOrigin(d.clockValue());
        } catch (ArithmeticException e) {
            throw new StreamDecodingException(d.file(), d.packet().number(), d.eventBitOffset(), e.getMessage());
        }
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
        for (int i = 0; i < decoders.length; i++) {
            position(i, nanos);
            skipBefore[i] = nanos;
            if (advance(i)) {
                heap.push(i);
            }
        }
    }

    private void position(int i, long nanos) {
        CtfTrace trace = traces.get(traceOfDecoder[i]);
        PacketIndex idx = trace.index(streamOfDecoder[i]);
        StreamDecoder d = decoders[i];
        held[i] = false;
        loss[i] = null;
        int k = idx.seekable() ? idx.firstEndingAtOrAfter(nanos) : 0;
        // One packet earlier: tracers are known to write a packet's last events after its
        // timestamp_end (the corpus's lttng-event-after-packet), and decoding one packet too
        // many costs little. This also starts at the last packet when all end before the time.
        k = Math.max(0, k - 1);
        if (k == 0) {
            d.seek(0, 0, 0, false, PacketInfo.ABSENT, PacketInfo.ABSENT, PacketInfo.ABSENT);
        } else {
            d.seek(idx.file(k), idx.offsetBytes(k) * 8, idx.numberInFile(k), true, idx.eventsDiscarded(k - 1),
                idx.sequenceNumber(k - 1), idx.endCycles(k - 1));
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
        for (int i = 0; i < decoders.length; i++) {
            CtfTrace trace = traces.get(traceOfDecoder[i]);
            // Quiet decoders: what they might warn about is told when the events are read.
            StreamDecoder probe = new StreamDecoder(trace.plan(), trace.streams().get(streamOfDecoder[i]));
            if (!probe.nextPacket() || probe.defaultClock() == null) {
                continue;
            }
            PacketInfo p = probe.packet();
            long t;
            if (p.has(p.timestampBegin())) {
                try {
                    t = probe.defaultClock().nanosFromOrigin(p.timestampBegin());
                } catch (ArithmeticException e) {
                    throw new StreamDecodingException(p.file(), p.number(), p.offsetBits(), e.getMessage());
                }
            } else {
                StreamDecoder events = new StreamDecoder(trace.plan(), trace.streams().get(streamOfDecoder[i]));
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
        return traces.get(traceOfDecoder[current]);
    }

    /** Index of the current event's stream in {@code trace().streams()}. */
    public int stream() {
        return streamOfDecoder[current];
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
        if (traceRank[a] != traceRank[b]) {
            return traceRank[a] < traceRank[b];
        }
        StreamDecoder da = decoders[a];
        StreamDecoder db = decoders[b];
        long sa = da.streamPlan().cls.id();
        long sb = db.streamPlan().cls.id();
        if (sa != sb) {
            return Long.compareUnsigned(sa, sb) < 0;
        }
        if (streamId[a] != streamId[b]) {
            return Long.compareUnsigned(streamId[a], streamId[b]) < 0;
        }
        int ka = kind(a);
        int kb = kind(b);
        if (ka != kb) {
            return ka < kb;
        }
        if (ka == EVENT) {
            long ea = da.event().cls.id();
            long eb = db.event().cls.id();
            if (ea != eb) {
                return Long.compareUnsigned(ea, eb) < 0;
            }
            String na = da.event().cls.name();
            String nb = db.event().cls.name();
            if (na != null && nb != null && !na.equals(nb)) {
                return na.compareTo(nb) < 0;
            }
        }
        int c = streamPath[a].compareTo(streamPath[b]);
        return c != 0 ? c < 0 : a < b;
    }

}
