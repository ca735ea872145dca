package dev.hetrace.analysis;

import java.util.Arrays;

/**
 * Intervals: start and end (ns on the reference clock), the owner (a core or a task), the
 * subject (the task, function or interrupt), a state, a depth, flags
 * ({@link StateModel#START_UNKNOWN}...) and, for calls, the self time.
 *
 * <p>Stored by rows, six longs each (owner and subject share one, state and depth another), in
 * chunks of 2048 rows once past the first chunk (which grows by doubling): adding a row writes
 * one or two cache lines rather than one per column, and a large table grows without copying.
 */
public final class IntervalTable {
    private static final int W = 6;
    private static final int SHIFT = 11;
    private static final int ROWS = 1 << SHIFT;
    private static final int MASK = ROWS - 1;

    private long[][] chunks = {new long[16 * W]};
    private long[] last = chunks[0];
    private int size;

    int add(long start, long end, int owner, int subject, int state, int depth, int flags, long self) {
        int k = size & MASK;
        if (k * W == last.length || (k == 0 && size > 0)) {
            grow();
        }
        long[] c = last;
        int o = k * W;
        c[o] = start;
        c[o + 1] = end;
        c[o + 2] = ((long) owner << 32) | (subject & 0xFFFFFFFFL);
        c[o + 3] = ((long) state << 32) | (depth & 0xFFFFFFFFL);
        c[o + 4] = flags;
        c[o + 5] = self;
        return size++;
    }

    private void grow() {
        if (size < ROWS) {
            last = Arrays.copyOf(last, Math.min(ROWS * W, last.length * 2));
            chunks[0] = last;
            return;
        }
        int n = size >>> SHIFT;
        if (n == chunks.length) {
            chunks = Arrays.copyOf(chunks, n * 2);
        }
        last = new long[ROWS * W];
        chunks[n] = last;
    }

    private long slot(int i, int field) {
        if (i >= size || i < 0) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return chunks[i >>> SHIFT][(i & MASK) * W + field];
    }

    public int size() {
        return size;
    }

    public long start(int i) {
        return slot(i, 0);
    }

    public long end(int i) {
        return slot(i, 1);
    }

    public long duration(int i) {
        return end(i) - start(i);
    }

    public int owner(int i) {
        return (int) (slot(i, 2) >>> 32);
    }

    public int subject(int i) {
        return (int) slot(i, 2);
    }

    void subject(int i, int value) {
        long v = slot(i, 2);
        chunks[i >>> SHIFT][(i & MASK) * W + 2] = (v & 0xFFFFFFFF00000000L) | (value & 0xFFFFFFFFL);
    }

    public int state(int i) {
        return (int) (slot(i, 3) >>> 32);
    }

    public int depth(int i) {
        return (int) slot(i, 3);
    }

    public int flags(int i) {
        return (int) slot(i, 4);
    }

    public long self(int i) {
        return slot(i, 5);
    }
}
