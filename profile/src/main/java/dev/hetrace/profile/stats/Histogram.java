package dev.hetrace.profile.stats;

import java.util.Arrays;

/**
 * Counts of values in equal-width bins from the smallest value to the largest (the largest
 * counted in the last bin), lowest values first: the best run on the left, the worst on the right.
 *
 * <p>The bin width is Freedman and Diaconis' 2·IQR·n^(−1/3), robust to the outliers interference
 * produces; when the IQR is 0 (most values equal) the number of bins is Sturges' ⌈log2 n⌉ + 1.
 * The count is kept between 1 and {@link #MAX_BINS}; all values equal make one bin.
 *
 * @param from   the lower edge of the first bin (the minimum)
 * @param to     the upper edge of the last bin (the maximum)
 * @param counts values in each bin
 */
public record Histogram(double from, double to, int[] counts) {

    public static final int MAX_BINS = 40;
    static final Histogram EMPTY = new Histogram(Double.NaN, Double.NaN, new int[0]);

    /** The histogram of {@code sorted} (ascending, no NaN). */
    static Histogram of(double[] sorted) {
        int n = sorted.length;
        if (n == 0) {
            return EMPTY;
        }
        double min = sorted[0];
        double max = sorted[n - 1];
        if (max == min) {
            return new Histogram(min, max, new int[] {n});
        }
        Histogram h = new Histogram(min, max, new int[bins(sorted)]);
        for (double v : sorted) {
            h.counts[h.binOf(v)]++;
        }
        return h;
    }

    /** The number of bins for {@code sorted}, as documented above. */
    static int bins(double[] sorted) {
        int n = sorted.length;
        double range = sorted[n - 1] - sorted[0];
        double iqr = Distribution.quantileSorted(sorted, 0.75) - Distribution.quantileSorted(sorted, 0.25);
        long k = iqr > 0
                ? (long) Math.ceil(range / (2 * iqr / Math.cbrt(n)))
                : (long) Math.ceil(Math.log(n) / Math.log(2)) + 1;
        return (int) Math.max(1, Math.min(MAX_BINS, k));
    }

    /** The width of each bin (0 when every value is equal). */
    public double width() {
        return counts.length == 0 ? Double.NaN : (to - from) / counts.length;
    }

    /** The bin {@code value} falls in (the last for the maximum), or -1 outside. */
    public int binOf(double value) {
        if (counts.length == 0 || !(value >= from && value <= to)) {
            return -1;
        }
        return to == from ? 0 : Math.min(counts.length - 1, (int) ((value - from) / (to - from) * counts.length));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Histogram h
                && Double.compare(from, h.from) == 0
                && Double.compare(to, h.to) == 0
                && Arrays.equals(counts, h.counts);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(from, to, Arrays.hashCode(counts));
    }

    @Override
    public String toString() {
        return "Histogram[from=" + from + ", to=" + to + ", counts=" + Arrays.toString(counts) + "]";
    }
}
