package dev.hetrace.analysis.index;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.Synchronizer;
import java.sql.SQLException;
import java.util.List;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/** The writers of the index's small tables, in the DuckDB file: the synchronization, the traces, the statistics. */
final class DuckDbTables {
    private DuckDbTables() {}

    static DuckDBAppender nullable(DuckDBAppender a, long v, boolean present) throws SQLException {
        return present ? a.append(v) : a.appendNull();
    }

    private static void name(DuckDBAppender a, String s) throws SQLException {
        if (s == null) {
            a.appendNull();
        } else {
            a.append(s);
        }
    }

    static void sync(DuckDBConnection c, StateBuilder.Input input, StateModel m, long[][] spans, long[] counts)
            throws SQLException {
        Synchronizer.Report r = input.sync();
        List<String> names = m.traceNames();
        try (DuckDBAppender a = c.createAppender("sync_pairs")) {
            if (r != null) {
                for (Synchronizer.PairSync p : r.pairs()) {
                    a.beginRow()
                            .append(names.get(p.reference()))
                            .append(names.get(p.other()))
                            .append(p.result().quality().label())
                            .append(p.result().toOther())
                            .append(p.result().toReference());
                    nullable(
                            a,
                            p.result().accuracyNanos().orElse(0L),
                            p.result().accuracyNanos().isPresent());
                    // exact, unlike an offset at t = 0 in a double: t_ref = pivot_ref_ns + (t - pivot_ns) * slope
                    ClockTransform t = p.result().transform();
                    a.append(1 + t.slopeMinusOne())
                            .append(t.slopeMinusOne() * 1e6)
                            .append(t.pivot())
                            .append(t.pivotRef())
                            .endRow();
                }
            }
        }
        try (DuckDBAppender a = c.createAppender("traces")) {
            for (int i = 0; i < names.size(); i++) {
                boolean timed = spans[i][0] <= spans[i][1];
                a.beginRow()
                        .append(names.get(i))
                        .append(input.traces()
                                .get(i)
                                .toAbsolutePath()
                                .normalize()
                                .toString())
                        .append(m.mappingNames().get(i))
                        .append(counts[i]);
                nullable(a, spans[i][0], timed);
                nullable(a, spans[i][1], timed);
                if (r == null) {
                    a.append(true).appendNull().appendNull().appendNull();
                } else {
                    Synchronizer.TraceSync t = r.traces().get(i);
                    a.append(i == r.reference()).append(t.quality().label());
                    name(a, t.connected() ? names.get(t.via()) : null);
                    nullable(a, t.accuracyNanos().orElse(0L), t.accuracyNanos().isPresent());
                }
                a.endRow();
            }
        }
    }

    static void stats(DuckDBConnection c, StateModel m) throws SQLException {
        try (DuckDBAppender a = c.createAppender("stats")) {
            if (m.begin() > m.end()) {
                return; // no timed event: no range
            }
            for (Statistics.Row r : Statistics.of(m).rows()) {
                boolean intervals = r.count() > 1;
                a.beginRow()
                        .append(r.context().label)
                        .append(r.name())
                        .append(r.totalNanos())
                        .append(r.percent())
                        .append(r.count())
                        .append(r.minNanos())
                        .append(r.maxNanos())
                        .append(r.avgNanos());
                nullable(a, r.minIntervalNanos(), intervals);
                nullable(a, r.maxIntervalNanos(), intervals);
                if (intervals) {
                    a.append(r.avgIntervalNanos());
                } else {
                    a.appendNull();
                }
                a.append(r.selfNanos()).endRow();
            }
        }
    }
}
