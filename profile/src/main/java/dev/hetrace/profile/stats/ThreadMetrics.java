package dev.hetrace.profile.stats;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import dev.hetrace.profile.metric.Metric;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * A metric per thread and per core type, from the runs' samples (PMCTrack's per-thread view,
 * and a big vs LITTLE comparison). Each group gets the metric over its summed counters
 * (IPC of a thread = all its instructions / all its cycles, not the mean of its samples' IPCs)
 * and the distribution of the metric over its samples.
 */
public final class ThreadMetrics {

    /**
     * One group of samples.
     *
     * @param key       the thread ({@code tid (name)}) or the core type
     * @param samples   samples in the group
     * @param total     the metric over the group's summed counters
     * @param perSample the metric's distribution over the samples
     */
    public record Row(String key, int samples, double total, Distribution perSample) {}

    /**
     * A thread's metric over time (PMCTrack's per-thread graph, after the fact): one point per
     * timed sample, at most {@link #MAX_POINTS} (evenly picked when there are more).
     */
    public record Series(String key, double[] time, double[] value) {}

    /** The rows of one metric: per thread (pid, tid order of appearance), per core type, and each thread over time. */
    public record Table(String metric, List<Row> threads, List<Row> coreTypes, List<Series> series) {}

    public static final int MAX_POINTS = 1000;

    private ThreadMetrics() {}

    public static Table of(Campaign c, Metric m, CoreTypes types) {
        return of(c, m, types, counters -> name -> counters.getOrDefault(name, Double.NaN));
    }

    /** As {@link #of(Campaign, Metric, CoreTypes)}, looking counter names up through {@code lookup} (pmcN names). */
    public static Table of(
            Campaign c, Metric m, CoreTypes types, Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        Map<String, List<Sample>> threads = new LinkedHashMap<>();
        Map<String, List<Sample>> cores = new LinkedHashMap<>();
        for (Run r : c.runs()) {
            for (Sample s : r.samples()) {
                String t = s.tid() + (s.thread().isEmpty() ? "" : " (" + s.thread() + ")");
                threads.computeIfAbsent(t, k -> new ArrayList<>()).add(s);
                cores.computeIfAbsent(types.typeOf(s.cpu()), k -> new ArrayList<>())
                        .add(s);
            }
        }
        return new Table(m.name(), rows(threads, m, lookup), rows(cores, m, lookup), series(threads, m, lookup));
    }

    private static List<Series> series(
            Map<String, List<Sample>> threads,
            Metric m,
            Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        List<Series> out = new ArrayList<>();
        threads.forEach((key, samples) -> {
            List<Sample> timed = samples.stream()
                    .filter(x -> Double.isFinite(x.timeSeconds()))
                    .toList();
            int n = Math.min(MAX_POINTS, timed.size());
            if (n == 0) {
                return;
            }
            double[] t = new double[n];
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                Sample x = timed.get((int) ((long) i * timed.size() / n));
                t[i] = x.timeSeconds();
                v[i] = m.formula().evaluate(lookup.apply(x.counters()));
            }
            out.add(new Series(key, t, v));
        });
        return out;
    }

    private static List<Row> rows(
            Map<String, List<Sample>> groups,
            Metric m,
            Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        List<Row> out = new ArrayList<>();
        groups.forEach((key, samples) -> {
            Map<String, Double> sum = new LinkedHashMap<>();
            double[] each = new double[samples.size()];
            for (int i = 0; i < each.length; i++) {
                Map<String, Double> counters = samples.get(i).counters();
                counters.forEach((k, v) -> sum.merge(k, v, Double::sum));
                each[i] = m.formula().evaluate(lookup.apply(counters));
            }
            out.add(new Row(key, samples.size(), m.formula().evaluate(lookup.apply(sum)), Distribution.of(each)));
        });
        return out;
    }
}
