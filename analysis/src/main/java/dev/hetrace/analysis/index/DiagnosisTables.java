package dev.hetrace.analysis.index;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateModel;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
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
 * diagnose} finds) kept as rows in Parquet files of the index's folder ({@code diagnosis/}), so
 * that a viewer serves it without the state model. It is worked out from the stored model the
 * first time something asks for it ({@link #ensure}), not when the index is built: most uses of
 * an index (statistics, SQL over the events) never need it. The rows: its sentences ({@link Diagnosis#summary}) in order, its outliers longest
 * first (in the diagnosis's order among equals) with the tasks that preempted each, the traces that went silent, the tasks
 * stuck until the end. Cores are named as in the other tables, tasks by their own name (the
 * {@code tasks} table's {@code name}); both are numbered (from 0, −1 for none) in the order the
 * {@code cores} and {@code tasks} tables list them.
 */
public final class DiagnosisTables {
    /** The folder, inside the index's, that holds the tables' files once the diagnosis is made. */
    static final String DIR = "diagnosis";

    /** The tables, in the order the schema creates them. */
    static final List<String> NAMES = List.of(
            "diagnosis_findings",
            "diagnosis_outliers",
            "diagnosis_preempted_by",
            "diagnosis_silent",
            "diagnosis_stuck");

    private static final String SCHEMA = """
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

    /**
     * Makes the diagnosis of the index in {@code folder} from its model ({@code model}, the
     * index's in memory; null: the stored one, read now) unless it is already there; true when
     * this call made it. Several processes may do it at once: each writes a folder of its own and
     * moves it in place, and the first move wins.
     */
    public static synchronized boolean ensure(Path folder, StateModel model) throws IOException {
        Path dir = folder.resolve(DIR);
        if (Files.isDirectory(dir)) {
            if (Checksums.mismatch(dir) == null) {
                return false;
            }
            TraceIndex.deleteTree(dir); // damaged since: made again, as an index would be
        }
        StateModel m = model != null ? model : ModelStore.read(folder);
        Path work = folder.resolve(".diagnosis-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        try {
            Files.createDirectory(work);
            try (DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
                    Statement s = c.createStatement()) {
                s.execute(SCHEMA);
                fill(c, m);
                for (String table : NAMES) {
                    s.execute("COPY " + table + " TO '" + sql(work.resolve(table + ".parquet")) + "' (FORMAT parquet)");
                }
                Checksums.write(work);
            } catch (SQLException e) {
                throw new IOException(folder + ": the diagnosis's tables: " + TraceIndex.firstLine(e.getMessage()), e);
            }
            try {
                Files.move(work, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileSystemException e) {
                if (!Files.isDirectory(dir)) {
                    throw e;
                }
                return false; // another process made it meanwhile: the same rows
            }
            return true;
        } finally {
            TraceIndex.deleteTree(work);
        }
    }

    /**
     * Makes the tables views of their files on {@code c} (temporary views, as the index's
     * others) when the diagnosis is made; nothing otherwise.
     */
    static void attach(Connection c, Path folder) throws SQLException {
        if (!Files.isDirectory(folder.resolve(DIR))) {
            return;
        }
        try (Statement s = c.createStatement()) {
            for (String table : NAMES) {
                s.execute("CREATE OR REPLACE TEMP VIEW " + table + " AS SELECT * FROM " + file(folder, table, false));
            }
        }
    }

    /** {@code read_parquet} of a table's file, with its rows' numbers (from 0) when {@code numbered}. */
    private static String file(Path folder, String table, boolean numbered) {
        return "read_parquet('" + sql(folder.resolve(DIR).resolve(table + ".parquet"))
                + (numbered ? "', file_row_number = true)" : "')");
    }

    private static String sql(Path p) {
        return p.toAbsolutePath().toString().replace("'", "''");
    }

    /**
     * The rows of the diagnosis of the index in {@code folder} ({@link #ensure}d first), with the
     * {@code longest} longest outliers, read on {@code c}.
     */
    public static Rows read(Connection c, Path folder, int longest) throws SQLException, IOException {
        ensure(folder, null);
        List<String> findings = new ArrayList<>();
        List<Outlier> outliers = new ArrayList<>();
        List<Silent> silent = new ArrayList<>();
        List<Stuck> stuck = new ArrayList<>();
        long count;
        try (Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery(
                    "SELECT sentence FROM " + file(folder, "diagnosis_findings", true) + " ORDER BY file_row_number")) {
                while (r.next()) {
                    findings.add(r.getString(1));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM " + file(folder, "diagnosis_outliers", false))) {
                r.next();
                count = r.getLong(1);
            }
            Map<Long, List<String>> by = new HashMap<>();
            try (ResultSet r =
                    s.executeQuery("SELECT outlier, task FROM " + file(folder, "diagnosis_preempted_by", true)
                            + " WHERE outlier < " + longest + " ORDER BY file_row_number")) {
                while (r.next()) {
                    by.computeIfAbsent(r.getLong(1), k -> new ArrayList<>()).add(r.getString(2));
                }
            }
            try (ResultSet r = s.executeQuery(
                    "SELECT core, core_id, task, task_id, kind, name, start_ns, end_ns, median_ns, ratio, "
                            + "preempted_ns, blocked_ns, depth, file_row_number FROM "
                            + file(folder, "diagnosis_outliers", true) + " ORDER BY file_row_number LIMIT "
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
            try (ResultSet r = s.executeQuery("SELECT trace, core_id, last_ns FROM "
                    + file(folder, "diagnosis_silent", true) + " ORDER BY file_row_number")) {
                while (r.next()) {
                    silent.add(new Silent(r.getString(1), (int) r.getLong(2), r.getLong(3)));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT task, core_id, since_ns FROM "
                    + file(folder, "diagnosis_stuck", true) + " ORDER BY file_row_number")) {
                while (r.next()) {
                    stuck.add(new Stuck(r.getString(1), (int) r.getLong(2), r.getLong(3)));
                }
            }
        }
        return new Rows(List.copyOf(findings), count, List.copyOf(outliers), List.copyOf(silent), List.copyOf(stuck));
    }

    /**
     * Diagnoses {@code m} and fills the tables on {@code c} (made by {@link #SCHEMA}): the
     * outliers longest first. A table with no row is left
     * alone: an appender costs milliseconds to make, even for nothing.
     */
    private static void fill(DuckDBConnection c, StateModel m) throws SQLException {
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
