package dev.hetrace.analysis;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Rows of a fixed number of longs, stored by rows in chunks of 2048 rows once past the first
 * chunk (which grows by doubling): adding a row writes one or two cache lines rather than one
 * per column, and a large table grows without copying. The storage of {@link IntervalTable} and
 * {@link MessageTable}.
 *
 * <p>The chunks are native memory, each freed once it is no longer reachable (an automatic
 * arena): a model's rows live as long as the model, and on the heap every young collection
 * would copy them again until they reach the old generation (a third of the state pass's time
 * on one core). Native memory counts against the JVM's limit for direct memory, which is the
 * heap's size unless set ({@code -XX:MaxDirectMemorySize}).
 */
final class LongRows {
    /** How the rows' longs are read and written: {@code chunk.getAtIndex(L, index)}. */
    static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final int SHIFT = 11;
    private static final int ROWS = 1 << SHIFT;
    private static final int MASK = ROWS - 1;

    private final int width;
    private MemorySegment[] chunks;
    private MemorySegment last;
    /** Longs in {@link #last}. */
    private long lastLongs;
    private int size;

    LongRows(int width) {
        this.width = width;
        last = allocate(16L * width);
        chunks = new MemorySegment[] {last};
        lastLongs = 16L * width;
    }

    /**
     * {@code rows} rows to be written in place, by several threads at once each on rows of its
     * own ({@link #chunkToWrite}); their chunks are made by the first thread that writes in
     * them, so that the threads share the cost of making them.
     */
    LongRows(int width, int rows) {
        this.width = width;
        if (rows <= ROWS) {
            lastLongs = (long) Math.max(16, rows) * width;
            last = allocate(lastLongs);
            chunks = new MemorySegment[] {last};
        } else {
            chunks = new MemorySegment[(rows + MASK) >>> SHIFT];
            // the last chunk made now, so that an append after the rows written in place finds it
            lastLongs = (long) ROWS * width;
            last = chunks[chunks.length - 1] = allocate(lastLongs);
        }
        size = rows;
    }

    /** A chunk of {@code longs} longs, zeroed. */
    private static MemorySegment allocate(long longs) {
        return Arena.ofAuto().allocate(longs * Long.BYTES, Long.BYTES);
    }

    /** The chunk of {@code row} to write it, made if it is not yet (see {@link #LongRows(int, int)}). */
    MemorySegment chunkToWrite(int row) {
        int c = row >>> SHIFT;
        MemorySegment k = chunks[c];
        if (k == null) {
            synchronized (this) {
                k = chunks[c];
                if (k == null) {
                    k = allocate((long) ROWS * width);
                    chunks[c] = k;
                }
            }
        }
        return k;
    }

    /** Adds a row; returns the index of its first long in {@link #lastChunk()}, where the caller writes it. */
    int append() {
        int k = size & MASK;
        if ((long) k * width == lastLongs || (k == 0 && size > 0)) {
            grow();
        }
        size++;
        return k * width;
    }

    /** The chunk the last row went into. */
    MemorySegment lastChunk() {
        return last;
    }

    private void grow() {
        if (size < ROWS) {
            long longs = Math.min((long) ROWS * width, lastLongs * 2);
            MemorySegment bigger = allocate(longs);
            MemorySegment.copy(last, 0, bigger, 0, lastLongs * Long.BYTES);
            last = bigger;
            lastLongs = longs;
            chunks[0] = last;
            return;
        }
        int n = size >>> SHIFT;
        if (n == chunks.length) {
            chunks = java.util.Arrays.copyOf(chunks, n * 2);
        }
        lastLongs = (long) ROWS * width;
        last = allocate(lastLongs);
        chunks[n] = last;
    }

    int size() {
        return size;
    }

    long get(int row, int field) {
        if (row >= size || row < 0) {
            throw new IndexOutOfBoundsException(row + " of " + size);
        }
        return chunks[row >>> SHIFT].getAtIndex(L, (long) (row & MASK) * width + field);
    }

    /** The chunk that holds {@code row}, for reading rows in place ({@link #offset}). */
    MemorySegment chunk(int row) {
        return chunks[row >>> SHIFT];
    }

    /** Where {@code row} begins in its {@link #chunk}, in longs. */
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
        chunks[row >>> SHIFT].setAtIndex(L, (long) (row & MASK) * width + field, value);
    }
}
