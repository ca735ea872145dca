package dev.hetrace.profile.stats;

import java.util.Arrays;
import java.util.List;

/**
 * Tukey's box plot of some values (xTRACT's box plots of durations across iterations): the
 * quartiles (R-7, as {@link Distribution}), whiskers at the most extreme values within 1.5·IQR of
 * the box, and every value beyond them as an outlier. NaN values are left out.
 *
 * @param n           values counted
 * @param lowWhisker  the smallest value ≥ q1 − 1.5·IQR (q1 when that value is above q1)
 * @param q1          first quartile
 * @param median      median
 * @param q3          third quartile
 * @param highWhisker the largest value ≤ q3 + 1.5·IQR (q3 when that value is below q3)
 * @param outliers    the values outside the whiskers, ascending
 */
public record BoxPlot(
        int n, double lowWhisker, double q1, double median, double q3, double highWhisker, List<Double> outliers) {

    public BoxPlot {
        outliers = List.copyOf(outliers);
    }

    public static BoxPlot of(double[] values) {
        double[] x =
                Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (x.length == 0) {
            return new BoxPlot(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, List.of());
        }
        double q1 = Distribution.quantileSorted(x, 0.25);
        double med = Distribution.quantileSorted(x, 0.5);
        double q3 = Distribution.quantileSorted(x, 0.75);
        double lo = q1 - 1.5 * (q3 - q1);
        double hi = q3 + 1.5 * (q3 - q1);
        // with interpolated quartiles the nearest value within a fence may lie inside the box: the whisker then ends at
        // the box (as matplotlib's)
        double lw = Math.min(q1, Arrays.stream(x).filter(v -> v >= lo).min().orElse(q1));
        double hw = Math.max(q3, Arrays.stream(x).filter(v -> v <= hi).max().orElse(q3));
        List<Double> out =
                Arrays.stream(x).filter(v -> v < lo || v > hi).boxed().toList();
        return new BoxPlot(x.length, lw, q1, med, q3, hw, out);
    }
}
