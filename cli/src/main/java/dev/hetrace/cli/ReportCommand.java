package dev.hetrace.cli;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.OutputFile;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.report.ProfileReport;
import dev.hetrace.view.BoardLayout;
import dev.hetrace.view.Report;
import dev.hetrace.view.Timeline;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code hetrace report}: the viewer in one self-contained HTML file, for people without hetrace. */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Write the viewer and its data as one self-contained HTML file.",
            "",
            "The file is the app of 'hetrace view' (timeline, aggregated overview,",
            "statistics, diagnosis) with what its server would answer embedded in it:",
            "it opens in a browser from disk, with no server and no network. A board",
            "of at most 200,000 intervals embeds every one of them; a larger one embeds",
            "each row's activity over the whole trace in a fixed number of columns",
            "(sized to keep the file near 20 MB), so zooming deeper shows those",
            "summaries, not the intervals (the page says so), and every interval in",
            "windows around the longest outliers of the diagnosis. No pattern search, and",
            "statistics for the whole trace only. Several traces are put on one clock first",
            "(see 'hetrace stats --help').",
            "",
            "A campaign.json of 'hetrace profile' gives its charts instead (as 'hetrace",
            "profile report' does, with its defaults).",
            "",
            "Examples:",
            "  hetrace report hetrace-demo -o report.html",
            "  hetrace report sweep/campaign.json -o sweep.html",
            "  hetrace report board/master board/dsp* -o board.html"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the report was written",
            "1:a trace could not be read or put on the reference clock, or the file not written",
            "2:usage error"
        })
final class ReportCommand extends HetraceCommand {
    @Option(
            names = {"-o", "--output"},
            paramLabel = "FILE",
            required = true,
            description = "The HTML file to write.")
    Path output;

    @Mixin
    BoardOptions board = new BoardOptions();

    @Option(
            names = "--layout",
            paramLabel = "FILE",
            description = {
                "A YAML file of where the cores sit on the board, as for 'hetrace view'",
                "(docs/view.md): the group rows follow it."
            })
    Path layoutFile;

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        if (ViewCommand.isCampaign(board.inputs)) {
            // a 'hetrace profile' campaign: the report 'hetrace profile report' writes, with its defaults
            Campaign c = CampaignFile.read(board.inputs.getFirst());
            if (c.runs().isEmpty()) {
                throw new IOException(board.inputs.getFirst() + ": the campaign has no runs to report");
            }
            CampaignAnalysis.Result r = new CampaignAnalysis().of(c);
            var w = ProfileReport.write(c, r.stats(), r.threads(), output);
            return print(String.format(
                    Locale.ROOT,
                    "%s: %d runs, %,d bytes (the charts of 'hetrace profile report')%n",
                    w.file(),
                    c.runs().size(),
                    w.bytes()));
        }
        // told before the traces are read: an output that cannot be written, a layout that is not one
        OutputFile.of(output).close();
        BoardLayout layout = layoutFile == null ? BoardLayout.NONE : BoardLayout.read(layoutFile);
        StateModel model = board.stored(index, main.err);
        Report.Written w = Report.write(Timeline.of(model, layout), output);
        return print(describe(w));
    }

    static String describe(Report.Written w) {
        return String.format(
                Locale.ROOT,
                "%s: %,d bytes (%.1f MB), %s%n",
                w.file(),
                w.bytes(),
                w.bytes() / 1e6,
                w.note().replaceFirst("^report: ", "").replaceFirst("^report of", "of"));
    }
}
