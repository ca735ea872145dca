package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.decode.PlanReferences.Located;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.EventPlanRun;
import dev.hetrace.ctf.decode.TracePlan.Scope;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlanRun;
import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.EventClassRun;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BlobType;
import dev.hetrace.ctf.metadata.FieldType.BoolType;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.OptionalType;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.MemberList;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.ctf.metadata.StreamClassRun;
import dev.hetrace.ctf.metadata.StructChain;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.text.TerminalText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Compiles a {@link TraceClass} into its {@link TracePlan}: every scope of every stream and
 * event class into a tree of {@link Node}s. References (tags, lengths, selectors) are resolved
 * by {@link PlanReferences}; roles, clocks and places are set by {@link PlanRoles}.
 */
final class PlanCompiler {
    private final TraceClass trace;
    private final List<ClockClass> clocks;
    /** Chains of nested structs at least this deep become CHAIN nodes; shallower ones, nested STRUCT nodes. */
    private int chainMinLevels;

    private long deepestChain;
    /** CTF 2 metadata says roles and clocks explicitly and names fields as they are shown. */
    private final boolean ctf2;

    private final PlanReferences refs;

    PlanCompiler(TraceClass trace, int chainMinLevels) {
        this.trace = trace;
        this.clocks = new ArrayList<>(trace.clocks().values());
        this.ctf2 = trace.major() == 2;
        this.chainMinLevels = chainMinLevels;
        this.refs = new PlanReferences(ctf2);
    }

    TracePlan compile() throws MetadataException {
        Node header = compileScope(Scope.PACKET_HEADER, trace.packetHeader());
        PlanRoles.place(trace, header, Scope.PACKET_HEADER, 0, 0);
        PlanRoles.forEachInt(header, n -> {
            if (n.clock >= 0) {
                throw new MetadataException("trace.packet.header may not hold fields mapped to a clock");
            }
        });
        TracePlan plan = new TracePlan(trace, clocks, header);
        for (StreamClass sc : trace.streams().values()) {
            plan.streams.put(sc.id(), compileStream(sc));
        }
        for (StreamClassRun run : trace.streamRuns()) {
            plan.streamRuns.add(new StreamPlanRun(run, compileStream(run.get(run.firstId()))));
        }
        Visibility.apply(plan);
        plan.registerCount = refs.registers();
        plan.deepestChain = deepestChain;
        return plan;
    }

    private StreamPlan compileStream(StreamClass sc) throws MetadataException {
        StreamPlan sp = new StreamPlan(sc);
        refs.clearRootsFrom(Scope.PACKET_CONTEXT);
        sp.packetContext = compileScope(Scope.PACKET_CONTEXT, sc.packetContext());
        sp.eventHeader = compileScope(Scope.EVENT_HEADER, sc.eventHeader());
        sp.eventContext = compileScope(Scope.EVENT_CONTEXT, sc.eventContext());
        PlanRoles.place(trace, sp.packetContext, Scope.PACKET_CONTEXT, sc.id(), 0);
        PlanRoles.place(trace, sp.eventHeader, Scope.EVENT_HEADER, sc.id(), 0);
        PlanRoles.place(trace, sp.eventContext, Scope.EVENT_CONTEXT, sc.id(), 0);
        long maxId = -1;
        for (EventClass ec : sc.events().values()) {
            sp.events.put(ec.id(), compileEvent(ec, sp));
            maxId = Math.max(maxId, ec.id());
        }
        for (EventClassRun run : sc.eventRuns()) {
            sp.eventRuns.add(new EventPlanRun(run, compileEvent(run.get(0), sp)));
        }
        if (maxId < 65536) {
            sp.eventsById = new EventPlan[(int) maxId + 1];
            for (EventPlan ep : sp.events.values()) {
                sp.eventsById[(int) ep.cls.id()] = ep;
            }
        }
        PlanRoles.autoMapClock(sp.packetContext, Set.of("timestamp_begin", "timestamp_end"), ctf2, clocks);
        PlanRoles.autoMapClock(sp.eventHeader, Set.of("timestamp"), ctf2, clocks);
        sp.defaultClock = PlanRoles.defaultClock(sp, clocks);
        return sp;
    }

    private EventPlan compileEvent(EventClass ec, StreamPlan sp) throws MetadataException {
        refs.clearRootsFrom(Scope.EVENT_SPECIFIC_CONTEXT);
        EventPlan ep = new EventPlan(ec, sp);
        ep.context = compileScope(Scope.EVENT_SPECIFIC_CONTEXT, ec.context());
        ep.payload = compileScope(Scope.EVENT_PAYLOAD, ec.payload());
        PlanRoles.place(trace, ep.context, Scope.EVENT_SPECIFIC_CONTEXT, ec.streamId(), ec.id());
        PlanRoles.place(trace, ep.payload, Scope.EVENT_PAYLOAD, ec.streamId(), ec.id());
        return ep;
    }

    private Node compileScope(Scope scope, StructType type) throws MetadataException {
        if (type == null) {
            return null;
        }
        refs.beginScope(scope);
        Node root = compile(type, null, 0);
        refs.setRoot(scope, root);
        PlanRoles.assignRoles(scope, root, ctf2);
        return root;
    }

    private Node compile(FieldType type, Node parentStruct, int depth) throws MetadataException {
        if (depth > TracePlan.MAX_NESTING) {
            throw new MetadataException("field types are nested more than " + TracePlan.MAX_NESTING + " levels deep");
        }
        return switch (type) {
            case IntegerType it -> integer(it, type);
            case EnumType et -> {
                Node n = integer(et.container(), type);
                n.enumTable = EnumTable.of(et);
                yield n;
            }
            case FloatType ft -> bits(Node.FLOAT, type, ft.alignment(), ft.size(), ft.byteOrder());
            case StringType st -> {
                Node n = new Node(Node.STRING, type, 8);
                n.charset = st.encoding() == FieldType.Encoding.ASCII ? FieldType.Encoding.UTF8 : st.encoding();
                n.minBits = 8L * n.charset.unitBytes();
                yield n;
            }
            case FieldType.BitArrayType ba -> bitArray(ba);
            case StructType st
            when st.members() instanceof StructChain chain && chain.levels() >= chainMinLevels ->
                chain(st, chain, parentStruct, depth);
            case StructType st -> {
                Node n = new Node(Node.STRUCT, type, st.alignment());
                MemberList ml = st.members() instanceof MemberList x ? x : null;
                int count = ml != null ? ml.entryCount() : st.members().size();
                n.children = new Node[count];
                n.rawNames = new String[count];
                n.names = new String[count];
                n.nameEquals = new byte[count][];
                int[] done = {0};
                refs.pushFrame(n, done);
                try {
                    long min = 0;
                    for (int i = 0; i < count; i++) {
                        var m = ml != null ? ml.entryMember(i) : st.members().get(i);
                        n.rawNames[i] = m.name();
                        n.names[i] = shown(m.name());
                        n.nameEquals[i] = (TerminalText.controls(n.names[i]) + " = ").getBytes(StandardCharsets.UTF_8);
                        if (ml != null && ml.isRun(i) && ml.entrySize(i) > 1) {
                            n.children[i] = run(ml, i, compile(m.type(), n, depth + 1));
                        } else {
                            n.children[i] = compile(m.type(), n, depth + 1);
                            n.children[i].source = m;
                        }
                        min += n.children[i].minBits;
                        done[0] = i + 1;
                    }
                    n.minBits = min;
                } finally {
                    refs.popFrame();
                }
                yield n;
            }
            case VariantType vt -> variant(vt, depth);
            case OptionalType ot -> optional(ot, parentStruct, depth);
            case BlobType bt -> blob(bt);
            case BoolType bt -> bits(Node.BOOL, type, bt.alignment(), bt.size(), bt.byteOrder());
            case VarIntType vt -> {
                Node n = new Node(Node.VARINT, type, 8);
                n.signed = vt.signed();
                n.base = vt.base();
                n.size = 64; // the width of its value, for display
                n.minBits = 8;
                if (!vt.mappings().isEmpty()) {
                    n.enumTable = EnumTable.of(new EnumType(
                            new IntegerType(
                                    64,
                                    8,
                                    vt.signed(),
                                    ByteOrder.LITTLE_ENDIAN,
                                    vt.base(),
                                    FieldType.Encoding.NONE,
                                    null),
                            vt.mappings()));
                }
                yield n;
            }
            case ArrayType at -> {
                Node elem = compile(at.element(), parentStruct, depth + 1);
                Node n = new Node(packable(elem) ? Node.PACKED_ARRAY : Node.ARRAY, type, elem.align);
                n.children = new Node[] {elem};
                n.length = at.length();
                n.size = elem.size;
                n.text = isText(at.element(), elem);
                n.charset = charset(at.element());
                n.minBits = saturatingMultiply(at.length(), elem.minBits);
                yield n;
            }
            case SequenceType sq -> {
                Located length = refs.locate(sq.length(), sq.lengthField(), "sequence length");
                for (Node target : length.targets()) {
                    IntegerType lt = target.type instanceof EnumType e
                            ? e.container()
                            : target.type instanceof IntegerType i ? i : null;
                    boolean unsignedVarInt = target.type instanceof VarIntType vi && !vi.signed();
                    if ((lt == null || lt.signed()) && !unsignedVarInt) {
                        throw new MetadataException(
                                "sequence length '" + sq.length() + "' must be an unsigned integer" + " field");
                    }
                }
                Node elem = compile(sq.element(), parentStruct, depth + 1);
                Node n = new Node(packable(elem) ? Node.PACKED_SEQUENCE : Node.SEQUENCE, type, elem.align);
                n.children = new Node[] {elem};
                n.sourceRegister = refs.registerOf(length, n);
                n.size = elem.size;
                n.text = isText(sq.element(), elem);
                n.charset = charset(sq.element());
                yield n;
            }
        };
    }

    /** A node of {@code size} bits read as they are (a float, a boolean). */
    private static Node bits(int kind, FieldType type, int alignment, int size, ByteOrder order) {
        Node n = new Node(kind, type, alignment);
        n.size = size;
        n.bigEndian = order == ByteOrder.BIG_ENDIAN;
        n.minBits = size;
        return n;
    }

    /**
     * Nested structs of one shape (a {@link StructChain}) as one CHAIN node: the struct of
     * its innermost level, compiled as any struct, stands for every level. Its members
     * other than the core must take a fixed number of tape slots and be no tag or length
     * (one node serves every level); otherwise the chain is compiled as the nested structs
     * it stands for, when it is not too deep.
     */
    private Node chain(StructType st, StructChain chain, Node parentStruct, int depth) throws MetadataException {
        Node level = compile(chain.level(1), parentStruct, depth + 1);
        int h = chain.holeIndex();
        long before = 0;
        long after = 0;
        boolean ok = true;
        for (int i = 0; i < level.children.length && ok; i++) {
            if (i == h) {
                continue;
            }
            long slots = Tape.fixedSpan(level.children[i]);
            ok = slots >= 0 && !usedByReference(level.children[i]);
            if (i < h) {
                before += slots;
            } else {
                after += slots;
            }
        }
        if (!ok || (before + after > 0 && chain.levels() > Integer.MAX_VALUE / (before + after))) {
            if (chain.levels() > 10_000) {
                throw new MetadataException("structs nested " + chain.levels() + " levels deep whose members are"
                        + " of variable size or tags or lengths are not supported");
            }
            int saved = chainMinLevels;
            chainMinLevels = Integer.MAX_VALUE;
            try {
                return compile(st, parentStruct, depth);
            } finally {
                chainMinLevels = saved;
            }
        }
        Node n = new Node(Node.CHAIN, st, st.alignment());
        deepestChain = Math.max(deepestChain, chain.levels());
        n.children = new Node[] {level};
        n.length = chain.levels();
        n.chainHole = h;
        n.chainBeforeSlots = (int) before;
        n.chainAfterSlots = (int) after;
        n.runPrefix = chain.prefix();
        n.runDisplayPrefix = shown(chain.prefix()).getBytes(StandardCharsets.UTF_8);
        n.runFirst = chain.first();
        long perLevel = level.minBits - level.children[h].minBits;
        long total = saturatingMultiply(chain.levels() - 1, perLevel) + level.minBits;
        n.minBits = total < 0 ? Long.MAX_VALUE : total;
        return n;
    }

    /** Whether a tag or length refers to {@code n} or a field in it. */
    private static boolean usedByReference(Node n) {
        if (n.referenced || n.register >= 0) {
            return true;
        }
        for (Node c : n.children) {
            if (usedByReference(c)) {
                return true;
            }
        }
        return false;
    }

    /** A run of struct members of one type: decoded as an array, shown as members. */
    private Node run(MemberList ml, int entry, Node elem) {
        Node r = new Node(packable(elem) ? Node.PACKED_RUN : Node.RUN, elem.type, elem.align);
        r.children = new Node[] {elem};
        r.length = ml.entrySize(entry);
        r.size = elem.size;
        r.runPrefix = ml.runPrefix(entry);
        r.runDisplayPrefix = shown(r.runPrefix).getBytes(StandardCharsets.UTF_8);
        r.runFirst = ml.runFirst(entry);
        r.minBits = saturatingMultiply(r.length, elem.minBits);
        return r;
    }

    private static long saturatingMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return (hi != 0 || lo < 0) ? Long.MAX_VALUE : lo;
    }

    /** The encoding of the text of an array or sequence of {@code elementType} (UTF-8 when it is no text). */
    private static FieldType.Encoding charset(FieldType elementType) {
        return elementType instanceof IntegerType it && it.encoding().unitBytes() > 1
                ? it.encoding()
                : FieldType.Encoding.UTF8;
    }

    /**
     * A CTF 2 bit array: an unsigned integer shown in hexadecimal, as babeltrace2 shows bit
     * arrays; a bit map also keeps the mask of each flag, to name the flags a value sets.
     */
    private static Node bitArray(FieldType.BitArrayType ba) {
        Node n = bits(Node.INT, ba, ba.alignment(), ba.size(), ba.byteOrder());
        n.base = 16;
        if (!ba.flags().isEmpty()) {
            List<String> names = new ArrayList<>();
            List<Long> masks = new ArrayList<>();
            for (FieldType.BitFlag f : ba.flags()) {
                int i = names.indexOf(f.name());
                if (i < 0) {
                    names.add(f.name());
                    masks.add(0L);
                    i = names.size() - 1;
                }
                long mask = masks.get(i);
                for (long b = f.lowBit(); b <= f.highBit() && b < ba.size(); b++) {
                    mask |= 1L << b;
                }
                masks.set(i, mask);
            }
            n.flagNames = names.toArray(String[]::new);
            n.flagMasks = masks.stream().mapToLong(Long::longValue).toArray();
        }
        return n;
    }

    private static boolean isText(FieldType elementType, Node elem) {
        return elementType instanceof IntegerType it
                && it.size() == 8
                && it.alignment() == 8
                && it.encoding() != FieldType.Encoding.NONE
                && elem.kind == Node.INT;
    }

    /** Scalars whose successive elements are adjacent: element i is at start + i * size. */
    private static boolean packable(Node elem) {
        return (elem.kind == Node.INT || elem.kind == Node.FLOAT)
                && elem.size % elem.align == 0
                && elem.register < 0
                && elem.clock < 0;
    }

    private String shown(String raw) {
        return TracePlan.shownName(trace, raw);
    }

    private Node integer(IntegerType it, FieldType type) throws MetadataException {
        Node n = new Node(it.size() > 64 ? Node.BIG_INT : Node.INT, type, it.alignment());
        n.size = it.size();
        n.signed = it.signed();
        n.bigEndian = it.byteOrder() == ByteOrder.BIG_ENDIAN;
        n.minBits = it.size();
        n.base = it.base();
        if (it.mappedClock() != null) {
            n.clock = clockIndexOf(it.mappedClock());
        }
        return n;
    }

    private int clockIndexOf(String name) throws MetadataException {
        for (int i = 0; i < clocks.size(); i++) {
            if (clocks.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new MetadataException("integer is mapped to undeclared clock '" + name + "'");
    }

    private Node variant(VariantType vt, int depth) throws MetadataException {
        if (vt.tag() == null) {
            throw new MetadataException("variant has no tag");
        }
        Located tag = refs.locate(vt.tag(), vt.tagField(), "variant tag");
        Node target = tag.targets().getFirst();
        EnumType tagType = target.type instanceof EnumType et ? et : null;
        boolean tagSigned;
        if (vt.optionRanges() != null) {
            tagSigned = switch (target.type) {
                case EnumType et -> et.container().signed();
                case IntegerType it -> it.signed();
                case VarIntType vi -> vi.signed();
                default -> throw new MetadataException("variant selector '" + vt.tag() + "' must be an integer field");
            };
        } else if (tagType == null) {
            throw new MetadataException("variant tag '" + vt.tag() + "' must be an enumeration field");
        } else {
            tagSigned = tagType.container().signed();
        }
        Node n = new Node(Node.VARIANT, vt, 1);
        MemberList options = vt.options() instanceof MemberList x ? x : new MemberList(vt.options());
        int count = options.entryCount();
        n.children = new Node[count];
        n.rawNames = new String[count];
        n.names = new String[count];
        n.tagSigned = tagSigned;
        n.sourceRegister = refs.registerOf(tag, n);
        if (count != options.size()) {
            n.entryStart = new int[count];
            n.runPrefixes = new String[count];
            n.runFirsts = new long[count];
        }
        long min = Long.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            var option = options.entryMember(i);
            n.rawNames[i] = option.name();
            n.names[i] = shown(option.name());
            n.children[i] = compile(option.type(), null, depth + 1);
            if (n.entryStart != null) {
                n.entryStart[i] = options.entryStart(i);
                if (options.isRun(i)) {
                    n.runPrefixes[i] = options.runPrefix(i);
                    n.runFirsts[i] = options.runFirst(i);
                }
            }
            min = Math.min(min, n.children[i].minBits);
        }
        if (vt.optionRanges() != null) {
            n.selector = VariantSelector.ofRanges(tagSigned, vt.optionRanges());
        } else {
            EnumTable tags = target.enumTable != null ? target.enumTable : EnumTable.of(tagType);
            n.selector = VariantSelector.of(tags, options);
        }
        if (n.selector.isEmpty()) {
            throw new MetadataException(
                    "no option of the variant tagged by '" + vt.tag() + "' is named by a label of the tag");
        }
        n.minBits = count == 0 ? 0 : min;
        return n;
    }

    private Node optional(OptionalType ot, Node parentStruct, int depth) throws MetadataException {
        Located selector = refs.locate(ot.selector(), null, "optional selector");
        boolean bool = false;
        boolean signed = false;
        for (Node target : selector.targets()) {
            switch (target.type) {
                case FieldType.BoolType bt -> bool = true;
                case EnumType et -> signed = et.container().signed();
                case IntegerType it -> signed = it.signed();
                case VarIntType vi -> signed = vi.signed();
                default ->
                    throw new MetadataException(
                            "optional selector '" + ot.selector() + "' must be a boolean" + " or an integer field");
            }
        }
        if (bool != (ot.selectorRanges() == null)) {
            throw new MetadataException("optional selector '" + ot.selector() + "' must be "
                    + (bool
                            ? "an integer field: the optional has selector ranges"
                            : "a boolean field: the optional has no" + " selector ranges"));
        }
        Node content = compile(ot.content(), parentStruct, depth + 1);
        Node n = new Node(Node.OPTIONAL, ot, 1);
        n.children = new Node[] {content};
        n.tagSigned = signed;
        if (!bool) {
            List<EnumMapping> ranges = ot.selectorRanges();
            n.optionalRanges = new long[ranges.size() * 2];
            for (int i = 0; i < ranges.size(); i++) {
                n.optionalRanges[2 * i] = ranges.get(i).low();
                n.optionalRanges[2 * i + 1] = ranges.get(i).high();
            }
        }
        n.sourceRegister = refs.registerOf(selector, n);
        n.minBits = 0;
        return n;
    }

    /** A BLOB: a packed array or sequence of bytes, shown as bytes. */
    private Node blob(BlobType bt) throws MetadataException {
        IntegerType byteType = new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 16, FieldType.Encoding.NONE, null);
        Node elem = integer(byteType, byteType);
        Node n = new Node(bt.lengthField() == null ? Node.PACKED_ARRAY : Node.PACKED_SEQUENCE, bt, 8);
        n.children = new Node[] {elem};
        n.size = 8;
        n.blob = true;
        n.mediaType = bt.mediaType();
        if (bt.lengthField() == null) {
            n.length = bt.length();
            n.minBits = saturatingMultiply(bt.length(), 8);
        } else {
            Located length = refs.locate(bt.lengthField(), null, "BLOB length");
            for (Node target : length.targets()) {
                boolean unsigned = switch (target.type) {
                    case EnumType et -> !et.container().signed();
                    case IntegerType it -> !it.signed();
                    case VarIntType vi -> !vi.signed();
                    default -> false;
                };
                if (!unsigned) {
                    throw new MetadataException(
                            "BLOB length '" + bt.lengthField() + "' must be an unsigned integer" + " field");
                }
            }
            n.sourceRegister = refs.registerOf(length, n);
        }
        return n;
    }
}
