package dev.hetrace.sync;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * A continuous, increasing map from a trace's time to the reference clock: one linear
 * transform, or the polyline through (knots[i], values[i]) extended beyond its ends by its
 * first and last pieces. Every trace's map to the reference is one of these.
 */
public final class PiecewiseMap {
    private final ClockTransform linear;
    private final long[] knots;
    private final long[] values;
    private final ClockTransform[] pieces;

    private PiecewiseMap(ClockTransform linear, long[] knots, long[] values) {
        this(linear, knots, values, null);
    }

    /**
     * The polyline through the knots, piece {@code j} (between knots j and j+1) given exactly
     * when {@code exact[j]} is not null (its values at the knots are then {@code values}, up to
     * rounding), else the segment between the knots.
     */
    PiecewiseMap(long[] knots, long[] values, ClockTransform[] exact) {
        this(null, knots.clone(), values.clone(), exact.clone());
    }

    private PiecewiseMap(ClockTransform linear, long[] knots, long[] values, ClockTransform[] exact) {
        this.linear = linear;
        this.knots = knots;
        this.values = values;
        if (linear != null) {
            pieces = new ClockTransform[] {linear};
            return;
        }
        if (knots.length < 2 || knots.length != values.length) {
            throw new IllegalArgumentException("a piecewise map needs two knots at least, with one value each");
        }
        pieces = new ClockTransform[knots.length - 1];
        for (int j = 0; j + 1 < knots.length; j++) {
            long dk = knots[j + 1] - knots[j];
            long dv = values[j + 1] - values[j];
            if (dk <= 0 || dv <= 0) {
                throw new IllegalArgumentException("a piecewise map must increase: (" + knots[j] + " → " + values[j]
                        + ") then (" + knots[j + 1] + " → " + values[j + 1] + ")");
            }
            pieces[j] = exact != null && exact[j] != null
                    ? exact[j]
                    : new ClockTransform(knots[j], values[j], (double) (dv - dk) / dk);
        }
    }

    /** One linear piece. */
    public static PiecewiseMap of(ClockTransform t) {
        return new PiecewiseMap(t, new long[0], new long[0]);
    }

    /** The polyline through (knots[i], values[i]), both increasing. */
    public PiecewiseMap(long[] knots, long[] values) {
        this(null, knots.clone(), values.clone());
    }

    public long apply(long t) {
        if (linear != null) {
            return linear.apply(t);
        }
        int i = Arrays.binarySearch(knots, t);
        int piece = i >= 0 ? Math.min(i, pieces.length - 1) : Math.max(0, Math.min(-i - 2, pieces.length - 1));
        return pieces[piece].apply(t);
    }

    /**
     * The map for times read in (mostly) increasing order, as a trace's events are: it remembers
     * the piece of the last time and steps from there instead of searching the knots. Gives what
     * {@link #apply} gives. Not for use by several threads.
     */
    public Walker walker() {
        return new Walker();
    }

    /** See {@link #walker()}. */
    public final class Walker {
        private int piece;

        private Walker() {}

        public long apply(long t) {
            if (linear != null) {
                return linear.apply(t);
            }
            int last = pieces.length - 1;
            while (piece < last && t >= knots[piece + 1]) {
                piece++;
            }
            while (piece > 0 && t < knots[piece]) {
                piece--;
            }
            return pieces[piece].apply(t);
        }
    }

    /** Whether it is one linear transform. */
    public boolean linear() {
        return linear != null;
    }

    /** The linear transform, or the line through the first and last knots. */
    public ClockTransform overall() {
        if (linear != null) {
            return linear;
        }
        int n = knots.length - 1;
        return new ClockTransform(
                knots[0],
                values[0],
                (double) ((values[n] - values[0]) - (knots[n] - knots[0])) / (knots[n] - knots[0]));
    }

    /** The knots (empty for a linear map). */
    public long[] knots() {
        return knots.clone();
    }

    /** The values at the knots. */
    public long[] values() {
        return values.clone();
    }

    /** The map back, from the reference clock to the trace's. */
    public PiecewiseMap inverse() {
        if (linear != null) {
            return of(linear.inverse());
        }
        ClockTransform[] back = new ClockTransform[pieces.length];
        for (int j = 0; j < pieces.length; j++) {
            back[j] = pieces[j].inverse();
        }
        return new PiecewiseMap(null, values.clone(), knots.clone(), back);
    }

    /** This map followed by {@code outer}. */
    public PiecewiseMap then(PiecewiseMap outer) {
        if (linear != null && outer.linear != null) {
            return of(linear.then(outer.linear));
        }
        TreeSet<Long> at = new TreeSet<>();
        for (long k : knots) {
            at.add(k);
        }
        PiecewiseMap back = inverse();
        for (long k : outer.knots) {
            at.add(back.apply(k));
        }
        long[] k = at.stream().mapToLong(Long::longValue).toArray();
        long[] v = new long[k.length];
        for (int i = 0; i < k.length; i++) {
            v[i] = outer.apply(apply(k[i]));
        }
        if (k.length < 2) {
            return of(overall().then(outer.overall()));
        }
        return new PiecewiseMap(null, k, v);
    }
}
