package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.metadata.ClockClass;
import java.util.ArrayDeque;

/**
 * What the previous packet of a stream said (events_discarded, packet_seq_num,
 * timestamp_end), to find the events and packets lost between it and the next, and the
 * losses found and not taken yet. Used once per packet, never per event.
 */
final class PacketLosses {
    private boolean havePrevious;
    private long previousDiscarded = PacketInfo.ABSENT;
    private long previousSeqNum = PacketInfo.ABSENT;
    private long previousEnd = PacketInfo.ABSENT;
    /** Losses found at packet boundaries and not yet taken (rare: allocating them is fine). */
    private final ArrayDeque<Discarded> found = new ArrayDeque<>();

    /** Whether a packet was read before, and the timestamp_end it gave ({@link PacketInfo#ABSENT} if none). */
    boolean havePrevious() {
        return havePrevious;
    }

    long previousEnd() {
        return previousEnd;
    }

    /**
     * Compares the packet's events_discarded and packet_seq_num with the previous packet's, as
     * babeltrace2 does, and queues what was lost (see {@link Discarded}).
     *
     * @param clock the stream's default clock, or null when it has none
     */
    void note(PacketInfo p, ClockClass clock) {
        boolean timed = p.has(p.timestampBegin()) && p.has(p.timestampEnd()) && clock != null;
        if (p.has(p.eventsDiscarded())) {
            long now = p.eventsDiscarded();
            if (!havePrevious || previousDiscarded == PacketInfo.ABSENT) {
                if (now != 0) {
                    // Lost before or within the stream's first packet: how many is unknown.
                    found.add(new Discarded(
                            Discarded.Kind.EVENTS,
                            Discarded.UNKNOWN_COUNT,
                            timed ? clock.time(p.timestampBegin()) : PacketInfo.ABSENT,
                            timed ? clock.time(p.timestampEnd()) : PacketInfo.ABSENT));
                }
            } else if (now != previousDiscarded) {
                boolean range = timed && previousEnd != PacketInfo.ABSENT;
                found.add(new Discarded(
                        Discarded.Kind.EVENTS,
                        now - previousDiscarded,
                        range ? clock.time(previousEnd) : PacketInfo.ABSENT,
                        range ? clock.time(p.timestampEnd()) : PacketInfo.ABSENT));
            }
        }
        // A number that repeats (seen in LTTng traces) is no loss to babeltrace2 2.0.4; one
        // that goes back is, of a huge count.
        if (p.has(p.sequenceNumber())
                && havePrevious
                && previousSeqNum != PacketInfo.ABSENT
                && p.sequenceNumber() != previousSeqNum + 1
                && p.sequenceNumber() != previousSeqNum) {
            boolean range = timed && previousEnd != PacketInfo.ABSENT;
            found.add(new Discarded(
                    Discarded.Kind.PACKETS,
                    p.sequenceNumber() - previousSeqNum - 1,
                    range ? clock.time(previousEnd) : PacketInfo.ABSENT,
                    range ? clock.time(p.timestampBegin()) : PacketInfo.ABSENT));
        }
        havePrevious = true;
        previousDiscarded = p.eventsDiscarded();
        previousSeqNum = p.sequenceNumber();
        previousEnd = p.timestampEnd();
    }

    /** The oldest loss found and not taken yet, or null. */
    Discarded poll() {
        return found.poll();
    }

    boolean isEmpty() {
        return found.isEmpty();
    }

    /** Forgets the losses found and not taken. */
    void clear() {
        found.clear();
    }

    /** Restarts from what a previous packet said (see {@link StreamDecoder#lossState}). */
    void restore(boolean hasPrevious, long eventsDiscarded, long seqNum, long endCycles) {
        havePrevious = hasPrevious;
        previousDiscarded = eventsDiscarded;
        previousSeqNum = seqNum;
        previousEnd = endCycles;
    }

    /** See {@link StreamDecoder#lossState}. */
    void state(long[] out) {
        out[0] = havePrevious ? 1 : 0;
        out[1] = previousDiscarded;
        out[2] = previousSeqNum;
        out[3] = previousEnd;
    }
}
