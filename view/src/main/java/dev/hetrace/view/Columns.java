package dev.hetrace.view;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One row's aggregated activity per pixel column, as a view request draws it when its
 * intervals are too many to tell apart: the busy time, the labels that took most of it, and
 * the intervals that start in the column. Reused from row to row.
 */
final class Columns {
    int width;
    double[] busy = new double[0];
    int[] count = new int[0];
    int[] top = new int[0];
    float[] topTime = new float[0];

    void reset(int w) {
        width = w;
        if (busy.length < w) {
            busy = new double[w];
            count = new int[w];
            top = new int[w * RowSummary.TOP];
            topTime = new float[w * RowSummary.TOP];
        }
        Arrays.fill(busy, 0, w, 0);
        Arrays.fill(count, 0, w, 0);
        Arrays.fill(top, 0, w * RowSummary.TOP, -1);
        Arrays.fill(topTime, 0, w * RowSummary.TOP, 0);
    }

    /**
     * Spreads what happened in [s, e) (busy time, starts, top labels at {@code labels[at..]}) over
     * the columns it covers, each getting its share of the overlap; the starts go to the first.
     */
    void spread(
            long s,
            long e,
            long from,
            double nsPerPx,
            double busyTime,
            int starts,
            MemorySegment labels,
            MemorySegment times,
            long at) {
        double x0 = (s - from) / nsPerPx;
        double x1 = (e - from) / nsPerPx;
        int first = (int) Math.max(0, Math.floor(x0));
        int last = (int) Math.min(width - 1, Math.ceil(x1) - 1);
        if (first > last) {
            return;
        }
        count[first] += starts;
        double len = x1 - x0;
        for (int x = first; x <= last; x++) {
            double f = len <= 0 ? 1 : (Math.min(x1, x + 1) - Math.max(x0, x)) / len;
            if (f <= 0) {
                continue;
            }
            busy[x] += busyTime * f;
            for (long j = at; j < at + RowSummary.TOP; j++) {
                int label = labels.getAtIndex(Timeline.INT, j);
                if (label < 0) {
                    break;
                }
                RowSummary.addTop(top, topTime, x * RowSummary.TOP, label, times.getAtIndex(Timeline.FLOAT, j) * f);
            }
        }
    }

    /** Adds one interval [s, e) with its label: busy over its columns, one start in its first. */
    void add(long s, long e, int label, boolean isBusy, long from, double nsPerPx) {
        double x0 = (s - from) / nsPerPx;
        double x1 = (e - from) / nsPerPx;
        int first = (int) Math.max(0, Math.floor(x0));
        int last = (int) Math.min(width - 1, Math.max(Math.floor(x0), Math.ceil(x1) - 1));
        if (first > last) {
            return;
        }
        if (x0 >= 0) {
            count[first]++;
        }
        if (!isBusy) {
            return;
        }
        for (int x = first; x <= last; x++) {
            double t = (Math.min(x1, x + 1) - Math.max(x0, x)) * nsPerPx;
            if (t > 0) {
                busy[x] += t;
                RowSummary.addTop(top, topTime, x * RowSummary.TOP, label, t);
            }
        }
    }
}
