package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.report.ProfileReport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace profile report}: a campaign's charts in one HTML file. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Write a campaign's charts as one self-contained HTML file.",
            "",
            "The file opens in any browser without a network or a server (inline SVG):",
            "the runtime histogram (best left, worst right, median marked) and the same",
            "per counter and metric; runtime against each counter with its regression",
            "line (slope, r, R squared) and the counters ranked by correlation; the",
            "slowdown curve with the threshold, the knee and the extra-access budget when",
            "runs are labelled stress=LEVEL (of the measure and at the threshold the",
            "campaign was swept with, unless --slowdown-of or --threshold says otherwise,",
            "as 'hetrace profile stats'); user vs system time per run; box plots of",
            "runtime per configuration (or per --by LABEL); with per-thread samples,",
            "each --metric per thread and per core type (--core-types, default this",
            "machine's topology).",
            "",
            "Examples:",
            "  hetrace profile report sweep.json -o sweep.html",
            "  hetrace profile report sweep/campaign.json --slowdown-of runtime -o wall.html",
            "  hetrace profile report runs.json --metric ipc=instructions/cycles --by cpu -o runs.html"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the report was written", "1:the campaign or a formula is malformed", "2:usage error"})
final class ProfileReportCommand extends ProfileAnalysisCommand {
    @Parameters(index = "0", paramLabel = "CAMPAIGN.json", description = "The campaign file.")
    Path file;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "REPORT.html",
            required = true,
            description = "The file to write.")
    Path output;

    @Mixin
    CampaignAnalysis analysis = new CampaignAnalysis();

    @Override
    int run() throws IOException {
        Campaign c = campaign(file);
        if (c.runs().isEmpty()) {
            throw new IllegalArgumentException(file + ": the campaign has no runs to report");
        }
        CampaignAnalysis.Result r = analysis.of(c);
        ProfileReport.Written w = ProfileReport.write(c, r.stats(), r.threads(), output);
        // the curve's measure, knee and budget as the report shows them, as 'profile stats' prints them
        String curve = r.stats()
                .slowdown()
                .map(s -> s.basis() + "\n" + s.kneeText() + "\n" + s.budgetText() + "\n")
                .orElse("");
        return print(String.format(
                        Locale.ROOT,
                        "%s: %d run%s, %,d bytes%n",
                        w.file(),
                        c.runs().size(),
                        c.runs().size() == 1 ? "" : "s",
                        w.bytes())
                + curve);
    }
}
