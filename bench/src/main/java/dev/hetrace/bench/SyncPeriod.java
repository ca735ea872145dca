package dev.hetrace.bench;

import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.SyncResult;
import java.util.SplittableRandom;

/**
 * Accuracy against sync period, for docs/sync.md: a slave clock 50 ppm fast exchanges the sync
 * handshake with the master every PERIOD for 60 s (latencies 2 µs plus an exponential tail of
 * mean 10 µs, the ACK path likewise), and the convex hull's accuracy bound and true worst error
 * over the minute are printed for each period, median of 20 seeds.
 *
 * <pre>java -cp hetrace-bench.jar dev.hetrace.bench.SyncPeriod</pre>
 */
public final class SyncPeriod {
    private SyncPeriod() {}

    public static void main(String[] args) {
        double span = 60e9;
        double rate = 1 + 50e-6;
        System.out.println("| sync period | handshakes in 60 s | accuracy bound (µs) | true worst error (µs) |");
        System.out.println("|---:|---:|---:|---:|");
        for (double period : new double[] {1e6, 10e6, 100e6, 1e9, 5e9, 15e9, 30e9}) {
            int seeds = 20;
            double[] bound = new double[seeds];
            double[] error = new double[seeds];
            for (int s = 0; s < seeds; s++) {
                SplittableRandom r = new SplittableRandom(s);
                ConvexHullSync sync = new ConvexHullSync();
                for (double t = r.nextDouble() * period; t < span; t += period) {
                    double l1 = 2_000 - Math.log(1 - r.nextDouble()) * 10_000;
                    double l2 = 2_000 - Math.log(1 - r.nextDouble()) * 10_000;
                    sync.messageToOther((long) t, (long) ((t + l1) * rate));
                    sync.messageToReference((long) ((t + l1 + 1_000) * rate), (long) (t + l1 + 1_000 + l2));
                }
                SyncResult res = sync.result(ConvexHullSync.Method.BISECTOR, 0, (long) (span * rate));
                bound[s] = res.accuracyNanos().map(a -> a / 1e3).orElse(Double.NaN);
                double worst = 0;
                for (double t = 0; t <= span; t += span / 1000) {
                    worst = Math.max(worst, Math.abs(res.transform().apply((long) (t * rate)) - t));
                }
                error[s] = worst / 1e3;
            }
            java.util.Arrays.sort(bound);
            java.util.Arrays.sort(error);
            System.out.printf(
                    "| %s | %d | %.1f | %.1f |%n",
                    period >= 1e9 ? (long) (period / 1e9) + " s" : (long) (period / 1e6) + " ms",
                    (long) (span / period),
                    bound[seeds / 2],
                    error[seeds / 2]);
        }
    }
}
