package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.plan.Experiment;
import dev.hetrace.profile.stats.CampaignStats;
import dev.hetrace.profile.stats.CoreTypes;
import dev.hetrace.profile.stats.ThreadMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Option;

/**
 * What {@code hetrace profile stats} and {@code report} compute from a campaign, and their
 * options: metrics (given or from a saved experiment), the grouping, the slowdown's measure and
 * threshold (by default those the campaign was swept with) and the core types; with the defaults, what {@code hetrace report} and {@code hetrace view} show of
 * a campaign file.
 */
final class CampaignAnalysis {
    @Option(
            names = "--metric",
            paramLabel = "NAME=FORMULA",
            description = "A metric over the counters, e.g." + " ipc=instructions/cycles (repeatable).")
    List<String> metricSpecs = new ArrayList<>();

    @Option(
            names = "--experiment",
            paramLabel = "FILE",
            description = "Metrics (and pmcN names) from a saved" + " experiment.")
    Path experiment;

    @Option(
            names = "--by",
            paramLabel = "LABEL",
            description = "Group runs (statistics and box plots) by this"
                    + " configuration label (default: the whole configuration).")
    String by = "";

    @Option(
            names = "--threshold",
            paramLabel = "SLOWDOWN",
            description = "Acceptable slowdown for the knee, e.g. 10%%"
                    + " or 0.1 (default: the one the campaign was swept with, else 10%%).")
    String threshold;

    @Option(
            names = "--slowdown-of",
            paramLabel = "NAME",
            description =
                    "What the slowdown compares: runtime, user,"
                            + " system, or a counter such as task-clock (default: what the campaign was swept with, else runtime).")
    String slowdownOf;

    @Option(
            names = "--core-types",
            paramLabel = "CPUS=TYPE,...",
            description = "Core types, e.g. 0-3=LITTLE,4-7=big" + " (default: from /sys/devices/system/cpu).")
    String coreTypes;

    /** The statistics of a campaign, and each metric per thread and per core type when the runs have samples. */
    record Result(CampaignStats stats, List<ThreadMetrics.Table> threads) {}

    Result of(Campaign c) throws IOException {
        OptionalDouble thr = threshold == null
                ? OptionalDouble.empty()
                : OptionalDouble.of(ProfileAnalysisCommand.threshold(threshold));
        Optional<String> measure = Optional.ofNullable(slowdownOf);
        if (measure.isPresent() && measure.get().isBlank()) {
            throw new IllegalArgumentException("--slowdown-of: expected runtime, user, system or a counter's name");
        }
        List<Metric> metrics = new ArrayList<>();
        Function<Map<String, Double>, ToDoubleFunction<String>> lookup = CampaignStats.BY_NAME;
        if (experiment != null) {
            Experiment e = Experiment.read(experiment);
            metrics.addAll(e.parsedMetrics());
            lookup = e::lookup;
        }
        metrics.addAll(ProfileAnalysisCommand.metrics(metricSpecs));
        List<ThreadMetrics.Table> threads = new ArrayList<>();
        if (!metrics.isEmpty() && c.runs().stream().anyMatch(r -> !r.samples().isEmpty())) {
            CoreTypes types = coreTypes != null ? CoreTypes.parse(coreTypes) : CoreTypes.ofThisMachine();
            for (Metric m : metrics) {
                threads.add(ThreadMetrics.of(c, m, types, lookup));
            }
        }
        try {
            return new Result(CampaignStats.of(c, metrics, by, measure, thr, lookup), threads);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().startsWith("the slowdown of ")) {
                throw e;
            }
            // which option, or the campaign's own record, asked for a slowdown that cannot be computed
            throw new IllegalArgumentException(
                    (slowdownOf != null
                                    ? "--slowdown-of " + slowdownOf + ": "
                                    : c.curve() != null
                                            ? "the campaign's slowdown (swept with "
                                                    + c.curve().measure() + "): "
                                            : "")
                            + e.getMessage(),
                    e);
        }
    }
}
