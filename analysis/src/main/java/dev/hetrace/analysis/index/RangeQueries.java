package dev.hetrace.analysis.index;

import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.Statistics;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The statistics table ({@link Statistics}) answered from an index's tables rather than a state
 * model: the whole span's from its {@code stats} table, a range's by SQL over the intervals',
 * calls' and marks' Parquet files, with {@link Statistics#of(dev.hetrace.analysis.StateModel, long,
 * long)}'s semantics exactly: intervals that overlap the range (or instants in it) clipped to it,
 * a call's self time prorated when it is cut, elements named and ordered as the model's table
 * (contexts in order, each element where it was first met in the model's tables), the intervals
 * between starts from the sorted starts; and the pattern search ({@link #pattern}). One
 * connection, used by one thread at a time.
 */
public final class RangeQueries implements AutoCloseable {
    /** The contexts of the intervals' query, by number (the SQL's {@code ctx}). */
    private static final Statistics.Context[] CONTEXTS = {
        Statistics.Context.CORE,
        Statistics.Context.IDLE,
        Statistics.Context.TASK,
        Statistics.Context.IRQ,
        Statistics.Context.FUNCTION
    };

    /**
     * Every run, interrupt and call that counts in [?, ?] (the range given four times: begin, end,
     * begin, end), as (context, its element's name, start, end, self time, rank in its table), the
     * elements named as {@link Statistics} names them. {@code %s} are the intervals' and calls'
     * files, and the separator of a function's trace (empty for one trace).
     */
    private static final String INTERVALS = """
        WITH r AS (SELECT ?::BIGINT AS b, ?::BIGINT AS e),
        iv AS (
            SELECT file_row_number AS n, kind, start_ns AS s, end_ns AS t, core, task, irq, state
            FROM %1$s, r
            WHERE kind IN ('run', 'irq')
              AND (greatest(start_ns, r.b) < least(end_ns, r.e) OR (start_ns = end_ns AND start_ns >= r.b AND start_ns <= r.e))),
        cl AS (
            SELECT file_row_number AS n, start_ns AS s, end_ns AS t, self_ns, trace, function
            FROM %2$s, r
            WHERE greatest(start_ns, r.b) < least(end_ns, r.e) OR (start_ns = end_ns AND start_ns >= r.b AND start_ns <= r.e)),
        items AS (
            SELECT 0 AS ctx, core AS name, s, t, 0::BIGINT AS self, n FROM iv WHERE kind = 'run' AND state <> 'idle'
            UNION ALL SELECT 1, core, s, t, 0, n FROM iv WHERE kind = 'run' AND state = 'idle'
            UNION ALL SELECT 2, task, s, t, 0, n FROM iv WHERE kind = 'run' AND state <> 'idle'
            UNION ALL SELECT 3, core || '/' || irq, s, t, 0, n FROM iv WHERE kind = 'irq'
            UNION ALL SELECT 4, %3$s function, s, t, self_ns, n FROM cl)
        SELECT ctx, name, s, t, self, n FROM items, r
        """;

    /** Every point event in [?, ?] (the range given twice) as (context 5 by name, 6 by core or trace, name, time, rank). */
    private static final String MARKS = """
        WITH r AS (SELECT ?::BIGINT AS b, ?::BIGINT AS e),
        m AS (SELECT file_row_number AS n, time_ns, name, coalesce(core, trace) AS place FROM %s, r
              WHERE time_ns >= r.b AND time_ns <= r.e)
        SELECT 5 AS ctx, name, time_ns AS s, time_ns AS t, 0::BIGINT AS self, n FROM m
        UNION ALL SELECT 6, place, time_ns, time_ns, 0, n FROM m
        """;

    /**
     * Per element of those rows: its first rank (the order of the table), the clipped durations'
     * sum, least and most, the count, the prorated self time, the first and last start and the
     * least and most interval between consecutive starts. {@code %s}: the rows' query.
     */
    private static final String GROUPS = """
        WITH rows AS (%s),
        clipped AS (
            SELECT ctx, name, s, n, least(t, ?) - greatest(s, ?) AS d,
                   CASE WHEN t > s THEN (CASE WHEN least(t, ?) - greatest(s, ?) = t - s THEN self
                        ELSE CAST(trunc(self::DOUBLE * (least(t, ?) - greatest(s, ?))::DOUBLE / (t - s)::DOUBLE) AS BIGINT) END)
                        ELSE 0 END AS self,
                   s - lag(s) OVER (PARTITION BY ctx, name ORDER BY s) AS gap
            FROM rows)
        SELECT ctx, name, min(n) AS first, sum(d)::BIGINT AS total, min(d) AS dmin, max(d) AS dmax, count(*) AS count,
               sum(self)::BIGINT AS self, min(s) AS s0, max(s) AS s1, min(gap) AS gmin, max(gap) AS gmax
        FROM clipped GROUP BY ctx, name ORDER BY ctx, first
        """;

    private final Connection connection;
    private final Path folder;
    private final boolean several;
    private final List<String> traceNames;

    /** Queries over {@code index}'s tables, on a connection of their own. */
    public RangeQueries(TraceIndex index) throws SQLException {
        this.folder = index.folder();
        this.connection = index.connect();
        this.several = index.traceNames().size() > 1;
        this.traceNames = index.traceNames();
        try (Statement s = connection.createStatement();
                ResultSet r = s.executeQuery("SELECT path FROM traces ORDER BY rowid")) {
            List<String> paths = new ArrayList<>();
            while (r.next()) {
                paths.add(r.getString(1));
            }
            EventFields.registerEvent(connection, paths);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /**
     * The pattern search of {@code spec} over the index's events, as {@link PatternSearch#run} over
     * the traces: see {@link PatternQueries}.
     */
    public PatternSearch.Result pattern(PatternSearch.Spec spec) throws SQLException {
        return PatternQueries.run(connection, folder, traceNames, spec);
    }

    /**
     * The diagnosis the index keeps, with its {@code longest} longest outliers
     * ({@link DiagnosisTables}: made from the stored model at the first call on an index).
     */
    public DiagnosisTables.Rows diagnosis(int longest) throws SQLException, IOException {
        return DiagnosisTables.read(connection, folder, longest);
    }

    /** The connection the queries use (read-only), for other queries of the same thread. */
    public Connection connection() {
        return connection;
    }

    /**
     * The statistics of [begin, end]; with {@code wholeSpan} (the range is the model's whole span)
     * the index's {@code stats} table, which {@link Statistics#of(dev.hetrace.analysis.StateModel)}
     * filled, else {@link #statistics(long, long)}.
     */
    public Statistics.Table statistics(long begin, long end, boolean wholeSpan) throws SQLException {
        return wholeSpan ? whole(begin, end) : statistics(begin, end);
    }

    /** The rows of the {@code stats} table (the statistics of the whole span), in order, for the range they were made for. */
    private Statistics.Table whole(long begin, long end) throws SQLException {
        List<Statistics.Row> rows = new ArrayList<>();
        try (Statement s = connection.createStatement();
                ResultSet r = s.executeQuery("SELECT context, name, total_ns, percent, count, min_ns, max_ns, avg_ns, "
                        + "interval_min_ns, interval_max_ns, interval_avg_ns, self_ns FROM stats ORDER BY rowid")) {
            while (r.next()) {
                long gmin = r.getLong(9);
                boolean intervals = !r.wasNull();
                long gmax = r.getLong(10);
                double gavg = r.getDouble(11);
                rows.add(new Statistics.Row(
                        context(r.getString(1)),
                        r.getString(2),
                        r.getLong(3),
                        r.getDouble(4),
                        r.getLong(5),
                        r.getLong(6),
                        r.getLong(7),
                        r.getDouble(8),
                        intervals ? gmin : -1,
                        intervals ? gmax : -1,
                        intervals ? gavg : Double.NaN,
                        r.getLong(12)));
            }
        }
        return new Statistics.Table(begin, end, rows);
    }

    private static Statistics.Context context(String label) {
        for (Statistics.Context c : Statistics.Context.values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalStateException("the index's stats table has a context of no known kind: " + label);
    }

    /** The statistics of [begin, end] (ns on the reference clock), as {@link Statistics#of(dev.hetrace.analysis.StateModel, long, long)}. */
    public Statistics.Table statistics(long begin, long end) throws SQLException {
        if (end < begin) {
            throw new IllegalArgumentException("the range ends before it begins");
        }
        long span = end - begin;
        List<Statistics.Row> rows = new ArrayList<>();
        String intervals =
                String.format(INTERVALS, rowsOf("intervals"), rowsOf("calls"), several ? "trace || '/' ||" : "");
        groups(intervals, 1, begin, end, span, rows);
        groups(String.format(MARKS, rowsOf(MarkTable.NAME)), 1, begin, end, span, rows);
        return new Statistics.Table(begin, end, rows);
    }

    /** {@code read_parquet} of a table's file with each row's rank in it. */
    private String rowsOf(String table) {
        return IndexTables.parquet(folder, table).replaceFirst("\\)$", ", file_row_number = true)");
    }

    /** The rows of the elements {@code query} lists ({@code ranges}: how many times it takes the range). */
    private void groups(String query, int ranges, long begin, long end, long span, List<Statistics.Row> out)
            throws SQLException {
        try (PreparedStatement p = connection.prepareStatement(String.format(GROUPS, query))) {
            int k = 1;
            for (int i = 0; i < ranges; i++) {
                p.setLong(k++, begin);
                p.setLong(k++, end);
            }
            for (int i = 0; i < 3; i++) {
                p.setLong(k++, end);
                p.setLong(k++, begin);
            }
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    int ctx = r.getInt(1);
                    String name = r.getString(2);
                    long total = r.getLong(4);
                    long n = r.getLong(7);
                    long gmin = r.getLong(11);
                    long gmax = r.getLong(12);
                    long first = r.getLong(9);
                    long last = r.getLong(10);
                    double gavg = n > 1 ? (double) (last - first) / (n - 1) : Double.NaN;
                    if (ctx >= CONTEXTS.length) { // point events: how many, how far apart, no duration
                        out.add(new Statistics.Row(
                                ctx == 5 ? Statistics.Context.EVENT : Statistics.Context.STREAM,
                                name,
                                0,
                                0,
                                n,
                                -1,
                                -1,
                                Double.NaN,
                                n > 1 ? gmin : -1,
                                n > 1 ? gmax : -1,
                                gavg,
                                0));
                        continue;
                    }
                    Statistics.Context c = CONTEXTS[ctx];
                    out.add(new Statistics.Row(
                            c,
                            name,
                            total,
                            span > 0 ? 100.0 * total / span : 0,
                            n,
                            r.getLong(5),
                            r.getLong(6),
                            (double) total / n,
                            n > 1 ? gmin : -1,
                            n > 1 ? gmax : -1,
                            gavg,
                            c == Statistics.Context.FUNCTION ? r.getLong(8) : total));
                }
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
