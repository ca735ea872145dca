package dev.hetrace.analysis;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Parts of a piece of work run on a few threads: the traces' passes, the model's copies, the index's files. */
public final class Parallel {
    /** A part of the work. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    private Parallel() {}

    /**
     * Runs the work on {@code workers} threads (on this one when 1), taking the parts in order;
     * the first failure (in the order of the parts) is thrown once every thread has stopped,
     * {@code cancel} having asked the others to stop early.
     */
    public static void run(List<Work> work, int workers, Runnable cancel)
            throws IOException, MetadataException, StreamDecodingException {
        if (workers <= 1 || work.size() <= 1) {
            for (Work w : work) {
                try {
                    w.run();
                } catch (Exception e) {
                    CtfReader.rethrow(e);
                }
            }
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Throwable[] failures = new Throwable[work.size()];
        Thread[] threads = new Thread[Math.min(workers, work.size())];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = CtfReader.decodingThreads()
                    .name("hetrace-work-" + t)
                    .daemon()
                    .start(() -> {
                        for (int k = next.getAndIncrement(); k < work.size(); k = next.getAndIncrement()) {
                            try {
                                work.get(k).run();
                            } catch (Throwable e) {
                                failures[k] = e;
                                cancel.run();
                            }
                        }
                    });
        }
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            cancel.run();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        for (Throwable e : failures) {
            CtfReader.rethrow(e);
        }
    }
}
