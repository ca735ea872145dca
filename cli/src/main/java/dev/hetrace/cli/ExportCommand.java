package dev.hetrace.cli;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.index.IndexTables;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.OutputFile;
import dev.hetrace.view.ChromeTrace;
import dev.hetrace.view.PerfettoTrace;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code hetrace export}: the traces' tables in a format other tools read. */
@Command(
        name = "export",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Write the traces' tables for other tools.",
            "",
            "The tables are those of 'hetrace query' (events, intervals, calls,",
            "messages, wakeups, sync_pairs, sync_messages, stats, traces, cores, tasks;",
            "their columns: 'hetrace query --help'), from the same cached index; or the synchronized",
            "timeline for the viewers",
            "people already have. One format per run:",
            "  --parquet DIR              one Parquet file per table, DIR/<table>.parquet,",
            "                             moved into DIR once all are written (an interrupted",
            "                             export leaves DIR as it was); files of the same names",
            "                             already there are replaced only with --replace",
            "  --format perfetto -o F     Perfetto's own trace format (protobuf): open it in",
            "                             Perfetto UI (ui.perfetto.dev, Open trace file); a track",
            "                             per trace, per core (tasks run, interrupts, CPU load,",
            "                             lost events) and per task (calls, states); messages and",
            "                             the sync handshake as flows; on the reference clock, or",
            "                             with --own-clocks each trace on its own; with --boards",
            "                             each TRACE argument a board of its own",
            "  --format chrome-json -o F  Chrome's trace event JSON (chrome://tracing and",
            "                             Perfetto UI read it): a process per trace, the same",
            "                             tracks, messages as flow arrows",
            "",
            "Examples:",
            "  hetrace export --parquet out/ hetrace-demo",
            "  hetrace export --format perfetto -o board.pftrace hetrace-demo",
            "  hetrace export --format perfetto --own-clocks --piecewise 500ms -o own.pftrace board/",
            "  hetrace export --format perfetto --boards -o runs.pftrace run1/ run2/",
            "  hetrace export --parquet out/ board/master board/dsp*"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the files were written",
            "1:a trace could not be read or put on the reference clock, or a file not written",
            "2:usage error"
        })
final class ExportCommand extends HetraceCommand {
    /** The timeline formats. */
    enum Format {
        chrome_json,
        perfetto
    }

    /** The formats: exactly one, each naming where it writes. */
    static final class Target {
        @Option(
                names = "--parquet",
                paramLabel = "DIR",
                required = true,
                description = "Write each table as DIR/<table>.parquet (DIR is created).")
        Path parquet;

        @Option(
                names = "--format",
                paramLabel = "FORMAT",
                required = true,
                converter = FormatConverter.class,
                description = "perfetto (Perfetto's protobuf trace) or chrome-json (Chrome's trace event JSON):"
                        + " the synchronized timeline, to -o FILE.")
        Format format;
    }

    static final class FormatConverter implements CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            return switch (value) {
                case "chrome-json" -> Format.chrome_json;
                case "perfetto" -> Format.perfetto;
                default ->
                    throw new CommandLine.TypeConversionException("'" + value + "': expected chrome-json or perfetto");
            };
        }
    }

    @Option(
            names = {"-o", "--output"},
            paramLabel = "FILE",
            description = "Where --format writes the timeline (written whole, then moved there).")
    Path output;

    @Option(
            names = "--own-clocks",
            description = "With --format perfetto: each trace's events on its own clock, with clock snapshots"
                    + " close enough that Perfetto's conversion to the reference clock stays within the"
                    + " synchronization's accuracy bound (default: every event on the reference clock).")
    boolean ownClocks;

    @Option(
            names = "--boards",
            description = "With --format perfetto: each TRACE argument is a board (or run) of its own, its traces"
                    + " synchronized among themselves, under a top-level track of its own.")
    boolean boards;

    @Option(
            names = "--replace",
            description =
                    "With --parquet: replace the tables' files DIR already holds"
                            + " (without it, an export into a folder that holds any of them is refused; other files are left alone).")
    boolean replace;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Mixin
    BoardOptions board = new BoardOptions();

    @Mixin
    IndexOptions index = new IndexOptions();

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException, SQLException {
        if (target.format != null) {
            return timeline();
        }
        if (ownClocks || boards) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), (ownClocks ? "--own-clocks" : "--boards") + " goes with --format perfetto");
        }
        if (output != null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "-o goes with --format; --parquet names a directory");
        }
        StringBuilder report = new StringBuilder();
        Path dir = target.parquet;
        UnfinishedOutput unfinished = null;
        try {
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new IOException("--parquet " + dir + ": not a directory");
            }
            List<Path> present = new ArrayList<>();
            for (String table : IndexTables.NAMES) {
                Path file = dir.resolve(table + ".parquet");
                if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    present.add(file);
                }
            }
            if (!present.isEmpty() && !replace) {
                throw new IOException("--parquet " + dir + ": " + present.getFirst()
                        + (present.size() > 1
                                ? " and " + (present.size() - 1) + " more of the tables' files are"
                                : " is")
                        + " already there: --replace replaces them");
            }
            TraceIndex ix = index.open(board.inputs, board.clock, board.mapping, main.err);
            ix.diagnose(); // its tables are made when first asked for
            // the files are written in a folder of their own inside DIR, then moved into DIR once all are
            // written: an interrupted or failed export leaves DIR as it was, never a table cut short
            try (UnfinishedOutput work = UnfinishedOutput.begin(dir, "export", "tables", main.err, 0)) {
                unfinished = work;
                try (Connection c = ix.connect();
                        Statement s = c.createStatement()) {
                    for (String table : IndexTables.NAMES) {
                        Path file = work.path().resolve(table + ".parquet");
                        long rows;
                        try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
                            r.next();
                            rows = r.getLong(1);
                        }
                        // every event's fields are decoded from the traces again: about 3 µs each, a minute for twenty
                        // millions
                        boolean slow = table.equals("events") && rows >= 1_000_000;
                        long t0 = System.nanoTime();
                        if (slow) {
                            main.err.printf(
                                    Locale.ROOT,
                                    "hetrace: exporting %,d events with their fields, decoded from"
                                            + " the traces again (about %d s)...%n",
                                    rows,
                                    Math.max(1, rows / 300_000));
                        }
                        s.execute("COPY (SELECT * FROM " + table + ") TO '"
                                + file.toAbsolutePath().toString().replace("'", "''") + "' (FORMAT parquet)");
                        if (slow) {
                            main.err.printf(
                                    Locale.ROOT,
                                    "hetrace: events exported in %.1f s%n",
                                    (System.nanoTime() - t0) / 1e9);
                        }
                        report.append(dir.resolve(table + ".parquet"))
                                .append(": ")
                                .append(rows)
                                .append(rows == 1 ? " row\n" : " rows\n");
                    }
                }
                work.commit(() -> {
                    for (String table : IndexTables.NAMES) {
                        Files.move(
                                work.path().resolve(table + ".parquet"),
                                dir.resolve(table + ".parquet"),
                                StandardCopyOption.REPLACE_EXISTING,
                                StandardCopyOption.ATOMIC_MOVE);
                    }
                });
            }
        } catch (IOException | MetadataException | StreamDecodingException | SQLException | RuntimeException e) {
            if (unfinished != null && unfinished.aborted()) {
                throw CommandFailure.silent(130, e); // stopped: the stop said so
            }
            throw e;
        }
        return print(report.toString());
    }

    /** The synchronized timeline, written to a temporary file then renamed: no half file. */
    private int timeline() throws IOException, MetadataException, StreamDecodingException, SQLException {
        String format = target.format == Format.perfetto ? "perfetto" : "chrome-json";
        if (output == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--format " + format + " needs -o FILE");
        }
        if (target.format != Format.perfetto && (ownClocks || boards)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), (ownClocks ? "--own-clocks" : "--boards") + " goes with --format perfetto");
        }
        // told before the traces are read: an output that cannot be written
        OutputFile.of(output).close();
        if (target.format == Format.perfetto) {
            return perfetto();
        }
        StateModel model = board.stored(index, main.err);
        try (var file = OutputFile.of(output)) {
            try (var out = new BufferedOutputStream(file.newOutputStream(), 1 << 16)) {
                ChromeTrace.write(model, out);
            }
            file.commit();
        }
        return print(output + ": " + Files.size(output) + " bytes, "
                + model.traceNames().size() + " trace(s), "
                + (model.calls().size()
                        + model.runs().size()
                        + model.taskStates().size()
                        + model.irqs().size())
                + " slices, " + model.messages().size() + " messages\n");
    }

    /** The boards as a Perfetto trace. */
    private int perfetto() throws IOException, MetadataException, StreamDecodingException, SQLException {
        List<List<Path>> sets = new ArrayList<>();
        if (boards) {
            for (Path p : board.inputs) {
                sets.add(List.of(p));
            }
        } else {
            sets.add(board.inputs);
        }
        List<PerfettoTrace.Board> written = new ArrayList<>();
        int traces = 0;
        for (List<Path> inputs : sets) {
            PerfettoTrace.Board b = PerfettoBoard.read(inputs, board.clock, board.mapping, index, ownClocks, main.err);
            traces += b.model().traceNames().size();
            written.add(b);
        }
        PerfettoTrace.Summary s;
        try (var file = OutputFile.of(output)) {
            try (var out = file.newOutputStream()) {
                s = PerfettoTrace.write(written, ownClocks, out);
            }
            file.commit();
        }
        return print(String.format(
                Locale.ROOT,
                "%s: %d bytes, %d board%s, %d trace%s, %d slices, %d instants, %d flows, %d counter values%s%n",
                output,
                s.bytes(),
                written.size(),
                written.size() == 1 ? "" : "s",
                traces,
                traces == 1 ? "" : "s",
                s.slices(),
                s.instants(),
                s.flows(),
                s.counterValues(),
                ownClocks ? ", " + s.snapshots() + " clock snapshots" : ""));
    }
}
