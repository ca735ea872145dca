package dev.hetrace.sync.out;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.sync.ClockTransform;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The clock block that makes readers compute a linear transform of a clock's times by
 * themselves: readers compute {@code ns = offset_s × 10^9 + (offset + cycles) × 10^9 / freq},
 * so the transform's slope goes into the frequency and its offset into {@code offset_s} and
 * {@code offset}. CTF frequencies are integers, so the slope is approximated; the fit is exact
 * at the middle of the trace and {@link #maxErrorNanos} says how far it strays at its ends.
 *
 * @param clock          the clock's name
 * @param frequency      the new {@code freq}
 * @param offsetSeconds  the new {@code offset_s}
 * @param offsetCycles   the new {@code offset}, with {@code 0 <= offsetCycles < frequency}
 * @param maxErrorNanos  the largest distance, over the time span, between the time the new block
 *                       gives a clock value and the transform of the time the old block gives it
 *                       (exact arithmetic: readers' truncation to the nanosecond comes on top, as
 *                       for any time)
 */
public record ClockFit(String clock, long frequency, long offsetSeconds, long offsetCycles, BigDecimal maxErrorNanos) {
    private static final MathContext MC = new MathContext(60);
    private static final BigDecimal NS_PER_S = BigDecimal.valueOf(1_000_000_000L);

    /**
     * The block for {@code clock} under {@code transform}, for a trace whose times (ns, on the
     * trace's clock) span {@code [firstNanos, lastNanos]}.
     */
    public static ClockFit of(ClockClass clock, ClockTransform transform, long firstNanos, long lastNanos) {
        BigDecimal slope = transform.slope();
        BigDecimal offset = BigDecimal.valueOf(transform.pivotRef())
                .subtract(slope.multiply(BigDecimal.valueOf(transform.pivot()), MC), MC);
        BigDecimal f = BigDecimal.valueOf(clock.frequency());
        BigDecimal q = NS_PER_S.divide(f, MC);
        BigDecimal base = BigDecimal.valueOf(clock.offsetSeconds())
                .multiply(NS_PER_S)
                .add(BigDecimal.valueOf(clock.offsetCycles()).multiply(q, MC), MC);

        long newFreq = f.divide(slope, MC).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        if (newFreq < 1) {
            throw new ArithmeticException("clock " + clock.name() + ": a frequency of " + clock.frequency()
                    + " Hz divided by the slope " + slope + " is below 1 Hz");
        }
        BigDecimal newQ = NS_PER_S.divide(BigDecimal.valueOf(newFreq), MC);
        // Exact at the middle: the new base puts the middle's cycle count at the transformed time.
        BigDecimal mid = BigDecimal.valueOf(firstNanos)
                .add(BigDecimal.valueOf(lastNanos))
                .divide(BigDecimal.valueOf(2), MC);
        BigDecimal midCycles = mid.subtract(base, MC).divide(q, MC);
        BigDecimal wantedBase = slope.multiply(mid, MC).add(offset, MC).subtract(midCycles.multiply(newQ, MC), MC);
        BigDecimal seconds = wantedBase.divide(NS_PER_S, MC).setScale(0, RoundingMode.FLOOR);
        BigDecimal rest = wantedBase.subtract(seconds.multiply(NS_PER_S), MC);
        long cycles = rest.divide(newQ, MC).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        long s = seconds.longValueExact();
        if (cycles >= newFreq) {
            s++;
            cycles -= newFreq;
        }
        BigDecimal newBase = BigDecimal.valueOf(s)
                .multiply(NS_PER_S)
                .add(BigDecimal.valueOf(cycles).multiply(newQ, MC), MC);
        // The error is linear in time: its largest size over the span is at one end.
        BigDecimal atMid = newBase.subtract(wantedBase, MC);
        BigDecimal rate = newQ.divide(q, MC).subtract(slope, MC);
        BigDecimal atFirst = atMid.add(
                        BigDecimal.valueOf(firstNanos).subtract(mid).multiply(rate, MC), MC)
                .abs();
        BigDecimal atLast = atMid.add(
                        BigDecimal.valueOf(lastNanos).subtract(mid).multiply(rate, MC), MC)
                .abs();
        return new ClockFit(
                clock.name(), newFreq, s, cycles, atFirst.max(atLast).round(new MathContext(6)));
    }

    /** {@link #maxErrorNanos} rounded up to a whole nanosecond. */
    public long maxErrorWholeNanos() {
        return maxErrorNanos.setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** The attributes of the clock block that change, as TSDL text, in the order they are written. */
    public Map<String, String> attributes() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("freq", Long.toString(frequency));
        a.put("offset_s", Long.toString(offsetSeconds));
        a.put("offset", Long.toString(offsetCycles));
        return a;
    }

    /** The clock as readers will see it in the copy. */
    public ClockClass applyTo(ClockClass old) {
        return new ClockClass(
                old.name(),
                old.description(),
                old.uuid(),
                frequency,
                old.precision(),
                offsetSeconds,
                offsetCycles,
                old.absolute());
    }
}
