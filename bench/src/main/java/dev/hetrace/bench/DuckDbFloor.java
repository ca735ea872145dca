package dev.hetrace.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

/**
 * What DuckDB itself costs per row of the index's narrow events table (eight integer columns) on
 * one thread, with no Java in the way: the rows are made by DuckDB from {@code range()}, first
 * only computed and summed, then stored into a table in memory and into a file (checkpointed).
 * The difference is DuckDB's own storing, a floor for any index whose tables hold a row per
 * event.
 *
 * <pre>java -cp bench/target/hetrace-bench.jar dev.hetrace.bench.DuckDbFloor [ROWS] [ROUNDS]</pre>
 */
public final class DuckDbFloor {
    private DuckDbFloor() {}

    private static final String ROWS =
            "SELECT (i %% 9)::INTEGER a, i::BIGINT b, (i * 1000)::BIGINT c, (i %% 40)::INTEGER d,"
                    + " (i %% 9)::INTEGER e, 0::INTEGER f, (i // 1000 * 4096)::BIGINT g, (i %% 1000)::INTEGER h FROM range(%d) x(i)";

    public static void main(String[] args) throws Exception {
        long rows = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String select = String.format(Locale.ROOT, ROWS, rows);
        Path dir = Files.createTempDirectory("hetrace-duckdb-floor");
        Path file = dir.resolve("floor.duckdb");
        System.out.printf(
                Locale.ROOT,
                "%,d rows of 8 integer columns, one DuckDB thread, ns per row (%d rounds):%n",
                rows,
                rounds);
        for (int r = 0; r < rounds; r++) {
            double made;
            double memory;
            double stored;
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                    Statement s = c.createStatement()) {
                s.execute("SET threads = 1");
                long t0 = System.nanoTime();
                try (ResultSet q = s.executeQuery("SELECT sum(a + b + c + d + e + f + g + h) FROM (" + select + ")")) {
                    q.next();
                }
                made = (System.nanoTime() - t0) / (double) rows;
                t0 = System.nanoTime();
                s.execute("CREATE TABLE t AS " + select);
                memory = (System.nanoTime() - t0) / (double) rows;
            }
            Files.deleteIfExists(file);
            Files.deleteIfExists(Path.of(file + ".wal"));
            try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file);
                    Statement s = c.createStatement()) {
                s.execute("SET threads = 1");
                long t0 = System.nanoTime();
                s.execute("CREATE TABLE t AS " + select);
                s.execute("CHECKPOINT");
                stored = (System.nanoTime() - t0) / (double) rows;
            }
            System.out.printf(
                    Locale.ROOT,
                    "round %d: made and summed %.0f, into a table in memory %.0f, into a file %.0f%n",
                    r,
                    made,
                    memory,
                    stored);
        }
        Files.deleteIfExists(file);
        Files.deleteIfExists(Path.of(file + ".wal"));
        Files.deleteIfExists(dir);
    }
}
