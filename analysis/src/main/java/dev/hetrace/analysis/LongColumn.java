package dev.hetrace.analysis;

import java.util.Arrays;

/** A growable column of longs: the storage of the state model's tables, no boxing. */
public final class LongColumn {
    private long[] values = new long[64];
    private int size;

    public void add(long v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    public long get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return values[i];
    }

    public void set(int i, long v) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        values[i] = v;
    }

    public int size() {
        return size;
    }
}
