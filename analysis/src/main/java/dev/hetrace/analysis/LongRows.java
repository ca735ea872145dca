package dev.hetrace.analysis;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Rows of a fixed number of longs, stored by rows in chunks of 2048 rows once past the first
 * chunk (which grows by doubling): adding a row writes one or two cache lines rather than one
 * per column, and a large table grows without copying. The storage of {@link IntervalTable} and
 * {@link MessageTable}, and of the analysis index's per-event rows.
 *
 * <p>The chunks are native memory, each freed once it is no longer reachable (an automatic
 * arena): a model's rows live as long as the model, and on the heap every young collection
 * would copy them again until they reach the old generation (a third of the state pass's time
 * on one core). Native memory counts against the JVM's limit for direct memory, which is the
 * heap's size unless set ({@code -XX:MaxDirectMemorySize}). A chunk a table gives back
 * ({@link #releaseBefore}) is taken by the next table that needs one of its
 * size before new memory is (new pages cost the kernel a fault and a clearing each): the state
 * pass copies each trace's rows into the model, chunk by chunk. A recycled chunk is not cleared:
 * every row's longs are written when it is added.
 */
public final class LongRows {
    /** How the rows' longs are read and written: {@code chunk.getAtIndex(L, index)}. */
    public static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    private static final int SHIFT = 11;
    private static final int ROWS = 1 << SHIFT;
    private static final int MASK = ROWS - 1;

    /** Full chunks given back, by width (1 to 16 longs a row), each queue bounded. */
    private static final ArrayBlockingQueue<MemorySegment>[] FREE = freeLists();

    @SuppressWarnings("unchecked")
    private static ArrayBlockingQueue<MemorySegment>[] freeLists() {
        ArrayBlockingQueue<MemorySegment>[] q = new ArrayBlockingQueue[17];
        for (int w = 1; w < q.length; w++) {
            q[w] = new ArrayBlockingQueue<>(128);
        }
        return q;
    }

    private final int width;
    private MemorySegment[] chunks;
    private MemorySegment last;
    private int size;

    public LongRows(int width) {
        this.width = width;
        last = allocate(16L * width);
        chunks = new MemorySegment[] {last};
    }

    /**
     * {@code rows} rows to be written in place, by several threads at once each on rows of its
     * own ({@link #chunkToWrite}); their chunks are made by the first thread that writes in
     * them, so that the threads share the cost of making them.
     */
    LongRows(int width, int rows) {
        this.width = width;
        if (rows <= ROWS) {
            last = allocate((long) Math.max(16, rows) * width);
            chunks = new MemorySegment[] {last};
        } else {
            chunks = new MemorySegment[(rows + MASK) >>> SHIFT];
            // the last chunk made now, so that an append after the rows written in place finds it
            last = chunks[chunks.length - 1] = full();
        }
        size = rows;
    }

    /** A chunk of {@code longs} longs, zeroed (the first chunk, which grows). */
    private static MemorySegment allocate(long longs) {
        return Arena.ofAuto().allocate(longs * Long.BYTES, Long.BYTES);
    }

    /** A full chunk: one given back, else new. */
    private MemorySegment full() {
        MemorySegment k = width < FREE.length ? FREE[width].poll() : null;
        return k != null ? k : allocate((long) ROWS * width);
    }

    private void giveBack(MemorySegment k) {
        if (width < FREE.length && k.byteSize() == (long) ROWS * width * Long.BYTES) {
            FREE[width].offer(k);
        }
    }

    /** The chunk of {@code row} to write it, made if it is not yet (see {@link #LongRows(int, int)}). */
    MemorySegment chunkToWrite(int row) {
        int c = row >>> SHIFT;
        MemorySegment k = chunks[c];
        if (k == null) {
            synchronized (this) {
                k = chunks[c];
                if (k == null) {
                    k = full();
                    chunks[c] = k;
                }
            }
        }
        return k;
    }

    /** Adds a row; returns the index of its first long in {@link #lastChunk()}, where the caller writes it. */
    public int append() {
        int k = size & MASK;
        if ((long) k * width * Long.BYTES == last.byteSize() || (k == 0 && size > 0)) {
            grow();
        }
        size++;
        return k * width;
    }

    /** The chunk the last row went into. */
    public MemorySegment lastChunk() {
        return last;
    }

    private void grow() {
        if (size < ROWS) {
            MemorySegment bigger = allocate(Math.min((long) ROWS * width, last.byteSize() / Long.BYTES * 2));
            MemorySegment.copy(last, 0, bigger, 0, last.byteSize());
            last = bigger;
            chunks[0] = last;
            return;
        }
        if (size > Integer.MAX_VALUE - ROWS) {
            throw new IllegalStateException("a table holds at most " + (Integer.MAX_VALUE - ROWS + 1) + " rows");
        }
        int n = size >>> SHIFT;
        if (n == chunks.length) {
            chunks = Arrays.copyOf(chunks, n * 2);
        }
        last = full();
        chunks[n] = last;
    }

    public int size() {
        return size;
    }

    public long get(int row, int field) {
        Objects.checkIndex(row, size);
        return chunks[row >>> SHIFT].getAtIndex(L, (long) (row & MASK) * width + field);
    }

    /**
     * Copies rows {@code from} on into {@code into} (row after row, {@code width} longs each): as
     * many as there are up to {@code max}, as fit in {@code into}, and as lie in {@code from}'s
     * chunk. Returns how many (0 when {@code from} is the size).
     */
    public int read(int from, int max, long[] into) {
        Objects.checkIndex(from, size + 1);
        int n = Math.min(Math.min(max, into.length / width), Math.min(size - from, rowsInChunkFrom(from)));
        if (n > 0) {
            MemorySegment.copy(
                    chunks[from >>> SHIFT], L, (long) (from & MASK) * width * Long.BYTES, into, 0, n * width);
        }
        return n;
    }

    /** The chunk that holds {@code row}, for reading rows in place ({@link #offset}). */
    MemorySegment chunk(int row) {
        return chunks[row >>> SHIFT];
    }

    /** Rows from {@code row} to the end of its chunk (whether written yet or not). */
    int rowsInChunkFrom(int row) {
        return ROWS - (row & MASK);
    }

    /** Where {@code row} begins in its {@link #chunk}, in longs. */
    int offset(int row) {
        return (row & MASK) * width;
    }

    /** Drops the chunk before {@code row}'s, once every row before {@code row} has been read for the last time. */
    void releaseBefore(int row) {
        int c = row >>> SHIFT;
        if (c > 0 && (row & MASK) == 0 && chunks[c - 1] != last) {
            giveBack(chunks[c - 1]);
            chunks[c - 1] = null;
        }
    }

    public void set(int row, int field, long value) {
        Objects.checkIndex(row, size);
        chunks[row >>> SHIFT].setAtIndex(L, (long) (row & MASK) * width + field, value);
    }

    /** Two ints in one long: {@code high} in the upper half, {@code low} in the lower. */
    public static long pair(int high, int low) {
        return ((long) high << 32) | (low & 0xFFFFFFFFL);
    }

    /** The upper half of a {@link #pair}. */
    public static int high(long v) {
        return (int) (v >>> 32);
    }

    /** The lower half of a {@link #pair}. */
    public static int low(long v) {
        return (int) v;
    }
}
