package dev.hetrace.bench;

import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.SyncResult;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

/**
 * The convex-hull synchronization of N matched pairs: two clocks 40 min and
 * 37 ppm apart exchange N messages, half each way, with latencies of 1 µs plus an exponential
 * tail, fed in a jittered order as a matcher would. Prints the time of the synchronization,
 * the time of generating the same pairs without it (the comparison), and the heap in use after
 * each million pairs (flat: the hull, not the pairs).
 *
 * <pre>java -Xmx64m -cp hetrace-bench.jar dev.hetrace.bench.SyncPairs [PAIRS (default 10000000)]</pre>
 */
public final class SyncPairs {
    private SyncPairs() {}

    public static void main(String[] args) {
        long pairs = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 10_000_000L;
        for (int round = 0; round < 3; round++) {
            long t0 = System.nanoTime();
            long sink = generate(pairs, null);
            long t1 = System.nanoTime();
            ConvexHullSync sync = new ConvexHullSync();
            generate(pairs, sync);
            SyncResult r = sync.result(ConvexHullSync.Method.BISECTOR);
            long t2 = System.nanoTime();
            System.out.printf(
                    "round %d: %,d pairs: generate only %.3f s, generate + synchronize %.3f s"
                            + " (synchronize %.3f s, %.1f ns/pair); %s, slope %s, accuracy %s ns; heap in use %,d KiB%s%n",
                    round + 1,
                    pairs,
                    (t1 - t0) / 1e9,
                    (t2 - t1) / 1e9,
                    ((t2 - t1) - (t1 - t0)) / 1e9,
                    ((t2 - t1) - (t1 - t0)) / (double) pairs,
                    r.quality().label(),
                    r.transform().slope().round(new java.math.MathContext(12)),
                    r.accuracyNanos().orElse(-1L),
                    heapKiB(),
                    sink == 42 ? "" : "");
        }
    }

    /** Generates the pairs; feeds them to {@code sync} when given. */
    private static long generate(long pairs, ConvexHullSync sync) {
        SplittableRandom r = new SplittableRandom(2026);
        long refStart = 1_763_700_000_000_000_000L;
        double offset = -2_400e9;
        double rate = 1 + 37e-6;
        long acc = 0;
        long maxHeap = 0;
        for (long i = 0; i < pairs; i++) {
            // one message every 100 µs of true time, with a ±1 ms jitter of the order they arrive in
            double t = i * 100_000.0 + r.nextDouble() * 1_000_000;
            double latency = 1_000 - Math.log(1 - r.nextDouble()) * 20_000;
            long refSend;
            long otherReceive;
            if ((i & 1) == 0) {
                refSend = refStart + (long) t;
                otherReceive = (long) ((t + latency) * rate + offset);
                if (sync != null) {
                    sync.messageToOther(refSend, otherReceive);
                }
            } else {
                long otherSend = (long) (t * rate + offset);
                long refReceive = refStart + (long) (t + latency);
                if (sync != null) {
                    sync.messageToReference(otherSend, refReceive);
                }
                refSend = otherSend;
                otherReceive = refReceive;
            }
            acc += refSend ^ otherReceive;
            if (sync != null && i % 1_000_000 == 999_999) {
                maxHeap = Math.max(maxHeap, heapKiB());
            }
        }
        if (sync != null) {
            System.out.printf(
                    "  max heap in use while synchronizing (sampled every million pairs): %,d KiB%n", maxHeap);
        }
        return acc;
    }

    private static long heapKiB() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024;
    }
}
