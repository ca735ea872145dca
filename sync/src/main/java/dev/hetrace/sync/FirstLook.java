package dev.hetrace.sync;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the {@link Synchronizer}'s first look at a trace found: the sends and receives of its
 * beginning, from which the rough transforms are estimated, and, when the trace is small enough
 * for its sends and receives to be kept, all of them, so that the matching pass takes them from
 * memory rather than reading the trace again (a board's traces are then each read once).
 */
final class FirstLook {
    /** Events a rule names read from the beginning of each trace to estimate the transforms, and events scanned at most. */
    static final int SAMPLE_MESSAGES = 4096;

    static final long SAMPLE_EVENTS = 4_000_000;

    /** Records (sends and receives) kept for the traces read whole, all traces together: 32 bytes each. */
    static final long KEPT_RECORDS = 1L << 21;

    private static final long BUDGET_CHUNK = 4096;

    /** Per record, four longs: time (on the trace's clock), role, h1, h2. */
    private long[] records = new long[4 * 64];

    private int size;
    /** How many of the records the sample holds: those of its first events (see {@link #SAMPLE_MESSAGES}). */
    private int sampled;
    /** Whether every event of the trace was read: {@link #records} holds all its sends and receives. */
    private boolean whole;

    private long events;
    private long first = Long.MAX_VALUE;
    private long last = Long.MIN_VALUE;
    /** The reader's warnings, told when the records stand in for the matching pass's reading. */
    private final List<String> warnings = Collections.synchronizedList(new ArrayList<>());

    private Throwable failure;

    private FirstLook() {}

    /**
     * Looks at every trace, on as many threads as there are cores: each read from its beginning,
     * and to its end while its sends and receives can be kept. A trace that cannot be read
     * throws (the first in the traces' order), as the sample's reading would.
     *
     * @param keptRecords how many records beyond the samples may be kept, all traces together
     */
    static FirstLook[] of(List<Path> traces, List<MatchRule> rules, long keptRecords)
            throws IOException, MetadataException, StreamDecodingException {
        int n = traces.size();
        FirstLook[] looks = new FirstLook[n];
        AtomicLong budget = new AtomicLong(keptRecords);
        AtomicInteger next = new AtomicInteger();
        Runnable work = () -> {
            MessageMatcher.Keys keys = new MessageMatcher.Keys(rules);
            for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                looks[i] = new FirstLook();
                looks[i].read(traces.get(i), keys, budget);
            }
        };
        int workers = Math.min(n, Runtime.getRuntime().availableProcessors());
        if (workers <= 1) {
            work.run();
        } else {
            Thread[] threads = new Thread[workers];
            for (int t = 0; t < workers; t++) {
                threads[t] = CtfReader.decodingThreads()
                        .name("hetrace-sync-look-" + t)
                        .daemon()
                        .start(work);
            }
            try {
                for (Thread t : threads) {
                    t.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while reading the traces", e);
            }
        }
        for (FirstLook l : looks) {
            CtfReader.rethrow(l.failure);
        }
        return looks;
    }

    /**
     * Reads the trace: the sample (its events until {@link #SAMPLE_MESSAGES} of them a rule
     * names, or {@link #SAMPLE_EVENTS} of them, whichever comes first), then on
     * to the end while the records fit the budget. A failure of the sample's reading is the
     * look's; one after it leaves the trace to the matching pass, which meets it as before.
     */
    private void read(Path trace, MessageMatcher.Keys keys, AtomicLong budget) {
        boolean sampling = true;
        // records beyond the sample: taken from the budget in chunks, all given back if the trace is not read whole
        long reserved = 0;
        long allowance = 0;
        try (CtfReader reader = CtfReader.open(
                List.of(trace), w -> warnings.add(w.startsWith(trace.toString()) ? w : trace + ": " + w))) {
            long seen = 0;
            long[] found = new long[48];
            while (true) {
                if (sampling && (seen >= SAMPLE_MESSAGES || events >= SAMPLE_EVENTS)) {
                    sampling = false;
                    sampled = size;
                }
                if (!reader.next()) {
                    if (sampling) {
                        sampled = size;
                    }
                    whole = true;
                    break;
                }
                Event e = reader.event();
                events++;
                if (sampling && keys.concerns(e)) {
                    seen++;
                }
                if (!e.hasTime()) {
                    continue;
                }
                long t = e.timeNanos();
                first = Math.min(first, t);
                last = Math.max(last, t);
                int m = keys.of(e, found);
                if (m == 0) {
                    continue;
                }
                if (!sampling) {
                    if (allowance < m) {
                        long chunk = Math.max(m, BUDGET_CHUNK);
                        if (budget.addAndGet(-chunk) < 0) {
                            budget.addAndGet(chunk);
                            break; // too many to keep: the matching pass reads the trace
                        }
                        allowance += chunk;
                        reserved += chunk;
                    }
                    allowance -= m;
                }
                if (4 * (size + m) > records.length) {
                    records = Arrays.copyOf(records, Math.max(2 * records.length, 4 * (size + m)));
                }
                for (int j = 0; j < m; j++) {
                    int o = 4 * size++;
                    records[o] = t;
                    records[o + 1] = found[3 * j];
                    records[o + 2] = found[3 * j + 1];
                    records[o + 3] = found[3 * j + 2];
                }
            }
        } catch (Throwable t) {
            if (sampling) {
                failure = t;
            }
            whole = false;
        }
        if (whole) {
            budget.addAndGet(allowance);
        } else {
            // the matching pass reads the trace: only the sample is needed
            budget.addAndGet(reserved);
            records = Arrays.copyOf(records, 4 * sampled);
            size = sampled;
        }
    }

    /** Offers the sample's records to {@code sampler}, as trace {@code index}'s. */
    void sample(int index, MessageMatcher sampler) {
        for (int k = 0; k < sampled; k++) {
            int o = 4 * k;
            sampler.offer(index, (int) records[o + 1], records[o + 2], records[o + 3], records[o]);
        }
    }

    /** Whether the trace was read whole: {@link #source} then stands for reading it. */
    boolean whole() {
        return whole;
    }

    long events() {
        return events;
    }

    long first() {
        return first;
    }

    long last() {
        return last;
    }

    /** Tells the warnings of the reading to {@code sink} (the trace read whole, it is not read again). */
    void tellWarnings(Consumer<String> sink) {
        synchronized (warnings) {
            warnings.forEach(sink);
        }
    }

    /** The trace's sends and receives, in its order, from memory (the trace read whole). */
    MessagePass.Source source() {
        return new MessagePass.Source() {
            int at = -1;

            @Override
            public boolean next() {
                return ++at < size;
            }

            @Override
            public long time() {
                return records[4 * at];
            }

            @Override
            public int role() {
                return (int) records[4 * at + 1];
            }

            @Override
            public long h1() {
                return records[4 * at + 2];
            }

            @Override
            public long h2() {
                return records[4 * at + 3];
            }
        };
    }
}
