package dev.hetrace.profile.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Distributions, quantiles, histograms, box plots and regressions against values computed by hand or by plain reference code. */
class DistributionTest {

    @Test
    void summarizesASmallSampleAsComputedByHand() {
        Distribution d = Distribution.of(new double[] {3, 1, 4, 1, 5, 9, 2, 6, Double.NaN});
        assertThat(d.n()).isEqualTo(8);
        assertThat(d.min()).isEqualTo(1);
        assertThat(d.max()).isEqualTo(9);
        assertThat(d.mean()).isEqualTo(3.875);
        // sorted 1 1 2 3 4 5 6 9: median (3+4)/2; q1 at h = 7/4: 1 + 0.75·(2−1); q3 at h = 21/4: 5 + 0.25·(6−5)
        assertThat(d.median()).isEqualTo(3.5);
        assertThat(d.q1()).isEqualTo(1.75);
        assertThat(d.q3()).isEqualTo(5.25);
        assertThat(d.iqr()).isEqualTo(3.5);
        // Σ(x−mean)² = 52.875, over n − 1 = 7
        assertThat(d.sd()).isCloseTo(Math.sqrt(52.875 / 7), within(1e-12));
        assertThat(Arrays.stream(d.histogram().counts()).sum()).isEqualTo(8);
        assertThat(d.histogram().binOf(1)).isZero();
        assertThat(d.histogram().binOf(9)).isEqualTo(d.histogram().counts().length - 1);
    }

    @Test
    void aSingleValueHasNoSpreadAndOneBin() {
        Distribution d = Distribution.of(new double[] {2.5});
        assertThat(d.sd()).isZero();
        assertThat(d.median()).isEqualTo(2.5);
        assertThat(d.histogram().counts()).containsExactly(1);
        assertThat(Distribution.of(new double[] {Double.NaN}).n()).isZero();
    }

    @Test
    void boxPlotPutsFarValuesOutsideTheWhiskers() {
        BoxPlot b = BoxPlot.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 100});
        // q1 at h = 2: 3; q3 at h = 6: 7; fences 3 − 6 and 7 + 6
        assertThat(b.q1()).isEqualTo(3);
        assertThat(b.median()).isEqualTo(5);
        assertThat(b.q3()).isEqualTo(7);
        assertThat(b.lowWhisker()).isEqualTo(1);
        assertThat(b.highWhisker()).isEqualTo(8);
        assertThat(b.outliers()).containsExactly(100.0);
    }

    @Test
    void regressionMatchesTheTextbookExample() {
        Regression r = Regression.of("x", new double[] {1, 2, 3, 4, 5}, "y", new double[] {2, 4, 5, 4, 5});
        // Sxy = 6, Sxx = 10, Syy = 6
        assertThat(r.slope()).isCloseTo(0.6, within(1e-12));
        assertThat(r.intercept()).isCloseTo(2.2, within(1e-12));
        assertThat(r.r()).isCloseTo(6 / Math.sqrt(60), within(1e-12));
        assertThat(r.r2()).isCloseTo(0.6, within(1e-12));
    }

    @Test
    void aCounterThatDoesNotVaryExplainsNothing() {
        assertThat(Regression.of("x", new double[] {3, 3, 3}, "y", new double[] {1, 2, 3})
                        .defined())
                .isFalse();
        assertThat(Regression.of("x", new double[] {1}, "y", new double[] {1}).defined())
                .isFalse();
    }

    /** R-7 written out plainly. */
    static double referenceQuantile(double[] values, double p) {
        double[] x = values.clone();
        Arrays.sort(x);
        double h = (x.length - 1) * p;
        int lo = (int) Math.floor(h);
        int hi = Math.min(x.length - 1, lo + 1);
        return x[lo] + (h - lo) * (x[hi] - x[lo]);
    }

    @Property(tries = 300)
    void quantilesAreR7(
            @ForAll @Size(min = 1, max = 60) List<@DoubleRange(min = -1e6, max = 1e6) Double> values,
            @ForAll @DoubleRange(min = 0, max = 1) double p) {
        double[] x = values.stream().mapToDouble(Double::doubleValue).toArray();
        double want = referenceQuantile(x, p);
        assertThat(Distribution.quantile(x, p)).isCloseTo(want, within(1e-9 * (1 + Math.abs(want))));
        Distribution d = Distribution.of(x);
        assertThat(d.median()).isCloseTo(referenceQuantile(x, 0.5), within(1e-9 * (1 + Math.abs(d.median()))));
        assertThat(Arrays.stream(d.histogram().counts()).sum()).isEqualTo(x.length);
        assertThat(d.histogram().counts().length).isBetween(1, Histogram.MAX_BINS);
        for (double v : x) {
            assertThat(d.histogram().binOf(v)).isBetween(0, d.histogram().counts().length - 1);
        }
    }

    @Property(tries = 300)
    void regressionMatchesPlainFormulas(
            @ForAll @Size(min = 3, max = 40) List<@DoubleRange(min = -1000, max = 1000) Double> xs,
            @ForAll @DoubleRange(min = -5, max = 5) double a,
            @ForAll @DoubleRange(min = -100, max = 100) double b) {
        double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = a * x[i] + b + Math.sin(i * 7.3) * 50;
        }
        double mx = Arrays.stream(x).average().orElseThrow();
        double my = Arrays.stream(y).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        double syy = 0;
        for (int i = 0; i < x.length; i++) {
            sxy += (x[i] - mx) * (y[i] - my);
            sxx += (x[i] - mx) * (x[i] - mx);
            syy += (y[i] - my) * (y[i] - my);
        }
        Regression r = Regression.of("x", x, "y", y);
        if (sxx < 1e-6) {
            return;
        }
        assertThat(r.slope()).isCloseTo(sxy / sxx, within(1e-6 * (1 + Math.abs(sxy / sxx))));
        assertThat(r.intercept()).isCloseTo(my - sxy / sxx * mx, within(1e-6 * (1 + Math.abs(my))));
        assertThat(r.r()).isCloseTo(sxy / Math.sqrt(sxx * syy), within(1e-6));
        assertThat(r.r2()).isCloseTo(r.r() * r.r(), within(1e-12));
    }

    @Property(tries = 200)
    void boxPlotOutliersAreExactlyTheValuesBeyondTheFences(
            @ForAll @Size(min = 1, max = 50) List<@DoubleRange(min = 0, max = 100) Double> values) {
        double[] x = values.stream().mapToDouble(Double::doubleValue).toArray();
        BoxPlot b = BoxPlot.of(x);
        double q1 = referenceQuantile(x, 0.25);
        double q3 = referenceQuantile(x, 0.75);
        long beyond = Arrays.stream(x)
                .filter(v -> v < q1 - 1.5 * (q3 - q1) || v > q3 + 1.5 * (q3 - q1))
                .count();
        assertThat(b.outliers()).hasSize((int) beyond);
        assertThat(b.lowWhisker()).isLessThanOrEqualTo(b.q1());
        assertThat(b.highWhisker()).isGreaterThanOrEqualTo(b.q3());
    }
}
