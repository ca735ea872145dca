package dev.hetrace.sync;

import java.util.List;

/**
 * A continuous, increasing map from a trace's time to the reference clock made of linear
 * pieces: piece {@code j} maps {@code [starts[j], starts[j+1])}; the first and last pieces
 * extend beyond the span.
 */
public record PiecewiseMap(long[] starts, List<ClockTransform> pieces) {
    public PiecewiseMap {
        starts = starts.clone();
        pieces = List.copyOf(pieces);
        if (starts.length != pieces.size() || starts.length == 0) {
            throw new IllegalArgumentException("a piecewise map needs one start per piece");
        }
    }

    /** One piece. */
    public static PiecewiseMap of(ClockTransform t) {
        return new PiecewiseMap(new long[] {Long.MIN_VALUE}, List.of(t));
    }

    /** The map through the points (knots[i], values[i]), knots increasing. */
    public PiecewiseMap(long[] knots, long[] values) {
        this(java.util.Arrays.copyOf(knots, knots.length - 1), pieces(knots, values));
    }

    private static List<ClockTransform> pieces(long[] knots, long[] values) {
        if (knots.length < 2 || knots.length != values.length) {
            throw new IllegalArgumentException("a piecewise map needs two knots at least, with one value each");
        }
        ClockTransform[] out = new ClockTransform[knots.length - 1];
        for (int j = 0; j + 1 < knots.length; j++) {
            long dk = knots[j + 1] - knots[j];
            long dv = values[j + 1] - values[j];
            if (dk <= 0 || dv <= 0) {
                throw new IllegalArgumentException("a piecewise map must increase: knot " + j + " (" + knots[j] + " → "
                    + values[j] + ") to (" + knots[j + 1] + " → " + values[j + 1] + ")");
            }
            out[j] = new ClockTransform(knots[j], values[j], (double) (dv - dk) / dk);
        }
        return List.of(out);
    }

    public long apply(long t) {
        int lo = 0;
        int hi = starts.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= t) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return pieces.get(lo).apply(t);
    }

    /** Whether it is one linear piece. */
    public boolean linear() {
        return pieces.size() == 1;
    }
}
