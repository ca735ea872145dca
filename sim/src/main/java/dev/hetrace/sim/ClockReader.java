package dev.hetrace.sim;

import java.util.SplittableRandom;

/**
 * A tracer's reading of its core's clock: the count at the instant, plus jitter, never going
 * backwards, and extended to 64 bits as the generated tracer does when the counter has 32.
 */
final class ClockReader {
    private final ClockModel clock;
    private final SplittableRandom random;
    private long last = Long.MIN_VALUE;
    private long extended;

    ClockReader(ClockModel clock, SplittableRandom random) {
        this.clock = clock;
        this.random = random;
    }

    /** The timestamp (cycles) of an event at true time {@code t}. */
    long read(long t) {
        long count = (long) Math.floor(clock.cycles(t));
        if (clock.jitterCycles() > 0) {
            count += random.nextInt(clock.jitterCycles() + 1);
        }
        if (clock.wraps32()) {
            long counter = count & 0xffff_ffffL;
            long value = ClockModel.extend32(extended, counter);
            // a jittered read may be a little behind the previous one: the hardware would not go back
            if (last != Long.MIN_VALUE && Long.compareUnsigned(value, last) < 0) {
                value = last;
            }
            extended = value;
            count = value;
        } else if (count < last) {
            count = last;
        }
        last = count;
        return count;
    }
}
