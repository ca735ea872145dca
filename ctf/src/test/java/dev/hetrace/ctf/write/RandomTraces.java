package dev.hetrace.ctf.write;

import dev.hetrace.ctf.decode.FieldValues.Choice;
import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.FieldPath;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.Encoding;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.TraceClass;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Random CTF trace classes and event values for the writer/reader round trip: odd integer
 * widths, both byte orders (also mixed, on byte boundaries), every alignment, nested structs,
 * enumerations, variants, arrays and sequences, and the packet and event header layouts of
 * barectf and LTTng.
 */
final class RandomTraces {
    static final String CLOCK = "cycles";
    private final Random random;
    private ByteOrder traceOrder;
    /** Whether the event headers of a stream class can carry any time gap (64-bit or extended timestamps). */
    final Map<Long, Boolean> wideTime = new LinkedHashMap<>();

    /**
     * babeltrace2 2.0.4 aborts (assertion in ctf-meta-update-value-storing-indexes.c) on a
     * variant tag or sequence length inside an event's specific context, relative or absolute,
     * though CTF allows both; traces meant for comparison with it leave that out. It also
     * prints, for some empty strings and empty text sequences, the value the same field had in
     * an earlier event (seen with the data holding each string once), so those traces have no
     * empty text. And it prints 0x0 for any 61- to 63-bit integer shown in hexadecimal (its
     * mask rounds the width up to 64 bits and shifts by 64), so those are shown in decimal.
     */
    private final boolean babeltraceSafe;

    /**
     * Whether the traces may hold what CTF 2 has and CTF 1.8 lacks (variable-length integers,
     * optionals with boolean or integer selectors, booleans, static- and dynamic-length BLOBs).
     */
    private final boolean ctf2;

    RandomTraces(Random random, boolean babeltraceSafe) {
        this(random, babeltraceSafe, false);
    }

    RandomTraces(Random random, boolean babeltraceSafe, boolean ctf2) {
        this.random = random;
        this.babeltraceSafe = babeltraceSafe;
        this.ctf2 = ctf2;
    }

    TraceClass traceClass() {
        traceOrder = random.nextBoolean() ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        int streamCount = 1 + random.nextInt(2);
        List<Member> header = new ArrayList<>();
        if (random.nextInt(4) > 0) {
            header.add(new Member("magic", uint(32, 8, traceOrder)));
        }
        UUID uuid = random.nextBoolean() ? new UUID(random.nextLong(), random.nextLong()) : null;
        if (uuid != null && random.nextBoolean()) {
            header.add(new Member("uuid", new ArrayType(uint(8, 8, traceOrder), 16)));
        }
        if (streamCount > 1 || random.nextBoolean()) {
            header.add(new Member("stream_id", uint(pick(8, 16, 32, 64), 8, traceOrder)));
        }
        if (random.nextBoolean()) {
            header.add(new Member("stream_instance_id", uint(pick(16, 32, 64), 8, traceOrder)));
        }
        Map<String, ClockClass> clocks = new LinkedHashMap<>();
        long freq = pickLong(1_000_000_000L, 1_000_000L, 32_768L, 100_000_000L, 3L);
        clocks.put(
                CLOCK,
                new ClockClass(
                        CLOCK,
                        random.nextBoolean() ? "a clock" : null,
                        null,
                        freq,
                        random.nextInt(100),
                        1_600_000_000L + random.nextInt(1_000_000),
                        Math.floorMod(random.nextLong(), freq),
                        random.nextBoolean()));
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("hostname", "host" + random.nextInt(10));
        if (random.nextBoolean()) {
            env.put("tracer_major", (long) random.nextInt(3));
        }
        TreeMap<Long, StreamClass> streams = new TreeMap<>();
        for (long s = 0; s < streamCount; s++) {
            streams.put(s, streamClass(s));
        }
        return new TraceClass(
                1, 8, traceOrder, uuid, header.isEmpty() ? null : new StructType(header, 1), clocks, env, streams);
    }

    private StreamClass streamClass(long id) {
        List<Member> ctx = new ArrayList<>();
        ctx.add(new Member("timestamp_begin", clockInt(64)));
        ctx.add(new Member("timestamp_end", clockInt(64)));
        ctx.add(new Member("content_size", uint(pick(32, 64), 8, traceOrder)));
        ctx.add(new Member("packet_size", uint(pick(32, 64), 8, traceOrder)));
        if (random.nextBoolean()) {
            ctx.add(new Member("events_discarded", uint(pick(32, 64), 8, traceOrder)));
        }
        if (random.nextBoolean()) {
            ctx.add(new Member("packet_seq_num", uint(64, 8, traceOrder)));
        }
        ctx.add(new Member("cpu_id", uint(pick(8, 32), 8, traceOrder)));
        Collections.shuffle(ctx, random);

        int eventCount = 1 + random.nextInt(4);
        StructType header;
        if (random.nextBoolean()) {
            // LTTng: 5-bit id with compact (27-bit time) or extended (32-bit id, 64-bit time) layouts.
            EnumType idEnum = new EnumType(
                    uint(5, 1, traceOrder),
                    List.of(new EnumMapping("compact", 0, 30), new EnumMapping("extended", 31, 31)));
            VariantType v = new VariantType(
                    FieldPath.parse("id"),
                    List.of(
                            new Member("compact", new StructType(List.of(new Member("timestamp", clockInt(27, 1))), 1)),
                            new Member(
                                    "extended",
                                    new StructType(
                                            List.of(
                                                    new Member("id", uint(32, 8, traceOrder)),
                                                    new Member("timestamp", clockInt(64))),
                                            1))));
            header = new StructType(List.of(new Member("id", idEnum), new Member("v", v)), 8);
            wideTime.put(id, true);
        } else {
            // barectf: plain id and timestamp.
            int tsSize = pick(32, 64, 64);
            header = new StructType(
                    List.of(
                            new Member("id", uint(pick(8, 16, 32, 64), 8, traceOrder)),
                            new Member("timestamp", clockInt(tsSize))),
                    8);
            wideTime.put(id, tsSize == 64);
        }
        StructType eventContext = random.nextInt(3) == 0 ? struct(2, 3) : null;
        TreeMap<Long, EventClass> events = new TreeMap<>();
        long eventId = 0;
        for (int e = 0; e < eventCount; e++) {
            eventId += 1 + random.nextInt(e == eventCount - 1 ? 60 : 5);
            events.put(
                    eventId,
                    new EventClass(
                            eventId,
                            "event_" + id + "_" + eventId,
                            id,
                            random.nextInt(4) == 0 ? struct(babeltraceSafe ? 0 : 2, 2) : null,
                            random.nextInt(8) == 0 ? null : struct(3, 4),
                            random.nextBoolean() ? (long) random.nextInt(15) : null,
                            null));
        }
        return new StreamClass(id, new StructType(ctx, 1), header, eventContext, events);
    }

    // ------------------------------------------------------------------ types

    private StructType struct(int depth, int maxMembers) {
        List<Member> members = new ArrayList<>();
        int count = random.nextInt(maxMembers + 1);
        int n = 0;
        for (int i = 0; i < count; i++) {
            String name = (random.nextInt(5) == 0 ? "_f" : "f") + n++;
            int kind = ctf2 && random.nextInt(4) == 0 ? 12 + random.nextInt(4) : random.nextInt(depth > 0 ? 12 : 8);
            switch (kind) {
                case 12 -> {
                    // An optional and its boolean selector.
                    String sel = "sel" + n++;
                    int size = pick(1, 8, 8, 32);
                    members.add(new Member(
                            sel, new FieldType.BoolType(size, size == 1 ? pick(1, 8) : 8, order(size % 8 == 0))));
                    members.add(new Member(
                            name,
                            new FieldType.OptionalType(FieldPath.parse(sel), type(Math.max(0, depth - 1)), null)));
                }
                case 13 -> {
                    // An optional and its integer selector, enabled by 1 and 4 to 6.
                    String sel = "sel" + n++;
                    boolean signed = random.nextBoolean();
                    members.add(new Member(sel, intType(4 + random.nextInt(12), signed)));
                    members.add(new Member(
                            name,
                            new FieldType.OptionalType(
                                    FieldPath.parse(sel),
                                    type(Math.max(0, depth - 1)),
                                    List.of(new EnumMapping("", 1, 1), new EnumMapping("", 4, 6)))));
                }
                case 14 -> {
                    // A dynamic-length BLOB and its length.
                    String len = "len" + n++;
                    members.add(new Member(len, intType(3 + random.nextInt(14), false)));
                    members.add(
                            new Member(name, new FieldType.BlobType(0, FieldPath.parse(len), mediaType(), Set.of())));
                }
                case 15 ->
                    members.add(
                            new Member(name, new FieldType.BlobType(random.nextInt(6), null, mediaType(), Set.of())));
                case 8 -> {
                    // A variant and its tag enumeration.
                    int options = 1 + random.nextInt(3);
                    List<EnumMapping> labels = new ArrayList<>();
                    List<Member> opts = new ArrayList<>();
                    long next = 0;
                    for (int o = 0; o < options; o++) {
                        long width = random.nextInt(3);
                        labels.add(new EnumMapping("o" + o, next, next + width));
                        next += width + 1 + random.nextInt(2);
                        opts.add(new Member("o" + o, type(depth - 1)));
                    }
                    String tag = "tag" + n++;
                    members.add(new Member(tag, new EnumType(intType(4 + random.nextInt(12), false), labels)));
                    members.add(new Member(name, new VariantType(FieldPath.parse(tag), opts)));
                }
                case 9 -> {
                    // A sequence and its length.
                    String len = "len" + n++;
                    members.add(new Member(len, intType(3 + random.nextInt(14), false)));
                    FieldType element = random.nextInt(3) == 0 ? textChar() : type(depth - 1);
                    members.add(new Member(name, new SequenceType(element, FieldPath.parse(len))));
                }
                case 10 -> {
                    boolean text = random.nextInt(3) == 0;
                    FieldType element = text ? textChar() : type(depth - 1);
                    // The length of a string is in bytes: whole code units of its encoding here.
                    int unit = text ? ((IntegerType) element).encoding().unitBytes() : 1;
                    members.add(new Member(
                            name,
                            new ArrayType(element, unit * ((text && babeltraceSafe ? 1 : 0) + random.nextInt(5)))));
                }
                case 11 -> members.add(new Member(name, struct(depth - 1, 3)));
                default -> members.add(new Member(name, type(0)));
            }
        }
        return new StructType(members, pick(1, 1, 8, 32, 64));
    }

    private String mediaType() {
        return random.nextBoolean() ? FieldType.BlobType.OCTET_STREAM : "image/png";
    }

    private FieldType type(int depth) {
        if (ctf2 && random.nextInt(5) == 0) {
            // What CTF 1.8 cannot say: bit arrays and bit maps, UTF-16 and UTF-32 strings, integers past 64 bits.
            switch (random.nextInt(4)) {
                case 0 -> {
                    return bitArrayType();
                }
                case 1 -> {
                    return new StringType(wideEncoding());
                }
                case 2 -> {
                    int size = 65 + random.nextInt(100);
                    int align = pick(1, 8, 8, 32);
                    return new IntegerType(
                            size,
                            align,
                            random.nextBoolean(),
                            order(align >= 8 && size % 8 == 0),
                            pick(2, 8, 10, 10, 16),
                            Encoding.NONE,
                            null);
                }
                default -> {}
            }
        }
        if (ctf2 && random.nextInt(6) == 0) {
            boolean signed = random.nextBoolean();
            List<EnumMapping> m = random.nextBoolean()
                    ? List.of()
                    : List.of(new EnumMapping("SMALL", 0, 127), new EnumMapping("l1", 128, 16383));
            return new FieldType.VarIntType(signed, pick(2, 8, 10, 10, 16), m, Set.of());
        }
        int kind = random.nextInt(depth > 0 ? 6 : 5);
        return switch (kind) {
            case 0, 1 -> intType(1 + random.nextInt(64), random.nextBoolean());
            case 2 -> {
                boolean single = random.nextBoolean();
                yield new FloatType(single ? 8 : 11, single ? 24 : 53, pick(8, 32, 64), order(true));
            }
            case 3 -> new StringType(Encoding.UTF8);
            case 4 -> {
                IntegerType container = intType(5 + random.nextInt(60), random.nextBoolean());
                List<EnumMapping> m = new ArrayList<>();
                long lo = container.signed() ? -1 : 0;
                int labels = 1 + random.nextInt(3);
                for (int i = 0; i < labels; i++) {
                    long hi = lo + random.nextInt(3);
                    m.add(new EnumMapping(i == 0 ? "LABEL" : "l" + i, lo, hi));
                    lo = hi + 1;
                }
                yield new EnumType(container, m);
            }
            default -> struct(depth - 1, 3);
        };
    }

    /** An integer of any width and alignment; only byte-aligned whole bytes may differ from the trace byte order. */
    private IntegerType intType(int size, boolean signed) {
        int align = pick(1, 1, 2, 8, 8, 16, 32, 64);
        boolean wholeBytes = align >= 8 && size % 8 == 0;
        int base = pick(2, 8, 10, 10, 16);
        if (babeltraceSafe && base == 16 && size > 60 && size < 64) {
            base = 10;
        }
        return new IntegerType(size, align, signed, order(wholeBytes), base, Encoding.NONE, null);
    }

    private FieldType textChar() {
        Encoding e = ctf2 && random.nextInt(3) == 0 ? wideEncoding() : Encoding.UTF8;
        return new IntegerType(8, 8, false, traceOrder, 10, e, null);
    }

    private Encoding wideEncoding() {
        return List.of(Encoding.UTF16BE, Encoding.UTF16LE, Encoding.UTF32BE, Encoding.UTF32LE)
                .get(random.nextInt(4));
    }

    /** A bit array of 1 to 64 bits, or a bit map with one to three flags of one or two ranges each. */
    private FieldType.BitArrayType bitArrayType() {
        int size = 1 + random.nextInt(64);
        int align = pick(1, 1, 8, 32);
        List<FieldType.BitFlag> flags = new ArrayList<>();
        if (random.nextBoolean()) {
            int count = 1 + random.nextInt(3);
            for (int f = 0; f < count; f++) {
                int ranges = 1 + random.nextInt(2);
                for (int r = 0; r < ranges; r++) {
                    int lo = random.nextInt(size);
                    flags.add(new FieldType.BitFlag("F" + f, lo, lo + random.nextInt(size - lo)));
                }
            }
        }
        return new FieldType.BitArrayType(size, align, order(align >= 8 && size % 8 == 0), flags);
    }

    private ByteOrder order(boolean mayDiffer) {
        if (!mayDiffer || random.nextInt(3) > 0) {
            return traceOrder;
        }
        return traceOrder == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    }

    private IntegerType uint(int size, int align, ByteOrder order) {
        return new IntegerType(size, align, false, order, 10, Encoding.NONE, null);
    }

    private IntegerType clockInt(int size) {
        return clockInt(size, 8);
    }

    private IntegerType clockInt(int size, int align) {
        return new IntegerType(size, align, false, traceOrder, 10, Encoding.NONE, CLOCK);
    }

    // ------------------------------------------------------------------ values

    /** A value of {@code type}, in the shapes {@link dev.hetrace.ctf.decode.FieldValues} reads back. */
    Object value(FieldType type) {
        return switch (type) {
            case IntegerType it
            when it.size() > 64 -> {
                BigInteger v = new BigInteger(it.size(), random);
                if (random.nextInt(6) == 0) {
                    v = BigInteger.ONE.shiftLeft(it.size()).subtract(BigInteger.ONE); // extreme
                }
                yield it.signed() ? v.subtract(BigInteger.ONE.shiftLeft(it.size() - 1)) : v;
            }
            case IntegerType it -> intValue(it);
            case FieldType.BitArrayType ba ->
                intValue(new IntegerType(ba.size(), ba.alignment(), false, ba.byteOrder(), 16, Encoding.NONE, null));
            case EnumType et -> {
                if (random.nextInt(4) == 0) {
                    yield intValue(et.container());
                }
                EnumMapping m = et.mappings().get(random.nextInt(et.mappings().size()));
                yield m.low() + (m.high() == m.low() ? 0 : random.nextInt((int) (m.high() - m.low() + 1)));
            }
            case FloatType ft ->
                ft.size() == 32
                        ? (double) (float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 10))
                        : (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(40) - 20);
            case StringType st
            when st.encoding().unitBytes() > 1 ->
                wideText(st.encoding(), st.encoding().unitBytes() * random.nextInt(12));
            case StringType st -> text((babeltraceSafe ? 1 : 0) + random.nextInt(12));
            case StructType st -> structValue(st);
            // Any width of value: from one byte of LEB128 to ten.
            case FieldType.VarIntType vt ->
                vt.signed() ? random.nextLong() >> random.nextInt(64) : random.nextLong() >>> random.nextInt(64);
            case FieldType.BoolType bt -> random.nextBoolean();
            case ArrayType at -> {
                if (isText(at.element())
                        && ((IntegerType) at.element()).encoding().unitBytes() > 1) {
                    Encoding e = ((IntegerType) at.element()).encoding();
                    yield wideText(e, e.unitBytes() * random.nextInt((int) at.length() / e.unitBytes() + 1));
                }
                if (isText(at.element())) {
                    int min = babeltraceSafe ? 1 : 0;
                    yield text(min + random.nextInt((int) at.length() + 1 - min));
                }
                List<Object> list = new ArrayList<>();
                for (long i = 0; i < at.length(); i++) {
                    list.add(value(at.element()));
                }
                yield list;
            }
            case FieldType.BlobType bt when bt.lengthField() == null -> bytes((int) bt.length());
            case FieldType.BlobType bt -> throw new IllegalStateException("dynamic BLOBs are made with their length");
            case FieldType.OptionalType ot -> throw new IllegalStateException("optionals are made with their selector");
            case SequenceType sq -> throw new IllegalStateException("sequences are made with their length");
            case VariantType vt -> throw new IllegalStateException("variants are made with their tag");
        };
    }

    private Map<String, Object> structValue(StructType st) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < st.members().size(); i++) {
            Member m = st.members().get(i);
            switch (m.type()) {
                case SequenceType sq -> {
                    IntegerType lenType =
                            (IntegerType) st.member(sq.length().toString()).type();
                    if (isText(sq.element())
                            && ((IntegerType) sq.element()).encoding().unitBytes() > 1) {
                        Encoding e = ((IntegerType) sq.element()).encoding();
                        int maxUnits = (int) Math.min(16, (1L << lenType.size()) - 1) / e.unitBytes();
                        int bytes = e.unitBytes() * random.nextInt(maxUnits + 1);
                        map.put(sq.length().toString(), (long) bytes);
                        map.put(m.name(), wideText(e, bytes));
                        continue;
                    }
                    int max = (int) Math.min(4, (1L << lenType.size()) - 1);
                    int min = babeltraceSafe && isText(sq.element()) ? 1 : 0;
                    int count = min + random.nextInt(max + 1 - min);
                    map.put(sq.length().toString(), (long) count);
                    if (isText(sq.element())) {
                        map.put(m.name(), text(count));
                    } else {
                        List<Object> list = new ArrayList<>();
                        for (int k = 0; k < count; k++) {
                            list.add(value(sq.element()));
                        }
                        map.put(m.name(), list);
                    }
                }
                case FieldType.OptionalType ot -> {
                    boolean enabled = random.nextBoolean();
                    Object selector;
                    if (ot.selectorRanges() == null) {
                        selector = enabled;
                    } else {
                        selector = enabled ? pickLong(1, 4, 5, 6) : pickLong(0, 2, 3, 7);
                    }
                    map.put(ot.selector().toString(), selector);
                    map.put(m.name(), enabled ? value(ot.content()) : null);
                }
                case FieldType.BlobType bt
                when bt.lengthField() != null -> {
                    IntegerType lenType =
                            (IntegerType) st.member(bt.lengthField().toString()).type();
                    int count = random.nextInt((int) Math.min(6, (1L << lenType.size()) - 1) + 1);
                    map.put(bt.lengthField().toString(), (long) count);
                    map.put(m.name(), bytes(count));
                }
                case VariantType vt -> {
                    EnumType tag = (EnumType) st.member(vt.tag().toString()).type();
                    int option = random.nextInt(vt.options().size());
                    EnumMapping label = tag.mappings().get(option);
                    map.put(vt.tag().toString(), label.low() + random.nextInt((int) (label.high() - label.low() + 1)));
                    map.put(
                            m.name(),
                            new Choice(
                                    vt.options().get(option).name(),
                                    value(vt.options().get(option).type())));
                }
                default -> {
                    if (!map.containsKey(m.name())) {
                        map.put(m.name(), value(m.type()));
                    }
                }
            }
        }
        // Members were put in the order lengths and tags were decided; restore declaration order.
        Map<String, Object> ordered = new LinkedHashMap<>();
        for (Member m : st.members()) {
            ordered.put(m.name(), map.get(m.name()));
        }
        return ordered;
    }

    private long intValue(IntegerType it) {
        int size = it.size();
        long v = random.nextInt(4) == 0 ? random.nextLong() : random.nextInt(100) - (it.signed() ? 50 : 0);
        if (random.nextInt(6) == 0) {
            v = it.signed() ? -(1L << (size - 1)) : -1L; // extremes
        }
        if (size == 64) {
            return v;
        }
        if (it.signed()) {
            return (v << (64 - size)) >> (64 - size);
        }
        return v & ((1L << size) - 1);
    }

    /** The bytes of a BLOB, as {@link dev.hetrace.ctf.decode.FieldValues} reads them back: unsigned. */
    private List<Object> bytes(int count) {
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add((long) random.nextInt(256));
        }
        return list;
    }

    private static boolean isText(FieldType t) {
        return t instanceof IntegerType it && it.encoding() != Encoding.NONE && it.size() == 8;
    }

    private String text(int length) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < length; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }

    /**
     * Text of exactly {@code bytes} bytes in {@code e} (a multiple of its code unit), without
     * NUL: letters, accented letters and, where room is left, characters outside the BMP (a
     * surrogate pair in UTF-16).
     */
    private String wideText(Encoding e, int bytes) {
        StringBuilder b = new StringBuilder();
        int left = bytes;
        while (left > 0) {
            if (left >= 4 && random.nextInt(4) == 0) {
                b.appendCodePoint(0x1F600 + random.nextInt(64));
                left -= 4;
            } else {
                b.append(random.nextBoolean() ? (char) ('a' + random.nextInt(26)) : (char) (0xE0 + random.nextInt(32)));
                left -= e.unitBytes();
            }
        }
        return b.toString();
    }

    private int pick(int... choices) {
        return choices[random.nextInt(choices.length)];
    }

    private long pickLong(long... choices) {
        return choices[random.nextInt(choices.length)];
    }

    Random random() {
        return random;
    }
}
