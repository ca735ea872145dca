package dev.hetrace.analysis.index;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.StoredModel;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The index's {@code marks} table: the state model's point events (the events no interval is
 * made of, such as the sync handshake's and waits), one row each in the model's order (each
 * trace's in time order, trace after trace), so that the statistics of a range count them from
 * the index as {@link dev.hetrace.analysis.Statistics} counts them from the model. A Parquet file,
 * {@value #FILE}, beside the others; {@link #attach} makes it a view.
 */
public final class MarkTable {
    /** The table's file in the index's folder. */
    public static final String FILE = "marks.parquet";

    /** The table's name. */
    public static final String NAME = "marks";

    private MarkTable() {}

    /** Writes the model's point events into {@code folder}. */
    static void write(Path folder, StateModel m) throws Exception {
        List<String> cores = new ArrayList<>();
        m.cores().forEach(c -> cores.add(c.name()));
        List<ParquetFile.Column> columns = List.of(
                ParquetFile.Column.longs("time_ns", false),
                // the model's names of point events, by the ids the marks hold
                ParquetFile.Column.names("name", false, StoredModel.eventNames(m)),
                ParquetFile.Column.names("trace", false, m.traceNames()),
                ParquetFile.Column.names("core", true, cores));
        int[] at = {0};
        ParquetFile.write(
                folder.resolve(FILE),
                columns,
                (g, capacity) -> {
                    int n = Math.min(capacity, m.marks() - at[0]);
                    for (int row = 0; row < n; row++, at[0]++) {
                        int i = at[0];
                        int core = m.markCore(i);
                        g.setLong(0, row, m.markTime(i));
                        g.setInt(1, row, StoredModel.markNameId(m, i));
                        g.setInt(2, row, core >= 0 ? m.cores().get(core).trace() : -1 - core);
                        if (core >= 0) {
                            g.setInt(3, row, core);
                        } else {
                            g.setNull(3, row);
                        }
                    }
                    return n;
                },
                "point events",
                m.marks(),
                n -> {});
    }

    /** Makes {@code marks} a view of the file in {@code folder} (names as the index's ENUMs of traces and cores). */
    static void attach(Connection c, Path folder) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE TEMP VIEW marks AS SELECT time_ns, name, trace::trace_name AS trace, "
                    + "core::core_name AS core FROM " + IndexTables.parquet(folder, "marks"));
        }
    }
}
