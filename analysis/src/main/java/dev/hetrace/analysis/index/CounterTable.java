package dev.hetrace.analysis.index;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.StoredModel;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The index's {@code counters} table: the state model's counter samples (the values the traces
 * carry: counters a mapping's rules sample, the hardware counters of LTTng's perf contexts, the
 * events each stream lost), one row each in the model's order, with its series' name, unit, kind
 * and owner; {@code rate_per_s}, a running total's rate since the series' previous sample, is
 * computed by the view. A Parquet file, {@value #FILE}, which also keeps the model's samples for
 * {@link ModelStore} (the series by number, and their owners by the model's numbers).
 */
public final class CounterTable {
    /** The table's name. */
    public static final String NAME = "counters";

    /** The table's file in the index's folder. */
    static final String FILE = NAME + ".parquet";

    private CounterTable() {}

    /** Writes the model's counter samples into {@code folder}. */
    static void write(Path folder, StateModel m) throws Exception {
        List<StateModel.Counter> series = m.counters();
        // each distinct name and unit once, each series an index into them
        List<String> names = new ArrayList<>();
        List<String> units = new ArrayList<>();
        int[] nameOf = new int[series.size()];
        int[] unitOf = new int[series.size()];
        for (int k = 0; k < nameOf.length; k++) {
            nameOf[k] = indexOf(names, series.get(k).name());
            unitOf[k] = indexOf(units, series.get(k).unit());
        }
        List<String> cores = new ArrayList<>();
        m.cores().forEach(c -> cores.add(c.name()));
        // tasks as the other tables name them (the index's ENUM of tasks)
        List<String> tasks = new ArrayList<>();
        for (int k = 0; k < m.tasks().size(); k++) {
            tasks.add(Statistics.taskName(m, k, m.traceNames().size() > 1));
        }
        List<ParquetFile.Column> columns = List.of(
                ParquetFile.Column.longs("time_ns", false),
                ParquetFile.Column.ints("series", false),
                ParquetFile.Column.names("name", false, names),
                ParquetFile.Column.names("unit", false, units),
                ParquetFile.Column.names("kind", false, List.of("value", "total", "lost")),
                ParquetFile.Column.names("trace", false, m.traceNames()),
                ParquetFile.Column.names("core", true, cores),
                ParquetFile.Column.names("task", true, tasks),
                ParquetFile.Column.doubles("value", false),
                // the model's numbers of the owners, for the store
                ParquetFile.Column.ints("core_id", false),
                ParquetFile.Column.ints("task_id", false));
        int[] at = {0};
        ParquetFile.write(
                folder.resolve(FILE),
                columns,
                (g, capacity) -> {
                    int n = Math.min(capacity, m.samples() - at[0]);
                    for (int row = 0; row < n; row++, at[0]++) {
                        int i = at[0];
                        int s = m.sampleSeries(i);
                        StateModel.Counter c = series.get(s);
                        g.setLong(0, row, m.sampleTime(i));
                        g.setInt(1, row, s);
                        g.setInt(2, row, nameOf[s]);
                        g.setInt(3, row, unitOf[s]);
                        g.setInt(4, row, c.kind());
                        g.setInt(5, row, c.trace());
                        if (c.core() >= 0) {
                            g.setInt(6, row, c.core());
                        } else {
                            g.setNull(6, row);
                        }
                        if (c.task() >= 0) {
                            g.setInt(7, row, c.task());
                        } else {
                            g.setNull(7, row);
                        }
                        g.setLong(8, row, Double.doubleToRawLongBits(m.sampleValue(i)));
                        g.setInt(9, row, c.core());
                        g.setInt(10, row, c.task());
                    }
                    return n;
                },
                "counter samples",
                m.samples(),
                n -> {});
        // the series without samples too (none is made without one, but a store must give back what it was given)
        List<ParquetFile.Column> seriesColumns = List.of(
                ParquetFile.Column.names("name", false, names),
                ParquetFile.Column.names("unit", false, units),
                ParquetFile.Column.ints("kind", false),
                ParquetFile.Column.ints("trace", false),
                ParquetFile.Column.ints("core", false),
                ParquetFile.Column.ints("task", false));
        int[] k = {0};
        ParquetFile.write(
                folder.resolve(SERIES_FILE),
                seriesColumns,
                (g, capacity) -> {
                    int n = Math.min(capacity, series.size() - k[0]);
                    for (int row = 0; row < n; row++, k[0]++) {
                        StateModel.Counter c = series.get(k[0]);
                        g.setInt(0, row, nameOf[k[0]]);
                        g.setInt(1, row, unitOf[k[0]]);
                        g.setInt(2, row, c.kind());
                        g.setInt(3, row, c.trace());
                        g.setInt(4, row, c.core());
                        g.setInt(5, row, c.task());
                    }
                    return n;
                },
                "counter series",
                series.size(),
                n -> {});
    }

    private static int indexOf(List<String> distinct, String s) {
        int k = distinct.indexOf(s);
        if (k < 0) {
            distinct.add(s);
            k = distinct.size() - 1;
        }
        return k;
    }

    /** The model's counter series, by number: {@code model_counters.parquet}. */
    static final String SERIES_FILE = "model_counters.parquet";

    /** Makes {@code counters} a view of the file in {@code folder} (names as the index's ENUMs of traces, cores and tasks). */
    static void attach(Connection c, Path folder) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(
                    "CREATE OR REPLACE TEMP VIEW counters AS SELECT time_ns, name, unit, kind, trace::trace_name AS trace, "
                            + "core::core_name AS core, task::task_name AS task, value, CASE WHEN kind = 'total' THEN "
                            + "(value - lag(value) OVER w) / ((time_ns - lag(time_ns) OVER w) / 1e9) END AS rate_per_s "
                            + "FROM " + IndexTables.parquet(folder, NAME)
                            + " WINDOW w AS (PARTITION BY series ORDER BY time_ns) ORDER BY series, time_ns");
        }
    }

    /** Gives {@code out} the counter series and samples kept in {@code folder}, in the model's order. */
    static void read(Statement s, Path folder, StoredModel out) throws SQLException, IOException {
        try (ResultSet r = s.executeQuery("SELECT name, unit, kind, trace, core, task FROM read_parquet('"
                + folder.resolve(SERIES_FILE).toAbsolutePath().toString().replace("'", "''") + "')")) {
            while (r.next()) {
                int kind = r.getInt(3);
                if (kind < StateModel.COUNTER_VALUE || kind > StateModel.COUNTER_LOST) {
                    throw new IOException(folder.resolve(SERIES_FILE) + ": no counter kind " + kind);
                }
                out.counter(r.getString(1), r.getString(2), kind, r.getInt(4), r.getInt(5), r.getInt(6));
            }
        }
        try (ResultSet r = s.executeQuery("SELECT time_ns, series, value FROM " + IndexTables.parquet(folder, NAME))) {
            while (r.next()) {
                out.sample(r.getLong(1), r.getInt(2), r.getDouble(3));
            }
        }
    }
}
