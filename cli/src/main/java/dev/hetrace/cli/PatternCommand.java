package dev.hetrace.cli;

import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.index.RangeQueries;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace pattern}: KPTrace's pattern search, A followed by B. */
@Command(
        name = "pattern",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Find the occurrences of an event A followed by an event B.",
            "",
            "Over the events of the traces merged in time (several traces are put on one",
            "clock first: see 'hetrace stats --help'), each A waits for the next B that has",
            "the same key: the values of the --where fields (a field of A equal to a field",
            "of B), and the core with --same-core.",
            "An A whose key is already waiting replaces it (the older A is counted as ignored);",
            "a B that no A waits for is ignored; As still waiting at the end are ignored.",
            "Event names may use * (any text). Fields are paths as 'hetrace print' shows them:",
            "msg_id, payload.msg_id, context.vtid, packet_context.cpu_id.",
            "",
            "Prints: the count, As and Bs ignored, duration (A to B) min/avg/max, the",
            "delay between consecutive occurrences (end of one to start of the next)",
            "min/avg/max, a histogram of durations, and the occurrences (times in seconds",
            "from the first event).",
            "",
            "Examples:",
            "  hetrace pattern --first msgq_put --then msgq_get --where msg_id=msg_id hetrace-demo",
            "  hetrace pattern --first func_entry --then func_exit --same-core board/dsp1",
            "  hetrace pattern --first 'syscall_entry_*' --then 'syscall_exit_*' \\",
            "      --same-core kernel/"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the occurrences were printed (possibly none)",
            "1:a trace could not be read or put on the reference clock, or a --where" + " field is missing",
            "2:usage error"
        })
final class PatternCommand extends HetraceCommand {
    enum Format {
        text,
        csv,
        json
    }

    @Parameters(arity = "1..*", paramLabel = "TRACE", description = BoardInput.TRACES_HELP)
    List<Path> inputs = new ArrayList<>();

    @CommandLine.Mixin
    ClockOptions clock = new ClockOptions();

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Option(names = "--first", required = true, paramLabel = "A", description = "The event that starts an occurrence.")
    String first;

    @Option(names = "--then", required = true, paramLabel = "B", description = "The event that ends it.")
    String then;

    @Option(
            names = "--where",
            paramLabel = "FIELD_A=FIELD_B",
            description = "A field of A that must equal a field of B (repeatable).")
    List<String> where = new ArrayList<>();

    @Option(
            names = "--same-core",
            description = "A and B on the same core (trace, and CPU when the trace has several).")
    boolean sameCore;

    @Option(
            names = "--list",
            paramLabel = "N",
            description = "Occurrences listed in text (default: ${DEFAULT-VALUE}; -1: all).")
    int list = 20;

    @Option(names = "--bins", paramLabel = "N", description = "Histogram bins (default: ${DEFAULT-VALUE}).")
    int bins = 10;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default), csv (the occurrences) or json.")
    Format format = Format.text;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        List<String[]> conditions = new ArrayList<>();
        for (String w : where) {
            String[] parts = w.split("=", -1);
            if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--where " + w + ": expected FIELD_OF_A=FIELD_OF_B, e.g. msg_id=msg_id");
            }
            conditions.add(new String[] {parts[0].strip(), parts[1].strip()});
        }
        if (bins < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--bins " + bins + ": at least 1");
        }
        // a query over the trace set's store (built first when there is none), as the viewer's search
        TraceIndex store = index.open(inputs, clock, null, main.err);
        PatternSearch.Result r;
        try (RangeQueries q = new RangeQueries(store)) {
            r = q.pattern(new PatternSearch.Spec(first, then, conditions, sameCore));
        } catch (SQLException e) {
            throw new IOException(store.folder() + ": " + TraceIndex.firstLine(e.getMessage()), e);
        }
        String text = switch (format) {
            case text -> text(r);
            case csv -> csv(r);
            case json -> json(r);
        };
        return print(text);
    }

    private String text(PatternSearch.Result r) {
        StringBuilder sb = new StringBuilder();
        sb.append("pattern: ")
                .append(r.spec().first())
                .append(" then ")
                .append(r.spec().then());
        for (String[] w : r.spec().where()) {
            sb.append(", where ").append(w[0]).append(" = ").append(w[1]);
        }
        if (r.spec().sameCore()) {
            sb.append(", on the same core");
        }
        sb.append(String.format(
                Locale.ROOT,
                "%n%,d events from %d trace(s)%n%n",
                r.events(),
                r.traceNames().size()));
        sb.append(String.format(
                Locale.ROOT,
                "occurrences %d   As ignored %d   Bs ignored %d%n",
                r.occurrences().size(),
                r.ignoredFirst(),
                r.ignoredThen()));
        if (r.occurrences().isEmpty()) {
            return sb.toString();
        }
        long[] delays = r.delays();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"", "min ms", "avg ms", "max ms"});
        rows.add(new String[] {"duration", ms(r.minDuration()), ms(r.avgDuration()), ms(r.maxDuration())});
        if (delays.length > 0) {
            rows.add(new String[] {
                "delay between",
                ms(Arrays.stream(delays).min().orElse(0)),
                ms(Arrays.stream(delays).average().orElse(0)),
                ms(Arrays.stream(delays).max().orElse(0))
            });
        }
        sb.append(TextTable.render(rows, "  ", i -> i > 0));
        long[] h = r.histogram(bins);
        long top = Arrays.stream(h).max().orElse(1);
        double width = (double) (r.maxDuration() - r.minDuration()) / bins;
        sb.append("\nduration histogram\n");
        List<String[]> hist = new ArrayList<>();
        for (int b = 0; b < h.length; b++) {
            double lo = r.minDuration() + b * width;
            hist.add(new String[] {
                ms(lo),
                "-",
                ms(lo + width) + " ms",
                "#".repeat((int) Math.round(40.0 * h[b] / top)),
                Long.toString(h[b])
            });
            if (width == 0) {
                break;
            }
        }
        sb.append(TextTable.render(hist, "  ", i -> i == 0 || i == 2 || i == 4));
        int shown = list < 0
                ? r.occurrences().size()
                : Math.min(list, r.occurrences().size());
        if (shown > 0) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%noccurrences%s%n",
                    shown < r.occurrences().size()
                            ? " (the first " + shown + " of " + r.occurrences().size() + "; --list -1 for all)"
                            : ""));
            List<String[]> occ = new ArrayList<>();
            occ.add(new String[] {"#", "A at s", "on", "B at s", "on", "ms"});
            for (int i = 0; i < shown; i++) {
                PatternSearch.Occurrence o = r.occurrences().get(i);
                occ.add(new String[] {
                    Integer.toString(i + 1),
                    sec(r, o.start()),
                    o.startCore(),
                    sec(r, o.end()),
                    o.endCore(),
                    ms(o.duration())
                });
            }
            sb.append(TextTable.render(occ, "  ", i -> i == 0 || i == 1 || i == 3 || i == 5));
        }
        return sb.toString();
    }

    private static String csv(PatternSearch.Result r) {
        StringBuilder sb = new StringBuilder("a_ns,a_core,b_ns,b_core,duration_ns\n");
        for (PatternSearch.Occurrence o : r.occurrences()) {
            sb.append(o.start())
                    .append(',')
                    .append(o.startCore())
                    .append(',')
                    .append(o.end())
                    .append(',')
                    .append(o.endCore())
                    .append(',')
                    .append(o.duration())
                    .append('\n');
        }
        return sb.toString();
    }

    private String json(PatternSearch.Result r) {
        long[] delays = r.delays();
        StringBuilder sb = new StringBuilder("{\"first\": ")
                .append(TextTable.quote(r.spec().first()))
                .append(", \"then\": ")
                .append(TextTable.quote(r.spec().then()))
                .append(", \"count\": ")
                .append(r.occurrences().size())
                .append(", \"ignored_first\": ")
                .append(r.ignoredFirst())
                .append(", \"ignored_then\": ")
                .append(r.ignoredThen());
        if (!r.occurrences().isEmpty()) {
            sb.append(", \"duration_ns\": {\"min\": ")
                    .append(r.minDuration())
                    .append(", \"avg\": ")
                    .append(String.format(Locale.ROOT, "%.1f", r.avgDuration()))
                    .append(", \"max\": ")
                    .append(r.maxDuration())
                    .append('}');
        }
        if (delays.length > 0) {
            sb.append(", \"delay_ns\": {\"min\": ")
                    .append(Arrays.stream(delays).min().orElse(0))
                    .append(", \"avg\": ")
                    .append(String.format(
                            Locale.ROOT, "%.1f", Arrays.stream(delays).average().orElse(0)))
                    .append(", \"max\": ")
                    .append(Arrays.stream(delays).max().orElse(0))
                    .append('}');
        }
        if (!r.occurrences().isEmpty()) {
            sb.append(", \"histogram\": ").append(Arrays.toString(r.histogram(bins)));
        }
        sb.append(",\n\"occurrences\": [");
        String sep = "\n  ";
        for (PatternSearch.Occurrence o : r.occurrences()) {
            sb.append(sep)
                    .append("{\"a_ns\": ")
                    .append(o.start())
                    .append(", \"a_core\": ")
                    .append(TextTable.quote(o.startCore()))
                    .append(", \"b_ns\": ")
                    .append(o.end())
                    .append(", \"b_core\": ")
                    .append(TextTable.quote(o.endCore()))
                    .append(", \"duration_ns\": ")
                    .append(o.duration())
                    .append('}');
            sep = ",\n  ";
        }
        return sb.append("\n]}\n").toString();
    }

    private static String sec(PatternSearch.Result r, long t) {
        return String.format(Locale.ROOT, "%.6f", (t - r.begin()) / 1e9);
    }

    private static String ms(double ns) {
        return String.format(Locale.ROOT, "%.3f", ns / 1e6);
    }
}
