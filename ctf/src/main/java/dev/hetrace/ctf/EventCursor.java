package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.ClockClass;
import java.util.ArrayList;
import java.util.List;

/**
 * Merges the events of every stream of one or more traces in timestamp order. Ties are broken
 * deterministically (by trace, then stream), so the same input always gives the same order.
 * The cursor reuses its decoders: an event seen through it is valid until the next call.
 */
public final class EventCursor {
    private final List<StreamDecoder> decoders = new ArrayList<>();
    private final List<Integer> traceOfDecoder = new ArrayList<>();
    private final List<CtfTrace> traces;
    /** Binary min-heap of decoder indices, ordered by (time, index). */
    private int[] heap;
    private final int[] traceRank;
    private final long[] streamId;
    private final String[] streamPath;
    private long[] time;
    private int heapSize;
    private boolean started;
    private int current = -1;

    public EventCursor(List<CtfTrace> traces) {
        this.traces = traces;
        for (int t = 0; t < traces.size(); t++) {
            CtfTrace trace = traces.get(t);
            for (int s = 0; s < trace.streams().size(); s++) {
                decoders.add(trace.decoder(s));
                traceOfDecoder.add(t);
            }
        }
        heap = new int[decoders.size()];
        time = new long[decoders.size()];
        traceRank = new int[decoders.size()];
        streamId = new long[decoders.size()];
        streamPath = new String[decoders.size()];
        int[] rank = MergeOrder.traceRanks(traces);
        int i = 0;
        for (int t = 0; t < traces.size(); t++) {
            CtfTrace trace = traces.get(t);
            for (int s = 0; s < trace.streams().size(); s++, i++) {
                traceRank[i] = rank[t];
                streamId[i] = trace.streamId(s);
                streamPath[i] = trace.streams().get(s).getFirst().path().toAbsolutePath().normalize().toString();
            }
        }
    }

    /**
     * Moves to the next event in time order.
     *
     * @return false when every stream is exhausted
     */
    public boolean next() throws StreamDecodingException {
        if (!started) {
            started = true;
            for (int i = 0; i < decoders.size(); i++) {
                if (advance(i)) {
                    push(i);
                }
            }
        } else if (current >= 0) {
            if (advance(current)) {
                push(current);
            }
        }
        if (heapSize == 0) {
            current = -1;
            return false;
        }
        current = pop();
        return true;
    }

    private boolean advance(int i) throws StreamDecodingException {
        StreamDecoder d = decoders.get(i);
        if (!d.next()) {
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

    /** The decoder holding the current event. */
    public StreamDecoder decoder() {
        return decoders.get(current);
    }

    public CtfTrace trace() {
        return traces.get(traceOfDecoder.get(current));
    }

    /** Whether the current event has a time (its stream has a clock). */
    public boolean hasTime() {
        return decoders.get(current).streamPlan().defaultClock >= 0;
    }

    /** Nanoseconds from the epoch of the current event. */
    public long timeNanos() {
        return time[current];
    }

    /**
     * Order of events with equal times, as babeltrace2's muxer decides it: trace (UUID, then
     * name), stream class id, stream id, event class id, event name, then the stream's path.
     */
    private boolean less(int a, int b) {
        if (time[a] != time[b]) {
            return time[a] < time[b];
        }
        StreamDecoder da = decoders.get(a);
        StreamDecoder db = decoders.get(b);
        return MergeOrder.less(time[a], traceRank[a], da.streamPlan().cls.id(), streamId[a], da.event().cls.id(),
            da.event().cls.name(), streamPath[a], a,
            time[b], traceRank[b], db.streamPlan().cls.id(), streamId[b], db.event().cls.id(), db.event().cls.name(),
            streamPath[b], b);
    }

    private void push(int i) {
        int k = heapSize++;
        heap[k] = i;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (!less(heap[k], heap[parent])) {
                break;
            }
            int tmp = heap[k];
            heap[k] = heap[parent];
            heap[parent] = tmp;
            k = parent;
        }
    }

    private int pop() {
        int top = heap[0];
        heap[0] = heap[--heapSize];
        int k = 0;
        while (true) {
            int l = 2 * k + 1;
            int r = l + 1;
            int m = k;
            if (l < heapSize && less(heap[l], heap[m])) {
                m = l;
            }
            if (r < heapSize && less(heap[r], heap[m])) {
                m = r;
            }
            if (m == k) {
                break;
            }
            int tmp = heap[k];
            heap[k] = heap[m];
            heap[m] = tmp;
            k = m;
        }
        return top;
    }
}
