package dev.hetrace.analysis;

import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;

/**
 * The rows of an {@link IntervalTable} grouped by owner and sorted by start, so that the
 * intervals of one core or task near a time are found by binary search rather than by a scan of
 * the whole table.
 */
final class RowIndex {
    private static final int[] NONE = new int[0];

    private final IntervalTable table;
    private final int[][] rows;

    RowIndex(IntervalTable table, int owners) {
        this(table, owners, false);
    }

    /** With {@code bySubject}, the rows are grouped by subject instead (a task's runs, on whatever core). */
    RowIndex(IntervalTable table, int owners, boolean bySubject) {
        this.table = table;
        rows = group(owners, table.size(), bySubject ? table::subject : table::owner);
        for (int[] r : rows) {
            sortByStart(r);
        }
    }

    /**
     * Sorts an owner's rows by start, outer ones (lesser depth) first at equal starts: their
     * starts and depths are read once into arrays, then a merge sort of positions compares those
     * (a table's rows are read through its storage, too slow to read at every comparison of a
     * million rows). A task's calls come closed, inner ones first: nearly sorted runs.
     */
    private void sortByStart(int[] r) {
        boolean sorted = true;
        for (int k = 1; k < r.length && sorted; k++) {
            sorted = start(r[k - 1], r[k]);
        }
        if (sorted) {
            return;
        }
        int n = r.length;
        long[] starts = new long[n];
        int[] depths = new int[n];
        for (int k = 0; k < n; k++) {
            starts[k] = table.start(r[k]);
            depths[k] = table.depth(r[k]);
        }
        int[] a = new int[n];
        int[] b = new int[n];
        for (int k = 0; k < n; k++) {
            a[k] = k;
        }
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    // stable: the left one first at equal keys
                    if (i < mid
                            && (j >= hi
                                    || starts[a[i]] < starts[a[j]]
                                    || starts[a[i]] == starts[a[j]] && depths[a[i]] <= depths[a[j]])) {
                        b[k] = a[i++];
                    } else {
                        b[k] = a[j++];
                    }
                }
            }
            int[] swap = a;
            a = b;
            b = swap;
        }
        int[] rows = r.clone();
        for (int k = 0; k < n; k++) {
            r[k] = rows[a[k]];
        }
    }

    private boolean start(int a, int b) {
        return table.start(a) < table.start(b)
                || (table.start(a) == table.start(b) && table.depth(a) <= table.depth(b));
    }

    IntervalTable table() {
        return table;
    }

    /** The rows of {@code owner}, by start (outer calls before inner ones at equal starts). */
    int[] rows(int owner) {
        return owner < rows.length ? rows[owner] : NONE;
    }

    /** The position in {@link #rows(int)} of the first row of {@code owner} that starts after {@code time}. */
    int after(int owner, long time) {
        return firstAfter(rows(owner), table::start, time);
    }

    /** The position in {@code items}, sorted by {@code key}, of the first whose key is after {@code time} (the length if none). */
    static int firstAfter(int[] items, IntToLongFunction key, long time) {
        int lo = 0;
        int hi = items.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (key.applyAsLong(items[mid]) <= time) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Items {@code 0..count-1} grouped by owner ({@code ownerOf}: −1 for none), each group in
     * the items' order.
     */
    static int[][] group(int owners, int count, IntUnaryOperator ownerOf) {
        int[] counts = new int[owners];
        for (int i = 0; i < count; i++) {
            int o = ownerOf.applyAsInt(i);
            if (o >= 0) {
                counts[o]++;
            }
        }
        int[][] out = new int[owners][];
        for (int o = 0; o < owners; o++) {
            out[o] = counts[o] == 0 ? NONE : new int[counts[o]];
        }
        int[] fill = new int[owners];
        for (int i = 0; i < count; i++) {
            int o = ownerOf.applyAsInt(i);
            if (o >= 0) {
                out[o][fill[o]++] = i;
            }
        }
        return out;
    }

    /** A row, clipped to the range asked for. */
    interface Visitor {
        void visit(int row, long from, long to);
    }

    /** Visits the rows of {@code owner} that overlap {@code [from, to)}, clipped to it (for owners whose rows do not overlap). */
    void overlapping(int owner, long from, long to, Visitor v) {
        int[] r = rows(owner);
        int k = Math.max(0, after(owner, from) - 1);
        for (; k < r.length && table.start(r[k]) < to; k++) {
            int row = r[k];
            long s = Math.max(from, table.start(row));
            long e = Math.min(to, table.end(row));
            if (e > s) {
                v.visit(row, s, e);
            }
        }
    }
}
