package dev.hetrace.ctf;

import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecoder.StreamFile;
import dev.hetrace.ctf.decode.TracePlan;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;

/**
 * A stream file that is the dump of a ring of fixed-size packets, as a target's RAM buffer is
 * after it wrapped (Zephyr's circular CTF capture, {@code tsdl/metadata_circular}): its slots
 * hold packets in the order the ring reached them, not in time order, some never written
 * (empty packets) and one perhaps torn (the dump read it while the target was writing it). It
 * is read as the packets that hold events, in the order they were written ({@code
 * packet_seq_num}, then {@code timestamp_begin}); a torn packet is left out with a warning.
 *
 * <p>A file is taken for a ring dump when its packets are all one size, carry
 * {@code packet_seq_num}, and either their numbers go back in the file's order or its first
 * packet is torn; a file whose packets are in order is read as any other (damage after its
 * first packet is an error, as in any stream), and so is one where several packets share their
 * numbers: the runs of a producer that restarted, written one after the other.
 */
final class RingDump {
    private RingDump() {}

    /** Larger files are read as they are: a ring dump is a RAM buffer, and the check walks every packet. */
    static final long MAX_BYTES = 64L << 20;

    /** One slot of the ring that holds events: where, its number and its first time. */
    private record Slot(int index, long seq, long begin) {}

    /**
     * The packets of the file in the order they were written, as one run of bytes (empty when
     * no packet holds an event), or null when the file is not a ring dump.
     */
    static byte[] ordered(TracePlan plan, Path path, MemorySegment seg, Consumer<String> warnings) {
        long size = seg.byteSize();
        if (size > MAX_BYTES || plan.streamCount() != 1 || !numbersPackets(plan.onlyStream().packetContext)) {
            return null;
        }
        long slot = slotSize(plan, path, seg);
        if (slot <= 0 || size % slot != 0 || size / slot < 2) {
            return null;
        }
        int n = (int) (size / slot);
        List<Slot> kept = new ArrayList<>();
        List<String> torn = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            MemorySegment bytes = seg.asSlice(i * slot, slot);
            StreamDecoder d = new StreamDecoder(plan, List.of(new StreamFile(path, bytes)));
            String why;
            long seq = PacketInfo.ABSENT;
            long begin = 0;
            try {
                if (!d.nextPacket()) {
                    continue;
                }
                PacketInfo p = d.packet();
                seq = p.sequenceNumber();
                begin = p.has(p.timestampBegin()) ? p.timestampBegin() : 0;
                why = check(d, p, slot);
            } catch (StreamDecodingException e) {
                why = "at byte " + (e.bitOffset() >>> 3) + " of the packet: "
                        + (e.event() == null ? "" : e.event() + ", ")
                        + (e.field() == null ? "" : "field '" + e.field() + "': ")
                        + e.detail();
            }
            if (why == EMPTY) {
                continue; // never written, or opened and not written yet
            }
            if (why != null) {
                torn.add(tornWarning(path, i, slot, why));
            } else {
                kept.add(new Slot(i, seq, begin));
            }
        }
        kept.sort(Comparator.comparing(Slot::seq, Long::compareUnsigned)
                .thenComparing(Slot::begin, Long::compareUnsigned)
                .thenComparingInt(Slot::index));
        int repeated = 0;
        for (int i = 1; i < kept.size(); i++) {
            if (kept.get(i).seq() == kept.get(i - 1).seq()) {
                repeated++;
            }
        }
        if (repeated > 1) {
            // numbers that start again: the runs of a producer that restarted (a firmware restarted
            // by remoteproc), one after the other in the file, not a ring, which has one torn slot at most
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Slot previous = null;
        for (Slot s : kept) {
            if (previous != null && previous.seq() == s.seq()) {
                torn.add(tornWarning(
                        path,
                        s.index(),
                        slot,
                        "its packet_seq_num " + Long.toUnsignedString(s.seq()) + " is also slot " + previous.index()
                                + "'s"));
                continue;
            }
            out.write(seg.asSlice(s.index() * slot, slot).toArray(ValueLayout.JAVA_BYTE), 0, (int) slot);
            previous = s;
        }
        torn.sort(Comparator.naturalOrder());
        torn.forEach(warnings);
        return out.toByteArray();
    }

    /** Whether a packet context has a packet_seq_num (a packetless stream has no context). */
    private static boolean numbersPackets(Node n) {
        if (n == null) {
            return false;
        }
        if (n.role == Node.ROLE_PACKET_SEQ_NUM) {
            return true;
        }
        for (Node c : n.children) {
            if (numbersPackets(c)) {
                return true;
            }
        }
        return false;
    }

    private static String tornWarning(Path path, int index, long slot, String why) {
        return path + ": ring buffer dump: the packet in slot " + index + " (bytes " + index * slot + " to "
                + ((index + 1) * slot - 1) + ") is torn (" + why + "): its " + slot + " bytes are skipped";
    }

    /**
     * The size of the ring's slots, in bytes, when the file looks like a ring dump: its first
     * packet's size, when its packets are all that size, carry packet_seq_num and go back in
     * number somewhere, or when the first packet is torn (the oldest slot of a ring whose newest
     * packet is in its last slot); else −1.
     */
    private static long slotSize(TracePlan plan, Path path, MemorySegment seg) {
        StreamDecoder d = new StreamDecoder(plan, List.of(new StreamFile(path, seg)));
        long bits;
        try {
            if (!d.nextPacket()) {
                return -1;
            }
        } catch (StreamDecodingException e) {
            // the first slot is torn: its packet_size, if it was read, gives the others'
            bits = d.packetSizeField();
            return bits != PacketInfo.ABSENT && bits > 0 && (bits & 7) == 0 ? bits >>> 3 : -1;
        }
        PacketInfo first = d.packet();
        if (!first.has(first.sequenceNumber())) {
            return -1;
        }
        bits = first.packetBits();
        if (first.has(first.timestampBegin())
                && first.has(first.timestampEnd())
                && Long.compareUnsigned(first.timestampBegin(), first.timestampEnd()) > 0) {
            return bits >>> 3; // the first slot is torn
        }
        long previous = first.sequenceNumber();
        try {
            while (d.nextPacket()) {
                PacketInfo p = d.packet();
                if (p.packetBits() != bits) {
                    return -1;
                }
                if (Long.compareUnsigned(p.sequenceNumber(), previous) < 0) {
                    return bits >>> 3;
                }
                previous = p.sequenceNumber();
            }
        } catch (StreamDecodingException e) {
            return -1; // damage after packets in order: told when it is read
        }
        return -1; // in order: read as it is
    }

    /** What {@link #check} says of a packet without events. */
    private static final String EMPTY = "empty";

    /**
     * Why packet {@code p}, which {@code d} has just read the header of, is torn, {@link #EMPTY} when it has no events,
     * or null when it is whole:
     * a size other than the slots', a time range that ends before it begins, events out of
     * order or out of the range, or (thrown) events that do not decode up to its content size.
     */
    private static String check(StreamDecoder d, PacketInfo p, long slot) throws StreamDecodingException {
        if (p.packetBits() != slot * 8) {
            return "packet_size " + p.packetBits() + " bits, not the slots' " + slot * 8;
        }
        if (!p.has(p.sequenceNumber())) {
            return "no packet_seq_num";
        }
        boolean timed = d.streamPlan().defaultClock >= 0;
        long begin = p.has(p.timestampBegin()) ? p.timestampBegin() : 0;
        long end = p.has(p.timestampEnd()) ? p.timestampEnd() : -1;
        if (timed && Long.compareUnsigned(begin, end) > 0) {
            return "timestamp_begin " + Long.toUnsignedString(begin) + " is after timestamp_end "
                    + Long.toUnsignedString(end);
        }
        long previous = begin;
        int events = 0;
        while (d.next()) {
            long t = d.clockValue();
            if (timed && (Long.compareUnsigned(t, previous) < 0 || Long.compareUnsigned(t, end) > 0)) {
                return "its event " + events + " at byte " + ((d.eventBitOffset() - p.offsetBits()) >>> 3)
                        + " is timed "
                        + Long.toUnsignedString(t) + ", out of order or outside the packet's "
                        + Long.toUnsignedString(begin) + " to " + Long.toUnsignedString(end);
            }
            previous = t;
            events++;
        }
        return events == 0 ? EMPTY : null;
    }
}
