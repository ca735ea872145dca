package dev.hetrace.ctf.text;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.decode.BitReader;
import dev.hetrace.ctf.decode.EnumTable;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.Tape;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.decode.WideText;
import dev.hetrace.ctf.metadata.FieldType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Map;
import java.util.UUID;

/**
 * Formats events exactly as {@code babeltrace2}'s default text output ({@code sink.text.pretty}
 * with its default options) does: time of day in the local time zone, delta to the previous
 * event, hostname, event name, then the packet context, stream event context, event context and
 * payload, with babeltrace2's rules for which fields are shown and how values are written.
 */
public final class BabeltraceText {
    private static final long NS_PER_S = 1_000_000_000L;
    private static final byte[] UNKNOWN_DELTA = "(+?.?????????) ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private TextSink out;
    private final PrintStream err;
    private final ZoneRules zone;
    private long lastNanos = Long.MIN_VALUE;
    private boolean haveLast;
    private boolean negativeWarningDone;
    private CtfTrace lastTrace;
    private byte[] lastTraceFields;

    // Cache of the local offset for the current span between zone transitions.
    private long zoneFrom = Long.MAX_VALUE;
    private long zoneUntil = Long.MIN_VALUE;
    private int zoneOffset;

    public BabeltraceText(TextSink out, PrintStream err) {
        this(out, err, ZoneId.systemDefault());
    }

    public BabeltraceText(TextSink out, PrintStream err, ZoneId zone) {
        this.out = out;
        this.err = err;
        this.zone = zone.getRules();
    }

    /** Writes to {@code sink} from now on. */
    public BabeltraceText to(TextSink sink) {
        this.out = sink;
        return this;
    }

    /** Prints the cursor's current event as one line. */
    public void print(EventCursor cursor) {
        if (cursor.hasTime()) {
            time(cursor.timeNanos());
            delta(cursor.timeNanos());
        }
        body(cursor.trace(), cursor.decoder());
    }

    /** The time of day of an event, "[HH:MM:SS.nnnnnnnnn] ", the line's first part. */
    public void time(long nanos) {
        out.put('[');
        printTime(out, nanos);
        out.put(']').put(' ');
    }

    /**
     * The time since the previous event printed through this instance, "(+S.nnnnnnnnn) ",
     * which follows the time; events must come in their merged order. "(-S.nnnnnnnnn) " when the
     * event is earlier (time that went back in its stream).
     */
    public void delta(long nanos) {
        if (haveLast) {
            // negative when time went back in a stream (said on the warnings); unsigned, for
            // the gap from a time before 1970 to one past 2262 exceeds 63 bits
            boolean back = nanos < lastNanos;
            long delta = back ? lastNanos - nanos : nanos - lastNanos;
            out.put('(')
                    .put(back ? '-' : '+')
                    .putUnsigned(Long.divideUnsigned(delta, NS_PER_S))
                    .put('.')
                    .putPadded(Long.remainderUnsigned(delta, NS_PER_S), 9)
                    .put(')')
                    .put(' ');
        } else {
            out.put(UNKNOWN_DELTA);
        }
        lastNanos = nanos;
        haveLast = true;
    }

    /** The rest of the line of the decoder's current event: trace fields, name, fields, newline. */
    public void body(CtfTrace trace, StreamDecoder d) {
        StreamPlan sp = d.streamPlan();
        EventPlan ep = d.event();
        boolean startLine = true;
        if (trace != lastTrace) {
            lastTrace = trace;
            lastTraceFields = traceFields(trace);
        }
        out.put(lastTraceFields);
        byte[] name = ep.nameBytes;
        if (name == null) {
            name = TerminalText.controls(ep.cls.name() == null ? "<unknown>" : ep.cls.name())
                    .getBytes(StandardCharsets.UTF_8);
            ep.nameBytes = name;
        }
        out.put(name);
        out.put(':').put(' ');
        MemorySegment seg = d.segment();
        if (sp.packetContext != null && sp.packetContext.visible) {
            startLine = scope(startLine, sp.packetContext, d.packetTape(), d.packetContextStart(), seg);
        }
        if (sp.eventContext != null && sp.eventContext.visible) {
            startLine = scope(startLine, sp.eventContext, d.tape(), d.streamContextStart(), seg);
        }
        if (ep.context != null && ep.context.visible) {
            startLine = scope(startLine, ep.context, d.tape(), d.contextStart(), seg);
        }
        if (ep.payload != null && ep.payload.visible) {
            scope(startLine, ep.payload, d.tape(), d.payloadStart(), seg);
        }
        out.put('\n');
    }

    private boolean scope(boolean startLine, Node root, long[] tape, int at, MemorySegment seg) {
        if (!startLine) {
            out.put(',').put(' ');
        }
        field(root, tape, at, seg);
        return false;
    }

    /** The env fields babeltrace2 shows before the event name: "hostname:procname:(vpid) ". */
    private static byte[] traceFields(CtfTrace trace) {
        Map<String, Object> env = trace.metadata().env();
        StringBuilder sb = new StringBuilder();
        if (env.get("hostname") instanceof String h) {
            sb.append(h);
        }
        if (env.get("procname") instanceof String p) {
            sb.append(sb.isEmpty() ? "" : ":").append(p);
        }
        if (env.get("vpid") instanceof Long v) {
            sb.append(sb.isEmpty() ? "" : ":").append('(').append(v).append(')');
        }
        if (!sb.isEmpty() || env.get("hostname") instanceof String) {
            sb.append(' ');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ time

    private void printTime(TextSink out, long ns) {
        long sec = ns / NS_PER_S;
        long nsec = ns % NS_PER_S;
        boolean negative;
        long secAbs;
        long nsecAbs;
        if (sec >= 0 && nsec >= 0) {
            negative = false;
            secAbs = sec;
            nsecAbs = nsec;
        } else if (sec == 0) {
            negative = true;
            secAbs = 0;
            nsecAbs = -nsec;
        } else if (nsec == 0) {
            negative = true;
            secAbs = -sec;
            nsecAbs = 0;
        } else {
            negative = true;
            secAbs = -sec;
            nsecAbs = -nsec;
        }
        if (negative && !negativeWarningDone) {
            err.println("[warning] Fallback to [sec.ns] to print negative time value. Use --clock-seconds.");
            negativeWarningDone = true;
            out.put('-').putUnsigned(secAbs).put('.').putPadded(nsecAbs, 9);
            return;
        }
        long local = secAbs + offsetAt(secAbs);
        long secOfDay = Math.floorMod(local, 86_400L);
        out.putPadded(secOfDay / 3600, 2)
                .put(':')
                .putPadded(secOfDay / 60 % 60, 2)
                .put(':')
                .putPadded(secOfDay % 60, 2)
                .put('.')
                .putPadded(nsecAbs, 9);
    }

    private int offsetAt(long epochSecond) {
        if (epochSecond < zoneFrom || epochSecond >= zoneUntil) {
            Instant instant = Instant.ofEpochSecond(epochSecond);
            zoneOffset = zone.getOffset(instant).getTotalSeconds();
            ZoneOffsetTransition next = zone.nextTransition(instant);
            ZoneOffsetTransition prev = zone.previousTransition(instant.plusSeconds(1));
            zoneUntil = next == null ? Long.MAX_VALUE : next.toEpochSecond();
            zoneFrom = prev == null ? Long.MIN_VALUE : prev.toEpochSecond();
        }
        return zoneOffset;
    }

    // ------------------------------------------------------------------ losses

    /**
     * babeltrace2's warning about items a tracer discarded (its text sink writes it on the
     * standard error, without the colors it uses on a terminal), ending with a newline.
     */
    public String discardedWarning(Discarded items, CtfTrace trace, int stream) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink line = new TextSink(bytes);
        line.put(items.countKnown() ? "WARNING: Tracer discarded " : "WARNING: Tracer may have discarded ");
        if (items.countKnown()) {
            line.putUnsigned(items.count()).put(' ').put(items.kind().noun).put(items.count() == 1 ? " " : "s ");
        } else {
            line.put(items.kind().noun).put("s ");
        }
        if (items.hasTimeRange()) {
            line.put("between [");
            printTime(line, items.beginNanos());
            line.put("] and [");
            printTime(line, items.endNanos());
            line.put(']');
        } else {
            line.put("(unknown time range)");
        }
        line.put(" in trace \"").put(trace.name()).put("\" ");
        UUID uuid = trace.metadata().uuid();
        line.put(uuid == null ? "(no UUID) " : "(UUID: " + uuid + ") ");
        line.put("within stream \"")
                .put(trace.streamPath(stream))
                .put("\" (stream class ID: ")
                .putUnsigned(trace.streamClassId(stream))
                .put(", stream ID: ")
                .putUnsigned(trace.streamId(stream))
                .put(").\n");
        try {
            line.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array cannot fail
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ fields

    /** Prints the field of {@code n} whose tape starts at {@code at}; returns the slot after it. */
    private int field(Node n, long[] t, int at, MemorySegment seg) {
        switch (n.kind) {
            case Node.INT -> {
                labelled(n, t[at]);
                return at + 1;
            }
            case Node.VARINT -> {
                labelled(n, t[at]);
                return at + 2;
            }
            case Node.BOOL -> {
                out.put(t[at] != 0 ? "true" : "false");
                return at + 1;
            }
            case Node.BIG_INT -> {
                BigInteger v = BitReader.readBig(seg, t[at], n.size, n.bigEndian, n.signed);
                switch (n.base) {
                    case 16 ->
                        out.put("0x")
                                .put(
                                        v.signum() < 0
                                                ? v.add(BigInteger.ONE.shiftLeft(n.size))
                                                        .toString(16)
                                                        .toUpperCase()
                                                : v.toString(16).toUpperCase());
                    case 8 ->
                        out.put('0')
                                .put(
                                        v.signum() < 0
                                                ? v.add(BigInteger.ONE.shiftLeft(n.size))
                                                        .toString(8)
                                                : v.toString(8));
                    case 2 ->
                        out.put("0b")
                                .put(String.format(
                                                "%" + n.size + "s",
                                                (v.signum() < 0 ? v.add(BigInteger.ONE.shiftLeft(n.size)) : v)
                                                        .toString(2))
                                        .replace(' ', '0'));
                    default -> out.put(v.toString());
                }
                return at + 1;
            }
            case Node.FLOAT -> {
                double v = n.size == 32 ? Float.intBitsToFloat((int) t[at]) : Double.longBitsToDouble(t[at]);
                out.put(CFormat.g(v));
                return at + 1;
            }
            case Node.STRING -> {
                if (n.charset.unitBytes() > 1) {
                    escapedWide(seg, t[at], t[at + 1], n.charset);
                } else {
                    escapedString(seg, t[at], t[at + 1]);
                }
                return at + 2;
            }
            case Node.STRUCT -> {
                out.put('{');
                int p = members(n, 0, n.children.length, t, at, seg, true);
                out.put(' ').put('}');
                return p;
            }
            case Node.CHAIN -> {
                return chain(n, t, at, seg);
            }
            case Node.VARIANT -> {
                int option = (int) t[at];
                out.put('{').put(' ');
                int p = field(n.children[n.entryOf(option)], t, at + 1, seg);
                out.put(' ').put('}');
                return p;
            }
            case Node.OPTIONAL -> {
                // babeltrace2's pretty format: an absent optional is "<none>", a present one as a variant.
                if (t[at] == 0) {
                    out.put("<none>");
                    return at + 1;
                }
                out.put('{').put(' ');
                int p = field(n.element(), t, at + 1, seg);
                out.put(' ').put('}');
                return p;
            }
            case Node.ARRAY -> {
                out.put('[');
                int p = at;
                for (long k = 0; k < n.length; k++) {
                    out.put(k == 0 ? " [" : ", [")
                            .putUnsigned(k)
                            .put(']')
                            .put(' ')
                            .put('=')
                            .put(' ');
                    p = field(n.element(), t, p, seg);
                }
                out.put(' ').put(']');
                return p;
            }
            case Node.SEQUENCE -> {
                long count = t[at];
                out.put('[');
                int p = at + 1;
                for (long k = 0; k < count; k++) {
                    out.put(k == 0 ? " [" : ", [")
                            .putUnsigned(k)
                            .put(']')
                            .put(' ')
                            .put('=')
                            .put(' ');
                    p = field(n.element(), t, p, seg);
                }
                out.put(' ').put(']');
                return p;
            }
            case Node.PACKED_ARRAY, Node.PACKED_SEQUENCE -> {
                long start = t[at];
                long count = t[at + 1];
                Node e = n.element();
                if (n.text && n.charset.unitBytes() > 1) {
                    long startByte = start >>> 3;
                    escapedWide(seg, startByte, WideText.untilNul(seg, startByte, count, n.charset), n.charset);
                    return at + 2;
                }
                if (n.text) {
                    long startByte = start >>> 3;
                    long len = 0;
                    while (len < count && seg.get(ValueLayout.JAVA_BYTE, startByte + len) != 0) {
                        len++;
                    }
                    escapedString(seg, startByte, len);
                    return at + 2;
                }
                if (n.blob) {
                    blobHex(seg, start >>> 3, count);
                    return at + 2;
                }
                out.put('[');
                for (long k = 0; k < count; k++) {
                    out.put(k == 0 ? " [" : ", [")
                            .putUnsigned(k)
                            .put(']')
                            .put(' ')
                            .put('=')
                            .put(' ');
                    long raw = BitReader.read(seg, start + k * e.size, e.size, e.bigEndian);
                    if (e.kind == Node.FLOAT) {
                        out.put(CFormat.g(
                                e.size == 32 ? Float.intBitsToFloat((int) raw) : Double.longBitsToDouble(raw)));
                    } else {
                        long v = e.signed ? BitReader.signExtend(raw, e.size) : raw;
                        if (e.enumTable != null) {
                            enumeration(e, v);
                        } else {
                            integer(e, v);
                        }
                    }
                }
                out.put(' ').put(']');
                return at + 2;
            }
            default -> throw new IllegalStateException("unknown node kind " + n.kind);
        }
    }

    /** A BLOB as babeltrace2 2.1 prints it: its bytes in lowercase hexadecimal, two digits each, nothing between. */
    private void blobHex(MemorySegment seg, long startByte, long count) {
        for (long k = 0; k < count; k++) {
            int b = seg.get(ValueLayout.JAVA_BYTE, startByte + k) & 0xFF;
            out.put(HEX[b >>> 4]).put(HEX[b & 0xF]);
        }
    }

    /** Members {@code from} to {@code to} (excluded) of a struct, each ", name = value" (" name = value" first). */
    private int members(Node n, int from, int to, long[] t, int at, MemorySegment seg, boolean first) {
        int p = at;
        for (int i = from; i < to; i++) {
            Node c = n.children[i];
            if (!c.visible) {
                p += Tape.span(c, t, p);
                continue;
            }
            if (c.kind == Node.RUN || c.kind == Node.PACKED_RUN) {
                p = run(c, t, p, seg, first);
                first = false;
                continue;
            }
            out.put(first ? " " : ", ");
            first = false;
            out.put(n.nameEquals[i]);
            p = field(c, t, p, seg);
        }
        return p;
    }

    /**
     * Nested structs of one shape, "{ before, hole = { ... }, after }", level by level without
     * recursion (the line may be gigabytes long: the sink writes it in pieces).
     */
    private int chain(Node ch, long[] t, int at, MemorySegment seg) {
        Node level = ch.element();
        int h = ch.chainHole;
        int count = level.children.length;
        Node core = level.children[h];
        boolean beforeShown = false;
        for (int i = 0; i < h; i++) {
            beforeShown |= level.children[i].visible;
        }
        int p = at;
        for (long k = ch.length; k >= 1; k--) {
            out.put('{');
            p = members(level, 0, h, t, p, seg, true);
            if (k > 1 || core.visible) {
                out.put(beforeShown ? ", " : " ")
                        .put(ch.runDisplayPrefix)
                        .putUnsigned(ch.runFirst + k - 1)
                        .put(' ')
                        .put('=')
                        .put(' ');
            }
        }
        p = core.visible ? field(core, t, p, seg) : p + Tape.span(core, t, p);
        for (long k = 1; k <= ch.length; k++) {
            p = members(level, h + 1, count, t, p, seg, !beforeShown && k == 1 && !core.visible);
            out.put(' ').put('}');
        }
        return p;
    }

    /** The members of a run, each shown as "prefixN = value". */
    private int run(Node r, long[] t, int at, MemorySegment seg, boolean first) {
        Node e = r.element();
        long start = t[at];
        int p = at;
        for (long k = 0; k < r.length; k++) {
            out.put(first && k == 0 ? " " : ", ");
            out.put(r.runDisplayPrefix)
                    .putUnsigned(r.runFirst + k)
                    .put(' ')
                    .put('=')
                    .put(' ');
            if (r.kind == Node.PACKED_RUN) {
                scalar(e, BitReader.read(seg, start + k * e.size, e.size, e.bigEndian));
            } else {
                p = field(e, t, p, seg);
            }
        }
        return r.kind == Node.PACKED_RUN ? at + 2 : p;
    }

    private void scalar(Node e, long raw) {
        if (e.kind == Node.FLOAT) {
            out.put(CFormat.g(e.size == 32 ? Float.intBitsToFloat((int) raw) : Double.longBitsToDouble(raw)));
        } else {
            labelled(e, e.signed ? BitReader.signExtend(raw, e.size) : raw);
        }
    }

    /** An integer, with its labels when it has mappings. */
    private void labelled(Node n, long v) {
        if (n.enumTable != null) {
            enumeration(n, v);
        } else {
            integer(n, v);
        }
    }

    private void enumeration(Node n, long v) {
        out.put('(').put(' ');
        boolean any = false;
        EnumTable table = n.enumTable;
        for (int s = table.first(v); s >= 0; s = table.next(v, s)) {
            if (any) {
                out.put(',').put(' ');
            }
            any = true;
            if (table.isRun(s)) {
                out.put('"');
                for (byte b : table.prefix(s)) {
                    escapedByte(b);
                }
                out.putUnsigned(table.number(s, v)).put('"');
            } else {
                escapedBytes(table.prefix(s));
            }
        }
        if (!any) {
            out.put("<unknown>");
        }
        out.put(" : container = ");
        integer(n, v);
        out.put(' ').put(')');
    }

    private void integer(Node n, long v) {
        int size = n.size;
        switch (n.base) {
            case 16 -> {
                long u = v;
                if (size < 64) {
                    int rounded = (size + 3) & ~3;
                    u &= rounded >= 64 ? -1L : (1L << rounded) - 1;
                }
                out.put('0').put('x').putRadix(u, 4);
            }
            case 8 -> {
                long u = v;
                if (n.signed && size < 64) {
                    int rounded = ((size - 1) / 3 + 1) * 3;
                    u &= rounded >= 64 ? -1L : (1L << rounded) - 1;
                }
                out.put('0').putRadix(u, 3);
            }
            case 2 -> {
                out.put('0').put('b');
                for (int b = size - 1; b >= 0; b--) {
                    out.put(((v >>> b) & 1) != 0 ? '1' : '0');
                }
            }
            default -> {
                if (n.signed) {
                    out.putDecimal(v);
                } else {
                    out.putUnsigned(v);
                }
            }
        }
    }

    private void escapedString(MemorySegment seg, long startByte, long len) {
        out.put('"');
        for (long i = 0; i < len; i++) {
            escapedByte(seg.get(ValueLayout.JAVA_BYTE, startByte + i));
        }
        out.put('"');
    }

    private final byte[] utf8 = new byte[4];
    private final WideText.ByteSink escapedByte = this::escapedByte;

    /** UTF-16 or UTF-32 text, printed as its UTF-8 form is (bad code units as U+FFFD). */
    private void escapedWide(MemorySegment seg, long startByte, long len, FieldType.Encoding encoding) {
        out.put('"');
        WideText.toUtf8(seg, startByte, len, encoding, utf8, escapedByte);
        out.put('"');
    }

    private void escapedBytes(byte[] bytes) {
        out.put('"');
        for (byte b : bytes) {
            if (b == 0) {
                break;
            }
            escapedByte(b);
        }
        out.put('"');
    }

    /** babeltrace2's print_escape_string, byte by byte (iscntrl in the C locale). */
    private void escapedByte(byte b) {
        switch (b) {
            case '\\' -> out.put('\\').put('\\');
            case '\'' -> out.put('\\').put('\'');
            case '"' -> out.put('\\').put('"');
            case '?' -> out.put('\\').put('?');
            case 7 -> out.put('\\').put('a');
            case 8 -> out.put('\\').put('b');
            case 27 -> out.put('\\').put('e');
            case 12 -> out.put('\\').put('f');
            case 10 -> out.put('\\').put('n');
            case 13 -> out.put('\\').put('r');
            case 9 -> out.put('\\').put('t');
            case 11 -> out.put('\\').put('v');
            default -> {
                if ((b >= 0 && b < 0x20) || b == 0x7F) {
                    out.put('\\').put('x').put(HEX[(b >> 4) & 0xF]).put(HEX[b & 0xF]);
                } else {
                    out.put(b);
                }
            }
        }
    }
}
