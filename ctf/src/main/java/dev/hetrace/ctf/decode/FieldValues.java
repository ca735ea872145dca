package dev.hetrace.ctf.decode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decoded fields as plain Java values, for code that wants a value tree rather than a cursor
 * (tests, small tools; not the hot path, which reads the tape). The same shapes are what
 * {@link dev.hetrace.ctf.write.CtfWriter} accepts:
 * <ul>
 *   <li>integers and enumerations: {@link Long} (the raw bits of an unsigned 64-bit value), or
 *       {@link BigInteger} beyond 64 bits</li>
 *   <li>floating point: {@link Double}</li>
 *   <li>strings, and arrays or sequences of bytes with an encoding: {@link String}</li>
 *   <li>structures: a {@link Map} from member name (as written in TSDL) to value, in order</li>
 *   <li>variants: a {@link Choice} naming the selected option</li>
 *   <li>arrays and sequences, and BLOBs (their bytes, unsigned): a {@link List}</li>
 *   <li>optionals: the value of their content, or null when it is not there</li>
 * </ul>
 */
public final class FieldValues {
    /** The selected option of a variant and its value. */
    public record Choice(String option, Object value) {}

    private final MemorySegment seg;
    private final long[] tape;
    private int at;

    private FieldValues(MemorySegment seg, long[] tape, int at) {
        this.seg = seg;
        this.tape = tape;
        this.at = at;
    }

    /** The value of the field of {@code n} whose tape starts at slot {@code at}. */
    public static Object read(Node n, long[] tape, int at, MemorySegment seg) {
        return new FieldValues(seg, tape, at).value(n);
    }

    /** The event's payload of the decoder's current event, or null when the event class has none. */
    public static Object payload(StreamDecoder d) {
        Node root = d.event().payload;
        return root == null ? null : read(root, d.tape(), d.payloadStart(), d.segment());
    }

    /** The current event's specific context, or null. */
    public static Object context(StreamDecoder d) {
        Node root = d.event().context;
        return root == null ? null : read(root, d.tape(), d.contextStart(), d.segment());
    }

    /** The current event's stream event context, or null. */
    public static Object streamContext(StreamDecoder d) {
        Node root = d.streamPlan().eventContext;
        return root == null ? null : read(root, d.tape(), d.streamContextStart(), d.segment());
    }

    /** The current packet's context, or null. */
    public static Object packetContext(StreamDecoder d) {
        Node root = d.streamPlan().packetContext;
        return root == null ? null : read(root, d.packetTape(), d.packetContextStart(), d.segment());
    }

    private Object value(Node n) {
        switch (n.kind) {
            case Node.INT, Node.FLOAT -> {
                long v = tape[at++];
                if (n.kind == Node.FLOAT) {
                    return n.size == 32 ? (double) Float.intBitsToFloat((int) v) : Double.longBitsToDouble(v);
                }
                return v;
            }
            case Node.BIG_INT -> {
                return BitReader.readBig(seg, tape[at++], n.size, n.bigEndian, n.signed);
            }
            case Node.BOOL -> {
                return tape[at++] != 0;
            }
            case Node.VARINT -> {
                long v = tape[at];
                at += 2;
                return v;
            }
            case Node.STRING -> {
                String s = n.charset.unitBytes() > 1
                        ? WideText.string(seg, tape[at], tape[at + 1], n.charset)
                        : text(tape[at], tape[at + 1]);
                at += 2;
                return s;
            }
            case Node.STRUCT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < n.children.length; i++) {
                    Node c = n.children[i];
                    if (c.kind == Node.RUN || c.kind == Node.PACKED_RUN) {
                        // A run of members stored as one node: its elements are the members.
                        List<?> members = (List<?>) value(c);
                        for (int k = 0; k < members.size(); k++) {
                            m.put(c.runMemberName(k), members.get(k));
                        }
                    } else {
                        m.put(n.rawNames[i], value(c));
                    }
                }
                return m;
            }
            case Node.VARIANT -> {
                int option = (int) tape[at++];
                return new Choice(n.rawOptionName(option), value(n.children[n.entryOf(option)]));
            }
            case Node.OPTIONAL -> {
                return tape[at++] != 0 ? value(n.element()) : null;
            }
            case Node.ARRAY, Node.SEQUENCE, Node.RUN -> {
                long count = n.kind == Node.SEQUENCE ? tape[at++] : n.length;
                List<Object> list = new ArrayList<>();
                for (long k = 0; k < count; k++) {
                    list.add(value(n.element()));
                }
                if (n.text && n.charset.unitBytes() > 1) {
                    byte[] b = new byte[list.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) (long) (Long) list.get(i);
                    }
                    MemorySegment bytes = MemorySegment.ofArray(b);
                    return WideText.string(bytes, 0, WideText.untilNul(bytes, 0, b.length, n.charset), n.charset);
                }
                if (n.text) {
                    byte[] b = new byte[list.size()];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) (long) (Long) list.get(i);
                    }
                    return cString(b);
                }
                return list;
            }
            case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> {
                long start = tape[at];
                long count = tape[at + 1];
                at += 2;
                Node e = n.element();
                if (n.text && n.charset.unitBytes() > 1) {
                    return WideText.string(
                            seg, start >>> 3, WideText.untilNul(seg, start >>> 3, count, n.charset), n.charset);
                }
                if (n.text) {
                    byte[] b = new byte[Math.toIntExact(count)];
                    MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, start >>> 3, b, 0, b.length);
                    return cString(b);
                }
                List<Object> list = new ArrayList<>();
                for (long k = 0; k < count; k++) {
                    long raw = BitReader.read(seg, start + k * e.size, e.size, e.bigEndian);
                    if (e.kind == Node.FLOAT) {
                        list.add(
                                e.size == 32 ? (double) Float.intBitsToFloat((int) raw) : Double.longBitsToDouble(raw));
                    } else {
                        list.add(e.signed ? BitReader.signExtend(raw, e.size) : raw);
                    }
                }
                return list;
            }
            case Node.CHAIN -> {
                int span = Tape.span(n, tape, at);
                long[] slots = Arrays.copyOfRange(tape, at, at + span);
                at += span;
                return new ChainLevel(n, seg, slots, n.length);
            }
            default -> throw new IllegalStateException("unknown node kind " + n.kind);
        }
    }

    /**
     * One level of nested structs of one shape (a CHAIN node), as a map made when first read:
     * the struct of the level below is another such map, so that a chain of millions of levels
     * costs what is read of it. It reads a copy of the chain's tape slots (and the trace's data
     * for strings and large integers, which must stay open).
     */
    private static final class ChainLevel extends AbstractMap<String, Object> {
        private final Node chain;
        private final MemorySegment seg;
        private final long[] slots;
        private final long level;
        private Map<String, Object> members;

        ChainLevel(Node chain, MemorySegment seg, long[] slots, long level) {
            this.chain = chain;
            this.seg = seg;
            this.slots = slots;
            this.level = level;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            if (members == null) {
                Node s = chain.element();
                int h = chain.chainHole;
                Map<String, Object> m = new LinkedHashMap<>();
                FieldValues before =
                        new FieldValues(seg, slots, (int) ((chain.length - level) * chain.chainBeforeSlots));
                for (int i = 0; i < h; i++) {
                    m.put(s.rawNames[i], before.value(s.children[i]));
                }
                int coreAt = (int) (chain.length * chain.chainBeforeSlots);
                Node core = s.children[h];
                m.put(
                        chain.chainHoleName(level),
                        level > 1
                                ? new ChainLevel(chain, seg, slots, level - 1)
                                : new FieldValues(seg, slots, coreAt).value(core));
                FieldValues after = new FieldValues(
                        seg,
                        slots,
                        coreAt + Tape.span(core, slots, coreAt) + (int) ((level - 1) * chain.chainAfterSlots));
                for (int i = h + 1; i < s.children.length; i++) {
                    m.put(s.rawNames[i], after.value(s.children[i]));
                }
                members = m;
            }
            return members.entrySet();
        }
    }

    /** Text arrays hold a C string: it ends at the first NUL, if any. */
    private static String cString(byte[] b) {
        int len = 0;
        while (len < b.length && b[len] != 0) {
            len++;
        }
        return Utf8.decode(b, 0, len);
    }

    private String text(long startByte, long len) {
        byte[] b = new byte[Math.toIntExact(len)];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, startByte, b, 0, b.length);
        return Utf8.decode(b);
    }
}
