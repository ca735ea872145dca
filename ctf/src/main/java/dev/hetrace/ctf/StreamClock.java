package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.ClockClass;

/**
 * The times of one stream's events, in nanoseconds from the epoch: its default clock's cycles
 * converted by {@link ClockClass#time}, with the clock's origin kept rather than computed for
 * every event. A clock whose offset, or a value whose time, is out of the range of 64-bit
 * nanoseconds is told to the trace's warnings (the value once per stream; the trace tells each
 * once). One per stream and reader; not thread-safe.
 */
final class StreamClock {
    private final CtfTrace trace;
    /** The stream class of the last event converted, and what follows from it. */
    private StreamPlan plan;

    private ClockClass clock;
    private int clockIndex = -1;
    private long origin;
    private boolean valueTold;

    StreamClock(CtfTrace trace) {
        this.trace = trace;
    }

    /**
     * The time of {@code d}'s event: {@link Long#MIN_VALUE} when its stream has no clock,
     * {@link Long#MAX_VALUE} when it is past 64-bit nanoseconds (saturated, see
     * {@link ClockClass}: such events are ordered by their clock values, {@link #clock()}).
     */
    long time(StreamDecoder d) {
        if (d.streamPlan() != plan) {
            changeClass(d);
        }
        if (clock == null) {
            return Long.MIN_VALUE;
        }
        long t = clock.time(d.clockValue(), origin);
        if (t == Long.MAX_VALUE && !valueTold) {
            valueTold = true;
            trace.clockValueOutOfRange(clockIndex, d.clockValue());
        }
        return t;
    }

    private void changeClass(StreamDecoder d) {
        plan = d.streamPlan();
        clockIndex = plan.defaultClock;
        ClockClass cc = clockIndex < 0 ? null : d.plan().clocks.get(clockIndex);
        if (cc != clock && cc != null) {
            origin = cc.originNanos();
            if (cc.baseOffsetNanos() == Long.MIN_VALUE) {
                trace.clockOffsetOutOfRange(clockIndex);
            }
        }
        clock = cc;
    }

    /** The clock of the last event converted; null when its stream has none. */
    ClockClass clock() {
        return clock;
    }
}
