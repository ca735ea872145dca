package dev.hetrace.analysis;

import java.util.Arrays;

/**
 * A growable column of longs: the storage of the state model's tables, no boxing. Stored in chunks of
 * 8192 values once past the first (which grows by doubling), so that a large column grows
 * without copying what it holds and never needs one huge array.
 */
public final class LongColumn {
    private static final int SHIFT = 13;
    private static final int CHUNK = 1 << SHIFT;
    private static final int MASK = CHUNK - 1;

    private long[][] chunks = {new long[64]};
    private long[] last = chunks[0];
    private int size;

    public void add(long v) {
        int k = size & MASK;
        if (k == last.length || (k == 0 && size > 0)) {
            grow();
        }
        last[k] = v;
        size++;
    }

    private void grow() {
        if (size < CHUNK) {
            last = Arrays.copyOf(last, Math.min(CHUNK, last.length * 2));
            chunks[0] = last;
            return;
        }
        int c = size >>> SHIFT;
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, c * 2);
        }
        last = new long[CHUNK];
        chunks[c] = last;
    }

    public long get(int i) {
        if (i >= size || i < 0) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return chunks[i >>> SHIFT][i & MASK];
    }

    public int size() {
        return size;
    }
}
