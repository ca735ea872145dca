package dev.hetrace.ctf.write;

import dev.hetrace.ctf.decode.FieldValues.Choice;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.metadata.FieldType.Encoding;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import java.math.BigInteger;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Encodes the value of a field (a Java value: a number, a string, a Map, List or array for
 * structs and arrays) along its {@link Node}, into the packet being written by a
 * {@link StreamWriter}: the fields it fills itself (roles, event header ids, timestamps and
 * variant options), the registers that tags and lengths set, and the clock as a reader
 * rebuilds it. Errors name the field being encoded.
 */
final class FieldEncoder {
    static final int SCOPE_PACKET = 0;
    static final int SCOPE_EVENT_HEADER = 1;
    static final int SCOPE_USER = 2;

    private final BitWriter out;
    private final byte[] uuidBytes;
    /** The stream file, for error messages. */
    private final Path file;

    final long[] regs;
    /** Values that packet scopes get by role (see {@link Node}), set before each encoding. */
    final long[] roleValues = new long[16];
    /** Bits of the stream file written before the current packet: fields align from the file's start. */
    long fileBits;
    /** The clock as a reader reconstructs it at this point of the stream (cycles). */
    long clock;

    // Per event: what the header must say.
    long headerId;
    long headerTimestamp;
    /** Which scope is being encoded: {@link #SCOPE_PACKET}, {@link #SCOPE_EVENT_HEADER} or {@link #SCOPE_USER}. */
    int scopeMode;
    /** Tag values chosen for the variants of the event header, by tag field. */
    final Map<Node, Long> headerTags = new HashMap<>();

    /** Names of the fields being encoded, for error messages. */
    private String[] path = new String[64];

    int depth;
    String scopeName = "";

    FieldEncoder(BitWriter out, int registerCount, byte[] uuidBytes, Path file) {
        this.out = out;
        this.regs = new long[Math.max(1, registerCount)];
        this.uuidBytes = uuidBytes;
        this.file = file;
    }

    // ------------------------------------------------------------------ event header choices

    /**
     * Sets, for each variant of the event header, the tag register to a value selecting the
     * first option that can hold the event id and timestamp.
     */
    void chooseHeaderOptions(Node n) {
        if (n.kind != Node.STRUCT) {
            return;
        }
        for (int i = 0; i < n.children.length; i++) {
            Node c = n.children[i];
            if (c.kind == Node.VARIANT) {
                Node tag = null;
                for (int j = 0; j < i; j++) {
                    if (n.children[j].register == c.sourceRegister) {
                        tag = n.children[j];
                    }
                }
                if (tag == null) {
                    throw new IllegalArgumentException("event header variant '" + n.names[i] + "' has its tag outside"
                            + " its struct; this writer cannot choose its option");
                }
                headerTags.put(tag, tagValueFor(c, tag));
            } else if (c.kind == Node.STRUCT) {
                chooseHeaderOptions(c);
            }
        }
    }

    private long tagValueFor(Node variant, Node tag) {
        if (!(tag.type instanceof EnumType tagType)) {
            throw new IllegalArgumentException("event header variant tag is not an enumeration");
        }
        // Labels in declaration order: LTTng's compact layout comes before the extended one.
        for (EnumMapping m : tagType.mappings()) {
            int o = variant.selectOption(m.low());
            if (o < 0) {
                continue;
            }
            Node option = variant.children[variant.entryOf(o)];
            if (!fits(option)) {
                continue;
            }
            if (hasEventId(option)) {
                chooseHeaderOptions(option);
                return m.low();
            }
            if (tag.role == Node.ROLE_EVENT_ID && variant.selectOption(headerId) == o) {
                chooseHeaderOptions(option);
                return headerId;
            }
        }
        throw new IllegalArgumentException("the event header cannot represent event id " + headerId + " at time "
                + Long.toUnsignedString(headerTimestamp) + " (no option of its variant can)");
    }

    private boolean fits(Node n) {
        if (n.kind == Node.INT) {
            if (n.role == Node.ROLE_EVENT_ID && !fitsUnsigned(headerId, n.size)) {
                return false;
            }
            return n.clock < 0 || n.size == 64 || Long.compareUnsigned(headerTimestamp - clock, 1L << n.size) < 0;
        }
        for (Node c : n.children) {
            if (n.kind != Node.VARIANT && !fits(c)) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasEventId(Node n) {
        if (n.kind == Node.INT) {
            return n.role == Node.ROLE_EVENT_ID;
        }
        for (Node c : n.children) {
            if (n.kind != Node.VARIANT && hasEventId(c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean fitsUnsigned(long v, int size) {
        return size == 64 || (v >>> size) == 0;
    }

    // ------------------------------------------------------------------ encoding

    void encode(Node n, Object value) {
        switch (n.kind) {
            case Node.INT -> encodeInt(n, value);
            case Node.BIG_INT -> encodeBigInt(n, value);
            case Node.VARINT -> encodeVarInt(n, value);
            case Node.BOOL -> encodeBool(n, value);
            case Node.OPTIONAL -> {
                if (n.optionalEnabled(regs[n.sourceRegister])) {
                    if (value == null && scopeMode == SCOPE_USER) {
                        throw fail("missing value: the selector enables the optional");
                    }
                    encode(n.element(), value);
                } else if (value != null && scopeMode == SCOPE_USER) {
                    throw fail("a value for an optional its selector does not enable");
                }
            }
            case Node.FLOAT -> {
                out.align(fileBits, n.align);
                double d = value == null && scopeMode != SCOPE_USER
                        ? 0
                        : number(value, "a floating point number").doubleValue();
                long bits =
                        n.size == 32 ? Float.floatToRawIntBits((float) d) & 0xFFFFFFFFL : Double.doubleToRawLongBits(d);
                out.write(bits, n.size, n.bigEndian);
            }
            case Node.STRING -> {
                out.align(fileBits, 8);
                String s = value == null && scopeMode != SCOPE_USER ? "" : string(value);
                if (n.charset.unitBytes() > 1) {
                    if (s.indexOf('\0') >= 0) {
                        throw fail("a CTF string cannot hold a NUL character");
                    }
                    byte[] b = s.getBytes(charset(n.charset));
                    out.writeBytes(b, 0, b.length);
                    out.write(0, 8 * n.charset.unitBytes(), false);
                    return;
                }
                byte[] b = s.getBytes(StandardCharsets.UTF_8);
                for (byte x : b) {
                    if (x == 0) {
                        throw fail("a CTF string cannot hold a NUL character");
                    }
                }
                out.writeBytes(b, 0, b.length);
                out.write(0, 8, false);
            }
            case Node.STRUCT -> {
                out.align(fileBits, n.align);
                for (int i = 0; i < n.children.length; i++) {
                    Node c = n.children[i];
                    if (c.kind == Node.RUN || c.kind == Node.PACKED_RUN) {
                        // A run of members (f0, f1, ...) stored as one node: the values come by name.
                        out.align(fileBits, c.align);
                        for (long k = 0; k < c.length; k++) {
                            String name = c.runMemberName(k);
                            push(name);
                            Object v = value instanceof Map<?, ?> m ? m.get(name) : null;
                            if (v == null && scopeMode == SCOPE_USER) {
                                throw fail("missing value");
                            }
                            encode(c.element(), v);
                            depth--;
                        }
                        continue;
                    }
                    push(n.rawNames[i]);
                    encode(c, member(n, i, value));
                    depth--;
                }
            }
            case Node.VARIANT -> {
                long tag = regs[n.sourceRegister];
                int option = n.selectOption(tag);
                if (option < 0) {
                    throw fail("tag value " + tag + " selects no option of the variant");
                }
                String optionName = n.rawOptionName(option);
                Object v = value;
                if (value instanceof Choice(String name, Object inner)) {
                    if (!name.equals(optionName) && !name.equals(n.optionName(option))) {
                        throw fail("the value is for option '" + name + "' but the tag selects '" + optionName + "'");
                    }
                    v = inner;
                }
                push(optionName);
                encode(n.children[n.entryOf(option)], v);
                depth--;
            }
            case Node.ARRAY, Node.PACKED_ARRAY -> encodeElements(n, value, n.length);
            case Node.SEQUENCE, Node.PACKED_SEQUENCE -> encodeElements(n, value, regs[n.sourceRegister]);
            case Node.CHAIN -> encodeChain(n, value);
            default -> throw new IllegalStateException("unknown node kind " + n.kind);
        }
    }

    /** Deepest chain of nested structs the writer encodes (it keeps the value of every level). */
    private static final long MAX_CHAIN_LEVELS = 1 << 20;

    /** Nested structs of one shape (see {@link Node#CHAIN}): each level's value is a struct value, as for a struct. */
    private void encodeChain(Node ch, Object value) {
        if (ch.length > MAX_CHAIN_LEVELS) {
            throw fail("structs nested " + ch.length + " levels deep: this writer supports up to " + MAX_CHAIN_LEVELS);
        }
        Node level = ch.element();
        Node[] members = level.children;
        int h = ch.chainHole;
        int levels = (int) ch.length;
        Object[] values = new Object[levels + 1];
        Object v = value;
        for (int k = levels; k >= 1; k--) {
            values[k] = v;
            out.align(fileBits, k == levels ? ch.align : level.align);
            for (int i = 0; i < h; i++) {
                push(level.rawNames[i]);
                encode(members[i], member(level, i, v));
                depth--;
            }
            String hole = ch.chainHoleName(k);
            push(hole);
            v = chainMember(level, h, v, hole);
        }
        encode(members[h], v);
        for (int k = 1; k <= levels; k++) {
            depth--;
            for (int i = h + 1; i < members.length; i++) {
                push(level.rawNames[i]);
                encode(members[i], member(level, i, values[k]));
                depth--;
            }
        }
    }

    /** The value of a chain level's hole (named {@code raw} at this level), as {@link #member} finds a member's. */
    private Object chainMember(Node level, int h, Object value, String raw) {
        if (value instanceof Map<?, ?> m) {
            Object x = m.get(raw);
            String shown = raw.startsWith("_") ? raw.substring(1) : raw;
            if (x == null && !shown.equals(raw)) {
                x = m.get(shown);
            }
            if (x == null && scopeMode == SCOPE_USER) {
                throw fail("missing value");
            }
            return x;
        }
        return member(level, h, value);
    }

    private void encodeElements(Node n, Object value, long count) {
        out.align(fileBits, n.align);
        if (n.role == Node.ROLE_UUID && scopeMode == SCOPE_PACKET && value == null) {
            value = uuidBytes;
        }
        if (value == null && scopeMode != SCOPE_USER) {
            for (long k = 0; k < count; k++) {
                encode(n.element(), null);
            }
            return;
        }
        if (value instanceof String s) {
            if (!n.text) {
                throw fail("a string was given for an array or sequence that is not text");
            }
            byte[] b = s.getBytes(charset(n.charset));
            boolean sequence = n.kind == Node.SEQUENCE || n.kind == Node.PACKED_SEQUENCE;
            if (sequence ? b.length != count : b.length > count) {
                throw fail("text of " + b.length + " bytes for "
                        + (sequence ? "a sequence whose length field says " : "an array of ") + count);
            }
            for (long k = 0; k < count; k++) {
                encodeInt(n.element(), k < b.length ? (long) (b[(int) k] & 0xFF) : 0L);
            }
            return;
        }
        int size = switch (value) {
            case List<?> l -> l.size();
            case Object[] a -> a.length;
            case long[] a -> a.length;
            case int[] a -> a.length;
            case byte[] a -> a.length;
            case double[] a -> a.length;
            case null -> throw fail("missing value");
            default ->
                throw fail("expected a list for an array or sequence, found "
                        + value.getClass().getSimpleName());
        };
        if (size != count) {
            throw fail("list of " + size + " elements where the "
                    + (n.kind == Node.ARRAY || n.kind == Node.PACKED_ARRAY
                            ? "array has "
                            : "sequence's length field says ")
                    + count);
        }
        for (int k = 0; k < size; k++) {
            Object e = switch (value) {
                case List<?> l -> l.get(k);
                case Object[] a -> a[k];
                case long[] a -> a[k];
                case int[] a -> a[k];
                case byte[] a -> n.role == Node.ROLE_UUID ? (long) (a[k] & 0xFF) : (long) a[k];
                case double[] a -> a[k];
                default -> throw new IllegalStateException();
            };
            push("[" + k + "]");
            encode(n.element(), e);
            depth--;
        }
    }

    /** The Java charset of a string's encoding (UTF-16 and UTF-32 without a byte order mark). */
    private static Charset charset(Encoding e) {
        return switch (e) {
            case UTF16BE -> StandardCharsets.UTF_16BE;
            case UTF16LE -> StandardCharsets.UTF_16LE;
            case UTF32BE -> Charset.forName("UTF-32BE");
            case UTF32LE -> Charset.forName("UTF-32LE");
            default -> StandardCharsets.UTF_8;
        };
    }

    private void push(String name) {
        if (depth == path.length) {
            path = Arrays.copyOf(path, depth * 2);
        }
        path[depth++] = name;
    }

    private Object member(Node struct, int i, Object value) {
        Object v = switch (value) {
            case null -> null;
            case Map<?, ?> m -> {
                Object x = m.get(struct.rawNames[i]);
                if (x == null && !struct.rawNames[i].equals(struct.names[i])) {
                    x = m.get(struct.names[i]);
                }
                yield x;
            }
            case List<?> l -> {
                if (l.size() != struct.children.length) {
                    throw fail(
                            "list of " + l.size() + " values for a struct of " + struct.children.length + " members");
                }
                yield l.get(i);
            }
            case Object[] a -> {
                if (a.length != struct.children.length) {
                    throw fail(
                            "array of " + a.length + " values for a struct of " + struct.children.length + " members");
                }
                yield a[i];
            }
            default ->
                throw fail("expected a Map, List or Object[] for a struct, found "
                        + value.getClass().getSimpleName());
        };
        // An optional whose selector does not enable it has no value.
        if (v == null
                && scopeMode == SCOPE_USER
                && struct.children[i].role == Node.ROLE_NONE
                && struct.children[i].kind != Node.OPTIONAL) {
            throw fail("missing value");
        }
        return v;
    }

    private void encodeInt(Node n, Object value) {
        out.align(fileBits, n.align);
        long v;
        if (scopeMode == SCOPE_PACKET
                && n.role != Node.ROLE_NONE
                && n.role != Node.ROLE_UUID
                && value == null
                && roleValues[n.role] != Long.MIN_VALUE) {
            v = roleValues[n.role];
            if (n.clock >= 0) {
                checkClockFits(n, v);
            }
        } else if (scopeMode == SCOPE_EVENT_HEADER && value == null) {
            Long tag = headerTags.get(n);
            if (tag != null) {
                v = tag;
            } else if (n.role == Node.ROLE_EVENT_ID) {
                v = headerId;
            } else if (n.clock >= 0) {
                v = headerTimestamp;
                checkClockFits(n, v);
            } else {
                v = 0;
            }
        } else if (value == null) {
            if (scopeMode == SCOPE_USER) {
                throw fail("missing value");
            }
            v = 0;
        } else {
            v = integer(n, value);
        }
        if (n.size < 64) {
            boolean ok = n.signed
                    ? v >= -(1L << (n.size - 1)) && v < (1L << (n.size - 1))
                    : (v >>> n.size) == 0 || (n.clock >= 0 && scopeMode != SCOPE_USER);
            if (!ok) {
                throw fail("value " + (n.signed ? Long.toString(v) : Long.toUnsignedString(v)) + " does not fit in a "
                        + n.size + "-bit " + (n.signed ? "signed" : "unsigned") + " integer");
            }
        }
        out.write(v, n.size, n.bigEndian);
        long stored = n.signed ? v : (n.size == 64 ? v : v & ((1L << n.size) - 1));
        if (n.register >= 0) {
            regs[n.register] = stored;
        }
        if (n.clock >= 0 && !n.signed && n.role != Node.ROLE_TIMESTAMP_END) {
            updateClock(stored, n.size);
        }
    }

    /** A CTF 2 fixed-length boolean: true as 1, false as 0 (or the integer given). */
    private void encodeBool(Node n, Object value) {
        out.align(fileBits, n.align);
        if (value == null && scopeMode == SCOPE_USER) {
            throw fail("missing value");
        }
        long v = value == null ? 0 : integer(n, value);
        if (n.size < 64 && (v >>> n.size) != 0) {
            throw fail("value " + Long.toUnsignedString(v) + " does not fit in a " + n.size + "-bit boolean");
        }
        out.write(v, n.size, n.bigEndian);
        if (n.register >= 0) {
            regs[n.register] = v != 0 ? 1 : 0;
        }
    }

    /** A CTF 2 variable-length integer: LEB128, seven bits a byte from the least significant, byte-aligned. */
    private void encodeVarInt(Node n, Object value) {
        out.align(fileBits, 8);
        if (value == null && scopeMode == SCOPE_USER) {
            throw fail("missing value");
        }
        long v = value == null ? 0 : integer(n, value);
        if (n.register >= 0) {
            regs[n.register] = v;
        }
        boolean more;
        do {
            int b = (int) (v & 0x7F);
            v = n.signed ? v >> 7 : v >>> 7;
            more = n.signed ? !((v == 0 && (b & 0x40) == 0) || (v == -1 && (b & 0x40) != 0)) : v != 0;
            out.write(more ? b | 0x80 : b, 8, false);
        } while (more);
    }

    private void checkClockFits(Node n, long value) {
        if (n.size < 64 && Long.compareUnsigned(value - clock, 1L << n.size) >= 0) {
            throw fail("time " + Long.toUnsignedString(value) + " is too far from the previous one ("
                    + Long.toUnsignedString(clock) + ") for a " + n.size + "-bit clock field");
        }
    }

    /** The clock as readers reconstruct it from a field of {@code size} bits (CTF 1.8 §8). */
    private void updateClock(long v, int size) {
        if (size == 64) {
            clock = v;
        } else {
            long mask = (1L << size) - 1;
            long value = v & mask;
            if (Long.compareUnsigned(value, clock & mask) < 0) {
                clock += 1L << size;
            }
            clock = (clock & ~mask) | value;
        }
    }

    private long integer(Node n, Object value) {
        if (value instanceof String label && n.type instanceof EnumType et) {
            for (EnumMapping m : et.mappings()) {
                if (m.label().equals(label)) {
                    return m.low();
                }
            }
            throw fail("'" + label + "' is not a label of the enumeration");
        }
        if (value instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (value instanceof BigInteger big) {
            if (big.bitLength() > 64 || (big.signum() < 0 && big.bitLength() > 63)) {
                throw fail("value " + big + " does not fit in 64 bits");
            }
            return big.longValue();
        }
        Number num = number(value, "an integer");
        if (num instanceof Double || num instanceof Float) {
            throw fail("a floating point value was given for an integer field");
        }
        return num.longValue();
    }

    private void encodeBigInt(Node n, Object value) {
        out.align(fileBits, n.align);
        BigInteger v = value == null && scopeMode != SCOPE_USER
                ? BigInteger.ZERO
                : value instanceof BigInteger b ? b : BigInteger.valueOf(integer(n, value));
        BigInteger limit = BigInteger.ONE.shiftLeft(n.signed ? n.size - 1 : n.size);
        boolean ok = n.signed
                ? v.compareTo(limit.negate()) >= 0 && v.compareTo(limit) < 0
                : v.signum() >= 0 && v.compareTo(limit) < 0;
        if (!ok) {
            throw fail("value " + v + " does not fit in a " + n.size + "-bit " + (n.signed ? "signed" : "unsigned")
                    + " integer");
        }
        BigInteger bits = v.and(BigInteger.ONE.shiftLeft(n.size).subtract(BigInteger.ONE));
        int done = 0;
        while (done < n.size) {
            int k = Math.min(64, n.size - done);
            int shift = n.bigEndian ? n.size - done - k : done;
            out.write(bits.shiftRight(shift).longValue(), k, n.bigEndian);
            done += k;
        }
    }

    private Number number(Object value, String what) {
        if (value instanceof Number num) {
            return num;
        }
        if (value instanceof Character c) {
            return (int) c;
        }
        throw fail("expected " + what + ", found "
                + (value == null ? "nothing" : value.getClass().getSimpleName()));
    }

    private String string(Object value) {
        if (value instanceof String s) {
            return s;
        }
        throw fail("expected a string, found "
                + (value == null ? "nothing" : value.getClass().getSimpleName()));
    }

    private IllegalArgumentException fail(String message) {
        StringBuilder b =
                new StringBuilder(file.getFileName().toString()).append(": ").append(scopeName);
        for (int i = 0; i < depth; i++) {
            String p = path[i];
            if (p.startsWith("[")) {
                b.append(p);
            } else {
                b.append(i == 0 ? " " : ".").append(p);
            }
        }
        return new IllegalArgumentException(b.append(": ").append(message).toString());
    }
}
