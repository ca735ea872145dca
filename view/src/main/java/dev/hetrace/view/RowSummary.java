package dev.hetrace.view;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A row's activity at every scale: a pyramid of bins, level 0 the finest (a power of two ns,
 * about eight intervals per bin on average), each next level twice as wide. Per bin: the busy
 * time, the {@link #TOP} labels that took the most of it (with their time), and how many
 * intervals start in it. A view aggregates a row from the level whose bins are just narrower
 * than its pixels, so it reads about as many bins as it has pixel columns, whatever the size of
 * the trace. Built from intervals in any order (from the state model today, from an index
 * tomorrow); the top labels of coarse levels are merged from the finer ones, an approximation.
 */
public final class RowSummary {
    /** Labels kept per bin. */
    public static final int TOP = 4;

    final long origin;
    final int shift0;
    final int[] levelBase;
    final int[] levelBins;
    // per bin of every level: busy time, intervals starting, TOP labels and their times
    // (columns: heap arrays when built, a mapped file when kept)
    final MemorySegment busy;
    final MemorySegment count;
    final MemorySegment top;
    final MemorySegment topTime;

    RowSummary(
            long origin,
            int shift0,
            int[] levelBase,
            int[] levelBins,
            MemorySegment busy,
            MemorySegment count,
            MemorySegment top,
            MemorySegment topTime) {
        this.origin = origin;
        this.shift0 = shift0;
        this.levelBase = levelBase;
        this.levelBins = levelBins;
        this.busy = busy;
        this.count = count;
        this.top = top;
        this.topTime = topTime;
    }

    /** The width of level 0's bins, ns. */
    public long binNanos() {
        return 1L << shift0;
    }

    public int levels() {
        return levelBins.length;
    }

    /** The bins of all levels. */
    public int bins() {
        return (int) (busy.byteSize() / Float.BYTES);
    }

    /**
     * Adds this row's activity over [from, from + width × nsPerPx) to {@code c}, from the level
     * whose bins best fit the pixels; returns how many bins it read (about the columns' number).
     */
    int addTo(Columns c, long from, double nsPerPx) {
        int level = 0;
        while (level + 1 < levelBins.length && (double) (1L << (shift0 + level + 1)) <= nsPerPx) {
            level++;
        }
        int shift = shift0 + level;
        long w = 1L << shift;
        long to = from + (long) Math.ceil(c.width * nsPerPx);
        long firstBin = Math.max(0, (from - origin) >> shift);
        long lastBin = Math.min(levelBins[level] - 1L, (to - 1 - origin) >> shift);
        int base = levelBase[level];
        int read = 0;
        for (long b = firstBin; b <= lastBin; b++) {
            read++;
            int k = base + (int) b;
            float busyTime = busy.getAtIndex(Timeline.FLOAT, k);
            int starts = count.getAtIndex(Timeline.INT, k);
            if (busyTime == 0 && starts == 0) {
                continue;
            }
            long bs = origin + (b << shift);
            c.spread(bs, bs + w, from, nsPerPx, busyTime, starts, top, topTime, (long) k * TOP);
        }
        return read;
    }

    /** Collects intervals, then builds the pyramid. */
    public static final class Builder {
        private final long origin;
        private final long last;
        private final int shift0;
        private final int bins0;
        private final float[] busy;
        private final int[] count;
        private final int[] top;
        private final float[] topTime;

        /** For intervals within [begin, end], about {@code intervals} of them. */
        public Builder(long begin, long end, int intervals) {
            origin = begin;
            last = end;
            long span = Math.max(1, end - begin + 1);
            long target = Math.max(1, span * 8 / Math.max(1, intervals));
            int s = 0;
            while ((1L << s) < target) {
                s++;
            }
            // at most 2^22 bins at level 0, whatever the span
            while ((span >> s) >= (1 << 22)) {
                s++;
            }
            shift0 = s;
            bins0 = (int) ((span + (1L << s) - 1) >> s);
            busy = new float[bins0];
            count = new int[bins0];
            top = new int[bins0 * TOP];
            Arrays.fill(top, -1);
            topTime = new float[bins0 * TOP];
        }

        /** An interval [start, end) with its label; only busy intervals count as busy time. */
        public void add(long start, long end, int label, boolean isBusy) {
            long s = Math.max(start, origin);
            long e = Math.min(end, last + 1);
            if (e < s) {
                return;
            }
            int b0 = (int) ((s - origin) >> shift0);
            count[Math.min(b0, bins0 - 1)]++;
            if (e == s || !isBusy) {
                return;
            }
            int b1 = (int) ((e - 1 - origin) >> shift0);
            for (int b = b0; b <= b1; b++) {
                long bs = origin + ((long) b << shift0);
                long t = Math.min(e, bs + (1L << shift0)) - Math.max(s, bs);
                busy[b] += t;
                addTop(top, topTime, b * TOP, label, t);
            }
        }

        public RowSummary build() {
            int levels = 1;
            for (int n = bins0; n > 1; n = (n + 1) / 2) {
                levels++;
            }
            int[] base = new int[levels];
            int[] bins = new int[levels];
            int total = 0;
            int n = bins0;
            for (int l = 0; l < levels; l++) {
                base[l] = total;
                bins[l] = n;
                total += n;
                n = (n + 1) / 2;
            }
            float[] b = Arrays.copyOf(busy, total);
            int[] c = Arrays.copyOf(count, total);
            int[] t = Arrays.copyOf(top, total * TOP);
            Arrays.fill(t, bins0 * TOP, t.length, -1);
            float[] tt = Arrays.copyOf(topTime, total * TOP);
            for (int l = 1; l < levels; l++) {
                for (int k = 0; k < bins[l]; k++) {
                    int to = base[l] + k;
                    for (int child = 2 * k; child < Math.min(2 * k + 2, bins[l - 1]); child++) {
                        int from = base[l - 1] + child;
                        b[to] += b[from];
                        c[to] += c[from];
                        for (int j = 0; j < TOP; j++) {
                            if (t[from * TOP + j] >= 0) {
                                addTop(t, tt, to * TOP, t[from * TOP + j], tt[from * TOP + j]);
                            }
                        }
                    }
                }
            }
            return new RowSummary(
                    origin,
                    shift0,
                    base,
                    bins,
                    MemorySegment.ofArray(b),
                    MemorySegment.ofArray(c),
                    MemorySegment.ofArray(t),
                    MemorySegment.ofArray(tt));
        }
    }

    /**
     * Adds {@code time} to label {@code label} among the TOP slots at {@code at}: its own slot,
     * else a free one, else it takes the place of the smallest when it is larger.
     */
    static void addTop(int[] top, float[] time, int at, int label, double t) {
        int min = -1;
        for (int j = at; j < at + TOP; j++) {
            if (top[j] == label) {
                time[j] += (float) t;
                return;
            }
            if (top[j] < 0) {
                top[j] = label;
                time[j] = (float) t;
                return;
            }
            if (min < 0 || time[j] < time[min]) {
                min = j;
            }
        }
        if (t > time[min]) {
            top[min] = label;
            time[min] = (float) t;
        }
    }
}
