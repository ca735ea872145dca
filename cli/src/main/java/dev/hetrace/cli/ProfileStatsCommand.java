package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.report.ProfileReport;
import dev.hetrace.profile.stats.BoxPlot;
import dev.hetrace.profile.stats.CampaignStats;
import dev.hetrace.profile.stats.Distribution;
import dev.hetrace.profile.stats.Regression;
import dev.hetrace.profile.stats.SlowdownCurve;
import dev.hetrace.profile.stats.ThreadMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace profile stats}: what a campaign's runs say, as text, CSV or JSON. */
@Command(
        name = "stats",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Print a campaign's statistics: distributions, correlations, slowdown.",
            "",
            "For runtime, user and system time, each counter and each --metric: n, best",
            "(min), median, worst (max), mean, sd, quartiles (R-7 estimator) and IQR.",
            "Counters and metrics ranked by how well they explain runtime (least-squares",
            "line: slope, r, R squared). The user vs system split. Runtime per value of",
            "--by LABEL (default: per whole configuration), with box-plot numbers. When",
            "runs are labelled stress=LEVEL: the slowdown per level (median over the",
            "isolated median, stress=0, with a 95 %% bootstrap interval), the knee (the",
            "first level past --threshold) and the extra-access budget (the stressor's",
            "bandwidth at the last acceptable stressed level, when the sweep measured it;",
            "else why there is none). The slowdown is of what the sweep compared and its",
            "knee at the sweep's threshold, as the campaign records them (runtime and 10 %%",
            "for a campaign that does not); --slowdown-of and --threshold change them. The",
            "output says which.",
            "",
            "With per-thread samples and metrics: each metric per thread and per core",
            "type (--core-types, default this machine's topology).",
            "",
            "Examples:",
            "  hetrace profile stats campaign.json",
            "  hetrace profile stats sweep.json --threshold 5%%",
            "  hetrace profile stats sweep/campaign.json --slowdown-of runtime",
            "  hetrace profile stats mcf.json --metric ipc=instr/cycles --core-types 0-3=LITTLE,4-7=big",
            "  hetrace profile stats runs.json --by cpu --format csv"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the statistics were printed", "1:the campaign or a formula is malformed", "2:usage error"})
final class ProfileStatsCommand extends ProfileAnalysisCommand {
    enum Format {
        text,
        csv,
        json
    }

    @Parameters(index = "0", paramLabel = "CAMPAIGN.json", description = "The campaign file.")
    Path file;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default), csv or json.")
    Format format = Format.text;

    @Mixin
    CampaignAnalysis analysis = new CampaignAnalysis();

    @Override
    int run() throws IOException {
        Campaign c = campaign(file);
        CampaignAnalysis.Result r = analysis.of(c);
        CampaignStats s = r.stats();
        List<ThreadMetrics.Table> threads = r.threads();
        return print(
                switch (format) {
                    case text -> text(s, threads);
                    case csv -> csv(s, threads);
                    case json -> ProfileReport.summaryJson(c, s, threads);
                });
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a != 0 && (a >= 1e7 || a < 1e-4)) {
            return String.format(Locale.ROOT, "%.4e", v);
        }
        return String.format(Locale.ROOT, "%.6g", v)
                .replaceFirst("(\\.\\d*?)0+$", "$1")
                .replaceFirst("\\.$", "");
    }

    static String text(CampaignStats s, List<ThreadMetrics.Table> threads) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "campaign %s: %d run%s%n", s.name(), s.runs(), s.runs() == 1 ? "" : "s"));
        if (s.runs() == 0) {
            return sb.toString();
        }
        if (!s.unsupported().isEmpty()) {
            sb.append("not counted: ");
            List<String> parts = new ArrayList<>();
            s.unsupported().forEach((k, v) -> parts.add(k + " (" + v + ")"));
            sb.append(String.join(", ", parts)).append('\n');
        }
        List<String[]> d = new ArrayList<>();
        d.add(new String[] {"quantity", "n", "best", "median", "worst", "mean", "sd", "q1", "q3", "iqr"});
        s.quantities().forEach((k, q) -> {
            if (q.n() > 0) {
                d.add(new String[] {
                    k,
                    Integer.toString(q.n()),
                    num(q.min()),
                    num(q.median()),
                    num(q.max()),
                    num(q.mean()),
                    num(q.sd()),
                    num(q.q1()),
                    num(q.q3()),
                    num(q.iqr())
                });
            }
        });
        sb.append("\ndistributions (runtime, user, system in s; counters in their units)\n")
                .append(TextTable.render(d, "  ", i -> i > 0));
        List<String[]> r = new ArrayList<>();
        r.add(new String[] {"counter", "runs", "r", "R²", "slope (s per unit)", "intercept s"});
        for (Regression g : s.ranking()) {
            r.add(new String[] {
                g.x(), Integer.toString(g.n()), num(g.r()), num(g.r2()), num(g.slope()), num(g.intercept())
            });
        }
        if (r.size() > 1) {
            sb.append("\ncorrelation with runtime (by |r|)\n").append(TextTable.render(r, "  ", i -> i > 0));
        }
        if (s.split().runs() > 0) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%nuser vs system: median user %s s, system %s s; %s %% of CPU time in" + " the kernel (%d runs)%n",
                    num(s.split().user().median()),
                    num(s.split().system().median()),
                    num(100 * s.split().systemShare()),
                    s.split().runs()));
        }
        List<String[]> g = new ArrayList<>();
        g.add(new String[] {
            s.groupedBy().isEmpty() ? "configuration" : s.groupedBy(),
            "runs",
            "median s",
            "q1",
            "q3",
            "whiskers",
            "outliers"
        });
        for (CampaignStats.Group x : s.groups()) {
            BoxPlot b = x.box();
            g.add(new String[] {
                x.key(),
                Integer.toString(x.runs()),
                num(b.median()),
                num(b.q1()),
                num(b.q3()),
                num(b.lowWhisker()) + ".." + num(b.highWhisker()),
                Integer.toString(b.outliers().size())
            });
        }
        sb.append("\nruntime per ")
                .append(s.groupedBy().isEmpty() ? "configuration" : s.groupedBy())
                .append('\n')
                .append(TextTable.render(g, "  ", i -> i > 0 && i != 5));
        s.slowdown().ifPresent(c -> {
            List<String[]> l = new ArrayList<>();
            String median = ("median " + (c.measure().equals("runtime") ? "" : c.measure() + " ") + c.unit()).strip();
            l.add(new String[] {"stress", "runs", median, "slowdown", "95 % interval", "stressor B/s", "acceptable"});
            for (SlowdownCurve.Level x : c.levels()) {
                l.add(new String[] {
                    x.label(),
                    Integer.toString(x.runtime().n()),
                    num(x.runtime().median()),
                    num(x.slowdown()),
                    num(x.slowdownLow()) + ".." + num(x.slowdownHigh()),
                    num(x.bytesPerSecond()),
                    x.acceptable() ? "yes" : "no"
                });
            }
            sb.append("\nslowdown vs stress: ")
                    .append(c.basis())
                    .append('\n')
                    .append(TextTable.render(l, "  ", i -> i > 0 && i != 4 && i != 6));
            sb.append(c.kneeText()).append('\n').append(c.budgetText()).append('\n');
        });
        for (ThreadMetrics.Table t : threads) {
            for (var part : List.of(Map.entry("thread", t.threads()), Map.entry("core type", t.coreTypes()))) {
                List<String[]> rows = new ArrayList<>();
                rows.add(new String[] {part.getKey(), "samples", t.metric(), "median per sample", "q1", "q3"});
                for (ThreadMetrics.Row x : part.getValue()) {
                    Distribution p = x.perSample();
                    rows.add(new String[] {
                        x.key(),
                        Integer.toString(x.samples()),
                        num(x.total()),
                        num(p.median()),
                        num(p.q1()),
                        num(p.q3())
                    });
                }
                sb.append('\n')
                        .append(t.metric())
                        .append(" per ")
                        .append(part.getKey())
                        .append('\n')
                        .append(TextTable.render(rows, "  ", i -> i > 0));
            }
        }
        return sb.toString();
    }

    /** A tidy table: one statistic per line. */
    static String csv(CampaignStats s, List<ThreadMetrics.Table> threads) {
        StringBuilder sb = new StringBuilder("section,name,statistic,value\n");
        s.quantities().forEach((k, q) -> {
            row(sb, "distribution", k, "n", q.n());
            row(sb, "distribution", k, "best", q.min());
            row(sb, "distribution", k, "median", q.median());
            row(sb, "distribution", k, "worst", q.max());
            row(sb, "distribution", k, "mean", q.mean());
            row(sb, "distribution", k, "sd", q.sd());
            row(sb, "distribution", k, "q1", q.q1());
            row(sb, "distribution", k, "q3", q.q3());
        });
        int rank = 1;
        for (Regression g : s.ranking()) {
            row(sb, "correlation", g.x(), "rank", rank++);
            row(sb, "correlation", g.x(), "r", g.r());
            row(sb, "correlation", g.x(), "r2", g.r2());
            row(sb, "correlation", g.x(), "slope", g.slope());
            row(sb, "correlation", g.x(), "intercept", g.intercept());
        }
        row(sb, "split", "user", "median", s.split().user().median());
        row(sb, "split", "system", "median", s.split().system().median());
        row(sb, "split", "system", "share", s.split().systemShare());
        for (CampaignStats.Group x : s.groups()) {
            row(sb, "group", x.key(), "runs", x.runs());
            row(sb, "group", x.key(), "median", x.box().median());
            row(sb, "group", x.key(), "q1", x.box().q1());
            row(sb, "group", x.key(), "q3", x.box().q3());
            row(sb, "group", x.key(), "outliers", x.box().outliers().size());
        }
        s.slowdown().ifPresent(c -> {
            for (SlowdownCurve.Level x : c.levels()) {
                row(sb, "slowdown", x.label(), "median", x.runtime().median());
                row(sb, "slowdown", x.label(), "slowdown", x.slowdown());
                row(sb, "slowdown", x.label(), "low", x.slowdownLow());
                row(sb, "slowdown", x.label(), "high", x.slowdownHigh());
                row(sb, "slowdown", x.label(), "bytes_per_second", x.bytesPerSecond());
            }
            row(sb, "slowdown", "threshold", "value", c.threshold());
            sb.append("slowdown,measure,name,").append(cell(c.measure())).append('\n');
            sb.append("slowdown,knee,level,")
                    .append(c.knee().map(SlowdownCurve.Level::label).orElse(""))
                    .append('\n');
            sb.append("slowdown,budget,level,")
                    .append(c.budget().map(SlowdownCurve.Budget::level).orElse(""))
                    .append('\n');
            c.budget().ifPresent(b -> row(sb, "slowdown", "budget", "bytes_per_second", b.bytesPerSecond()));
            sb.append("slowdown,budget,note,").append(cell(c.budgetText())).append('\n');
        });
        for (ThreadMetrics.Table t : threads) {
            for (ThreadMetrics.Row x : t.threads()) {
                row(sb, "thread " + t.metric(), x.key(), "value", x.total());
            }
            for (ThreadMetrics.Row x : t.coreTypes()) {
                row(sb, "core type " + t.metric(), x.key(), "value", x.total());
            }
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String section, String name, String statistic, double value) {
        sb.append(cell(section))
                .append(',')
                .append(cell(name))
                .append(',')
                .append(statistic)
                .append(',')
                .append(
                        Double.isNaN(value)
                                ? ""
                                : value == Math.rint(value) && Math.abs(value) < 1e15
                                        ? Long.toString((long) value)
                                        : Double.toString(value))
                .append('\n');
    }

    private static String cell(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }
}
