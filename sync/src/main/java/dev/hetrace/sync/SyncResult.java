package dev.hetrace.sync;

import java.util.List;
import java.util.Optional;

/**
 * What the matches between a trace and the reference say about their clocks.
 *
 * @param quality      how well the clocks are related
 * @param transform    the chosen map to the reference clock (identity when {@link SyncQuality#ABSENT})
 * @param minSlope     the line of smallest slope that keeps every message causal, if bounded
 * @param maxSlope     the line of largest slope that keeps every message causal, if bounded
 * @param toOther      matched messages from the reference to this trace
 * @param toReference  matched messages from this trace to the reference
 * @param accuracyNanos the largest distance, over the time span, between the chosen transform and
 *                     any transform that keeps every message causal (the true one among them);
 *                     empty when that is unbounded
 * @param conflict     for {@link SyncQuality#FAIL}: messages that no line keeps causal together
 */
public record SyncResult(
        SyncQuality quality,
        ClockTransform transform,
        Optional<ClockTransform> minSlope,
        Optional<ClockTransform> maxSlope,
        long toOther,
        long toReference,
        Optional<Long> accuracyNanos,
        List<Message> conflict) {
    public SyncResult {
        conflict = List.copyOf(conflict);
    }

    /**
     * A message between the two traces, as the convex hull kept it.
     *
     * @param toOther     whether it went from the reference to the other trace
     * @param sendNanos   its send time, on the sender's clock
     * @param receiveNanos its receive time, on the receiver's clock
     */
    public record Message(boolean toOther, long sendNanos, long receiveNanos) {}
}
