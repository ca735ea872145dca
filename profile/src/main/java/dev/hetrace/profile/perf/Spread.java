package dev.hetrace.profile.perf;

import java.util.Arrays;
import java.util.Collection;

/**
 * The centre and dispersion of repeated measurements: median, quartiles (linear interpolation
 * between order statistics, as R's type 7 and numpy's default), minimum and maximum.
 */
public record Spread(int n, double median, double q1, double q3, double min, double max) {

	public static Spread of(Collection<Double> values) {
		return of(values.stream().mapToDouble(Double::doubleValue).toArray());
	}

	/** NaN values are left out; with none left, every figure is NaN. */
	public static Spread of(double[] values) {
		double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
		if (v.length == 0) {
			return new Spread(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
		}
		return new Spread(v.length, quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75), v[0], v[v.length - 1]);
	}

	/** The interquartile range. */
	public double iqr() {
		return q3 - q1;
	}

	static double quantile(double[] sorted, double p) {
		double h = (sorted.length - 1) * p;
		int lo = (int) Math.floor(h);
		int hi = Math.min(lo + 1, sorted.length - 1);
		return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
	}
}
