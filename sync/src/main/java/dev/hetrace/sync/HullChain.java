package dev.hetrace.sync;

import java.util.Arrays;

/**
 * One chain of a convex hull of integer points, kept as points arrive in any order: the upper
 * chain (every point on or below it) or the lower one. New points wait in a batch; a full batch
 * is sorted and merged with the chain by Andrew's monotone chain, so memory is the chain plus one
 * batch whatever the number of points, and the cost per point is a share of one sort.
 *
 * <p>Orientation tests are exact (128-bit products): points a few nanoseconds off a line of
 * hour-long span must still be told apart.
 */
final class HullChain {
    private static final int BATCH = 1 << 15;

    private final boolean upper;
    private long[] xs = new long[16];
    private long[] ys = new long[16];
    private int size;
    /** The batch: grows to BATCH, so that the many small chains of a piecewise synchronization stay small. */
    private long[] bx = new long[16];

    private long[] by = new long[16];
    private int pending;
    private long points;

    /** @param upper the upper chain (points must lie on or below it), else the lower one */
    HullChain(boolean upper) {
        this.upper = upper;
    }

    void add(long x, long y) {
        if (pending == bx.length && pending < BATCH) {
            bx = Arrays.copyOf(bx, Math.min(BATCH, 2 * pending));
            by = Arrays.copyOf(by, bx.length);
        }
        bx[pending] = x;
        by[pending] = y;
        pending++;
        points++;
        if (pending == BATCH) {
            merge();
        }
    }

    /** Points added so far. */
    long points() {
        return points;
    }

    /** The chain's vertices, by increasing x (after merging what waits). */
    int size() {
        merge();
        return size;
    }

    long x(int i) {
        return xs[i];
    }

    long y(int i) {
        return ys[i];
    }

    private void merge() {
        if (pending == 0) {
            return;
        }
        sort(bx, by, 0, pending - 1);
        long[] nx = new long[size + pending];
        long[] ny = new long[size + pending];
        int n = 0;
        int i = 0;
        int j = 0;
        while (i < size || j < pending) {
            long x;
            long y;
            if (j == pending || (i < size && xs[i] <= bx[j])) {
                x = xs[i];
                y = ys[i++];
            } else {
                x = bx[j];
                y = by[j++];
            }
            if (n > 0 && nx[n - 1] == x) {
                // one point per x: the highest for the upper chain, the lowest for the lower
                if (upper ? y <= ny[n - 1] : y >= ny[n - 1]) {
                    continue;
                }
                n--;
            }
            while (n >= 2 && !turnsOutward(nx[n - 2], ny[n - 2], nx[n - 1], ny[n - 1], x, y)) {
                n--;
            }
            nx[n] = x;
            ny[n++] = y;
        }
        xs = n == nx.length ? nx : Arrays.copyOf(nx, Math.max(n, 16));
        ys = n == ny.length ? ny : Arrays.copyOf(ny, Math.max(n, 16));
        size = n;
        pending = 0;
    }

    /** Whether b stays a vertex between a and c: a strict right turn (upper) or left turn (lower). */
    private boolean turnsOutward(long ax, long ay, long bx, long by, long cx, long cy) {
        int cross = compareProducts(bx - ax, cy - ay, by - ay, cx - ax);
        return upper ? cross < 0 : cross > 0;
    }

    /** The sign of {@code a·b − c·d}, exactly. */
    static int compareProducts(long a, long b, long c, long d) {
        long hi1 = Math.multiplyHigh(a, b);
        long hi2 = Math.multiplyHigh(c, d);
        if (hi1 != hi2) {
            return hi1 < hi2 ? -1 : 1;
        }
        return Long.compareUnsigned(a * b, c * d);
    }

    /** Sorts both arrays by x (then y), in place. */
    private static void sort(long[] x, long[] y, int lo, int hi) {
        while (hi - lo > 24) {
            int mid = (lo + hi) >>> 1;
            // median of three as the pivot
            if (less(x, y, mid, lo)) {
                swap(x, y, mid, lo);
            }
            if (less(x, y, hi, lo)) {
                swap(x, y, hi, lo);
            }
            if (less(x, y, hi, mid)) {
                swap(x, y, hi, mid);
            }
            long px = x[mid];
            long py = y[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (x[i] < px || (x[i] == px && y[i] < py)) {
                    i++;
                }
                while (x[j] > px || (x[j] == px && y[j] > py)) {
                    j--;
                }
                if (i <= j) {
                    swap(x, y, i++, j--);
                }
            }
            // recurse into the smaller part, loop on the larger: bounded stack
            if (j - lo < hi - i) {
                sort(x, y, lo, j);
                lo = i;
            } else {
                sort(x, y, i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            long kx = x[i];
            long ky = y[i];
            int j = i - 1;
            while (j >= lo && (x[j] > kx || (x[j] == kx && y[j] > ky))) {
                x[j + 1] = x[j];
                y[j + 1] = y[j];
                j--;
            }
            x[j + 1] = kx;
            y[j + 1] = ky;
        }
    }

    private static boolean less(long[] x, long[] y, int i, int j) {
        return x[i] < x[j] || (x[i] == x[j] && y[i] < y[j]);
    }

    private static void swap(long[] x, long[] y, int i, int j) {
        long t = x[i];
        x[i] = x[j];
        x[j] = t;
        t = y[i];
        y[i] = y[j];
        y[j] = t;
    }
}
