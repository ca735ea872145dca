package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.plan.Experiment;
import dev.hetrace.profile.report.ProfileReport;
import dev.hetrace.profile.stats.CampaignStats;
import dev.hetrace.profile.stats.CoreTypes;
import dev.hetrace.profile.stats.ThreadMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace profile report}: a campaign's charts in one HTML file. */
@Command(name = "report", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Write a campaign's charts as one self-contained HTML file.", "",
        "The file opens in any browser without a network or a server (inline SVG):",
        "the runtime histogram (best left, worst right, median marked) and the same",
        "per counter and metric; runtime against each counter with its regression",
        "line (slope, r, R squared) and the counters ranked by correlation; the",
        "slowdown curve with the threshold, the knee and the extra-access budget when",
        "runs are labelled stress=LEVEL; user vs system time per run; box plots of",
        "runtime per configuration (or per --by LABEL); with per-thread samples,",
        "each --metric per thread and per core type (--core-types, default this",
        "machine's topology).", "",
        "Examples:",
        "  hetrace profile report sweep.json -o sweep.html",
        "  hetrace profile report runs.json --metric ipc=instructions/cycles --by cpu -o runs.html"},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:the report was written", "1:the campaign or a formula is malformed", "2:usage error"})
final class ProfileReportCommand extends ProfileAnalysisCommand {
    @Parameters(index = "0", paramLabel = "CAMPAIGN.json", description = "The campaign file.")
    Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "REPORT.html", required = true, description = "The file to write.")
    Path output;

    @Option(names = "--metric", paramLabel = "NAME=FORMULA", description = "A metric over the counters (repeatable).")
    List<String> metricSpecs = new ArrayList<>();

    @Option(names = "--experiment", paramLabel = "FILE", description = "Metrics (and pmcN names) from a saved"
        + " experiment (docs/profiling.md).")
    Path experiment;

    @Option(names = "--by", paramLabel = "LABEL", description = "Box plots per value of this label (default: per"
        + " whole configuration).")
    String by = "";

    @Option(names = "--threshold", paramLabel = "SLOWDOWN", description = "Acceptable slowdown for the knee"
        + " (default: ${DEFAULT-VALUE}).")
    String threshold = DEFAULT_THRESHOLD;

    @Option(names = "--core-types", paramLabel = "CPUS=TYPE,...", description = "Core types, e.g. 0-3=LITTLE,4-7=big"
        + " (default: from /sys/devices/system/cpu).")
    String coreTypes;

    @Override
    int run() throws IOException {
        double thr = threshold(threshold);
        Campaign c = campaign(file);
        if (c.runs().isEmpty()) {
            throw new IllegalArgumentException(file + ": the campaign has no runs to report");
        }
        List<Metric> metrics = new ArrayList<>();
        Function<Map<String, Double>, ToDoubleFunction<String>> lookup = CampaignStats.BY_NAME;
        if (experiment != null) {
            Experiment e = Experiment.read(experiment);
            metrics.addAll(e.parsedMetrics());
            lookup = e::lookup;
        }
        metrics.addAll(metrics(metricSpecs));
        List<ThreadMetrics.Table> threads = new ArrayList<>();
        if (!metrics.isEmpty() && c.runs().stream().anyMatch(r -> !r.samples().isEmpty())) {
            CoreTypes types = coreTypes != null ? CoreTypes.parse(coreTypes) : CoreTypes.ofThisMachine();
            for (Metric m : metrics) {
                threads.add(ThreadMetrics.of(c, m, types, lookup));
            }
        }
        ProfileReport.Written w = ProfileReport.write(c, CampaignStats.of(c, metrics, by, thr, lookup), threads, output);
        return print(String.format(Locale.ROOT, "%s: %d run%s, %,d bytes%n", w.file(), c.runs().size(),
            c.runs().size() == 1 ? "" : "s", w.bytes()));
    }
}
