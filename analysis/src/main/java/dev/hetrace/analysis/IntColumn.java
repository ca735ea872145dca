package dev.hetrace.analysis;

import java.util.Arrays;

/** A growable column of ints (ids, depths, states, flags). */
public final class IntColumn {
    private int[] values = new int[64];
    private int size;

    public void add(int v) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = v;
    }

    public int get(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        return values[i];
    }

    public void set(int i, int v) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i + " of " + size);
        }
        values[i] = v;
    }

    public int size() {
        return size;
    }
}
