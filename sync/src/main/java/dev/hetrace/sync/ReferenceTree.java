package dev.hetrace.sync;

import dev.hetrace.sync.Synchronizer.PairSync;
import dev.hetrace.sync.Synchronizer.TraceSync;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The tree that reaches every trace from the reference trace with the least accumulated error,
 * along which the {@link Synchronizer} composes the pairs' maps; traces it does not reach are
 * reported as not connected.
 */
final class ReferenceTree {
    /** Accumulated-error weights of pairs without a finite accuracy: used only when nothing better connects. */
    private static final double APPROXIMATE_WEIGHT = 1e15;

    private static final double INCOMPLETE_WEIGHT = 1e16;

    private ReferenceTree() {}

    /** Dijkstra from the reference on accumulated error; transforms composed along the tree. */
    static TraceSync[] tree(List<Path> traces, int reference, List<PairSync> pairs) {
        int n = traces.size();
        List<List<PairSync>> adjacent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adjacent.add(new ArrayList<>());
        }
        for (PairSync p : pairs) {
            if (usable(p.result().quality())) {
                adjacent.get(p.reference()).add(p);
                adjacent.get(p.other()).add(p);
            }
        }
        double[] cost = new double[n];
        Arrays.fill(cost, Double.POSITIVE_INFINITY);
        TraceSync[] out = new TraceSync[n];
        cost[reference] = 0;
        out[reference] = new TraceSync(
                traces.get(reference),
                PiecewiseMap.of(ClockTransform.IDENTITY),
                SyncQuality.ACCURATE,
                reference,
                0,
                0,
                Optional.of(0L),
                0);
        boolean[] done = new boolean[n];
        PriorityQueue<double[]> queue = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
        queue.add(new double[] {0, reference});
        while (!queue.isEmpty()) {
            int u = (int) queue.poll()[1];
            if (done[u]) {
                continue;
            }
            done[u] = true;
            for (PairSync p : adjacent.get(u)) {
                int v = p.reference() == u ? p.other() : p.reference();
                SyncResult r = p.result();
                double w = switch (r.quality()) {
                    case SAME_CLOCK -> 0;
                    case ACCURATE -> r.accuracyNanos().orElseThrow();
                    case APPROXIMATE -> APPROXIMATE_WEIGHT;
                    default -> INCOMPLETE_WEIGHT;
                };
                if (done[v] || cost[u] + w >= cost[v]) {
                    continue;
                }
                cost[v] = cost[u] + w;
                // v's clock to u's: the pair maps other → reference
                PiecewiseMap toParent = p.other() == v ? p.map() : p.map().inverse();
                long out1 = p.other() == v ? r.toReference() : r.toOther();
                long in1 = p.other() == v ? r.toOther() : r.toReference();
                // the reference's own quality (accurate) says nothing of the pair's
                SyncQuality q = u == reference ? r.quality() : worse(out[u].quality(), r.quality());
                Optional<Long> accuracy =
                        out[u].accuracyNanos().flatMap(a -> r.accuracyNanos().map(b -> a + b));
                out[v] = new TraceSync(traces.get(v), toParent.then(out[u].map()), q, u, out1, in1, accuracy, 0);
                queue.add(new double[] {cost[v], v});
            }
        }
        for (int i = 0; i < n; i++) {
            if (out[i] == null) {
                out[i] = new TraceSync(
                        traces.get(i),
                        PiecewiseMap.of(ClockTransform.IDENTITY),
                        SyncQuality.ABSENT,
                        -1,
                        0,
                        0,
                        Optional.empty(),
                        0);
            }
        }
        return out;
    }

    private static boolean usable(SyncQuality q) {
        return q == SyncQuality.SAME_CLOCK
                || q == SyncQuality.ACCURATE
                || q == SyncQuality.APPROXIMATE
                || q == SyncQuality.INCOMPLETE;
    }

    private static SyncQuality worse(SyncQuality a, SyncQuality b) {
        return a.ordinal() >= b.ordinal() ? a : b;
    }
}
