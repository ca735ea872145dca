package dev.hetrace.analysis.index;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Writes one table as an Apache Parquet file (format 2.x, uncompressed, data pages V1), straight
 * from hetrace's columns: numbers PLAIN with their minimum and maximum (so that DuckDB skips the
 * row groups a filter on time excludes), booleans bit-packed, names dictionary-encoded (each row
 * group's dictionary holds the names it uses), NULLs as definition levels. This is how the index
 * keeps its large tables: DuckDB reads such files natively, while storing the same rows into
 * DuckDB's own tables costs more per row than hetrace's whole state pass (BENCHMARKS.md, "Analysis
 * index").
 *
 * <p>Rows are pulled a row group at a time: {@link Rows#fill} sets each column's value (or NULL)
 * for rows 0 up to the capacity in a {@link Group}'s arrays; nothing is allocated per row.
 */
final class ParquetFile {
    /** Rows per row group: DuckDB reads row groups in parallel and skips them by their statistics. */
    static final int GROUP = 1 << 18;
    /** Rows per data page: a page's columns filled and encoded while they stay in the CPU's caches. */
    static final int PAGE = 1 << 13;

    /** How a column's values are given and stored. */
    enum Kind {
        /** 64-bit integers (INT64). */
        LONG,
        /** 32-bit integers (INT32). */
        INT,
        /** Booleans, given as 0 and 1. */
        BOOL,
        /** Names, given as indexes into the column's names, stored as UTF-8 strings (BYTE_ARRAY, dictionary-encoded). */
        NAME,
        /** 64-bit floating point numbers, given as their bits ({@link Double#doubleToRawLongBits}), stored plain. */
        DOUBLE
    }

    /** A column: its name, kind, whether it may be NULL, and for {@link Kind#NAME} the names its values index. */
    record Column(String name, Kind kind, boolean optional, List<String> names) {
        static Column longs(String name, boolean optional) {
            return new Column(name, Kind.LONG, optional, List.of());
        }

        static Column ints(String name, boolean optional) {
            return new Column(name, Kind.INT, optional, List.of());
        }

        static Column bools(String name) {
            return new Column(name, Kind.BOOL, false, List.of());
        }

        static Column doubles(String name, boolean optional) {
            return new Column(name, Kind.DOUBLE, optional, List.of());
        }

        static Column names(String name, boolean optional, List<String> names) {
            return new Column(name, Kind.NAME, optional, names);
        }
    }

    /**
     * One page's values as they are filled: per column a {@code long[]} (LONG, INT) or
     * {@code int[]} (BOOL, NAME), and NULL flags, set through {@link #setNull} and
     * {@link #setNulls} (which count them, so that a page without NULLs or of NULLs only is not
     * scanned for them).
     */
    static final class Group {
        final long[][] longs;
        final int[][] ints;
        private final boolean[][] nulls;
        private final int[] nullCount;
        final int capacity;

        private Group(List<Column> columns, int capacity) {
            this.capacity = capacity;
            longs = new long[columns.size()][];
            ints = new int[columns.size()][];
            nulls = new boolean[columns.size()][];
            nullCount = new int[columns.size()];
            for (int c = 0; c < columns.size(); c++) {
                Column col = columns.get(c);
                if (col.kind() == Kind.LONG || col.kind() == Kind.INT || col.kind() == Kind.DOUBLE) {
                    longs[c] = new long[capacity];
                } else {
                    ints[c] = new int[capacity];
                }
                if (col.optional()) {
                    nulls[c] = new boolean[capacity];
                }
            }
        }

        void setLong(int column, int row, long v) {
            longs[column][row] = v;
        }

        /** An INT column's value, or a NAME column's index into its names. */
        void setInt(int column, int row, int v) {
            if (longs[column] != null) {
                longs[column][row] = v;
            } else {
                ints[column][row] = v;
            }
        }

        void setBool(int column, int row, boolean v) {
            ints[column][row] = v ? 1 : 0;
        }

        /** Marks a cell NULL (the column must be optional, the cell not NULL yet); cleared for the next page. */
        void setNull(int column, int row) {
            nulls[column][row] = true;
            nullCount[column]++;
        }

        /** Marks rows {@code from} to {@code to} − 1 of a column NULL (as {@link #setNull}). */
        void setNulls(int column, int from, int to) {
            Arrays.fill(nulls[column], from, to, true);
            nullCount[column] += to - from;
        }
    }

    /** A table's rows, given a row group at a time. */
    interface Rows {
        /** Sets rows 0 up to at most {@code capacity} of {@code g}; returns how many, 0 when there are no more. */
        int fill(Group g, int capacity) throws Exception;
    }

    private static final int BOOLEAN = 0;
    private static final int INT32 = 1;
    private static final int INT64 = 2;
    private static final int DOUBLE_TYPE = 5;
    private static final int BYTE_ARRAY = 6;
    private static final int PLAIN = 0;
    private static final int RLE = 3;
    private static final int DELTA_BINARY_PACKED = 5;
    private static final int RLE_DICTIONARY = 8;
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final List<Column> columns;
    private final byte[][][] utf8;
    private final OutputStream out;
    private final Bytes page = new Bytes();
    /** A page's header, made again for each page; a row group's dictionary page with its header. */
    private final Thrift header = new Thrift();

    private final Bytes dictionary = new Bytes();
    /** The values' encodings into {@link #page}. */
    private final PageEncoder encoder = new PageEncoder(page);

    private final List<byte[]> groups = new ArrayList<>(); // each row group's metadata, encoded
    private long offset;
    private long rows;
    /** Per NAME column, a name's index in this group's dictionary, valid when its stamp is the group's. */
    private final int[][] dictIndex;

    private final int[][] dictStamp;
    /** Per NAME column not {@link #whole}, the names of this group's dictionary, in order of first use, and how many. */
    private final int[][] dictOrder;

    private final int[] dictSize;
    /** Per NAME column, whether its names are few enough (64 KiB) to be every row group's whole dictionary. */
    private final boolean[] whole;

    private int stamp = 1;
    /** Per column, the current row group's data pages (headers included), its NULLs, smallest and largest value. */
    private final Bytes[] chunk;

    private final long[] chunkNulls;
    private final long[] chunkMin;
    private final long[] chunkMax;
    /** Rows in the current row group. */
    private int groupRows;

    private ParquetFile(OutputStream out, List<Column> columns) {
        this.out = out;
        this.columns = columns;
        utf8 = new byte[columns.size()][][];
        dictIndex = new int[columns.size()][];
        dictStamp = new int[columns.size()][];
        whole = new boolean[columns.size()];
        dictOrder = new int[columns.size()][];
        dictSize = new int[columns.size()];
        chunk = new Bytes[columns.size()];
        chunkNulls = new long[columns.size()];
        chunkMin = new long[columns.size()];
        chunkMax = new long[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            List<String> names = columns.get(c).names();
            utf8[c] = new byte[names.size()][];
            for (int k = 0; k < names.size(); k++) {
                utf8[c][k] = names.get(k).getBytes(StandardCharsets.UTF_8);
            }
            long bytes = 0;
            for (byte[] u : utf8[c]) {
                bytes += 4 + u.length;
            }
            whole[c] = bytes <= 1 << 16;
            if (!whole[c]) {
                dictIndex[c] = new int[names.size()];
                dictStamp[c] = new int[names.size()];
                dictOrder[c] = new int[names.size()];
            }
            chunk[c] = new Bytes();
        }
        startGroup();
    }

    /**
     * Writes {@code rows} to {@code file} as a table of {@code columns}; returns the rows written.
     * When they are a million or more, {@code notes} is told that the table (as {@code what}) is
     * being written, then about every two seconds how far.
     */
    static long write(Path file, List<Column> columns, Rows rows, String what, long total, Consumer<String> notes)
            throws Exception {
        return write(file, columns, rows, what, total, notes, GROUP);
    }

    /** As {@link #write(Path, List, Rows, String, long, Consumer)}, with row groups of {@code group} rows at most. */
    static long write(
            Path file, List<Column> columns, Rows rows, String what, long total, Consumer<String> notes, int group)
            throws Exception {
        return write(file, columns, rows, what, total, notes, group, PAGE);
    }

    /** As {@link #write(Path, List, Rows, String, long, Consumer, int)}, with data pages of {@code pageRows} rows at most. */
    static long write(
            Path file,
            List<Column> columns,
            Rows rows,
            String what,
            long total,
            Consumer<String> notes,
            int group,
            int pageRows)
            throws Exception {
        boolean tell = total >= 1_000_000;
        if (tell) {
            notes.accept(String.format(Locale.ROOT, "indexing: writing the %s (%,d rows)", what, total));
        }
        long t0 = System.nanoTime();
        long last = t0;
        try (OutputStream os = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            ParquetFile p = new ParquetFile(os, columns);
            p.put(new byte[] {'P', 'A', 'R', '1'});
            Group g = new Group(columns, (int) Math.min(Math.min(pageRows, group), Math.max(1, total)));
            for (int n; (n = rows.fill(g, Math.min(g.capacity, group - p.groupRows))) > 0; ) {
                p.page(g, n);
                if (p.groupRows == group) {
                    p.endGroup();
                    long now = System.nanoTime();
                    if (tell && now - last > 2_000_000_000L) {
                        last = now;
                        notes.accept(String.format(Locale.ROOT, "indexing: %,d of %,d rows written", p.rows, total));
                    }
                }
            }
            if (p.groupRows > 0) {
                p.endGroup();
            }
            p.footer();
            if (tell) {
                notes.accept(String.format(
                        Locale.ROOT, "indexing: %s written in %.1f s", what, (System.nanoTime() - t0) / 1e9));
            }
            return p.rows;
        } catch (IOException e) { // a full disk says only "No space left on device": the file named
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** The present values first, in place. */
    private static void compact(long[] v, boolean[] nulls, int n) {
        int k = 0;
        for (int r = 0; r < n; r++) {
            if (!nulls[r]) {
                v[k++] = v[r];
            }
        }
    }

    /** As {@link #compact(long[], boolean[], int)}, for a BOOL or NAME column's values. */
    private static void compact(int[] v, boolean[] nulls, int n) {
        int k = 0;
        for (int r = 0; r < n; r++) {
            if (!nulls[r]) {
                v[k++] = v[r];
            }
        }
    }

    /**
     * Encodes the first {@code n} rows of {@code g} as a data page of each column, kept until
     * the row group ends ({@link #endGroup}), then clears the NULL flags. A page is a few
     * thousand rows: its columns are filled and encoded while they are in the CPU's caches
     * (a whole row group's columns, 13 of 262,144 values, are not). Its loops are all in
     * methods of their own: a loop of its own would have the JIT compile it with every
     * encoder inlined, a second or more each time.
     */
    private void page(Group g, int n) {
        for (int c = 0; c < columns.size(); c++) {
            Column col = columns.get(c);
            int present = n - g.nullCount[c];
            // the flags are read only when some values are NULL and some are not
            boolean[] nulls = present == n || present == 0 ? null : g.nulls[c];
            int[] values = g.ints[c];
            page.clear();
            if (col.optional()) {
                encoder.definitionLevels(nulls, n, present);
            }
            if (nulls != null) { // the values of the present rows only, from here on
                if (g.longs[c] != null) {
                    compact(g.longs[c], nulls, n);
                } else {
                    compact(values, nulls, n);
                }
            }
            switch (col.kind()) {
                case LONG, INT -> {
                    long[] v = g.longs[c];
                    encoder.delta(v, present, col.kind() == Kind.INT);
                    if (present > 0) {
                        chunkMin[c] = Math.min(chunkMin[c], encoder.min);
                        chunkMax[c] = Math.max(chunkMax[c], encoder.max);
                    }
                }
                case BOOL -> encoder.bitPacked(values, present, 1, false);
                case DOUBLE -> plainLongs(g.longs[c], present);
                case NAME -> {
                    int size = whole[c] ? utf8[c].length : renumber(c, values, present);
                    int width = Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(1, size) - 1));
                    page.put(width);
                    encoder.bitPacked(values, present, width, true);
                }
            }
            pageTo(
                    chunk[c],
                    0,
                    5,
                    n,
                    encoding(col.kind()),
                    RLE,
                    RLE); // a data page: values, encoding, levels' encodings
            if (present < n) {
                Arrays.fill(g.nulls[c], 0, n, false);
                g.nullCount[c] = 0;
            }
            chunkNulls[c] += n - present;
        }
        groupRows += n;
    }

    /** Values as 8 little-endian bytes each (PLAIN). */
    private void plainLongs(long[] v, int n) {
        int at = page.reserve(8 * n);
        MemorySegment b = MemorySegment.ofArray(page.b);
        for (int k = 0; k < n; k++) {
            b.set(LE_LONG, at + 8L * k, v[k]);
        }
    }

    private void startGroup() {
        stamp++;
        groupRows = 0;
        Arrays.fill(chunkNulls, 0);
        Arrays.fill(chunkMin, Long.MAX_VALUE);
        Arrays.fill(chunkMax, Long.MIN_VALUE);
        Arrays.fill(dictSize, 0);
    }

    /** Writes the row group: each column's chunk (its dictionary page, then its data pages), and keeps its metadata. */
    private void endGroup() throws IOException {
        int n = groupRows;
        long start = offset;
        Thrift chunks = new Thrift();
        chunks.listHeader(12, columns.size());
        for (int c = 0; c < columns.size(); c++) {
            Column col = columns.get(c);
            long chunkStart = offset;
            long dictionaryAt = -1;
            if (col.kind() == Kind.NAME) {
                dictionaryAt = offset;
                dictionaryPage(c);
            }
            long dataAt = offset;
            put(chunk[c].b, chunk[c].n);
            chunk[c].clear();
            int encoding = encoding(col.kind());
            long size = offset - chunkStart;
            // the column chunk's metadata, for the footer
            chunks.fieldStructInList();
            chunks.fieldI64(2, dictionaryAt >= 0 ? dictionaryAt : dataAt);
            chunks.fieldStruct(3);
            chunks.fieldI32(1, physical(col.kind()));
            chunks.fieldList(2, 5, col.kind() == Kind.NAME ? 3 : 2);
            chunks.i32(encoding);
            chunks.i32(RLE);
            if (col.kind() == Kind.NAME) {
                chunks.i32(PLAIN);
            }
            chunks.fieldList(3, 8, 1);
            chunks.binary(col.name().getBytes(StandardCharsets.UTF_8));
            chunks.fieldI32(4, 0); // uncompressed
            chunks.fieldI64(5, n);
            chunks.fieldI64(6, size);
            chunks.fieldI64(7, size);
            chunks.fieldI64(9, dataAt);
            if (dictionaryAt >= 0) {
                chunks.fieldI64(11, dictionaryAt);
            }
            chunks.fieldStruct(12); // statistics
            chunks.fieldI64(3, chunkNulls[c]);
            if (chunkNulls[c] < n && (col.kind() == Kind.LONG || col.kind() == Kind.INT)) {
                chunks.fieldBinary(5, plain(col.kind(), chunkMax[c]));
                chunks.fieldBinary(6, plain(col.kind(), chunkMin[c]));
            }
            chunks.stop();
            chunks.stop();
            chunks.stop();
        }
        Thrift rg = new Thrift();
        rg.fieldRaw(1, 9, chunks); // columns
        rg.fieldI64(2, offset - start);
        rg.fieldI64(3, n);
        rg.fieldI64(5, start);
        rg.fieldI64(6, offset - start);
        rg.stop();
        groups.add(Arrays.copyOf(rg.bytes.b, rg.bytes.n));
        rows += n;
        startGroup();
    }

    /**
     * Renumbers the first {@code n} values of a page of a column whose dictionary is not
     * {@link #whole}: each row group's dictionary holds the names it uses, in order of first
     * use. Returns the dictionary's size so far.
     */
    private int renumber(int c, int[] values, int n) {
        int[] index = dictIndex[c];
        int[] stamps = dictStamp[c];
        int[] order = dictOrder[c];
        int size = dictSize[c];
        for (int r = 0; r < n; r++) {
            int v = values[r];
            if (stamps[v] != stamp) {
                stamps[v] = stamp;
                order[size] = v;
                index[v] = size++;
            }
            values[r] = index[v];
        }
        dictSize[c] = size;
        return size;
    }

    /**
     * Writes a row group's dictionary page: every name when they are few ({@link #whole}), else
     * the names the group uses, in order of first use.
     */
    private void dictionaryPage(int c) throws IOException {
        byte[][] names = utf8[c];
        page.clear();
        int size;
        if (whole[c]) { // every name, in order: the values are their indexes already
            for (byte[] name : names) {
                encoder.plainString(name);
            }
            size = names.length;
        } else {
            size = dictSize[c];
            int[] order = dictOrder[c];
            for (int k = 0; k < size; k++) {
                encoder.plainString(names[order[k]]);
            }
        }
        if (size == 0) { // no value: an empty string stands in, so that the dictionary is not empty
            encoder.plainString(new byte[0]);
            size = 1;
        }
        dictionary.clear();
        pageTo(dictionary, 2, 7, size, PLAIN); // a dictionary page: values, encoding
        put(dictionary.b, dictionary.n);
    }

    /**
     * Appends {@link #page} to {@code to} after its header: the page's {@code type} and size, and its own header
     * (the struct in field {@code field}) of {@code values} as fields 1, 2...
     */
    private void pageTo(Bytes to, int type, int field, int... values) {
        Thrift h = header;
        h.clear();
        h.fieldI32(1, type);
        h.fieldI32(2, page.n); // uncompressed and compressed sizes: the same
        h.fieldI32(3, page.n);
        h.fieldStruct(field);
        for (int k = 0; k < values.length; k++) {
            h.fieldI32(k + 1, values[k]);
        }
        h.stop();
        h.stop();
        to.put(h.bytes.b, h.bytes.n);
        to.put(page.b, page.n);
    }

    /** How a kind's values are encoded in data pages. */
    private static int encoding(Kind k) {
        return switch (k) {
            case NAME -> RLE_DICTIONARY;
            case BOOL, DOUBLE -> PLAIN;
            case LONG, INT -> DELTA_BINARY_PACKED;
        };
    }

    private static int physical(Kind k) {
        return switch (k) {
            case LONG -> INT64;
            case INT -> INT32;
            case BOOL -> BOOLEAN;
            case DOUBLE -> DOUBLE_TYPE;
            case NAME -> BYTE_ARRAY;
        };
    }

    private static byte[] plain(Kind k, long v) {
        byte[] b = new byte[k == Kind.LONG ? 8 : 4];
        if (k == Kind.LONG) {
            MemorySegment.ofArray(b).set(LE_LONG, 0, v);
        } else {
            MemorySegment.ofArray(b).set(LE_INT, 0, (int) v);
        }
        return b;
    }

    /** The file's metadata (schema, row groups), its length and the closing magic. */
    private void footer() throws IOException {
        Thrift f = new Thrift();
        f.fieldI32(1, 1);
        f.fieldList(2, 12, columns.size() + 1);
        f.fieldStructInList();
        f.fieldBinary(4, "schema".getBytes(StandardCharsets.UTF_8));
        f.fieldI32(5, columns.size());
        f.stop();
        for (Column col : columns) {
            f.fieldStructInList();
            f.fieldI32(1, physical(col.kind()));
            f.fieldI32(3, col.optional() ? 1 : 0);
            f.fieldBinary(4, col.name().getBytes(StandardCharsets.UTF_8));
            if (col.kind() == Kind.NAME) {
                f.fieldI32(6, 0); // UTF8
                f.fieldStruct(10); // logicalType: STRING
                f.fieldStruct(1);
                f.stop();
                f.stop();
            }
            f.stop();
        }
        f.fieldI64(3, rows);
        Thrift list = new Thrift();
        list.listHeader(12, groups.size());
        for (byte[] g : groups) {
            list.bytes.put(g, g.length);
        }
        f.fieldRaw(4, 9, list);
        f.fieldBinary(6, "hetrace".getBytes(StandardCharsets.UTF_8));
        f.stop();
        put(f.bytes.b, f.bytes.n);
        byte[] tail = new byte[8];
        MemorySegment.ofArray(tail).set(LE_INT, 0, f.bytes.n);
        tail[4] = 'P';
        tail[5] = 'A';
        tail[6] = 'R';
        tail[7] = '1';
        put(tail);
    }

    private void put(byte[] b) throws IOException {
        put(b, b.length);
    }

    private void put(byte[] b, int n) throws IOException {
        out.write(b, 0, n);
        offset += n;
    }
}
