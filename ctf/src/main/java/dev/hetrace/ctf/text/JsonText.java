package dev.hetrace.ctf.text;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.decode.BitReader;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.decode.WideText;
import dev.hetrace.ctf.metadata.FieldType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One JSON object per event and per line: {@code time_ns} (nanoseconds from the epoch, absent
 * without a clock), {@code trace}, {@code event}, and the scopes {@code packet_context},
 * {@code stream_context}, {@code context}, {@code payload} with every field (special fields
 * included). Integers are JSON numbers, enumerations their label list and value, bit maps the
 * flags they set and their value, arrays JSON arrays. A trace's CTF 2 attributes go on a line of
 * their own ({@link #attributes}), not on its events.
 */
public final class JsonText {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private TextSink out;

    private final Map<Node, byte[][]> keys = new IdentityHashMap<>();
    private Node lastKeysNode;
    private byte[][] lastKeys;

    private CtfTrace lastTrace;
    private byte[] lastTraceName;

    /**
     * {@code s} as a JSON string literal (quotes, backslashes and control characters escaped):
     * for the JSON that commands and tools write outside the event stream. Null is the empty string.
     */
    public static String quote(String s) {
        String v = s == null ? "" : s;
        StringBuilder b = new StringBuilder(v.length() + 2).append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    public JsonText(TextSink out) {
        this.out = out;
    }

    /** Writes to {@code sink} from now on. */
    public JsonText to(TextSink sink) {
        this.out = sink;
        return this;
    }

    public void print(EventCursor cursor) {
        print(cursor.trace(), cursor.decoder(), cursor.hasTime(), cursor.hasTime() ? cursor.timeNanos() : 0);
    }

    /** Prints the decoder's current event as one line; {@code timeNanos} counts only when {@code hasTime}. */
    public void print(CtfTrace trace, StreamDecoder d, boolean hasTime, long timeNanos) {
        StreamPlan sp = d.streamPlan();
        EventPlan ep = d.event();
        out.put('{');
        if (hasTime) {
            out.put("\"time_ns\":").putDecimal(timeNanos).put(',');
        }
        out.put("\"trace\":");
        if (trace != lastTrace) {
            lastTrace = trace;
            TextSink saved = out;
            TextSink name = new TextSink(null);
            out = name;
            string(trace.directory().toString());
            lastTraceName = Arrays.copyOf(name.buffer(), name.length());
            out = saved;
        }
        out.put(lastTraceName);
        out.put(",\"stream_class\":").putUnsigned(sp.cls.id());
        out.put(",\"event\":");
        string(ep.cls.name() == null ? "" : ep.cls.name());
        scopes(d, true, true);
        out.put('}').put('\n');
    }

    /**
     * The attributes of the trace's CTF 2 metadata, if it has any, as one line before its events:
     * {@code {"trace":"DIR","attributes":{"WHERE":{...},...}}}, each attributes object under the
     * place it is in the metadata, as errors name places
     * ({@code fragment 3 (event record class "e"): $.payload-field-class}). Nothing for a trace
     * without attributes.
     */
    public void attributes(CtfTrace trace) {
        Map<String, String> all = trace.metadata().attributes();
        if (all.isEmpty()) {
            return;
        }
        out.put("{\"trace\":");
        string(trace.directory().toString());
        out.put(",\"attributes\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : all.entrySet()) {
            if (!first) {
                out.put(',');
            }
            first = false;
            string(e.getKey());
            out.put(':').put(e.getValue());
        }
        out.put('}').put('}').put('\n');
    }

    /**
     * The decoder's current event's own scopes, as one JSON object without a newline
     * ({@code {"stream_context":{...},"context":{...},"payload":{...}}}, {@code {}} when it has
     * none): what the analysis index keeps of each event beside its time and name. The packet
     * context, shared by every event of a packet, is left out.
     */
    public void fields(StreamDecoder d) {
        out.put('{');
        scopes(d, false, false);
        out.put('}');
    }

    private void scopes(StreamDecoder d, boolean comma, boolean packet) {
        StreamPlan sp = d.streamPlan();
        EventPlan ep = d.event();
        MemorySegment seg = d.segment();
        if (packet) {
            comma |= scope("packet_context", sp.packetContext, d.packetTape(), d.packetContextStart(), seg, comma);
        }
        comma |= scope("stream_context", sp.eventContext, d.tape(), d.streamContextStart(), seg, comma);
        comma |= scope("context", ep.context, d.tape(), d.contextStart(), seg, comma);
        scope("payload", ep.payload, d.tape(), d.payloadStart(), seg, comma);
    }

    private boolean scope(String name, Node root, long[] t, int at, MemorySegment seg, boolean comma) {
        if (root == null) {
            return false;
        }
        if (comma) {
            out.put(',');
        }
        out.put('"').put(name).put("\":");
        field(root, t, at, seg);
        return true;
    }

    private int field(Node n, long[] t, int at, MemorySegment seg) {
        switch (n.kind) {
            case Node.INT -> {
                scalar(n, t[at]);
                return at + 1;
            }
            case Node.VARINT -> {
                scalar(n, t[at]);
                return at + 2;
            }
            case Node.BOOL -> {
                out.put(t[at] != 0 ? "true" : "false");
                return at + 1;
            }
            case Node.BIG_INT -> {
                out.put(BitReader.readBig(seg, t[at], n.size, n.bigEndian, n.signed)
                        .toString());
                return at + 1;
            }
            case Node.FLOAT -> {
                floating(n.size == 32 ? Float.intBitsToFloat((int) t[at]) : Double.longBitsToDouble(t[at]));
                return at + 1;
            }
            case Node.STRING -> {
                if (n.charset.unitBytes() > 1) {
                    wide(seg, t[at], t[at + 1], n.charset);
                } else {
                    bytes(seg, t[at], t[at + 1]);
                }
                return at + 2;
            }
            case Node.STRUCT -> {
                out.put('{');
                int p = members(n, 0, n.children.length, t, at, seg);
                out.put('}');
                return p;
            }
            case Node.CHAIN -> {
                return chain(n, t, at, seg);
            }
            case Node.VARIANT -> {
                int option = (int) t[at];
                out.put('{');
                string(n.optionName(option));
                out.put(':');
                int p = field(n.children[n.entryOf(option)], t, at + 1, seg);
                out.put('}');
                return p;
            }
            case Node.OPTIONAL -> {
                if (t[at] == 0) {
                    out.put("null");
                    return at + 1;
                }
                return field(n.element(), t, at + 1, seg);
            }
            case Node.ARRAY, Node.SEQUENCE -> {
                long count = n.kind == Node.ARRAY ? n.length : t[at];
                int p = n.kind == Node.ARRAY ? at : at + 1;
                out.put('[');
                for (long k = 0; k < count; k++) {
                    if (k > 0) {
                        out.put(',');
                    }
                    p = field(n.element(), t, p, seg);
                }
                out.put(']');
                return p;
            }
            case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE -> {
                long start = t[at];
                long count = t[at + 1];
                Node e = n.element();
                if (n.text && n.charset.unitBytes() > 1) {
                    wide(seg, start >>> 3, WideText.untilNul(seg, start >>> 3, count, n.charset), n.charset);
                    return at + 2;
                }
                if (n.text) {
                    long len = 0;
                    while (len < count && seg.get(ValueLayout.JAVA_BYTE, (start >>> 3) + len) != 0) {
                        len++;
                    }
                    bytes(seg, start >>> 3, len);
                    return at + 2;
                }
                if (n.blob) {
                    out.put('"');
                    blobHex(seg, start >>> 3, count);
                    out.put('"');
                    return at + 2;
                }
                out.put('[');
                for (long k = 0; k < count; k++) {
                    if (k > 0) {
                        out.put(',');
                    }
                    packed(e, start + k * e.size, seg);
                }
                out.put(']');
                return at + 2;
            }
            default -> throw new IllegalStateException("unknown node kind " + n.kind);
        }
    }

    /** A BLOB's bytes as one string of lowercase hexadecimal digits, two a byte. */
    private void blobHex(MemorySegment seg, long startByte, long count) {
        for (long k = 0; k < count; k++) {
            int b = seg.get(ValueLayout.JAVA_BYTE, startByte + k) & 0xFF;
            out.put(HEX[b >>> 4]).put(HEX[b & 0xF]);
        }
    }

    /** Nested structs of one shape, level by level without recursion. */
    private int chain(Node ch, long[] t, int at, MemorySegment seg) {
        Node level = ch.element();
        int h = ch.chainHole;
        int count = level.children.length;
        int p = at;
        for (long k = ch.length; k >= 1; k--) {
            out.put('{');
            p = members(level, 0, h, t, p, seg);
            if (h > 0) {
                out.put(',');
            }
            out.put('"')
                    .put(ch.runDisplayPrefix)
                    .putUnsigned(ch.runFirst + k - 1)
                    .put('"')
                    .put(':');
        }
        p = field(level.children[h], t, p, seg);
        for (long k = 1; k <= ch.length; k++) {
            p = members(level, h + 1, count, t, p, seg);
            out.put('}');
        }
        return p;
    }

    /** Members {@code from} to {@code to} (excluded) of a struct, "name":value, comma-separated (a comma before all but member 0). */
    private int members(Node n, int from, int to, long[] t, int at, MemorySegment seg) {
        int p = at;
        for (int i = from; i < to; i++) {
            if (i > 0) {
                out.put(',');
            }
            Node c = n.children[i];
            if (c.kind == Node.RUN || c.kind == Node.PACKED_RUN) {
                Node e = c.element();
                for (long k = 0; k < c.length; k++) {
                    if (k > 0) {
                        out.put(',');
                    }
                    out.put('"')
                            .put(c.runDisplayPrefix)
                            .putUnsigned(c.runFirst + k)
                            .put('"')
                            .put(':');
                    if (c.kind == Node.PACKED_RUN) {
                        packed(e, t[p] + k * e.size, seg);
                    } else {
                        p = field(e, t, p, seg);
                    }
                }
                if (c.kind == Node.PACKED_RUN) {
                    p += 2;
                }
                continue;
            }
            out.put(keys(n)[i]);
            p = field(c, t, p, seg);
        }
        return p;
    }

    private void packed(Node e, long bitPos, MemorySegment seg) {
        long raw = BitReader.read(seg, bitPos, e.size, e.bigEndian);
        if (e.kind == Node.FLOAT) {
            floating(e.size == 32 ? Float.intBitsToFloat((int) raw) : Double.longBitsToDouble(raw));
        } else {
            scalar(e, e.signed ? BitReader.signExtend(raw, e.size) : raw);
        }
    }

    private void scalar(Node n, long v) {
        if (n.flagNames != null) {
            bitMap(n, v);
            return;
        }
        if (n.enumTable == null) {
            number(n, v);
            return;
        }
        out.put("{\"labels\":[");
        boolean any = false;
        for (int s = n.enumTable.first(v); s >= 0; s = n.enumTable.next(v, s)) {
            if (any) {
                out.put(',');
            }
            any = true;
            string(n.enumTable.label(s, v));
        }
        out.put("],\"value\":");
        number(n, v);
        out.put('}');
    }

    private void number(Node n, long v) {
        if (n.signed) {
            out.putDecimal(v);
        } else {
            out.putUnsigned(v);
        }
    }

    private void floating(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            string(Double.toString(v));
        } else {
            out.put(Double.toString(v));
        }
    }

    private void string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.put('"');
        for (byte x : b) {
            escaped(x);
        }
        out.put('"');
    }

    /** A struct's members as JSON keys ({@code "name":}), made once per struct type rather than per event. */
    private byte[][] keys(Node struct) {
        if (struct == lastKeysNode) {
            return lastKeys;
        }
        byte[][] k = keys.get(struct);
        if (k == null) {
            TextSink saved = out;
            k = new byte[struct.names.length][];
            for (int i = 0; i < k.length; i++) {
                TextSink key = new TextSink(null);
                out = key;
                string(struct.names[i]);
                key.put(':');
                k[i] = Arrays.copyOf(key.buffer(), key.length());
            }
            out = saved;
            keys.put(struct, k);
        }
        lastKeysNode = struct;
        lastKeys = k;
        return k;
    }

    private void bytes(MemorySegment seg, long startByte, long len) {
        if (len <= 256) {
            // the common case, ASCII: escaped straight from the trace, nothing allocated
            boolean ascii = true;
            for (long i = 0; i < len && ascii; i++) {
                ascii = seg.get(ValueLayout.JAVA_BYTE, startByte + i) >= 0;
            }
            if (ascii) {
                out.put('"');
                for (long i = 0; i < len; i++) {
                    escaped(seg.get(ValueLayout.JAVA_BYTE, startByte + i));
                }
                out.put('"');
                return;
            }
        }
        // else through a String, so that invalid UTF-8 is replaced as Java decodes it
        byte[] b = new byte[(int) Math.min(len, Integer.MAX_VALUE - 8)];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, startByte, b, 0, b.length);
        string(new String(b, StandardCharsets.UTF_8));
    }

    /** A bit map: the names of the flags the value sets (a flag is set when any of its bits is), and the value. */
    private void bitMap(Node n, long v) {
        out.put("{\"flags\":[");
        boolean any = false;
        for (int i = 0; i < n.flagMasks.length; i++) {
            if ((v & n.flagMasks[i]) != 0) {
                if (any) {
                    out.put(',');
                }
                any = true;
                out.put(flagKey(n, i));
            }
        }
        out.put("],\"value\":");
        number(n, v);
        out.put('}');
    }

    private final Map<Node, byte[][]> flagKeys = new IdentityHashMap<>();

    /** Flag {@code i} of bit map {@code n} as a JSON string, made once per bit map. */
    private byte[] flagKey(Node n, int i) {
        byte[][] k = flagKeys.get(n);
        if (k == null) {
            TextSink saved = out;
            k = new byte[n.flagNames.length][];
            for (int j = 0; j < k.length; j++) {
                TextSink key = new TextSink(null);
                out = key;
                string(n.flagNames[j]);
                k[j] = Arrays.copyOf(key.buffer(), key.length());
            }
            out = saved;
            flagKeys.put(n, k);
        }
        return k[i];
    }

    private final byte[] utf8 = new byte[4];
    private final WideText.ByteSink escaped = this::escaped;

    /** UTF-16 or UTF-32 text as a JSON string: each code point in UTF-8, escaped as UTF-8 strings are. */
    private void wide(MemorySegment seg, long startByte, long len, FieldType.Encoding encoding) {
        out.put('"');
        WideText.toUtf8(seg, startByte, len, encoding, utf8, escaped);
        out.put('"');
    }

    private void escaped(byte b) {
        switch (b) {
            case '"' -> out.put('\\').put('"');
            case '\\' -> out.put('\\').put('\\');
            case '\n' -> out.put('\\').put('n');
            case '\r' -> out.put('\\').put('r');
            case '\t' -> out.put('\\').put('t');
            default -> {
                if (b >= 0 && b < 0x20) {
                    out.put("\\u00").put(HEX[(b >> 4) & 0xF]).put(HEX[b & 0xF]);
                } else {
                    out.put(b);
                }
            }
        }
    }
}
