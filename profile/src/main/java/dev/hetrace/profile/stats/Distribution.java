package dev.hetrace.profile.stats;

import java.util.Arrays;
import org.hipparchus.stat.descriptive.rank.Percentile;
import org.hipparchus.stat.descriptive.rank.Percentile.EstimationType;

/**
 * The distribution of one quantity over runs (runtimes, a counter's totals): xTRACT's histogram
 * with best, median and worst, and the numbers behind it. NaN values (a run that did not measure
 * the quantity) are left out.
 *
 * <p>Quantiles use the R-7 estimator (Hyndman and Fan's type 7, the default of R, NumPy and
 * spreadsheets): for p in [0, 1], h = (n − 1)·p, and the quantile is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1]
 * − x[⌊h⌋]) over the sorted values, 0-based. So the median of an even count is the mean of the
 * two middle values, and quantile 0 and 1 are the minimum and maximum. The standard deviation is
 * the sample one (n − 1 in the denominator), 0 for a single value.
 *
 * @param n         values counted
 * @param min       the smallest value: the best run when lower is better (runtimes)
 * @param max       the largest: the worst run
 * @param mean      arithmetic mean
 * @param sd        sample standard deviation
 * @param q1        first quartile
 * @param median    median
 * @param q3        third quartile
 * @param p5        5th percentile
 * @param p95       95th percentile
 * @param histogram counts in equal-width bins from min to max
 */
public record Distribution(
        int n,
        double min,
        double max,
        double mean,
        double sd,
        double q1,
        double median,
        double q3,
        double p5,
        double p95,
        Histogram histogram) {

    /** The distribution of nothing: n = 0 and every number NaN. */
    public static final Distribution EMPTY = new Distribution(
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            Histogram.EMPTY);

    public static Distribution of(double[] values) {
        double[] x =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        int n = x.length;
        if (n == 0) {
            return EMPTY;
        }
        double sum = 0;
        for (double v : x) {
            sum += v;
        }
        double mean = sum / n;
        double ss = 0;
        for (double v : x) {
            ss += (v - mean) * (v - mean);
        }
        double sd = n > 1 ? Math.sqrt(ss / (n - 1)) : 0;
        return new Distribution(
                n,
                x[0],
                x[n - 1],
                mean,
                sd,
                quantileSorted(x, 0.25),
                quantileSorted(x, 0.5),
                quantileSorted(x, 0.75),
                quantileSorted(x, 0.05),
                quantileSorted(x, 0.95),
                Histogram.of(x));
    }

    /** The interquartile range, q3 − q1. */
    public double iqr() {
        return q3 - q1;
    }

    /** The p-quantile (p in [0, 1]) of {@code values} (NaN left out) by R-7; NaN when there are none. */
    public static double quantile(double[] values, double p) {
        if (p < 0 || p > 1 || Double.isNaN(p)) {
            throw new IllegalArgumentException("a quantile is between 0 and 1, not " + p);
        }
        double[] x = Arrays.stream(values).filter(v -> !Double.isNaN(v)).toArray();
        if (x.length == 0) {
            return Double.NaN;
        }
        if (p == 0) {
            return Arrays.stream(x).min().getAsDouble();
        }
        // Hipparchus' R_7 is the estimator documented above
        return new Percentile(p * 100).withEstimationType(EstimationType.R_7).evaluate(x);
    }

    static double quantileSorted(double[] sorted, double p) {
        if (p == 0) {
            return sorted[0];
        }
        return new Percentile(p * 100).withEstimationType(EstimationType.R_7).evaluate(sorted);
    }
}
