package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.api.PacketInfo;
import java.util.function.Consumer;

/**
 * Where the integers that sample a clock lie in the packet or event a {@link StreamDecoder}
 * stands on, with the full clock values they stand for: what a tool that rewrites times in
 * place (a synchronized copy of a trace) needs. The decoder's tape holds values, not
 * positions, so the positions are found by walking the scope again over the tape, with the
 * same alignment rules; the decode path itself pays nothing for this.
 */
public final class ClockFields {
    private ClockFields() {}

    /**
     * One integer field mapped to a clock ({@code map = clock.NAME.value}, or a timestamp field
     * that babeltrace2 maps to the only clock).
     *
     * @param bitOffset where the field starts, in bits from the start of its file
     * @param size      its size in bits; one of fewer than 64 bits sets only the low bits of the clock
     * @param bigEndian its byte order
     * @param signed    whether it is signed
     * @param clock     index of its clock in {@link TracePlan#clocks}
     * @param raw       the value as stored (sign-extended when the field is signed)
     * @param cycles    the full clock value it stands for: the stream's clock once the field is
     *                  decoded when it {@code setsClock}, else the raw value, as the decoder takes it
     * @param setsClock whether decoding it moves the stream's clock (a packet's timestamp_end and
     *                  signed fields do not)
     * @param role      the field's role ({@link Node#ROLE_TIMESTAMP_BEGIN}, {@link Node#ROLE_TIMESTAMP_END},
     *                  {@link Node#ROLE_NONE}...)
     */
    public record ClockField(
            long bitOffset,
            int size,
            boolean bigEndian,
            boolean signed,
            int clock,
            long raw,
            long cycles,
            boolean setsClock,
            int role) {}

    /** The clock fields of the packet header and context of the packet {@code d} stands on, in order. */
    public static void ofPacket(StreamDecoder d, Consumer<ClockField> out) {
        PacketInfo p = d.packet();
        if (p == null) {
            throw new IllegalStateException("the decoder stands on no packet");
        }
        Walk w = new Walk(d.packetTape(), p.offsetBits(), p.offsetBits(), d.clockBeforePacket(), out);
        TracePlan.StreamPlan sp = d.streamPlan();
        if (d.plan().packetHeader != null) {
            w.node(d.plan().packetHeader);
        }
        if (sp.packetContext != null) {
            w.node(sp.packetContext);
        }
    }

    /** The clock fields of the event {@code d} has just decoded (header, contexts, payload), in order. */
    public static void ofEvent(StreamDecoder d, Consumer<ClockField> out) {
        TracePlan.StreamPlan sp = d.streamPlan();
        TracePlan.EventPlan ep = d.event();
        Walk w = new Walk(d.tape(), d.eventBitOffset(), d.packet().offsetBits(), d.clockBeforeEvent(), out);
        for (Node scope : new Node[] {sp.eventHeader, sp.eventContext, ep.context, ep.payload}) {
            if (scope != null) {
                w.node(scope);
            }
        }
    }

    /** The clock after a field of {@code size} bits holding {@code v}: the CTF rule for partial timestamps. */
    public static long updated(long clock, long v, int size) {
        if (size == 64) {
            return v;
        }
        long mask = (1L << size) - 1;
        long value = v & mask;
        long c = clock;
        if (Long.compareUnsigned(value, c & mask) < 0) {
            c += 1L << size;
        }
        return (c & ~mask) | value;
    }

    /** Follows {@link StreamDecoder#decodeNode}'s layout over a decoded tape, keeping bit positions. */
    private static final class Walk {
        private final long[] tape;
        private final Consumer<ClockField> out;
        private int at;
        private long pos;
        private final long packetStart;
        private long clock;

        Walk(long[] tape, long pos, long packetStart, long clock, Consumer<ClockField> out) {
            this.tape = tape;
            this.pos = pos;
            this.packetStart = packetStart;
            this.clock = clock;
            this.out = out;
        }

        private void align(int alignment) {
            if (alignment > 1) {
                pos += (packetStart - pos) & (alignment - 1); // from the packet's start, as the decoder aligns
            }
        }

        void node(Node n) {
            switch (n.kind) {
                case Node.INT -> {
                    align(n.align);
                    long v = tape[at++];
                    if (n.clock >= 0) {
                        boolean sets = !n.signed && n.role != Node.ROLE_TIMESTAMP_END;
                        if (sets) {
                            clock = updated(clock, v, n.size);
                        }
                        out.accept(new ClockField(
                                pos, n.size, n.bigEndian, n.signed, n.clock, v, sets ? clock : v, sets, n.role));
                    }
                    pos += n.size;
                }
                case Node.BIG_INT, Node.FLOAT, Node.BOOL -> {
                    align(n.align);
                    at++;
                    pos += n.size;
                }
                case Node.VARINT -> {
                    align(8);
                    pos += tape[at + 1];
                    at += 2;
                }
                case Node.STRING -> {
                    long startByte = tape[at];
                    long length = tape[at + 1];
                    at += 2;
                    pos = (startByte + length + n.charset.unitBytes()) << 3;
                }
                case Node.STRUCT -> {
                    align(n.align);
                    for (Node c : n.children) {
                        node(c);
                    }
                }
                case Node.VARIANT -> {
                    int option = (int) tape[at++];
                    node(n.children[n.entryOf(option)]);
                }
                case Node.OPTIONAL -> {
                    if (tape[at++] != 0) {
                        node(n.element());
                    }
                }
                case Node.ARRAY, Node.RUN -> {
                    align(n.align);
                    for (long k = 0; k < n.length; k++) {
                        node(n.element());
                    }
                }
                case Node.SEQUENCE -> {
                    align(n.align);
                    long count = tape[at++];
                    for (long k = 0; k < count; k++) {
                        node(n.element());
                    }
                }
                case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> {
                    // Packed elements never sample a clock (see TracePlan's packable).
                    pos = tape[at] + tape[at + 1] * n.size;
                    at += 2;
                }
                case Node.CHAIN -> chain(n);
                default -> throw new IllegalStateException("unknown node kind " + n.kind);
            }
        }

        /** As {@link StreamDecoder}'s decodeChain lays nested structs of one shape out. */
        private void chain(Node n) {
            Node level = n.element();
            Node[] members = level.children;
            int h = n.chainHole;
            align(n.align);
            for (int i = 0; i < h; i++) {
                node(members[i]);
            }
            for (long k = n.length - 1; k >= 1; k--) {
                align(level.align);
                for (int i = 0; i < h; i++) {
                    node(members[i]);
                }
            }
            node(members[h]);
            for (long k = 1; k <= n.length; k++) {
                for (int i = h + 1; i < members.length; i++) {
                    node(members[i]);
                }
            }
        }
    }
}
