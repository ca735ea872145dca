package dev.hetrace.profile.stats;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * METrICS' step 2: the workload's runtime against increasing co-runner stress, from the runs
 * labelled {@code stress=LEVEL} (level 0, or a run without the label, is the isolated
 * workload). Each level gets the median runtime and its quartiles, and the slowdown: the ratio
 * of its median to the isolated median. The slowdown's dispersion is a 95 % percentile
 * bootstrap interval: {@link #RESAMPLES} times, both levels' runs are resampled with
 * replacement and the ratio of the resamples' medians taken; the interval is the 2.5th and
 * 97.5th percentiles of those ratios (seeded, so the same campaign gives the same interval).
 *
 * <p>The knee is the first level whose slowdown exceeds 1 + threshold (default 10 %): the
 * levels before it are acceptable, and the extra-access budget is the stressor's bandwidth at
 * the last acceptable stressed level, from step 1 ({@link Campaign#hardware()} entries {@code
 * level=L, bytes_per_second=B}) when measured. When the first stressed level is already past the
 * threshold there is no budget: the isolated level, which has no co-runner, is no budget.
 *
 * <p>What the slowdown is of ("runtime" by default) and the threshold are those the campaign
 * records ({@link Campaign#curve()}, what its sweep used) unless given: so a sweep, its
 * statistics and its report find the same knee.
 *
 * @param threshold the acceptable slowdown, 0.10 for 10 %
 * @param levels    one entry per stress level, ascending
 * @param knee      the first unacceptable level, empty when every level is acceptable
 * @param budget    the last acceptable stressed level and its bandwidth, empty when even the first
 *                  stressed level is past the threshold
 * @param measure   what the slowdown is of: {@code runtime} (wall clock, the default), or another
 *                  {@link Run#value} such as {@code task-clock} (CPU time: on a busy machine, it
 *                  leaves out the time the workload waited for its CPU)
 * @param measureFrom   where {@code measure} came from
 * @param thresholdFrom where {@code threshold} came from
 * @param recorded  what the campaign records, null when it does not
 */
public record SlowdownCurve(
        double threshold,
        List<Level> levels,
        Optional<Level> knee,
        Optional<Budget> budget,
        String measure,
        Origin measureFrom,
        Origin thresholdFrom,
        Campaign.Curve recorded) {

    /** Where a curve's measure or threshold came from. */
    public enum Origin {
        /** what the campaign records: the one it was swept with */
        CAMPAIGN,
        /** given by the caller (an option) */
        GIVEN,
        /** the default, the campaign recording none */
        DEFAULT
    }

    public static final String LABEL = "stress";
    public static final double DEFAULT_THRESHOLD = 0.10;
    public static final int RESAMPLES = 2000;

    /**
     * One stress level.
     *
     * @param label          the level as the campaign writes it
     * @param level          the same as a number (for the x axis); when some level is not a number,
     *                       its rank (0 for the isolated runs)
     * @param runtime        the runtimes at this level
     * @param slowdown       median runtime / isolated median runtime
     * @param slowdownLow    2.5th percentile of the bootstrapped ratio
     * @param slowdownHigh   97.5th percentile of the bootstrapped ratio
     * @param bytesPerSecond the stressor's bandwidth alone at this level (step 1), NaN if unmeasured
     * @param accessesPerSecond the same in accesses per second, NaN if unmeasured
     * @param acceptable     slowdown ≤ 1 + threshold
     */
    public record Level(
            String label,
            double level,
            Distribution runtime,
            double slowdown,
            double slowdownLow,
            double slowdownHigh,
            double bytesPerSecond,
            double accessesPerSecond,
            boolean acceptable) {}

    /** The extra-access budget: the highest stress level the workload tolerates, a level with a co-runner. */
    public record Budget(String level, double bytesPerSecond, double accessesPerSecond) {

        public Budget(String level, double bytesPerSecond) {
            this(level, bytesPerSecond, Double.NaN);
        }
    }

    public SlowdownCurve {
        levels = List.copyOf(levels);
    }

    /** Whether a campaign has stress levels to draw a curve from (some run labelled stress=L with L ≠ 0). */
    public static boolean applies(Campaign c) {
        return c.runs().stream()
                .anyMatch(
                        r -> r.config().containsKey(LABEL) && number(r.config().get(LABEL)) != 0);
    }

    /** The curve the campaign records (the measure and threshold of its sweep), else runtime's at 10 %. */
    public static SlowdownCurve of(Campaign c) {
        return of(c, Optional.empty(), OptionalDouble.empty());
    }

    /** The curve of the measure the campaign records (else runtime), with this threshold. */
    public static SlowdownCurve of(Campaign c, double threshold) {
        return of(c, Optional.empty(), OptionalDouble.of(threshold));
    }

    /** The curve of {@code measure}, a {@link Run#value} name: {@code runtime}, {@code user}, a counter. */
    public static SlowdownCurve of(Campaign c, double threshold, String measure) {
        return of(c, Optional.of(measure), OptionalDouble.of(threshold));
    }

    /**
     * The curve of {@code measure} at {@code threshold}; each, when not given, the one the
     * campaign records (what its sweep used), else {@code runtime} and {@link #DEFAULT_THRESHOLD}.
     *
     * @throws IllegalArgumentException when no run has the measure, or the isolated runs give it no
     *                                  positive median to compare with
     */
    public static SlowdownCurve of(Campaign c, Optional<String> measureGiven, OptionalDouble thresholdGiven) {
        Campaign.Curve recorded = c.curve();
        Origin measureFrom =
                measureGiven.isPresent() ? Origin.GIVEN : recorded != null ? Origin.CAMPAIGN : Origin.DEFAULT;
        String measure = measureGiven.orElse(recorded != null ? recorded.measure() : "runtime");
        Origin thresholdFrom =
                thresholdGiven.isPresent() ? Origin.GIVEN : recorded != null ? Origin.CAMPAIGN : Origin.DEFAULT;
        double threshold = thresholdGiven.orElse(recorded != null ? recorded.threshold() : DEFAULT_THRESHOLD);
        if (!(threshold >= 0)) {
            throw new IllegalArgumentException("the slowdown threshold must be ≥ 0, not " + threshold);
        }
        if (c.runs().stream().allMatch(r -> Double.isNaN(r.value(measure)))) {
            throw new IllegalArgumentException(
                    "the slowdown of " + measure + " cannot be computed: no run of campaign '" + c.name() + "' has "
                            + measure + " (they have " + String.join(", ", measures(c)) + ")");
        }
        Map<String, List<Run>> byLevel = new LinkedHashMap<>();
        for (Run r : c.runs()) {
            byLevel.computeIfAbsent(r.config().getOrDefault(LABEL, "0"), k -> new ArrayList<>())
                    .add(r);
        }
        List<String> order = new ArrayList<>(byLevel.keySet());
        // numeric levels in order, named ones (l2-read, ...) after them as they came
        order.sort(Comparator.comparingDouble(SlowdownCurve::number));
        boolean numeric = order.stream().allMatch(l -> Double.isFinite(number(l)));
        String isolatedLabel = order.stream()
                .filter(l -> number(l) == 0)
                .findFirst()
                .orElseThrow(
                        () -> new IllegalArgumentException(c.name() + ": no isolated runs (stress=0) to compare with"));
        double[] isolated = values(byLevel.get(isolatedLabel), measure);
        double base = Distribution.quantile(isolated, 0.5);
        if (!(base > 0) || Double.isInfinite(base)) {
            throw new IllegalArgumentException("the slowdown of " + measure + " cannot be computed: "
                    + (isolated.length == 0
                            ? "no isolated run (stress=0) has it"
                            : "its median over the isolated runs (stress=0) is " + base + ", not a positive number"));
        }
        Map<String, Double> bandwidth = bandwidths(c, "bytes_per_second");
        Map<String, Double> accesses = bandwidths(c, "accesses_per_second");
        List<Level> levels = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(0x5EEDL);
        for (String label : order) {
            double[] rt = values(byLevel.get(label), measure);
            Distribution d = Distribution.of(rt);
            double slowdown = d.median() / base;
            double[] ci = bootstrap(isolated, rt, random);
            levels.add(new Level(
                    label,
                    numeric ? number(label) : levels.size(),
                    d,
                    slowdown,
                    ci[0],
                    ci[1],
                    at(bandwidth, label),
                    at(accesses, label),
                    slowdown <= 1 + threshold + 1e-12));
        }
        Optional<Level> knee = levels.stream().filter(l -> !l.acceptable()).findFirst();
        Optional<Budget> budget = Optional.empty();
        for (Level l : levels) {
            if (knee.isPresent() && l == knee.get()) {
                break;
            }
            // the isolated level has no co-runner: a budget only from a stressed level
            if (!l.label().equals(isolatedLabel)) {
                budget = Optional.of(new Budget(l.label(), l.bytesPerSecond(), l.accessesPerSecond()));
            }
        }
        return new SlowdownCurve(threshold, levels, knee, budget, measure, measureFrom, thresholdFrom, recorded);
    }

    /** The names a slowdown can be of in this campaign: runtime, user, system when measured, then the counters. */
    static List<String> measures(Campaign c) {
        Set<String> out = new LinkedHashSet<>();
        for (String t : List.of("runtime", "user", "system")) {
            if (c.runs().stream().anyMatch(r -> !Double.isNaN(r.value(t)))) {
                out.add(t);
            }
        }
        c.runs().stream().flatMap(r -> r.counters().keySet().stream()).sorted().forEach(out::add);
        return List.copyOf(out);
    }

    /** The unit of the measure's values: s for the times, ms for task-clock (as perf counts it), empty for counts. */
    public String unit() {
        return switch (measure) {
            case "runtime", "user", "system" -> "s";
            case "task-clock" -> "ms";
            default -> "";
        };
    }

    /**
     * What the curve compares and its threshold, and where each came from, e.g. {@code slowdown of
     * task-clock (as swept), threshold 10 % (as swept)}.
     */
    public String basis() {
        String m = switch (measureFrom) {
            case CAMPAIGN -> "as swept";
            case GIVEN ->
                recorded != null && !recorded.measure().equals(measure)
                        ? "asked for; swept with " + recorded.measure()
                        : "asked for";
            case DEFAULT -> "the default: the campaign does not record what it was swept with";
        };
        String t = switch (thresholdFrom) {
            case CAMPAIGN -> "as swept";
            case GIVEN ->
                recorded != null && recorded.threshold() != threshold
                        ? "asked for; swept with " + percent(recorded.threshold())
                        : "asked for";
            case DEFAULT -> "the default";
        };
        return "slowdown of " + measure + " (" + m + "), threshold " + percent(threshold) + " (" + t + ")";
    }

    /** The knee in one line: {@code knee: level 4, slowdown 1.213} or {@code no knee: ...}. */
    public String kneeText() {
        return knee.map(k -> String.format(
                        Locale.ROOT,
                        "knee: level %s, slowdown %.3f (past %.3f)",
                        k.label(),
                        k.slowdown(),
                        1 + threshold))
                .orElse(String.format(
                        Locale.ROOT, "no knee: every level stays within a slowdown of %.3f", 1 + threshold));
    }

    /**
     * The extra-access budget in one line, or why there is none: the lowest stressed level already
     * past the threshold, the stressor's bandwidth not measured (no step 1, as in an imported
     * campaign) or measured as nothing.
     */
    public String budgetText() {
        if (budget.isEmpty() && knee.isEmpty()) {
            return "extra-access budget: none: the campaign has no stressed level";
        }
        if (budget.isEmpty()) {
            Level first = knee.get();
            return "extra-access budget: none: the lowest stress level measured, " + first.label()
                    + bandwidth(first.bytesPerSecond(), first.accessesPerSecond(), " (", ")")
                    + ", already slows the workload past the threshold; a budget, if any, lies below it";
        }
        Budget b = budget.get();
        String atLeast = knee.isEmpty() ? "at least " : "";
        if (Double.isNaN(b.bytesPerSecond())) {
            return "extra-access budget: " + atLeast + "level " + b.level() + "; its bandwidth is unknown: the campaign"
                    + " has no measurement of the stressor alone at that level";
        }
        if (!(b.bytesPerSecond() > 0)) {
            return "extra-access budget: unknown: the stressor alone at level " + b.level() + " made no accesses" + " ("
                    + b.bytesPerSecond() + " B/s measured)";
        }
        return "extra-access budget: " + atLeast + "level " + b.level()
                + bandwidth(b.bytesPerSecond(), b.accessesPerSecond(), ", ", "") + " of the stressor alone";
    }

    private static String bandwidth(double bytes, double accesses, String before, String after) {
        if (Double.isNaN(bytes)) {
            return "";
        }
        return before
                + (Double.isNaN(accesses) ? "" : String.format(Locale.ROOT, "%.3e accesses/s, ", accesses))
                + String.format(Locale.ROOT, "%.1f MB/s", bytes / 1e6)
                + after;
    }

    private static String percent(double t) {
        return String.format(
                Locale.ROOT,
                "%s %%",
                new java.math.BigDecimal(Double.toString(100 * t))
                        .round(new java.math.MathContext(6))
                        .stripTrailingZeros()
                        .toPlainString());
    }

    private static double[] values(List<Run> runs, String measure) {
        return runs.stream()
                .mapToDouble(r -> r.value(measure))
                .filter(v -> !Double.isNaN(v))
                .toArray();
    }

    /** A level's step-1 figure, its label written as the runs write it or as the same number. */
    private static double at(Map<String, Double> byLevel, String label) {
        Double v = byLevel.get(label);
        if (v == null) {
            v = byLevel.entrySet().stream()
                    .filter(e -> number(e.getKey()) == number(label))
                    .map(Map.Entry::getValue)
                    .findFirst()
                    .orElse(Double.NaN);
        }
        return v;
    }

    /** The 95 % percentile bootstrap interval of median(stressed) / median(isolated). */
    static double[] bootstrap(double[] isolated, double[] stressed, SplittableRandom random) {
        if (isolated.length == 0 || stressed.length == 0) {
            return new double[] {Double.NaN, Double.NaN};
        }
        double[] ratios = new double[RESAMPLES];
        double[] a = new double[isolated.length];
        double[] b = new double[stressed.length];
        for (int k = 0; k < RESAMPLES; k++) {
            for (int i = 0; i < a.length; i++) {
                a[i] = isolated[random.nextInt(a.length)];
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = stressed[random.nextInt(b.length)];
            }
            Arrays.sort(a);
            Arrays.sort(b);
            ratios[k] = Distribution.quantileSorted(b, 0.5) / Distribution.quantileSorted(a, 0.5);
        }
        Arrays.sort(ratios);
        return new double[] {Distribution.quantileSorted(ratios, 0.025), Distribution.quantileSorted(ratios, 0.975)};
    }

    /** Step 1's figure per level: hardware entries with a level and {@code key} (bytes_per_second, accesses_per_second). */
    static Map<String, Double> bandwidths(Campaign c, String key) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map<String, String> h : c.hardware()) {
            String level = h.get("level");
            String bw = h.get(key);
            if (level != null && bw != null) {
                try {
                    out.put(level, Double.parseDouble(bw));
                } catch (NumberFormatException e) {
                    // a hardware note without a number: no bandwidth for that level
                }
            }
        }
        return out;
    }

    /** A level label as a number: {@code 4}, {@code 0.5}; a label that is not a number sorts last. */
    public static double number(String label) {
        try {
            return Double.parseDouble(label.trim());
        } catch (NumberFormatException e) {
            return Double.POSITIVE_INFINITY;
        }
    }
}
