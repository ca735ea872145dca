package dev.hetrace.sim;

/**
 * The true behaviour of one core's clock: how many cycles it has counted at each instant of
 * the board's true time. It counts at its nominal frequency off by a drift (in ppm), from an
 * origin; its drift may change once (a crystal that warms up, a rate that follows frequency
 * scaling), and it may be a 32-bit counter that wraps, which the tracer extends to 64 bits.
 *
 * @param frequencyHz   the nominal frequency, which the trace's metadata declares
 * @param offsetSeconds the metadata's clock offset (the epoch for the master, 0 for a counter since boot)
 * @param originCycles  the count at true time 0
 * @param driftPpm      how much faster than nominal it counts, in parts per million
 * @param jumpAtNanos   true time at which the drift becomes {@code jumpDriftPpm} ({@link Long#MAX_VALUE}: never)
 * @param wraps32       whether the hardware counter has 32 bits (the trace then holds the extended count)
 * @param jitterCycles  a read takes up to this many cycles more than the count (uniform)
 */
public record ClockModel(
        long frequencyHz,
        long offsetSeconds,
        long originCycles,
        double driftPpm,
        long jumpAtNanos,
        double jumpDriftPpm,
        boolean wraps32,
        int jitterCycles) {
    public static final long NEVER = Long.MAX_VALUE;

    public ClockModel {
        if (frequencyHz <= 0) {
            throw new IllegalArgumentException("frequency must be positive: " + frequencyHz);
        }
        if (wraps32 && (originCycles < 0 || originCycles > 0xffff_ffffL)) {
            throw new IllegalArgumentException("a 32-bit counter starts below 2^32: " + originCycles);
        }
    }

    public boolean jumps() {
        return jumpAtNanos != NEVER;
    }

    /** The count (fractional) at true time {@code t} ns. */
    public double cycles(double t) {
        double rate = frequencyHz / 1e9;
        if (t <= jumpAtNanos) {
            return originCycles + t * rate * (1 + driftPpm * 1e-6);
        }
        return originCycles
                + jumpAtNanos * rate * (1 + driftPpm * 1e-6)
                + (t - jumpAtNanos) * rate * (1 + jumpDriftPpm * 1e-6);
    }

    /** The true time at which the count reaches {@code c} (the inverse of {@link #cycles}). */
    public double trueNanos(double c) {
        double rate = frequencyHz / 1e9;
        double atJump = jumps() ? cycles(jumpAtNanos) : Double.POSITIVE_INFINITY;
        if (c <= atJump) {
            return (c - originCycles) / (rate * (1 + driftPpm * 1e-6));
        }
        return jumpAtNanos + (c - atJump) / (rate * (1 + jumpDriftPpm * 1e-6));
    }

    /**
     * What a reader reports, in ns, for an instant that this clock timestamped at true time
     * {@code t} (without jitter, and with every wrap of a 32-bit counter seen by the tracer).
     */
    public long traceNanos(double t) {
        // the offset apart: a double cannot hold 10^18 ns to the nanosecond
        return offsetSeconds * 1_000_000_000L + Math.round(Math.floor(cycles(t)) * 1e9 / frequencyHz);
    }

    /**
     * The ns since the clock's origin that Zephyr's {@code k_cyc_to_ns_floor64} gives for the
     * count at true time {@code t}: {@code floor(floor(cycles) × 10^9 / f)}, what a reader reports
     * for a Zephyr core's event once it has extended the 32-bit timestamps past each wrap.
     */
    public long floorNanos(double t) {
        long c = (long) Math.floor(cycles(t));
        return Math.multiplyHigh(c, 1_000_000_000L) == 0 && c >= 0
                ? c * 1_000_000_000L / frequencyHz
                : (long) Math.floor(c * 1e9 / frequencyHz);
    }

    /** The ns since the clock's offset (without it) that the count at true time {@code t} stands for, unrounded. */
    public double localNanos(double t) {
        return cycles(t) * 1e9 / frequencyHz;
    }

    /** The true time of an instant that a reader reports as {@code reported} ns for this clock. */
    public double trueNanosOfTrace(long reported) {
        return trueNanos((reported - offsetSeconds * 1_000_000_000L) * (frequencyHz / 1e9));
    }

    /**
     * Extends a 32-bit counter reading to 64 bits given the last extended value, as the
     * generated tracer's {@code PREFIX_extend_counter32} does: correct as long as less than
     * one wrap separates two readings.
     */
    public static long extend32(long last, long counter) {
        long value = (last & ~0xffff_ffffL) | (counter & 0xffff_ffffL);
        if (Long.compareUnsigned(value, last) < 0) {
            value += 1L << 32;
        }
        return value;
    }
}
