package dev.hetrace.sim;

import java.util.Locale;

/**
 * What to simulate on the i.MX8-like board: four Cortex-A cores running Linux and one to four
 * Cortex-M cores running Zephyr, started by Linux's remoteproc and talking to it through RPMsg.
 *
 * @param seed          the one source of randomness
 * @param mCores        Cortex-M cores, 1 to 4
 * @param durationNanos simulated time, from Linux's start
 */
public record Imx8Config(long seed, int mCores, long durationNanos) {
    public static final int MAX_M_CORES = 4;

    /** The default run: long enough for each Cortex-M core's 32-bit nanosecond timestamps to wrap once. */
    public static final long DEFAULT_DURATION_NANOS = 5_000_000_000L;

    /**
     * At most this long: a Cortex-M core's 32-bit cycle counter at 400 MHz wraps after 10.7 s,
     * from which on Zephyr's timestamps (the counter's nanoseconds, truncated to 32 bits) jump back.
     */
    public static final long MAX_DURATION_NANOS = 10_000_000_000L;

    /** Cortex-M cores start no earlier than this: the run must leave them time to talk. */
    static final long MIN_DURATION_NANOS = 1_500_000_000L;

    public Imx8Config {
        if (mCores < 1 || mCores > MAX_M_CORES) {
            throw new IllegalArgumentException(
                    "--m-cores " + mCores + ": the imx8 board has 1 to " + MAX_M_CORES + " Cortex-M cores");
        }
        if (durationNanos < MIN_DURATION_NANOS || durationNanos > MAX_DURATION_NANOS) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "--duration %.3fs: the imx8 board runs %.1f s to %.0f s (a Cortex-M core's 32-bit cycle"
                            + " counter at 400 MHz wraps after 10.7 s, which Zephyr's timestamps do not survive)",
                    durationNanos / 1e9,
                    MIN_DURATION_NANOS / 1e9,
                    MAX_DURATION_NANOS / 1e9));
        }
    }

    /** The default board: one Cortex-M core, {@link #DEFAULT_DURATION_NANOS}. */
    public static Imx8Config of(long seed) {
        return new Imx8Config(seed, 1, DEFAULT_DURATION_NANOS);
    }

    public Imx8Config withMCores(int n) {
        return new Imx8Config(seed, n, durationNanos);
    }

    public Imx8Config withDuration(long nanos) {
        return new Imx8Config(seed, mCores, nanos);
    }
}
