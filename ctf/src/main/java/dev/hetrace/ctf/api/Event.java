package dev.hetrace.ctf.api;

import static dev.hetrace.ctf.api.EventPaths.ELEMENT;
import static dev.hetrace.ctf.api.EventPaths.MEMBER;
import static dev.hetrace.ctf.api.EventPaths.OPTION;
import static dev.hetrace.ctf.api.EventPaths.PACKED_ELEMENT;
import static dev.hetrace.ctf.api.EventPaths.rootNode;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.EventPaths.Resolved;
import dev.hetrace.ctf.api.EventPaths.Scope;
import dev.hetrace.ctf.decode.BitReader;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.Tape;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.Utf8;
import dev.hetrace.ctf.decode.WideText;
import dev.hetrace.ctf.metadata.EventClass;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reader's current event: a view on the decoder, valid until the reader moves on (copy
 * what you keep). Fields are read by path, with typed getters:
 *
 * <ul>
 *   <li>a path is field names separated by dots, each optionally followed by {@code [index]}
 *       for an element of an array or sequence: {@code "msg"}, {@code "point.x"},
 *       {@code "values[3]"}. A variant is crossed by naming the option:
 *       {@code "v.as_int"} (absent in events where the variant selects another option);</li>
 *   <li>without a scope, the name is searched in the payload, then the event context, then the
 *       stream event context, then the packet context (babeltrace2's Python order). A path may
 *       start with a scope to say which: {@code payload}, {@code context},
 *       {@code stream_context}, {@code packet_context}, {@code header} (event header) or
 *       {@code packet_header}: {@code "packet_context.cpu_id"};</li>
 *   <li>names are as babeltrace2 shows them (one leading underscore removed) or as the
 *       metadata writes them.</li>
 * </ul>
 *
 * A path is resolved once per event class and cached, and values are read from the decoded
 * event in place, so reading numbers allocates nothing. A missing field throws
 * {@link FieldNotFoundException}, a field of another type {@link FieldTypeException}.
 */
public final class Event {
    private final EventCursor cursor;
    private final Map<EventPlan, Map<String, Resolved>> paths = new IdentityHashMap<>();
    private EventPlan lastPlan;
    private Map<String, Resolved> lastPaths;
    /** The decoder standing on the current event (held while the event is valid, so that each read finds it at once); null when there is none. */
    private StreamDecoder current;
    // Why the last locate() failed, for the exception message.
    private String missReason;

    Event(EventCursor cursor) {
        this.cursor = cursor;
    }

    void valid(boolean valid) {
        current = valid ? cursor.decoder() : null;
    }

    private StreamDecoder decoder() {
        StreamDecoder d = current;
        if (d == null) {
            throw new IllegalStateException("no current event: call next() first (and check that it returned true)");
        }
        return d;
    }

    // ------------------------------------------------------------------ what the event is

    /** The event class name ("" when the metadata gives none). */
    public String name() {
        String name = decoder().event().cls.name();
        return name == null ? "" : name;
    }

    /**
     * The event's class in the metadata: a key for per-class lookups by identity, the same object
     * for every event of a class (except classes declared in runs of generated names, which may
     * be made again when asked for: keep such a lookup bounded).
     */
    public EventClass eventClass() {
        return decoder().event().cls;
    }

    /** The event class id within its stream class. */
    public long id() {
        return decoder().event().cls.id();
    }

    /** Whether the event has a time (its stream has a clock). */
    public boolean hasTime() {
        return decoder().streamPlan().defaultClock >= 0;
    }

    /**
     * Nanoseconds from the epoch, converted from the clock exactly as babeltrace2 does; never
     * before the previous event of the same stream (an event recorded earlier than the one
     * before it is given that one's time, and a warning says where: see {@link CtfReader}).
     *
     * @throws IllegalStateException when the event's stream has no clock
     */
    public long timeNanos() {
        if (!hasTime()) {
            throw new IllegalStateException("event '" + name() + "' has no time: its stream has no clock");
        }
        return cursor.timeNanos();
    }

    /** The trace the event comes from. */
    public CtfTrace trace() {
        decoder();
        return cursor.trace();
    }

    public long streamClassId() {
        return decoder().streamPlan().cls.id();
    }

    /** The stream's id: its stream_instance_id, else its rank among the trace's streams. */
    public long streamId() {
        decoder();
        return cursor.trace().streamId(cursor.stream());
    }

    // ------------------------------------------------------------------ fields

    /** Whether the event has a field at {@code path} (through the variant options it selects). */
    public boolean has(String path) {
        return has(resolved(path));
    }

    /** As {@link #has(String)}, through a resolved {@link Field}. */
    public boolean has(Field field) {
        Resolved r = resolved(field);
        return r.fixedSlot >= 0 || has(r);
    }

    private boolean has(Resolved r) {
        return r.missing == null && locate(r) >= 0;
    }

    /**
     * An integer or enumeration value. Unsigned 64-bit values above {@link Long#MAX_VALUE} come
     * back negative: read them with {@link Long#toUnsignedString(long)} or
     * {@link Long#compareUnsigned}.
     */
    public long getLong(String path) {
        return getLong(resolved(path));
    }

    /** As {@link #getLong(String)}, through a resolved {@link Field}. */
    public long getLong(Field field) {
        StreamDecoder d = decoder();
        Resolved r = resolved(field, d);
        if (r.fixedSlot >= 0 && r.leaf.kind == Node.INT) {
            // the common case, in few steps: an integer at a slot the layout fixes
            return tape(r.scope, d)[scopeStart(r.scope, d) + r.fixedSlot];
        }
        return getLong(r);
    }

    private long getLong(Resolved r) {
        int at = found(r);
        StreamDecoder d = decoder();
        Node n = r.leaf;
        if (r.packedElement()) {
            long raw = packedElement(r, at);
            if (n.kind == Node.FLOAT) {
                throw wrongType(r, n, "an integer", "getLong");
            }
            return n.signed ? BitReader.signExtend(raw, n.size) : raw;
        }
        long[] t = tape(r.scope, d);
        return switch (n.kind) {
            case Node.INT, Node.VARINT -> t[at];
            case Node.BIG_INT -> {
                BigInteger v = BitReader.readBig(d.segment(), t[at], n.size, n.bigEndian, n.signed);
                if (n.signed ? v.bitLength() > 63 : v.bitLength() > 64) {
                    throw new FieldTypeException(
                            "field '" + r.path + "' of event '" + name() + "' is " + v + ", wider than 64 bits");
                }
                yield v.longValue();
            }
            default -> throw wrongType(r, n, "an integer", "getLong");
        };
    }

    /** A floating point value, or an integer converted to double. */
    public double getDouble(String path) {
        return getDouble(resolved(path));
    }

    /** As {@link #getDouble(String)}, through a resolved {@link Field}. */
    public double getDouble(Field field) {
        return getDouble(resolved(field));
    }

    private double getDouble(Resolved r) {
        int at = found(r);
        Node n = r.leaf;
        long raw;
        if (r.packedElement()) {
            raw = packedElement(r, at);
            if (n.kind == Node.INT && n.signed) {
                raw = BitReader.signExtend(raw, n.size);
            }
        } else if (n.kind == Node.INT || n.kind == Node.VARINT || n.kind == Node.FLOAT) {
            raw = tape(r.scope, decoder())[at];
        } else {
            throw wrongType(r, n, "a number", "getDouble");
        }
        if (n.kind == Node.FLOAT) {
            return n.size == 32 ? Float.intBitsToFloat((int) raw) : Double.longBitsToDouble(raw);
        }
        return n.signed || raw >= 0 ? (double) raw : (double) (raw >>> 1) * 2.0 + (raw & 1);
    }

    /**
     * A string; also an array or sequence of bytes meant as text (up to its first NUL), and
     * the label of an enumeration value (the first label whose range holds the value, or null
     * when none does). Allocates the string.
     */
    public String getString(String path) {
        return getString(resolved(path));
    }

    /** As {@link #getString(String)}, through a resolved {@link Field}. */
    public String getString(Field field) {
        return getString(resolved(field));
    }

    private String getString(Resolved r) {
        int at = found(r);
        StreamDecoder d = decoder();
        Node n = r.leaf;
        long[] t = tape(r.scope, d);
        MemorySegment seg = d.segment();
        if (!r.packedElement()) {
            if (n.kind == Node.STRING) {
                return n.charset.unitBytes() > 1
                        ? WideText.string(seg, t[at], t[at + 1], n.charset)
                        : utf8(seg, t[at], t[at + 1]);
            }
            if (n.isPacked() && n.text && n.charset.unitBytes() > 1) {
                long startByte = t[at] >>> 3;
                long len = WideText.untilNul(seg, startByte, t[at + 1], n.charset);
                return WideText.string(seg, startByte, len, n.charset);
            }
            if (n.isPacked() && n.text) {
                long startByte = t[at] >>> 3;
                long len = 0;
                while (len < t[at + 1] && seg.get(ValueLayout.JAVA_BYTE, startByte + len) != 0) {
                    len++;
                }
                return utf8(seg, startByte, len);
            }
            if ((n.kind == Node.INT || n.kind == Node.VARINT) && n.enumTable != null) {
                int s = n.enumTable.first(t[at]);
                return s < 0 ? null : n.enumTable.label(s, t[at]);
            }
        }
        throw wrongType(r, n, "a string", "getString");
    }

    /**
     * A 64-bit hash of a string field's UTF-8 bytes, read in place: lets a consumer recognize a
     * string it has seen before without allocating it (as the analysis does for task and function
     * names). Equal strings have equal hashes, the same as {@link #stringHash(String)}'s;
     * {@link #getString} gives the text.
     */
    public long getStringHash(String path) {
        return getStringHash(resolved(path));
    }

    /** As {@link #getStringHash(String)}, through a resolved {@link Field}. */
    public long getStringHash(Field field) {
        StreamDecoder d = decoder();
        Resolved r = resolved(field, d);
        if (r.fixedSlot >= 0 && r.leaf.kind == Node.STRING && r.leaf.charset.unitBytes() == 1) {
            long[] t = tape(r.scope, d);
            int at = scopeStart(r.scope, d) + r.fixedSlot;
            return hash(d.segment(), t[at], t[at + 1]);
        }
        return getStringHash(r);
    }

    /** The hash {@link #getStringHash} gives a field holding {@code s}. */
    public static long stringHash(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return hash(MemorySegment.ofArray(b), 0, b.length);
    }

    private long getStringHash(Resolved r) {
        int at = found(r);
        Node n = r.leaf;
        if (!r.packedElement() && n.kind == Node.STRING && n.charset.unitBytes() == 1) {
            StreamDecoder d = decoder();
            long[] t = tape(r.scope, d);
            return hash(d.segment(), t[at], t[at + 1]);
        }
        String v = getString(r);
        return stringHash(v == null ? "" : v);
    }

    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xD6E8FEB86659FD93L;

    /**
     * A hash of {@code len} bytes from {@code start}, 8 bytes at a step (names of a few words
     * take a few multiplications): little-endian words xor-multiplied into the state, the last
     * partial word read in one load where the segment allows it, then a final mix.
     */
    private static long hash(MemorySegment seg, long start, long len) {
        long h = len * M2;
        long i = start;
        long end = start + len;
        for (; i + 8 <= end; i += 8) {
            h = (h ^ seg.get(LONG_LE, i)) * M1;
            h ^= h >>> 29;
        }
        int rest = (int) (end - i);
        if (rest > 0) {
            long w;
            if (len >= 8) {
                w = seg.get(LONG_LE, end - 8) >>> (8 * (8 - rest)); // the last 8 bytes, the hashed ones shifted out
            } else if (i + 8 <= seg.byteSize()) {
                w = seg.get(LONG_LE, i) & (-1L >>> (8 * (8 - rest)));
            } else {
                w = 0;
                for (int k = 0; k < rest; k++) {
                    w |= (seg.get(ValueLayout.JAVA_BYTE, i + k) & 0xFFL) << (8 * k);
                }
            }
            h = (h ^ w) * M1;
            h ^= h >>> 29;
        }
        h *= M2;
        return h ^ (h >>> 32);
    }

    /** Number of elements of an array or sequence. */
    public int length(String path) {
        return length(resolved(path));
    }

    /** As {@link #length(String)}, through a resolved {@link Field}. */
    public int length(Field field) {
        return length(resolved(field));
    }

    private int length(Resolved r) {
        int at = found(r);
        Node n = r.leaf;
        if (r.packedElement()) {
            throw wrongType(r, n, "an array or sequence", "length");
        }
        long[] t = tape(r.scope, decoder());
        long count = switch (n.kind) {
            case Node.ARRAY -> n.length;
            case Node.SEQUENCE -> t[at];
            case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE -> t[at + 1];
            default -> throw wrongType(r, n, "an array or sequence", "length");
        };
        return (int) Math.min(count, Integer.MAX_VALUE);
    }

    /**
     * The paths of the top-level fields of the event, scope first, in the order unprefixed
     * names are searched: payload, event context, stream event context, packet context.
     */
    public List<String> fieldNames() {
        EventPlan ep = decoder().event();
        List<String> names = new ArrayList<>();
        for (Scope s : Scope.SEARCHED) {
            Node root = rootNode(ep, s, null);
            if (root != null && root.kind == Node.CHAIN) {
                Node level = root.element();
                for (int i = 0; i < level.names.length; i++) {
                    names.add(s.prefix + "."
                            + (i == root.chainHole
                                    ? new String(root.runDisplayPrefix, StandardCharsets.UTF_8)
                                            + (root.runFirst + root.length - 1)
                                    : level.names[i]));
                }
            } else if (root != null) {
                for (int i = 0; i < root.names.length; i++) {
                    Node c = root.children == null || i >= root.children.length ? null : root.children[i];
                    if (root.kind == Node.STRUCT && c != null && (c.kind == Node.RUN || c.kind == Node.PACKED_RUN)) {
                        // a run of members (arg0, arg1, ...): each is a field
                        String prefix = new String(c.runDisplayPrefix, StandardCharsets.UTF_8);
                        if (c.length <= 16) {
                            for (long k = 0; k < c.length; k++) {
                                names.add(s.prefix + "." + prefix + (c.runFirst + k));
                            }
                        } else {
                            names.add(s.prefix + "." + prefix + c.runFirst + " ... " + prefix
                                    + (c.runFirst + c.length - 1));
                        }
                    } else {
                        names.add(s.prefix + "." + root.names[i]);
                    }
                }
            }
        }
        return names;
    }

    @Override
    public String toString() {
        if (current == null) {
            return "(no current event)";
        }
        return name() + (hasTime() ? " at " + timeNanos() + " ns" : "");
    }

    // ------------------------------------------------------------------ resolving paths

    /**
     * A field path for repeated reads, as from a loop over many events: it remembers its
     * resolution in the last event class it met, so a read skips looking the path up by name.
     * Use it with the events of the reader it came from.
     */
    public static final class Field {
        private final String path;
        private EventPlan plan;
        private Resolved resolved;

        private Field(String path) {
            this.path = path;
        }

        /** The path, as given. */
        public String path() {
            return path;
        }
    }

    /** A handle on {@code path} for {@link #getLong(Field)} and the other reads by handle. */
    public static Field field(String path) {
        return new Field(path);
    }

    private Resolved resolved(Field f) {
        return resolved(f, decoder());
    }

    private Resolved resolved(Field f, StreamDecoder d) {
        EventPlan ep = d.event();
        if (ep != f.plan) {
            f.resolved = resolved(f.path);
            f.plan = ep;
        }
        return f.resolved;
    }

    private Resolved resolved(String path) {
        EventPlan ep = decoder().event();
        if (ep != lastPlan) {
            lastPaths = paths.computeIfAbsent(ep, k -> new HashMap<>());
            lastPlan = ep;
        }
        Resolved r = lastPaths.get(path);
        if (r == null) {
            r = resolve(ep, path);
            lastPaths.put(path, r);
        }
        return r;
    }

    private Resolved resolve(EventPlan ep, String path) {
        return EventPaths.resolve(ep, path, decoder().plan().packetHeader);
    }

    // ------------------------------------------------------------------ reading values

    private static long[] tape(Scope scope, StreamDecoder d) {
        return scope == Scope.PACKET_CONTEXT || scope == Scope.PACKET_HEADER ? d.packetTape() : d.tape();
    }

    /**
     * The tape slot of the field (for a packed element: of its array), or -1 when a variant on
     * the way selects another option or a sequence is too short in this event.
     */
    private static int scopeStart(Scope scope, StreamDecoder d) {
        return switch (scope) {
            case PAYLOAD -> d.payloadStart();
            case CONTEXT -> d.contextStart();
            case STREAM_CONTEXT -> d.streamContextStart();
            case PACKET_CONTEXT -> d.packetContextStart();
            case HEADER -> d.headerStart();
            case PACKET_HEADER -> 0;
        };
    }

    private int locate(Resolved r) {
        StreamDecoder d = decoder();
        int at = scopeStart(r.scope, d);
        if (r.fixedSlot >= 0) {
            return at + r.fixedSlot;
        }
        long[] t = tape(r.scope, d);
        Node n = rootNode(d.event(), r.scope, d.plan().packetHeader);
        for (int i = 0; i < r.kinds.length; i++) {
            int index = (int) r.args[i];
            switch (r.kinds[i]) {
                case MEMBER -> {
                    at += Tape.relativeSlot(n, index, t, at);
                    n = n.children[index];
                }
                case OPTION -> {
                    if (t[at] != index) {
                        missReason = "in this event, the variant before '" + n.names[index] + "' selects '"
                                + n.names[(int) t[at]] + "'";
                        return -1;
                    }
                    at++;
                    n = n.children[index];
                }
                case ELEMENT -> {
                    long k = r.args[i];
                    if (n.kind == Node.SEQUENCE) {
                        if (k >= t[at]) {
                            return outOfRange(k, t[at]);
                        }
                        at++;
                    }
                    Node e = n.element();
                    for (long j = 0; j < k; j++) {
                        at += Tape.span(e, t, at);
                    }
                    n = e;
                }
                case PACKED_ELEMENT -> {
                    if (r.args[i] >= t[at + 1]) {
                        return outOfRange(r.args[i], t[at + 1]);
                    }
                    return at;
                }
                default -> throw new IllegalStateException();
            }
        }
        return at;
    }

    private int outOfRange(long index, long length) {
        missReason = "index " + index + " is past the end (length " + length + " in this event)";
        return -1;
    }

    private int found(Resolved r) {
        if (r.missing != null) {
            throw new FieldNotFoundException("event '" + name() + "' has no field '" + r.path + "'"
                    + (r.missing.isEmpty() ? "" : ": " + r.missing) + "; its fields: "
                    + String.join(", ", fieldNames()));
        }
        int at = locate(r);
        if (at < 0) {
            throw new FieldNotFoundException("event '" + name() + "' has no field '" + r.path + "': " + missReason);
        }
        return at;
    }

    private long packedElement(Resolved r, int at) {
        StreamDecoder d = decoder();
        long[] t = tape(r.scope, d);
        Node e = r.leaf;
        return BitReader.read(d.segment(), t[at] + r.args[r.args.length - 1] * e.size, e.size, e.bigEndian);
    }

    private FieldTypeException wrongType(Resolved r, Node n, String wanted, String called) {
        String use = switch (n.kind) {
            case Node.INT, Node.BIG_INT, Node.VARINT -> "getLong";
            case Node.FLOAT -> "getDouble";
            case Node.STRING -> "getString";
            case Node.ARRAY, Node.SEQUENCE, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE ->
                n.text ? "getString" : "length, or an element: '" + r.path + "[0]'";
            default -> null;
        };
        return new FieldTypeException("field '" + r.path + "' of event '" + name() + "' is " + describe(n) + ", not "
                + wanted + (use == null || use.equals(called) ? "" : " (use " + use + ")"));
    }

    private static String describe(Node n) {
        return switch (n.kind) {
            case Node.INT, Node.VARINT -> n.enumTable != null ? "an enumeration" : "an integer";
            case Node.BIG_INT -> "an integer";
            case Node.FLOAT -> "a floating point number";
            case Node.STRING -> "a string";
            case Node.BOOL -> "a boolean";
            case Node.STRUCT, Node.CHAIN -> "a structure";
            case Node.VARIANT -> "a variant";
            case Node.OPTIONAL -> "an optional";
            case Node.ARRAY, Node.PACKED_ARRAY -> n.text ? "a text array" : "an array";
            default -> n.text ? "a text sequence" : "a sequence";
        };
    }

    private static String utf8(MemorySegment seg, long startByte, long len) {
        byte[] b = new byte[(int) Math.min(len, Integer.MAX_VALUE - 8)];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, startByte, b, 0, b.length);
        return Utf8.decode(b);
    }
}
