package dev.hetrace.profile.stats;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.metric.Metric;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Everything {@code hetrace profile stats} and the report say about a campaign: the
 * distribution of runtime, of each counter and of each metric; the counters (and metrics)
 * ranked by how well they explain runtime; the user vs system split; runtimes per
 * configuration; and the slowdown curve when the campaign has stress levels.
 *
 * @param name        the campaign's name
 * @param runs        how many runs
 * @param quantities  runtime, user, system, then each counter, then each metric, to its distribution
 * @param ranking     runtime regressed on each counter and metric, by decreasing |r| (undefined last)
 * @param split       user vs system time
 * @param groupedBy   the label runs are grouped by, or empty for the whole configuration
 * @param groups      runtime per group, groups in order of first appearance
 * @param slowdown    the slowdown curve, when the campaign has stress levels
 * @param unsupported events some run could not count, with the reason
 * @param columns     each quantity's value per run, in the campaign's run order (NaN where unknown)
 */
public record CampaignStats(
        String name,
        int runs,
        Map<String, Distribution> quantities,
        List<Regression> ranking,
        TimeSplit split,
        String groupedBy,
        List<Group> groups,
        Optional<SlowdownCurve> slowdown,
        Map<String, String> unsupported,
        Map<String, double[]> columns) {

    /** How a metric's formula finds a counter among a run's (the plain name; an experiment's also pmcN). */
    public static final Function<Map<String, Double>, ToDoubleFunction<String>> BY_NAME =
            counters -> name -> counters.getOrDefault(name, Double.NaN);

    /** The runs of one configuration (or of one value of a label). */
    public record Group(String key, int runs, Distribution runtime, BoxPlot box) {}

    /** The statistics with the slowdown curve the campaign records (see {@link SlowdownCurve#of(Campaign)}). */
    public static CampaignStats of(Campaign c) {
        return of(c, List.of(), "", Optional.empty(), OptionalDouble.empty(), BY_NAME);
    }

    /**
     * @param metrics   metrics to compute per run (from its counter totals)
     * @param groupBy   the configuration label to group by; empty for the whole configuration
     * @param threshold the acceptable slowdown (0.10 for 10 %); the slowdown is of the measure the
     *                  campaign records, else of runtime
     */
    public static CampaignStats of(Campaign c, List<Metric> metrics, String groupBy, double threshold) {
        return of(c, metrics, groupBy, threshold, BY_NAME);
    }

    /** As {@link #of(Campaign, List, String, double)}, the metrics finding counters through {@code lookup}. */
    public static CampaignStats of(
            Campaign c,
            List<Metric> metrics,
            String groupBy,
            double threshold,
            Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        return of(c, metrics, groupBy, Optional.empty(), OptionalDouble.of(threshold), lookup);
    }

    /**
     * As {@link #of(Campaign, List, String, double, Function)}, the slowdown curve of {@code measure}
     * at {@code threshold}, each when not given the one the campaign records (see {@link
     * SlowdownCurve#of(Campaign, Optional, OptionalDouble)}).
     */
    public static CampaignStats of(
            Campaign c,
            List<Metric> metrics,
            String groupBy,
            Optional<String> measure,
            OptionalDouble threshold,
            Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        List<Run> runs = c.runs();
        Map<String, double[]> columns = columns(runs, metrics, lookup);
        Map<String, Distribution> q = new LinkedHashMap<>();
        columns.forEach((k, v) -> q.put(k, Distribution.of(v)));
        double[] runtime = columns.get("runtime");
        List<Regression> ranking = new ArrayList<>();
        columns.forEach((k, v) -> {
            if (!List.of("runtime", "user", "system").contains(k)) {
                ranking.add(Regression.of(k, v, "runtime", runtime));
            }
        });
        ranking.sort(Comparator.comparing((Regression r) -> !r.defined())
                .thenComparing(r -> -Math.abs(r.r()))
                .thenComparing(Regression::x));
        Map<String, List<Run>> grouped = group(runs, groupBy);
        List<Group> groups = new ArrayList<>();
        grouped.forEach((k, v) -> {
            double[] rt = v.stream().mapToDouble(Run::runtimeSeconds).toArray();
            groups.add(new Group(k, v.size(), Distribution.of(rt), BoxPlot.of(rt)));
        });
        Map<String, String> unsupported = new TreeMap<>();
        runs.forEach(r -> unsupported.putAll(r.unsupported()));
        Optional<SlowdownCurve> curve =
                SlowdownCurve.applies(c) ? Optional.of(SlowdownCurve.of(c, measure, threshold)) : Optional.empty();
        return new CampaignStats(
                c.name(), runs.size(), q, ranking, TimeSplit.of(runs), groupBy, groups, curve, unsupported, columns);
    }

    /** runtime, user, system, each counter (sorted by name), each metric: one value per run. */
    static Map<String, double[]> columns(
            List<Run> runs, List<Metric> metrics, Function<Map<String, Double>, ToDoubleFunction<String>> lookup) {
        Map<String, double[]> out = new LinkedHashMap<>();
        out.put("runtime", runs.stream().mapToDouble(Run::runtimeSeconds).toArray());
        out.put("user", runs.stream().mapToDouble(Run::userSeconds).toArray());
        out.put("system", runs.stream().mapToDouble(Run::systemSeconds).toArray());
        TreeSet<String> counters = new TreeSet<>();
        runs.forEach(r -> counters.addAll(r.counters().keySet()));
        for (String name : counters) {
            out.put(name, runs.stream().mapToDouble(r -> r.value(name)).toArray());
        }
        for (Metric m : metrics) {
            out.put(
                    m.name(),
                    runs.stream()
                            .mapToDouble(r -> m.formula().evaluate(lookup.apply(r.counters())))
                            .toArray());
        }
        return out;
    }

    /**
     * Runs by the value of {@code label} ({@code (none)} for runs without it), or, with an empty
     * label, by their whole configuration ({@code k=v,k=v} sorted by key; {@code all} when empty).
     */
    public static Map<String, List<Run>> group(List<Run> runs, String label) {
        Map<String, List<Run>> out = new LinkedHashMap<>();
        for (Run r : runs) {
            String key;
            if (label == null || label.isEmpty()) {
                key = r.config().isEmpty()
                        ? "all"
                        : new TreeMap<>(r.config())
                                .entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue())
                                        .collect(Collectors.joining(","));
            } else {
                key = r.config().getOrDefault(label, "(none)");
            }
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
        }
        return out;
    }
}
