package dev.hetrace.ctf;

import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.text.TextSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The events of several streams, decoded and formatted on worker threads (one per core) and
 * handed back as formatted lines in the order of {@link EventCursor}. Each stream is decoded
 * in chunks of a few thousand events, at most two chunks ahead of the merge, so memory stays
 * small whatever the trace size. Decoding errors surface exactly where a sequential read
 * would meet them: after the events before the damage.
 */
public final class ParallelMerge implements AutoCloseable {
    /**
     * Formats the decoder's current event into a sink; returns the offset where the merge
     * inserts the delta. A null formatter decodes only (the lines are then empty).
     */
    public interface Formatter {
        int format(CtfTrace trace, StreamDecoder decoder, boolean hasTime, long timeNanos, TextSink sink);
    }

    private static final int CHUNK_EVENTS = 16384;
    private static final int CHUNK_BYTES = 1024 * 1024;
    private static final int AHEAD = 4;
    /** Packets per segment of a stream cut for the workers: about this many bits (at least one packet). */
    private static final long SEGMENT_BITS = 8L * 512 * 1024;

    /** Formatted events of one stream, in stream order. */
    private static final class Chunk {
        final TextSink text = new TextSink(null);
        final int[] split = new int[CHUNK_EVENTS];
        final int[] end = new int[CHUNK_EVENTS];
        final long[] time = new long[CHUNK_EVENTS];
        final EventPlan[] events = new EventPlan[CHUNK_EVENTS];
        /** The clock of the events whose times are saturated, and their values (null while there is none). */
        ClockClass clock;

        long[] saturatedCycles;
        int count;
        boolean last;
        StreamDecodingException error;
        RuntimeException failure;
        boolean timed;

        void reset() {
            text.clear();
            count = 0;
            last = false;
        }
    }

    /**
     * A run of consecutive packets of one stream, decoded by its own decoder into its own queue
     * of chunks, at most {@link #AHEAD} ahead of the merge; at most one producer at a time.
     */
    private final class Segment {
        final Source source;
        final StreamDecoder decoder;
        final Formatter formatter;
        final StreamClock clock;
        final LinkedBlockingQueue<Chunk> ready = new LinkedBlockingQueue<>();
        final AtomicBoolean producing = new AtomicBoolean();
        volatile boolean finished;
        /**
         * Of a stream cut in segments: where the segment's time goes back, kept by its producer to be
         * told in the stream's order once the merge is past the segment (the queue of chunks orders
         * the producer's writes before the merge's reads); null for a stream read whole.
         */
        List<Told> told;
        /** Where the segment's first event is, kept by its producer (for a cut stream). */
        Path firstFile;

        long firstPacketNumber;
        long firstPacketOffset;
        long firstEventOffset;
        boolean firstKnown;

        Segment(Source source, StreamDecoder decoder, Formatter formatter) {
            this.source = source;
            this.decoder = decoder;
            this.formatter = formatter;
            this.clock = new StreamClock(source.trace);
        }

        void schedule() {
            if (!finished && ready.size() < AHEAD && producing.compareAndSet(false, true)) {
                pool.execute(this::produce);
            }
        }

        private void produce() {
            try {
                while (!finished && ready.size() < AHEAD && !closed) {
                    Chunk c = fill();
                    if (c.last) {
                        finished = true;
                    }
                    ready.add(c);
                }
            } finally {
                producing.set(false);
            }
            if (!finished && ready.size() < AHEAD && !closed) {
                schedule();
            }
        }

        /** Keeps the value of the chunk's next event, whose time is saturated, to order it among the others. */
        private void saturated(Chunk c) {
            if (c.saturatedCycles == null) {
                c.saturatedCycles = new long[CHUNK_EVENTS];
            }
            c.clock = clock.clock();
            c.saturatedCycles[c.count] = decoder.clockValue();
        }

        private Chunk fill() {
            Chunk c = source.free.poll();
            if (c == null) {
                c = new Chunk();
            } else {
                c.reset();
            }
            try {
                while (c.count < CHUNK_EVENTS && c.text.length() < CHUNK_BYTES) {
                    if (!decoder.next()) {
                        c.last = true;
                        break;
                    }
                    if (!firstKnown) {
                        firstKnown = true;
                        firstFile = decoder.file();
                        firstPacketNumber = decoder.packet().number();
                        firstPacketOffset = decoder.packet().offsetBits();
                        firstEventOffset = decoder.eventBitOffset();
                    }
                    long t = clock.time(decoder);
                    boolean timed = clock.clock() != null;
                    if (t == Long.MAX_VALUE) {
                        saturated(c);
                    }
                    int i = c.count;
                    c.time[i] = t;
                    c.events[i] = decoder.event();
                    c.timed = timed;
                    if (formatter != null) {
                        c.split[i] = formatter.format(source.trace, decoder, timed, t, c.text);
                        c.end[i] = c.text.length();
                    }
                    c.count++;
                }
            } catch (StreamDecodingException e) {
                c.error = e;
                c.last = true;
            } catch (RuntimeException e) {
                c.failure = e;
                c.last = true;
            } catch (Error e) {
                // Whatever happens on a worker must reach the merge, or it would wait forever.
                c.failure = new IllegalStateException(e.toString(), e);
                c.last = true;
            }
            return c;
        }
    }

    /** A warning of time going back ({@link StreamDecoder#watchTimeOrder}) found in a segment. */
    private record Told(int kind, String warning) {}

    /** One stream in the merge: its segments, consumed in order. */
    private final class Source {
        final int index;
        final CtfTrace trace;
        /** The stream's index in its trace. */
        int stream;
        /** The time of the last event the merge took from the stream's chunks, when {@link #haveLast}. */
        long lastTime;

        boolean haveLast;
        /** The merge moved to the next segment and has not seen its first event yet. */
        boolean entered;

        final List<Segment> segments = new ArrayList<>();
        /** Chunks the merge is done with, to be filled again. */
        final java.util.concurrent.ConcurrentLinkedQueue<Chunk> free =
                new java.util.concurrent.ConcurrentLinkedQueue<>();

        int traceRank;
        long streamId;
        String path;
        // Merge state.
        int segment;
        Chunk chunk;
        int pos;

        Source(int index, CtfTrace trace) {
            this.index = index;
            this.trace = trace;
        }

        /** Keeps the current segment and the next few being decoded. */
        void schedule() {
            int end = Math.min(segments.size(), segment + window);
            for (int k = segment; k < end; k++) {
                segments.get(k).schedule();
            }
        }
    }

    private final ExecutorService pool;
    /** Segments of a stream decoded ahead of the merge at once. */
    private final int window;

    private final List<Source> sources = new ArrayList<>();
    private final IndexHeap heap;
    /** Time of each source's current event (the heap's key, kept in one array for the comparisons). */
    private final long[] headTime;
    /** With few streams, a scan replaces the heap; {@code live} marks the streams not yet exhausted. */
    private final boolean linear;

    private final boolean[] live;
    private boolean started;
    private volatile boolean closed;
    private Source current;
    private int currentPos;
    /** The least head time of the streams other than the current one. */
    private long runLimit;

    /**
     * @param formatters one per stream (a formatter may keep state such as caches)
     * @param threads    worker threads
     */
    public ParallelMerge(List<CtfTrace> traces, java.util.function.Supplier<Formatter> formatters, int threads) {
        int[] rank = MergeOrder.traceRanks(traces);
        int streams = streamCount(traces);
        // Few streams for the cores: streams whose packets can be decoded from any packet on are
        // cut into runs of packets that workers decode side by side.
        boolean split = streams < 2 * threads;
        this.window = 2 * threads + 1;
        for (int t = 0; t < traces.size(); t++) {
            CtfTrace trace = traces.get(t);
            for (int s = 0; s < trace.streams().size(); s++) {
                Source src = new Source(sources.size(), trace);
                src.stream = s;
                src.traceRank = rank[t];
                src.streamId = trace.streamId(s);
                src.path = trace.streams()
                        .get(s)
                        .getFirst()
                        .path()
                        .toAbsolutePath()
                        .normalize()
                        .toString();
                PacketIndex idx = split ? trace.index(s) : null;
                if (idx != null && idx.seekable() && idx.damage() == null && idx.size() > 1) {
                    int k = 0;
                    while (k < idx.size()) {
                        int from = k;
                        long bits = 0;
                        while (k < idx.size() && (k == from || bits + idx.packetBits(k) <= SEGMENT_BITS)) {
                            bits += idx.packetBits(k);
                            k++;
                        }
                        StreamDecoder d = trace.decoder(s);
                        if (from > 0) {
                            d.seek(
                                    idx.file(from),
                                    idx.offsetBytes(from) * 8,
                                    idx.numberInFile(from),
                                    true,
                                    idx.eventsDiscarded(from - 1),
                                    idx.sequenceNumber(from - 1),
                                    idx.endCycles(from - 1));
                        }
                        d.limitPackets(k - from);
                        Segment segment = new Segment(src, d, formatters.get());
                        // said in the stream's order by the merge, whichever worker finds it first
                        segment.told = new ArrayList<>();
                        d.watchTimeOrder((kind, warning) -> segment.told.add(new Told(kind, warning)));
                        src.segments.add(segment);
                    }
                } else {
                    src.segments.add(new Segment(src, trace.decoder(s), formatters.get()));
                }
                sources.add(src);
            }
        }
        heap = new IndexHeap(sources.size(), this::less);
        headTime = new long[sources.size()];
        live = new boolean[sources.size()];
        linear = sources.size() <= 16;
        pool = Executors.newFixedThreadPool(
                Math.max(1, threads),
                dev.hetrace.ctf.decode.TracePlan.threads()
                        .name("hetrace-decode")
                        .daemon()
                        .factory());
    }

    /** Number of streams worth decoding in parallel. */
    public static int streamCount(List<CtfTrace> traces) {
        int n = 0;
        for (CtfTrace t : traces) {
            n += t.streams().size();
        }
        return n;
    }

    /**
     * Moves to the next event in merged order.
     *
     * @return false when every stream is exhausted
     */
    public boolean next() throws StreamDecodingException {
        // A run: the current stream's next event comes before every other stream's head (most
        // streams of real traces alternate in bursts), so no other stream needs looking at.
        Source c = current;
        if (c != null) {
            int p = c.pos + 1;
            if (p < c.chunk.count && c.chunk.time[p] < runLimit) {
                c.pos = p;
                currentPos = p;
                return true;
            }
        }
        if (linear) {
            return nextByScan();
        }
        if (!started) {
            started = true;
            for (Source s : sources) {
                s.schedule();
            }
            for (Source s : sources) {
                if (advanceChunk(s)) {
                    push(s);
                }
            }
        } else if (current != null) {
            Source s = current;
            s.pos++;
            if (s.pos < s.chunk.count || advanceChunk(s)) {
                push(s);
            }
        }
        if (heap.size() == 0) {
            current = null;
            return false;
        }
        current = sources.get(heap.pop());
        currentPos = current.pos;
        runLimit = heap.size() == 0 ? Long.MAX_VALUE : headTime[heap.peek()];
        return true;
    }

    /** Few streams: the next event is the least of their heads, found by a scan of one array. */
    private boolean nextByScan() throws StreamDecodingException {
        int n = sources.size();
        if (!started) {
            started = true;
            for (Source s : sources) {
                s.schedule();
            }
            for (Source s : sources) {
                live[s.index] = advanceChunk(s);
                if (live[s.index]) {
                    headTime[s.index] = s.chunk.time[0];
                }
            }
        } else if (current != null) {
            Source s = current;
            int i = s.index;
            s.pos++;
            if (s.pos < s.chunk.count) {
                headTime[i] = s.chunk.time[s.pos];
            } else if (advanceChunk(s)) {
                headTime[i] = s.chunk.time[0];
            } else {
                live[i] = false;
            }
        }
        int best = -1;
        long second = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            if (live[i]) {
                if (best < 0) {
                    best = i;
                } else if (less(i, best)) {
                    second = Math.min(second, headTime[best]);
                    best = i;
                } else {
                    second = Math.min(second, headTime[i]);
                }
            }
        }
        if (best < 0) {
            current = null;
            return false;
        }
        current = sources.get(best);
        currentPos = current.pos;
        runLimit = second;
        return true;
    }

    /** Moves source {@code s} to its next chunk with events; false at its end. Throws its decoding error there. */
    private boolean advanceChunk(Source s) throws StreamDecodingException {
        while (true) {
            Chunk prev = s.chunk;
            if (prev != null && prev.count > 0) {
                s.lastTime = prev.time[prev.count - 1];
                s.haveLast = prev.timed;
            }
            if (prev != null && prev.last) {
                tellTimeOrder(s, s.segments.get(s.segment));
                if (prev.failure != null) {
                    throw prev.failure;
                }
                if (prev.error != null) {
                    throw prev.error;
                }
                if (s.segment + 1 >= s.segments.size()) {
                    return false;
                }
                s.segment++;
                s.entered = true;
            }
            Chunk next;
            try {
                next = s.segments.get(s.segment).ready.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for decoded events", e);
            }
            if (prev != null) {
                s.free.add(prev);
            }
            s.schedule();
            s.chunk = next;
            s.pos = 0;
            if (next.count > 0) {
                if (s.entered) {
                    s.entered = false;
                    Segment g = s.segments.get(s.segment);
                    // the segment's decoder started at its first packet, not knowing the event before it
                    if (s.haveLast && next.timed && next.time[0] < s.lastTime && g.firstKnown) {
                        s.trace.timeGoesBack(
                                s.stream,
                                StreamDecoder.EVENT_BEFORE_PREVIOUS,
                                StreamDecoder.eventBeforePrevious(
                                        g.firstFile,
                                        g.firstPacketNumber,
                                        g.firstPacketOffset,
                                        g.firstEventOffset,
                                        s.lastTime,
                                        next.time[0]));
                    }
                }
                return true;
            }
        }
    }

    /** Tells what a finished segment of a cut stream found of its time going back, in the stream's order. */
    private static void tellTimeOrder(Source s, Segment g) {
        if (g.told != null) {
            for (Told t : g.told) {
                s.trace.timeGoesBack(s.stream, t.kind(), t.warning());
            }
            g.told.clear();
        }
    }

    /** The current event's formatted bytes are {@code bytes()[start(), end())}. */
    public byte[] bytes() {
        return current.chunk.text.buffer();
    }

    public int start() {
        return currentPos == 0 ? 0 : current.chunk.end[currentPos - 1];
    }

    /** Where the formatter asked for the delta to go. */
    public int split() {
        return current.chunk.split[currentPos];
    }

    public int end() {
        return current.chunk.end[currentPos];
    }

    public boolean hasTime() {
        return current.chunk.timed;
    }

    public long timeNanos() {
        return current.chunk.time[currentPos];
    }

    private boolean less(int a, int b) {
        long ta = headTime[a];
        long tb = headTime[b];
        if (ta != tb) {
            return ta < tb;
        }
        Source sa = sources.get(a);
        Source sb = sources.get(b);
        if (ta == Long.MAX_VALUE) {
            int c = ClockClass.compareTimes(
                    sa.chunk.clock, sa.chunk.saturatedCycles[sa.pos], sb.chunk.clock, sb.chunk.saturatedCycles[sb.pos]);
            if (c != 0) {
                return c < 0;
            }
        }
        EventPlan ea = sa.chunk.events[sa.pos];
        EventPlan eb = sb.chunk.events[sb.pos];
        return MergeOrder.less(
                sa.chunk.time[sa.pos],
                sa.traceRank,
                ea.stream.cls.id(),
                sa.streamId,
                ea.cls.id(),
                ea.cls.name(),
                sa.path,
                a,
                sb.chunk.time[sb.pos],
                sb.traceRank,
                eb.stream.cls.id(),
                sb.streamId,
                eb.cls.id(),
                eb.cls.name(),
                sb.path,
                b);
    }

    private void push(Source s) {
        headTime[s.index] = s.chunk.time[s.pos];
        heap.push(s.index);
    }

    /** Stops the workers and waits for them, so that the traces can be closed safely. */
    @Override
    public void close() {
        closed = true;
        pool.shutdownNow();
        try {
            pool.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
