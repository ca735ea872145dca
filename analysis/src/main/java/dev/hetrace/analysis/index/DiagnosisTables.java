package dev.hetrace.analysis.index;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateModel;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The diagnosis ({@link Diagnosis#of} with {@link Diagnosis#DEFAULT_K}, what {@code hetrace
 * diagnose} finds) kept as rows of the index's DuckDB file, so that a viewer serves it without
 * the state model: its sentences ({@link Diagnosis#summary}) in order, its outliers longest
 * first (in the diagnosis's order among equals) with the tasks that preempted each, the traces that went silent, the tasks
 * stuck until the end. Cores are named as in the other tables, tasks by their own name (the
 * {@code tasks} table's {@code name}); both are numbered (from 0, −1 for none) in the order the
 * {@code cores} and {@code tasks} tables list them.
 */
public final class DiagnosisTables {
    static final String SCHEMA = """
        CREATE TABLE diagnosis_findings (sentence VARCHAR);
        CREATE TABLE diagnosis_outliers (core VARCHAR, core_id BIGINT, task VARCHAR, task_id BIGINT, kind VARCHAR,
            name VARCHAR, start_ns BIGINT, end_ns BIGINT, median_ns BIGINT, ratio DOUBLE, preempted_ns BIGINT,
            blocked_ns BIGINT, depth BIGINT);
        CREATE TABLE diagnosis_preempted_by (outlier BIGINT, task VARCHAR);
        CREATE TABLE diagnosis_silent (trace VARCHAR, core_id BIGINT, last_ns BIGINT);
        CREATE TABLE diagnosis_stuck (task VARCHAR, core_id BIGINT, since_ns BIGINT);
        """;

    private DiagnosisTables() {}

    /**
     * An outlier as the tables keep it: its core and task (name and number; null and −1 for
     * none), kind ({@link Diagnosis.Kind#label}), name, times, median, ratio (NaN when the median
     * is 0), time preempted and by which tasks, time blocked, and a call's depth (−1 otherwise).
     */
    public record Outlier(
            String core,
            int coreId,
            String task,
            int taskId,
            String kind,
            String name,
            long start,
            long end,
            long median,
            double ratio,
            long preempted,
            List<String> preemptedBy,
            long blocked,
            int depth) {}

    /** A trace that went silent at {@code last}, on its core {@code coreId} (−1: none). */
    public record Silent(String trace, int coreId, long last) {}

    /** A task stuck since {@code since}, on core {@code coreId} (−1: none). */
    public record Stuck(String task, int coreId, long since) {}

    /** The diagnosis: its sentences, how many outliers and the longest ones (longest first), the silent traces, the stuck tasks. */
    public record Rows(
            List<String> findings, long outlierCount, List<Outlier> longest, List<Silent> silent, List<Stuck> stuck) {}

    /** The rows of report {@code r} of model {@code m}, with its {@code longest} longest outliers (in the diagnosis's order among equals). */
    public static Rows of(Diagnosis.Report r, StateModel m, int longest) {
        List<Outlier> outliers = r.outliers().stream()
                .sorted((x, y) -> Long.compare(y.duration(), x.duration()))
                .limit(longest)
                .map(o -> new Outlier(
                        o.core() >= 0 ? m.cores().get(o.core()).name() : null,
                        o.core(),
                        o.task() >= 0 ? m.tasks().get(o.task()).name() : null,
                        o.task(),
                        o.kind().label,
                        o.name() >= 0 ? m.name(o.name()) : null,
                        o.start(),
                        o.end(),
                        o.median(),
                        Double.isFinite(o.ratio()) ? o.ratio() : Double.NaN,
                        o.preempted(),
                        o.preemptedBy().stream()
                                .map(s -> m.tasks().get(s.task()).name())
                                .toList(),
                        o.blocked(),
                        o.kind() == Diagnosis.Kind.CALL && o.row() >= 0
                                ? m.calls().depth(o.row())
                                : -1))
                .toList();
        List<Silent> silent = r.silent().stream()
                .map(s -> new Silent(m.traceNames().get(s.trace()), s.core(), s.last()))
                .toList();
        List<Stuck> stuck = r.stuck().stream()
                .map(s -> new Stuck(m.tasks().get(s.task()).name(), s.core(), s.since()))
                .toList();
        return new Rows(Diagnosis.summary(r), r.outliers().size(), outliers, silent, stuck);
    }

    /** The rows the tables of {@code c} keep, with the {@code longest} longest outliers. */
    public static Rows read(Connection c, int longest) throws SQLException {
        List<String> findings = new ArrayList<>();
        List<Outlier> outliers = new ArrayList<>();
        List<Silent> silent = new ArrayList<>();
        List<Stuck> stuck = new ArrayList<>();
        long count;
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT sentence FROM diagnosis_findings ORDER BY rowid")) {
                while (r.next()) {
                    findings.add(r.getString(1));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM diagnosis_outliers")) {
                r.next();
                count = r.getLong(1);
            }
            Map<Long, List<String>> by = new HashMap<>();
            try (ResultSet r = s.executeQuery("SELECT outlier, task FROM diagnosis_preempted_by WHERE outlier < "
                    + longest + " ORDER BY rowid")) {
                while (r.next()) {
                    by.computeIfAbsent(r.getLong(1), k -> new ArrayList<>()).add(r.getString(2));
                }
            }
            try (ResultSet r = s.executeQuery(
                    "SELECT core, core_id, task, task_id, kind, name, start_ns, end_ns, median_ns, ratio, "
                            + "preempted_ns, blocked_ns, depth, rowid FROM diagnosis_outliers ORDER BY rowid LIMIT "
                            + longest)) {
                while (r.next()) {
                    double ratio = r.getDouble(10);
                    if (r.wasNull()) {
                        ratio = Double.NaN;
                    }
                    long depth = r.getLong(13);
                    if (r.wasNull()) {
                        depth = -1;
                    }
                    outliers.add(new Outlier(
                            r.getString(1),
                            (int) r.getLong(2),
                            r.getString(3),
                            (int) r.getLong(4),
                            r.getString(5),
                            r.getString(6),
                            r.getLong(7),
                            r.getLong(8),
                            r.getLong(9),
                            ratio,
                            r.getLong(11),
                            List.copyOf(by.getOrDefault(r.getLong(14), List.of())),
                            r.getLong(12),
                            (int) depth));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT trace, core_id, last_ns FROM diagnosis_silent ORDER BY rowid")) {
                while (r.next()) {
                    silent.add(new Silent(r.getString(1), (int) r.getLong(2), r.getLong(3)));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT task, core_id, since_ns FROM diagnosis_stuck ORDER BY rowid")) {
                while (r.next()) {
                    stuck.add(new Stuck(r.getString(1), (int) r.getLong(2), r.getLong(3)));
                }
            }
        }
        return new Rows(List.copyOf(findings), count, List.copyOf(outliers), List.copyOf(silent), List.copyOf(stuck));
    }

    /**
     * Diagnoses {@code m} and fills the tables on {@code c} (created with the index's others,
     * {@link IndexTables#create}): the outliers longest first. A table with no row is left
     * alone: an appender costs milliseconds to make, even for nothing.
     */
    static void fill(DuckDBConnection c, StateModel m) throws SQLException {
        if (m.begin() > m.end()) {
            return; // no timed event: nothing to diagnose
        }
        Rows rows = of(Diagnosis.of(m, Diagnosis.DEFAULT_K), m, Integer.MAX_VALUE);
        if (!rows.findings().isEmpty()) {
            try (DuckDBAppender a = c.createAppender("diagnosis_findings")) {
                for (String sentence : rows.findings()) {
                    a.beginRow().append(sentence).endRow();
                }
            }
        }
        if (!rows.longest().isEmpty()) {
            outliers(c, rows.longest());
        }
        if (!rows.silent().isEmpty()) {
            try (DuckDBAppender a = c.createAppender("diagnosis_silent")) {
                for (Silent s : rows.silent()) {
                    a.beginRow()
                            .append(s.trace())
                            .append((long) s.coreId())
                            .append(s.last())
                            .endRow();
                }
            }
        }
        if (!rows.stuck().isEmpty()) {
            try (DuckDBAppender a = c.createAppender("diagnosis_stuck")) {
                for (Stuck s : rows.stuck()) {
                    a.beginRow()
                            .append(s.task())
                            .append((long) s.coreId())
                            .append(s.since())
                            .endRow();
                }
            }
        }
    }

    /** The outliers, longest first, and the tasks that preempted each (when any did). */
    private static void outliers(DuckDBConnection c, List<Outlier> longest) throws SQLException {
        boolean preempted = longest.stream().anyMatch(o -> !o.preemptedBy().isEmpty());
        try (DuckDBAppender a = c.createAppender("diagnosis_outliers");
                DuckDBAppender p = preempted ? c.createAppender("diagnosis_preempted_by") : null) {
            long k = 0;
            for (Outlier o : longest) {
                a.beginRow();
                name(a, o.core());
                a.append((long) o.coreId());
                name(a, o.task());
                a.append((long) o.taskId()).append(o.kind());
                name(a, o.name());
                a.append(o.start()).append(o.end()).append(o.median());
                if (Double.isNaN(o.ratio())) {
                    a.appendNull();
                } else {
                    a.append(o.ratio());
                }
                a.append(o.preempted()).append(o.blocked());
                if (o.depth() >= 0) {
                    a.append((long) o.depth());
                } else {
                    a.appendNull();
                }
                a.endRow();
                for (String t : o.preemptedBy()) {
                    p.beginRow().append(k).append(t).endRow();
                }
                k++;
            }
        }
    }

    private static void name(DuckDBAppender a, String name) throws SQLException {
        if (name == null) {
            a.appendNull();
        } else {
            a.append(name);
        }
    }
}
