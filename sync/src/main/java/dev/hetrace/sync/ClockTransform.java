package dev.hetrace.sync;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * A linear map from a trace's time to the reference clock's, {@code t_ref = slope × t + offset}
 * with times in nanoseconds as the reader reports them. It is kept around a pivot instant
 * ({@code t_ref = pivotRef + (t − pivot) × slope}) and with {@code slope − 1} rather than the
 * slope, because times are near 10^18 ns: a double holds neither such an offset nor the product
 * of such a time by a slope to the nanosecond, while the distance to a pivot and a slope's
 * difference from 1 it holds exactly enough.
 *
 * @param pivot         an instant on the trace's clock (ns)
 * @param pivotRef      the same instant on the reference clock (ns)
 * @param slopeMinusOne the slope minus one (a drift of 20 ppm is 2e-5)
 */
public record ClockTransform(long pivot, long pivotRef, double slopeMinusOne) {
    /** The transform of the reference trace itself. */
    public static final ClockTransform IDENTITY = new ClockTransform(0, 0, 0);

    public ClockTransform {
        if (!Double.isFinite(slopeMinusOne) || slopeMinusOne <= -1) {
            throw new IllegalArgumentException(
                    "a clock transform's slope must be positive and finite, not 1 + " + slopeMinusOne);
        }
    }

    /** {@code t} on the reference clock, rounded to the nanosecond. */
    public long apply(long t) {
        long d = t - pivot;
        return pivotRef + d + Math.round(d * slopeMinusOne);
    }

    /** The slope, exactly as held. */
    public BigDecimal slope() {
        return BigDecimal.ONE.add(new BigDecimal(slopeMinusOne));
    }

    /** The offset (ns): {@code t_ref} at {@code t = 0}, exactly as held, to 30 significant digits. */
    public BigDecimal offsetNanos() {
        return BigDecimal.valueOf(pivotRef)
                .subtract(slope().multiply(BigDecimal.valueOf(pivot)))
                .round(new MathContext(30));
    }

    /** This transform followed by {@code outer}: {@code outer(this(t))}. */
    public ClockTransform then(ClockTransform outer) {
        // (1 + a)(1 + b) − 1 = a + b + ab
        double s = slopeMinusOne + outer.slopeMinusOne + slopeMinusOne * outer.slopeMinusOne;
        return new ClockTransform(pivot, outer.apply(pivotRef), s);
    }

    /** The map back: from the reference clock to this trace's. */
    public ClockTransform inverse() {
        // 1 / (1 + s) − 1 = −s / (1 + s)
        return new ClockTransform(pivotRef, pivot, -slopeMinusOne / (1 + slopeMinusOne));
    }

    /** The same map around another pivot (a better-conditioned one, e.g. the middle of a trace). */
    public ClockTransform pivotedAt(long t) {
        return new ClockTransform(t, apply(t), slopeMinusOne);
    }
}
