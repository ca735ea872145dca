package dev.hetrace.ctf.metadata;

import java.math.BigInteger;

/**
 * A clock described in the metadata. Converts cycles to nanoseconds from the POSIX epoch the
 * way babeltrace2 does, so that printed times agree to the nanosecond.
 *
 * <p>Times are 64-bit nanoseconds from the epoch, and a clock may not fit them: old CTF writers
 * wrote offsets past them, and a value may be past them too. babeltrace2 then refuses the whole
 * trace; hetrace reads it, giving each event a {@linkplain #time time} that keeps the events of
 * the clock in their order: when the offset does not fit, times count from the clock's own
 * origin (the offset is ignored, so the dates are wrong but the order and the intervals are
 * right); a value whose time is past the last one 64 bits hold gets that last one,
 * {@link Long#MAX_VALUE} (2262-04-11 23:47:16.854775807 UTC). Readers say so once per clock.
 *
 * @param offsetSeconds offset from the epoch in seconds, normalised with {@code offsetCycles}
 *                      so that {@code 0 <= offsetCycles < frequency}
 */
public record ClockClass(
        String name,
        String description,
        String uuid,
        long frequency,
        long precision,
        long offsetSeconds,
        long offsetCycles,
        boolean absolute) {

    private static final long NS_PER_S = 1_000_000_000L;

    /** Clock to which babeltrace2 maps {@code timestamp} fields of traces that declare none. */
    public static ClockClass defaultClock() {
        return new ClockClass("default", null, null, NS_PER_S, 0, 0, 0, false);
    }

    /** Nanoseconds from the epoch to cycle 0 of this clock, or {@link Long#MIN_VALUE} if it does not fit. */
    public long baseOffsetNanos() {
        if (offsetSeconds <= Long.MIN_VALUE / NS_PER_S - 1 || offsetSeconds >= Long.MAX_VALUE / NS_PER_S - 1) {
            return Long.MIN_VALUE;
        }
        return offsetSeconds * NS_PER_S + cyclesToNanos(offsetCycles);
    }

    /**
     * Nanoseconds from the epoch that hetrace gives the clock's value 0: {@link #baseOffsetNanos()},
     * or 0 when the offset does not fit (the clock's times then count from its own origin).
     */
    public long originNanos() {
        long base = baseOffsetNanos();
        return base == Long.MIN_VALUE ? 0 : base;
    }

    /**
     * The time of an (unsigned) clock value, in nanoseconds from the epoch, given
     * {@link #originNanos()}: exact when it is below {@link Long#MAX_VALUE}, else that value
     * (saturated). Unlike babeltrace2, a value past 2<sup>63</sup> ns on a clock whose origin
     * is before the epoch has its exact time when that time fits.
     */
    public long time(long cycles, long origin) {
        long ns = cyclesToNanos(cycles);
        // Unsigned: ns is up to 2^64 - 2 (-1 when larger), and so is the room above a negative origin.
        return Long.compareUnsigned(ns, Long.MAX_VALUE - 1 - origin) <= 0 ? origin + ns : Long.MAX_VALUE;
    }

    /** {@link #time(long, long)} for a caller that does not keep {@link #originNanos()}. */
    public long time(long cycles) {
        return time(cycles, originNanos());
    }

    /**
     * Compares the exact times of two clock values, with no upper bound (what orders values
     * whose {@linkplain #time times} are saturated): {@code originNanos + 10^9 value / frequency}.
     */
    public static int compareTimes(ClockClass a, long valueA, ClockClass b, long valueB) {
        if (a.equals(b)) {
            return Long.compareUnsigned(valueA, valueB);
        }
        return a.timeTimesFrequency(valueA)
                .multiply(unsigned(b.frequency))
                .compareTo(b.timeTimesFrequency(valueB).multiply(unsigned(a.frequency)));
    }

    private BigInteger timeTimesFrequency(long cycles) {
        return BigInteger.valueOf(originNanos())
                .multiply(unsigned(frequency))
                .add(unsigned(cycles).multiply(BigInteger.valueOf(NS_PER_S)));
    }

    private static BigInteger unsigned(long v) {
        BigInteger b = BigInteger.valueOf(v);
        return v >= 0 ? b : b.add(BigInteger.ONE.shiftLeft(64));
    }

    /** Cycles to nanoseconds, as an unsigned value ({@code -1} when it overflows). */
    public long cyclesToNanos(long cycles) {
        if (frequency == NS_PER_S) {
            return cycles;
        }
        double ns = 1e9 * unsignedToDouble(cycles) / unsignedToDouble(frequency);
        if (ns >= 18446744073709551615.0) {
            return -1L;
        }
        return doubleToUnsigned(ns);
    }

    /**
     * Nanoseconds from the epoch of an (unsigned) clock value.
     *
     * @throws ArithmeticException when the result does not fit in a signed 64-bit integer
     */
    public long nanosFromOrigin(long cycles) {
        return nanosFromOrigin(cycles, baseOffsetNanos());
    }

    /** {@link #nanosFromOrigin(long)} given {@link #baseOffsetNanos()}, for callers that keep it. */
    public long nanosFromOrigin(long cycles, long base) {
        if (base == Long.MIN_VALUE) {
            throw new ArithmeticException("clock " + name + ": offset does not fit in 64-bit nanoseconds");
        }
        long ns = cyclesToNanos(cycles);
        if (ns < 0 || ns == Long.MAX_VALUE) {
            throw new ArithmeticException("clock " + name + ": value " + Long.toUnsignedString(cycles)
                    + " does not fit in 64-bit nanoseconds");
        }
        return Math.addExact(base, ns);
    }

    /**
     * The time of the clock value babeltrace2 picks for a time it is given (a seek or trim
     * bound): the last tick at or before {@code ns} (bt_common_clock_value_from_ns_from_origin),
     * converted back to nanoseconds ({@link #time}). {@code ns} itself when the clock cannot hold that time.
     */
    public long snap(long ns) {
        try {
            long offset = baseOffsetNanos() == Long.MIN_VALUE
                    ? 0
                    : Math.addExact(
                            Math.multiplyExact(offsetSeconds, NS_PER_S),
                            frequency == NS_PER_S
                                    ? offsetCycles
                                    : Math.multiplyExact(offsetCycles, NS_PER_S) / frequency);
            if (ns < offset) {
                return ns;
            }
            long value = ns - offset;
            long periods = value / NS_PER_S;
            long rest = value - periods * NS_PER_S;
            long cycles = Math.addExact(
                    Math.multiplyExact(periods, frequency), Math.multiplyExact(frequency, rest) / NS_PER_S);
            long t = time(cycles);
            return t == Long.MAX_VALUE ? ns : t;
        } catch (ArithmeticException e) {
            return ns;
        }
    }

    static double unsignedToDouble(long v) {
        double d = (double) (v >>> 1) * 2.0 + (v & 1);
        return v >= 0 ? (double) v : d;
    }

    static long doubleToUnsigned(double d) {
        if (d < 9.223372036854775807E18) {
            return (long) d;
        }
        return (long) (d - 9.223372036854775807E18) + Long.MIN_VALUE;
    }
}
