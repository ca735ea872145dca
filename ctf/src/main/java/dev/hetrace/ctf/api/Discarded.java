package dev.hetrace.ctf.api;

/**
 * Items a tracer lost in one stream, as the packet contexts tell it: the {@code events_discarded}
 * counter went up between two packets, or {@code packet_seq_num} skipped numbers. The rules are
 * babeltrace2 2.0.4's:
 * <ul>
 *   <li>discarded events: the counter grew since the previous packet; the items were lost
 *       between the end of the previous packet and the end of this one. When the first packet
 *       of a stream already counts discarded events, how many were lost before it is unknown
 *       and the range is that packet's own;</li>
 *   <li>discarded packets: the sequence number jumped by more than one; the packets were lost
 *       between the end of the previous packet and the beginning of this one.</li>
 * </ul>
 *
 * @param count      how many, or {@link #UNKNOWN_COUNT} ("the tracer may have discarded events"); a
 *                   counter that went back (LTTng-UST closes the packets of a buffer several
 *                   threads write to out of order) gives a negative count, which babeltrace2
 *                   prints as an unsigned number, and which sums with the others to the
 *                   counter's last value minus its first: the stream's true loss
 * @param beginNanos start of the time range in nanoseconds from the epoch, or
 *                   {@link PacketInfo#ABSENT} when the packets have no timestamp_begin and
 *                   timestamp_end (the range is unknown)
 * @param endNanos   end of the time range, or {@link PacketInfo#ABSENT}
 */
public record Discarded(Kind kind, long count, long beginNanos, long endNanos) {
    /** No count: not a difference of counters, which may be any other value, −1 included. */
    public static final long UNKNOWN_COUNT = Long.MIN_VALUE;

    public enum Kind {
        EVENTS("event"),
        PACKETS("packet");

        /** The word babeltrace2 uses in its warning. */
        public final String noun;

        Kind(String noun) {
            this.noun = noun;
        }
    }

    public boolean hasTimeRange() {
        return beginNanos != PacketInfo.ABSENT && endNanos != PacketInfo.ABSENT;
    }

    public boolean countKnown() {
        return count != UNKNOWN_COUNT;
    }

    /**
     * The same loss seen from a seek to {@code beginNanos} inside its range: how many items were
     * lost after that time is unknown, so the count is dropped (as babeltrace2's seek does).
     */
    public Discarded startingAt(long beginNanos) {
        return new Discarded(kind, UNKNOWN_COUNT, beginNanos, endNanos);
    }

    /** The same loss cut at {@code endNanos}, the end of a trimmed time range: the count becomes unknown. */
    public Discarded endingAt(long endNanos) {
        return new Discarded(kind, UNKNOWN_COUNT, beginNanos, endNanos);
    }
}
