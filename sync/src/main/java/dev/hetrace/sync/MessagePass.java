package dev.hetrace.sync;

import dev.hetrace.ctf.IndexHeap;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A pass of the {@link Synchronizer} over the sends and receives of every trace: their records
 * are offered to a {@link MessageMatcher} in the order of the (estimated) reference clock,
 * read from the traces by one thread each or taken from records a reader already found.
 */
final class MessagePass {
    private MessagePass() {}

    /** One trace's sends and receives, in its order. */
    interface Source {
        boolean next() throws InterruptedException;

        long time();

        int role();

        long h1();

        long h2();
    }

    /**
     * Reads every trace once, all at a time (but those a first look read whole, whose records it
     * kept): one thread per trace decodes its events and finds
     * the sends and receives in them (the costly part), and this thread matches them, always
     * taking next the one that comes first on the (estimated) reference clock, so that a
     * message's two halves meet soon. The threads hand over small batches through bounded
     * queues: memory does not grow with the traces.
     */
    static void merged(
            List<Path> traces,
            FirstLook[] looks,
            PiecewiseMap[] order,
            MessageMatcher matcher,
            long[] first,
            long[] last,
            Consumer<String> warnings,
            BiConsumer<Long, Long> progress)
            throws IOException, MetadataException, StreamDecodingException {
        int n = traces.size();
        Extractor[] ex = new Extractor[n];
        Source[] sources = new Source[n];
        Thread[] threads = new Thread[n];
        Consumer<String> shared = w -> {
            synchronized (warnings) {
                warnings.accept(w);
            }
        };
        long kept = 0;
        try {
            for (int i = 0; i < n; i++) {
                if (looks[i].whole()) {
                    looks[i].tellWarnings(shared);
                    sources[i] = looks[i].source();
                    kept += looks[i].events();
                    continue;
                }
                ex[i] = new Extractor(traces.get(i), matcher.keys(), shared);
                sources[i] = ex[i];
                threads[i] = Thread.ofVirtual().name("hetrace-sync-" + i).start(ex[i]);
            }
            long read = kept;
            merge(
                    sources,
                    order,
                    matcher,
                    () -> {
                        long events = read;
                        for (Extractor e : ex) {
                            events += e == null ? 0 : e.events;
                        }
                        return events;
                    },
                    progress);
            for (int i = 0; i < n; i++) {
                if (ex[i] == null) {
                    first[i] = Math.min(first[i], looks[i].first());
                    last[i] = Math.max(last[i], looks[i].last());
                    continue;
                }
                threads[i].join();
                ex[i].rethrow();
                first[i] = Math.min(first[i], ex[i].first);
                last[i] = Math.max(last[i], ex[i].last);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the traces", e);
        } finally {
            for (Thread t : threads) {
                if (t != null && t.isAlive()) {
                    t.interrupt();
                }
            }
        }
    }

    /**
     * Offers every source's records to the matcher, always the one that comes first on the
     * (estimated) reference clock next, so that a message's two halves meet soon.
     */
    static void merge(
            Source[] sources,
            PiecewiseMap[] order,
            MessageMatcher matcher,
            LongSupplier events,
            BiConsumer<Long, Long> progress)
            throws InterruptedException {
        int n = sources.length;
        long[] keys = new long[n];
        IndexHeap heap = new IndexHeap(n, keys);
        for (int i = 0; i < n; i++) {
            if (sources[i].next()) {
                keys[i] = order[i].apply(sources[i].time());
                heap.push(i);
            }
        }
        long records = 0;
        while (heap.size() > 0) {
            int i = heap.peek();
            Source x = sources[i];
            matcher.offer(i, x.role(), x.h1(), x.h2(), x.time());
            if ((++records & 0x3ffff) == 0) {
                progress.accept(events.getAsLong(), matcher.matched());
            }
            if (x.next()) {
                keys[i] = order[i].apply(x.time());
                heap.topChanged();
            } else {
                heap.pop();
            }
        }
    }

    /** One trace's sends and receives, found by a thread of their own and handed over in batches. */
    private static final class Extractor implements Runnable, Source {
        private static final int BATCH = 512;
        private static final long[] END = new long[0];

        private final Path trace;
        private final MessageMatcher.Keys keys;
        private final Consumer<String> warnings;
        private final ArrayBlockingQueue<long[]> queue = new ArrayBlockingQueue<>(2);
        private volatile Throwable failure;
        volatile long events;
        volatile long first = Long.MAX_VALUE;
        volatile long last = Long.MIN_VALUE;
        // the consumer's side: the batch being read, four longs a record (time, role, h1, h2)
        private long[] batch;
        private int at;
        private int count;

        Extractor(Path trace, MessageMatcher.Keys keys, Consumer<String> warnings) {
            this.trace = trace;
            this.keys = keys;
            this.warnings = warnings;
        }

        @Override
        public void run() {
            // the reader's warnings mostly name their trace already (metadata, clocks): not twice
            try (CtfReader reader = CtfReader.open(
                    List.of(trace), w -> warnings.accept(w.startsWith(trace.toString()) ? w : trace + ": " + w))) {
                long[] out = new long[4 * BATCH + 1];
                int k = 0;
                long[] found = new long[48];
                long seen = 0;
                long lo = Long.MAX_VALUE;
                long hi = Long.MIN_VALUE;
                while (reader.next()) {
                    Event e = reader.event();
                    if ((++seen & 0xffff) == 0) {
                        events = seen;
                    }
                    if (!e.hasTime()) {
                        continue;
                    }
                    long t = e.timeNanos();
                    lo = Math.min(lo, t);
                    hi = Math.max(hi, t);
                    int m = keys.of(e, found);
                    for (int j = 0; j < m; j++) {
                        out[4 * k] = t;
                        out[4 * k + 1] = found[3 * j];
                        out[4 * k + 2] = found[3 * j + 1];
                        out[4 * k + 3] = found[3 * j + 2];
                        if (++k == BATCH) {
                            out[4 * BATCH] = k;
                            queue.put(out);
                            out = new long[4 * BATCH + 1];
                            k = 0;
                        }
                    }
                }
                events = seen;
                first = lo;
                last = hi;
                out[4 * BATCH] = k;
                queue.put(out);
            } catch (InterruptedException e) {
                return; // the reading was given up
            } catch (Throwable t) {
                failure = t;
            }
            try {
                queue.put(END);
            } catch (InterruptedException ignored) {
                // given up
            }
        }

        /** Moves to the next record; false at the end of the trace. */
        @Override
        public boolean next() throws InterruptedException {
            at++;
            while (batch == null || at >= count) {
                if (batch == END) {
                    return false;
                }
                batch = queue.take();
                count = batch == END ? 0 : (int) batch[4 * BATCH];
                at = 0;
            }
            return true;
        }

        @Override
        public long time() {
            return batch[4 * at];
        }

        @Override
        public int role() {
            return (int) batch[4 * at + 1];
        }

        @Override
        public long h1() {
            return batch[4 * at + 2];
        }

        @Override
        public long h2() {
            return batch[4 * at + 3];
        }

        void rethrow() throws IOException, MetadataException, StreamDecodingException {
            CtfReader.rethrow(failure);
        }
    }
}
