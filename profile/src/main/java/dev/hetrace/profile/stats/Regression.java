package dev.hetrace.profile.stats;

import org.hipparchus.stat.regression.SimpleRegression;

/**
 * The least-squares line of runtime (y) against one counter (x) over runs, as xTRACT's scatter
 * plots show it: slope, intercept, Pearson's r and R² (= r² for one predictor). Runs where either
 * value is NaN are left out; with fewer than two runs, or a counter that does not vary, the
 * numbers are NaN (no line can be drawn).
 *
 * @param x         the counter's name
 * @param y         what it explains (usually {@code runtime})
 * @param n         runs used
 * @param slope     change of y per unit of x
 * @param intercept y at x = 0
 * @param r         Pearson's correlation coefficient, in [−1, 1]
 * @param r2        coefficient of determination
 */
public record Regression(String x, String y, int n, double slope, double intercept, double r, double r2) {

    public static Regression of(String xName, double[] x, String yName, double[] y) {
        if (x.length != y.length) {
            throw new IllegalArgumentException("x and y have different lengths: " + x.length + ", " + y.length);
        }
        SimpleRegression reg = new SimpleRegression();
        int n = 0;
        for (int i = 0; i < x.length; i++) {
            if (!Double.isNaN(x[i]) && !Double.isNaN(y[i])) {
                reg.addData(x[i], y[i]);
                n++;
            }
        }
        if (n < 2) {
            return new Regression(xName, yName, n, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        double slope = reg.getSlope();
        if (Double.isNaN(slope) || Double.isInfinite(slope) || reg.getXSumSquares() == 0) {
            return new Regression(xName, yName, n, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        double r = reg.getR();
        // y constant: the line is flat and explains nothing; Hipparchus gives NaN, say 0
        if (Double.isNaN(r)) {
            r = 0;
        }
        return new Regression(xName, yName, n, slope, reg.getIntercept(), r, r * r);
    }

    /** Whether a line could be fitted. */
    public boolean defined() {
        return !Double.isNaN(slope);
    }
}
