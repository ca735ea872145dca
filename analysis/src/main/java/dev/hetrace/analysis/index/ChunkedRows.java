package dev.hetrace.analysis.index;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBTableFunction;
import org.duckdb.DuckDBTableFunctionBindInfo;
import org.duckdb.DuckDBTableFunctionCallInfo;
import org.duckdb.DuckDBTableFunctionInitInfo;
import org.duckdb.DuckDBWritableVector;

/**
 * Rows written a chunk at a time straight into DuckDB's vectors, through a Java table function
 * that an {@code INSERT ... SELECT} pulls: numbers are stored in place, strings handed over a
 * column of a chunk per call. This is several times faster than DuckDB's row appender, whose
 * per-value checks and calls dominate on millions of rows (BENCHMARKS.md, "Analysis index").
 */
abstract class ChunkedRows {
    /** A column: its name, and the type the rows are given in (the table's column may be an ENUM of it). */
    record Column(String name, DuckDBColumnType type) {}

    private static final byte[] NULL = new byte[0];

    private final List<Column> columns;
    /** Per string column, the chunk's values (UTF-8), handed over in one call per chunk. */
    private final byte[][][] strings;
    private Exception failure;
    private java.util.function.Consumer<String> notes = n -> { };
    private long total;
    private long written;
    private long lastNote;

    ChunkedRows(List<Column> columns) {
        this.columns = columns;
        this.strings = new byte[columns.size()][][];
    }

    /**
     * Writes up to {@code capacity} rows from row 0 of {@code out}'s vectors (strings through
     * {@link #string}); returns how many, 0 when there are no more.
     */
    abstract int fill(DuckDBDataChunkWriter out, int capacity) throws Exception;

    /** Sets a string cell of the chunk being filled (null: NULL). */
    final void string(int column, int row, byte[] utf8) {
        strings[column][row] = utf8;
    }

    /**
     * As {@link #insertInto(DuckDBConnection, String)}, telling {@code notes} that the table (as
     * {@code what}) is being written when it is large (a million rows or more: seconds), then how
     * far about every two seconds ({@code total} rows).
     */
    final void insertInto(DuckDBConnection c, String table, String what, long total,
                          java.util.function.Consumer<String> notes) throws Exception {
        this.notes = notes;
        this.total = total;
        lastNote = System.nanoTime();
        if (total >= 1_000_000) {
            notes.accept(String.format(java.util.Locale.ROOT, "indexing: writing the %s (%,d rows)", what, total));
        }
        long t0 = System.nanoTime();
        insertInto(c, table);
        if (total >= 1_000_000) {
            notes.accept(String.format(java.util.Locale.ROOT, "indexing: %s written in %.1f s", what, (System.nanoTime() - t0) / 1e9));
        }
    }

    /** Inserts every row into {@code table} of {@code c}; a failure of {@link #fill} is thrown as it was. */
    final void insertInto(DuckDBConnection c, String table) throws Exception {
        String function = "hetrace_rows_" + table;
        DuckDBFunctions.tableFunction().withName(function).withFunction(new DuckDBTableFunction<Object, Object, Object>() {
            @Override
            public Object bind(DuckDBTableFunctionBindInfo info) {
                for (Column col : columns) {
                    info.addResultColumn(col.name(), col.type());
                }
                return Boolean.TRUE;
            }

            @Override
            public Object init(DuckDBTableFunctionInitInfo info) {
                info.setMaxThreads(1);
                return Boolean.TRUE;
            }

            @Override
            public long apply(DuckDBTableFunctionCallInfo info, DuckDBDataChunkWriter out) throws Exception {
                return chunk(out);
            }
        }).register(c);
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + table + " SELECT * FROM " + function + "()");
        } catch (SQLException e) {
            if (failure != null) {
                throw failure;
            }
            throw e;
        }
    }

    private long chunk(DuckDBDataChunkWriter out) throws Exception {
        try {
            int capacity = (int) out.capacity();
            for (int k = 0; k < columns.size(); k++) {
                if (columns.get(k).type() == DuckDBColumnType.VARCHAR
                        && (strings[k] == null || strings[k].length != capacity)) {
                    strings[k] = new byte[capacity][];
                }
            }
            int n = fill(out, capacity);
            written += n;
            long now = System.nanoTime();
            if (now - lastNote > 2_000_000_000L && n > 0) {
                lastNote = now;
                notes.accept(String.format(java.util.Locale.ROOT, "indexing: %,d of %,d rows written", written, total));
            }
            for (int k = 0; k < columns.size(); k++) {
                if (strings[k] != null && n > 0) {
                    DuckDBWritableVector v = out.vector(k);
                    byte[][] s = strings[k];
                    // all in one call, NULLs as empty strings, then marked NULL
                    boolean nulls = false;
                    for (int i = 0; i < n; i++) {
                        if (s[i] == null) {
                            s[i] = NULL;
                            nulls = true;
                        }
                    }
                    v.setStringUtf8Batch(0, n == s.length ? s : Arrays.copyOf(s, n));
                    if (nulls) {
                        for (int i = 0; i < n; i++) {
                            if (s[i] == NULL) {
                                v.setNull(i);
                            }
                        }
                    }
                    Arrays.fill(s, 0, n, null);
                }
            }
            return n;
        } catch (Exception | Error e) {
            failure = e instanceof Exception x ? x : new IllegalStateException(e);
            throw e;
        }
    }
}
