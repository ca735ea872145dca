package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files written by {@link ParquetFile} read back by DuckDB's own Parquet reader, value for value. */
class ParquetFileTest {
    @TempDir
    Path dir;

    /** A table held as Java values (null: NULL), written through {@link ParquetFile.Rows}. */
    private record Table(List<ParquetFile.Column> columns, Object[][] values) {
        ParquetFile.Rows rows() {
            int[] next = {0};
            return (g, capacity) -> {
                int n = 0;
                for (; n < capacity && next[0] < values.length; n++, next[0]++) {
                    Object[] row = values[next[0]];
                    for (int c = 0; c < columns.size(); c++) {
                        Object v = row[c];
                        ParquetFile.Column col = columns.get(c);
                        if (v == null) {
                            g.setNull(c, n);
                        } else {
                            switch (col.kind()) {
                                case LONG -> g.setLong(c, n, (Long) v);
                                case INT -> g.setInt(c, n, (Integer) v);
                                case BOOL -> g.setBool(c, n, (Boolean) v);
                                case NAME -> g.setInt(c, n, col.names().indexOf((String) v));
                            }
                        }
                    }
                }
                return n;
            };
        }
    }

    private static Table random(long seed, int rows, int names) {
        Random r = new Random(seed);
        List<String> dictionary = new ArrayList<>();
        for (int k = 0; k < names; k++) {
            dictionary.add(k % 7 == 3 ? "" : "name-" + k + (k % 5 == 0 ? "-é✓" : ""));
        }
        List<ParquetFile.Column> cols = List.of(
                ParquetFile.Column.longs("a", false),
                ParquetFile.Column.longs("b", true),
                ParquetFile.Column.ints("c", false),
                ParquetFile.Column.ints("d", true),
                ParquetFile.Column.bools("e"),
                ParquetFile.Column.names("f", false, dictionary),
                ParquetFile.Column.names("g", true, dictionary),
                ParquetFile.Column.longs("h", false),
                ParquetFile.Column.ints("i", true),
                ParquetFile.Column.names("j", true, dictionary),
                ParquetFile.Column.longs("k", false));
        long constant = r.nextLong();
        int constantInt = r.nextInt();
        String constantName = dictionary.get(r.nextInt(names));
        long time = r.nextLong();
        double nullRate = r.nextInt(3) == 0 ? 0 : r.nextInt(3) == 0 ? 1 : r.nextDouble();
        Object[][] out = new Object[rows][];
        for (int i = 0; i < rows; i++) {
            out[i] = new Object[] {
                r.nextBoolean() ? r.nextLong() : (long) r.nextInt(1000) - 500,
                r.nextDouble() < nullRate ? null : r.nextLong(),
                r.nextInt(),
                r.nextDouble() < nullRate ? null : r.nextInt(3),
                r.nextBoolean(),
                dictionary.get(r.nextInt(Math.max(1, r.nextInt(names) + 1))),
                r.nextDouble() < nullRate ? null : dictionary.get(r.nextInt(names)),
                constant, // constant columns (a trace's number, a stream id) take their own way
                r.nextDouble() < nullRate ? null : constantInt,
                r.nextDouble() < nullRate ? null : constantName, // one RLE run
                time += r.nextInt(100) == 0 ? -r.nextInt(1 << 20) : r.nextInt(1 << r.nextInt(20))
            }; // times, positions: narrow deltas
        }
        return new Table(cols, out);
    }

    private List<List<Object>> readBack(Path file, int columns) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select * from read_parquet('" + file + "')")) {
            while (r.next()) {
                List<Object> row = new ArrayList<>();
                for (int k = 1; k <= columns; k++) {
                    Object v = r.getObject(k);
                    row.add(v);
                }
                out.add(row);
            }
        }
        return out;
    }

    private void roundTrip(Table t, int group) throws Exception {
        roundTrip(t, group, ParquetFile.PAGE);
    }

    private void roundTrip(Table t, int group, int page) throws Exception {
        if (dir == null) { // jqwik's properties get no @TempDir
            dir = Files.createTempDirectory("parquet");
        }
        Path file = dir.resolve("t-" + System.nanoTime() + ".parquet");
        long written = ParquetFile.write(file, t.columns(), t.rows(), "t", t.values().length, n -> {}, group, page);
        assertThat(written).isEqualTo(t.values().length);
        List<List<Object>> back = readBack(file, t.columns().size());
        assertThat(back).hasSize(t.values().length);
        for (int i = 0; i < back.size(); i++) {
            assertThat(back.get(i)).as("row %d", i).containsExactly(t.values()[i]);
        }
        Files.delete(file);
    }

    @Property(tries = 30)
    void everyValueReadsBackAsWritten(
            @ForAll long seed,
            @ForAll @IntRange(min = 0, max = 3000) int rows,
            @ForAll @IntRange(min = 1, max = 300) int names,
            @ForAll @IntRange(min = 1, max = 1100) int group,
            @ForAll @IntRange(min = 1, max = 1100) int page)
            throws Exception {
        // row groups of several data pages, pages of any size against the delta encoder's blocks of 128
        roundTrip(random(seed, rows, names), group, page);
    }

    @Test
    void deltasOfEveryWidthReadBack() throws Exception {
        // per column, the deltas of every miniblock exactly `width` bits wide (the packer joins
        // values in groups by width); rows not a multiple of 32, so that the last miniblock is partial
        Random r = new Random(11);
        for (int width = 1; width <= 63; width++) {
            int n = 1000 + width;
            Object[][] rows = new Object[n][];
            long v = r.nextLong() >> 8;
            long top = 1L << (width - 1);
            for (int i = 0; i < n; i++) {
                long d = i % 32 == 5 ? 0 : (i % 32 == 7 ? top | (top - 1) : r.nextLong() & (top | (top - 1)));
                rows[i] = new Object[] {v += d, (int) v};
            }
            roundTrip(
                    new Table(List.of(ParquetFile.Column.longs("t", false), ParquetFile.Column.ints("i", false)), rows),
                    1 << 14,
                    300);
        }
    }

    @Test
    void manyRowGroupsAndLargeDictionaries() throws Exception {
        roundTrip(random(7, 70_000, 20_000), 1 << 14); // 20,000 names: more than a whole dictionary per row group
        roundTrip(random(8, 70_000, 20_000), 1 << 14, 1000); // and its names met page after page
    }

    @Test
    void aFilterOnTimeSkipsRowGroupsByTheirStatistics() throws Exception {
        int n = 100_000;
        Object[][] rows = new Object[n][];
        for (int i = 0; i < n; i++) {
            rows[i] = new Object[] {(long) i * 10};
        }
        Table t = new Table(List.of(ParquetFile.Column.longs("time_ns", false)), rows);
        Path file = dir.resolve("time.parquet");
        ParquetFile.write(file, t.columns(), t.rows(), "t", n, x -> {}, 1000);
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement()) {
            try (ResultSet r =
                    s.executeQuery("select stats_min_value, stats_max_value, row_group_num_rows from parquet_metadata('"
                            + file + "') order by row_group_id limit 2")) {
                r.next();
                assertThat(List.of(r.getString(1), r.getString(2), r.getLong(3)))
                        .containsExactly("0", "9990", 1000L);
                r.next();
                assertThat(List.of(r.getString(1), r.getString(2))).containsExactly("10000", "19990");
            }
            try (ResultSet r = s.executeQuery(
                    "select count(*) from read_parquet('" + file + "') where time_ns between 500000 and 500990")) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(100);
            }
        }
    }

    @Test
    void anEmptyTableIsAFileWithItsColumnsAndNoRows() throws Exception {
        Table t = new Table(
                List.of(ParquetFile.Column.longs("a", true), ParquetFile.Column.names("b", true, List.of("x"))),
                new Object[0][]);
        Path file = dir.resolve("empty.parquet");
        ParquetFile.write(file, t.columns(), t.rows(), "t", 0, x -> {});
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement();
                ResultSet r =
                        s.executeQuery("select count(*), typeof(any_value(a)), typeof(any_value(b)) from read_parquet('"
                                + file + "')")) {
            r.next();
            assertThat(r.getLong(1)).isZero();
        }
        assertThat(Files.size(file)).isGreaterThan(8);
        assertThat(Arrays.copyOf(Files.readAllBytes(file), 4)).containsExactly('P', 'A', 'R', '1');
    }
}
