package dev.hetrace.analysis;

/** Open-addressing map from long keys to int values, so that lookups on the hot path allocate nothing. */
public final class LongIntMap {
    public static final int ABSENT = Integer.MIN_VALUE;

    private long[] keys = new long[16];
    private int[] values = new int[16];
    private boolean[] used = new boolean[16];
    private int size;

    public int get(long key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); used[i]; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
        }
        return ABSENT;
    }

    public void put(long key, int value) {
        if (2 * (size + 1) > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (!used[i]) {
            used[i] = true;
            keys[i] = key;
            size++;
        }
        values[i] = value;
    }

    /**
     * Removes the key, if present, and returns its value ({@link #ABSENT}: it was not there);
     * backward-shift deletion: no tombstones, so lookups stay short.
     */
    public int remove(long key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (used[i] && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (!used[i]) {
            return ABSENT;
        }
        int removed = values[i];
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (!used[j]) {
                break;
            }
            int home = slot(keys[j], mask);
            // the entry at j may fill the hole at i unless its home slot lies cyclically in (i, j]
            boolean stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
            if (!stays) {
                keys[i] = keys[j];
                values[i] = values[j];
                i = j;
            }
        }
        used[i] = false;
        size--;
        return removed;
    }

    public int size() {
        return size;
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }

    private void grow() {
        long[] k = keys;
        int[] v = values;
        boolean[] u = used;
        keys = new long[k.length * 2];
        values = new int[k.length * 2];
        used = new boolean[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i]);
            }
        }
    }
}
