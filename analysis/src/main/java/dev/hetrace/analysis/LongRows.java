package dev.hetrace.analysis;

import java.util.Arrays;

/**
 * Rows of a fixed number of longs, stored by rows in chunks of 2048 rows once past the first
 * chunk (which grows by doubling): adding a row writes one or two cache lines rather than one
 * per column, and a large table grows without copying. The storage of {@link IntervalTable} and
 * {@link MessageTable}.
 */
final class LongRows {
    private static final int SHIFT = 11;
    private static final int ROWS = 1 << SHIFT;
    private static final int MASK = ROWS - 1;

    private final int width;
    private long[][] chunks;
    private long[] last;
    private int size;

    LongRows(int width) {
        this.width = width;
        chunks = new long[][] {new long[16 * width]};
        last = chunks[0];
    }

    /**
     * {@code rows} rows to be written in place, by several threads at once each on rows of its
     * own ({@link #chunkToWrite}); their chunks are made by the first thread that writes in
     * them, so that the threads share the cost of making them.
     */
    LongRows(int width, int rows) {
        this.width = width;
        if (rows <= ROWS) {
            chunks = new long[][] {new long[Math.max(16, rows) * width]};
            last = chunks[0];
        } else {
            chunks = new long[(rows + MASK) >>> SHIFT][];
            // the last chunk made now, so that an append after the rows written in place finds it
            last = chunks[chunks.length - 1] = new long[ROWS * width];
        }
        size = rows;
    }

    /** The chunk of {@code row} to write it, made if it is not yet (see {@link #LongRows(int, int)}). */
    long[] chunkToWrite(int row) {
        int c = row >>> SHIFT;
        long[] k = chunks[c];
        if (k == null) {
            synchronized (this) {
                k = chunks[c];
                if (k == null) {
                    k = new long[ROWS * width];
                    chunks[c] = k;
                }
            }
        }
        return k;
    }

    /** Adds a row; returns the index of its first long in {@link #lastChunk()}, where the caller writes it. */
    int append() {
        int k = size & MASK;
        if (k * width == last.length || (k == 0 && size > 0)) {
            grow();
        }
        size++;
        return k * width;
    }

    /** The chunk the last row went into. */
    long[] lastChunk() {
        return last;
    }

    private void grow() {
        if (size < ROWS) {
            last = Arrays.copyOf(last, Math.min(ROWS * width, last.length * 2));
            chunks[0] = last;
            return;
        }
        int n = size >>> SHIFT;
        if (n == chunks.length) {
            chunks = Arrays.copyOf(chunks, n * 2);
        }
        last = new long[ROWS * width];
        chunks[n] = last;
    }

    int size() {
        return size;
    }

    long get(int row, int field) {
        if (row >= size || row < 0) {
            throw new IndexOutOfBoundsException(row + " of " + size);
        }
        return chunks[row >>> SHIFT][(row & MASK) * width + field];
    }

    /** The chunk that holds {@code row}, for reading rows in place ({@link #offset}). */
    long[] chunk(int row) {
        return chunks[row >>> SHIFT];
    }

    /** Where {@code row} begins in its {@link #chunk}. */
    int offset(int row) {
        return (row & MASK) * width;
    }

    /** Drops the chunk before {@code row}'s, once every row before {@code row} has been read for the last time. */
    void releaseBefore(int row) {
        int c = row >>> SHIFT;
        if (c > 0 && (row & MASK) == 0 && chunks[c - 1] != last) {
            chunks[c - 1] = null;
        }
    }

    void set(int row, int field, long value) {
        if (row >= size || row < 0) {
            throw new IndexOutOfBoundsException(row + " of " + size);
        }
        chunks[row >>> SHIFT][(row & MASK) * width + field] = value;
    }
}
