package dev.hetrace.cli;

import dev.hetrace.analysis.index.IndexTables;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code hetrace export}: the traces' tables in a format other tools read. */
@Command(name = "export", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Write the traces' tables for other tools.", "",
        "The tables are those of 'hetrace query' (events, intervals, calls,",
        "messages, sync_pairs, stats, traces, cores, tasks; see docs/analysis.md),",
        "from the same cached index. One format per run:",
        "  --parquet DIR   one Parquet file per table, DIR/<table>.parquet", "",
        "Examples:",
        "  hetrace export --parquet out/ hetrace-demo",
        "  hetrace export --parquet out/ board/master board/dsp*"},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:the files were written", "1:a trace could not be read, or a file not written", "2:usage error"})
final class ExportCommand extends HetraceCommand {
    /** The formats: exactly one, each naming where it writes. */
    static final class Target {
        @Option(names = "--parquet", paramLabel = "DIR", required = true,
            description = "Write each table as DIR/<table>.parquet (DIR is created).")
        Path parquet;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Mixin
    BoardOptions board = new BoardOptions();

    @Mixin
    IndexOptions index = new IndexOptions();

    @Override
    public Integer call() {
        StringBuilder report = new StringBuilder();
        try {
            TraceIndex ix = index.open(board.inputs, board.mapping, main.err);
            Path dir = target.parquet;
            if (Files.exists(dir) && !Files.isDirectory(dir)) {
                throw new IOException("--parquet " + dir + ": not a directory");
            }
            Files.createDirectories(dir);
            try (Connection c = ix.connect(); Statement s = c.createStatement()) {
                for (String table : IndexTables.NAMES) {
                    Path file = dir.resolve(table + ".parquet");
                    s.execute("COPY (SELECT * FROM " + table + ") TO '" + file.toAbsolutePath().toString().replace("'", "''")
                        + "' (FORMAT parquet)");
                    long rows;
                    try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
                        r.next();
                        rows = r.getLong(1);
                    }
                    report.append(file).append(": ").append(rows).append(rows == 1 ? " row\n" : " rows\n");
                }
            }
        } catch (IOException | MetadataException | StreamDecodingException | SQLException | RuntimeException e) {
            return fail(IndexOptions.oneLine(e));
        }
        return print(report.toString());
    }
}
