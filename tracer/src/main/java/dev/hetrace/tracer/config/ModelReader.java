package dev.hetrace.tracer.config;

import static dev.hetrace.tracer.config.V2Converter.with;

import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.tracer.config.Configuration.ByteOrder;
import dev.hetrace.tracer.config.Configuration.ClockType;
import dev.hetrace.tracer.config.Configuration.CodeGenerationOptions;
import dev.hetrace.tracer.config.Configuration.DataStreamType;
import dev.hetrace.tracer.config.Configuration.EventRecordFeatures;
import dev.hetrace.tracer.config.Configuration.EventRecordType;
import dev.hetrace.tracer.config.Configuration.PacketFeatures;
import dev.hetrace.tracer.config.Configuration.Trace;
import dev.hetrace.tracer.config.Configuration.TraceType;
import dev.hetrace.tracer.config.Configuration.TraceTypeFeatures;
import dev.hetrace.tracer.config.FieldType.DisplayBase;
import dev.hetrace.tracer.config.FieldType.DynamicArrayType;
import dev.hetrace.tracer.config.FieldType.EnumerationType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.Mapping;
import dev.hetrace.tracer.config.FieldType.Member;
import dev.hetrace.tracer.config.FieldType.Range;
import dev.hetrace.tracer.config.FieldType.RealType;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Builds the {@link Configuration} of a barectf configuration that {@link ConfigReader} has
 * included, expanded, validated and normalized, making the checks barectf makes while building
 * its model (names, alignments, clock and feature references) and applying barectf's defaults.
 */
final class ModelReader {
    private static final List<Object> TRACE_TYPE = List.of("trace", "type");
    private static final Set<String> CTF_KEYWORDS = Set.of(
            "align",
            "callsite",
            "clock",
            "enum",
            "env",
            "event",
            "floating_point",
            "integer",
            "stream",
            "string",
            "struct",
            "trace",
            "typealias",
            "typedef",
            "variant");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final MapNode config;
    private final Map<String, ClockType> clockTypes = new HashMap<>();

    ModelReader(MapNode config) {
        this.config = config;
    }

    private MapNode traceType() {
        return (MapNode) ((MapNode) config.get("trace")).get("type");
    }

    static ConfigException error(YamlNode at, List<Object> path, String message) {
        return new ConfigException(at.mark(), ConfigPaths.format(path), message);
    }

    /**
     * A C type name as a clock's {@code $c-type} may be: words (identifiers, {@code struct NAME},
     * {@code unsigned long}...) and pointer stars, with their qualifiers. Nothing else reaches the
     * generated C: no {@code ;}, braces, parentheses, comments, newlines or directives.
     */
    private static final Pattern C_TYPE = Pattern.compile(
            "[ \\t]*[A-Za-z_][A-Za-z0-9_]*(?:[ \\t]+[A-Za-z_][A-Za-z0-9_]*)*(?:[ \\t]*\\*(?:[ \\t]*(?:const|volatile|restrict)\\b)?)*[ \\t]*");

    private static final Pattern IDENTIFIER_PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern FILE_PREFIX = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

    private static void checkPrefix(YamlNode at, String value, List<Object> path, Pattern valid, String what)
            throws ConfigException {
        if (value != null && !valid.matcher(value).matches()) {
            throw error(at, path, "not " + what + ": `" + TerminalText.escape(value) + "`");
        }
    }

    private static void validateIdentifier(String name, YamlNode at, List<Object> path, String what)
            throws ConfigException {
        if (CTF_KEYWORDS.contains(name)) {
            throw error(at, path, "invalid " + what + " (a CTF keyword is not a valid identifier): `" + name + "`");
        }
        // A deliberate difference from barectf 3.1.1: its schema leaves structure member names
        // unchecked (a pattern without `additionalProperties: false`), and it then writes
        // metadata and C that nothing can parse or compile.
        if (!IDENTIFIER.matcher(name).matches()) {
            throw error(at, path, "invalid " + what + " (not a C identifier): `" + name + "`");
        }
    }

    private static <T extends YamlNode> T required(MapNode n, String key, List<Object> path, Class<T> type)
            throws ConfigException {
        YamlNode v = n.get(key);
        if (!type.isInstance(v)) {
            throw error(n, path, "missing required property `" + key + "`");
        }
        return type.cast(v);
    }

    /** An integer the schema accepted; barectf's Python integers are unbounded, ours stop at 2^63 - 1. */
    private static long longValue(YamlNode n, List<Object> path) throws ConfigException {
        BigInteger v = (BigInteger) ((Scalar) n).value();
        if (v.bitLength() > 63) {
            throw error(n, path, "value too large: " + v + " (at most " + Long.MAX_VALUE + ")");
        }
        return v.longValue();
    }

    private static String string(YamlNode n) {
        return (String) ((Scalar) n).value();
    }

    private static int alignment(MapNode ft, String key, int dflt, List<Object> path) throws ConfigException {
        YamlNode a = ft.get(key);
        if (a == null) {
            return dflt;
        }
        long v = longValue(a, with(path, key));
        if ((v & (v - 1)) != 0) {
            throw error(a, with(path, key), "invalid alignment (not a power of two): " + v);
        }
        if (v > 1 << 30) {
            throw error(a, with(path, key), "alignment too large: " + v + " bits (at most 2^30)");
        }
        return (int) v;
    }

    /** A field type node; a dynamic array yields its length member type first, as in barectf. */
    private List<FieldType> createFts(MapNode ft, List<Object> path) throws ConfigException {
        String cls = string(ft.get("class"));
        switch (cls) {
            case "unsigned-integer", "signed-integer" -> {
                return List.of(createInt(ft, cls.startsWith("signed"), path));
            }
            case "unsigned-enumeration", "signed-enumeration" -> {
                IntegerType it = createInt(ft, cls.startsWith("signed"), path);
                List<Mapping> mappings = new ArrayList<>();
                // barectf's schema lets `mappings` be null (then absent), and barectf fails with a KeyError
                for (Map.Entry<String, YamlNode> m :
                        required(ft, "mappings", path, MapNode.class).entries().entrySet()) {
                    Set<Range> ranges = new LinkedHashSet<>();
                    for (YamlNode r : ((ListNode) m.getValue()).items()) {
                        if (r instanceof ListNode pair) {
                            ranges.add(new Range(
                                    (BigInteger) ((Scalar) pair.items().get(0)).value(),
                                    (BigInteger) ((Scalar) pair.items().get(1)).value()));
                        } else {
                            BigInteger v = (BigInteger) ((Scalar) r).value();
                            ranges.add(new Range(v, v));
                        }
                    }
                    mappings.add(new Mapping(m.getKey(), new ArrayList<>(ranges)));
                }
                return List.of(new EnumerationType(it, mappings));
            }
            case "real" -> {
                return List.of(new RealType(
                        (int) longValue(ft.get("size"), with(path, "size")), alignment(ft, "alignment", 8, path)));
            }
            case "string" -> {
                return List.of(new StringType());
            }
            case "static-array", "dynamic-array" -> {
                List<Object> ep = with(path, "element-field-type");
                if (cls.equals("dynamic-array")) {
                    // barectf's schema never checks a dynamic array (its definition is misnamed), so
                    // barectf writes whatever it is given, or fails with a KeyError: check the element
                    SchemaValidator.validate(
                            required(ft, "element-field-type", path, MapNode.class),
                            "config/3/field-type",
                            "/definitions/ft",
                            ep);
                }
                List<FieldType> elem = createFts((MapNode) ft.get("element-field-type"), ep);
                if (elem.size() != 1 || elem.getFirst() instanceof StructureType) {
                    throw error(
                            ft.get("element-field-type"),
                            ep,
                            "nested structure and dynamic array field types are not supported");
                }
                if (cls.equals("static-array")) {
                    // not required by barectf's schema either (barectf then fails with a KeyError)
                    return List.of(new StaticArrayType(
                            longValue(required(ft, "length", path, Scalar.class), with(path, "length")),
                            elem.getFirst()));
                }
                return List.of(
                        new IntegerType(false, 32, 8, DisplayBase.DECIMAL), new DynamicArrayType(elem.getFirst()));
            }
            case "structure" -> {
                int minAlign = alignment(ft, "minimum-alignment", 1, path);
                List<Member> members =
                        ft.get("members") instanceof ListNode l ? createMembers(l, with(path, "members")) : List.of();
                return List.of(new StructureType(minAlign, members));
            }
            default -> throw new IllegalStateException("class " + cls + " passed barectf's schema");
        }
    }

    private static IntegerType createInt(MapNode ft, boolean signed, List<Object> path) throws ConfigException {
        int size = (int) longValue(ft.get("size"), with(path, "size"));
        int align = alignment(ft, "alignment", size % 8 == 0 ? 8 : 1, path);
        DisplayBase base =
                switch (ft.get("preferred-display-base") instanceof Scalar s ? (String) s.value() : "decimal") {
                    case "binary" -> DisplayBase.BINARY;
                    case "octal" -> DisplayBase.OCTAL;
                    case "hexadecimal" -> DisplayBase.HEXADECIMAL;
                    default -> DisplayBase.DECIMAL;
                };
        return new IntegerType(signed, size, align, base);
    }

    private List<Member> createMembers(ListNode membersNode, List<Object> path) throws ConfigException {
        List<Member> members = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < membersNode.items().size(); i++) {
            MapNode item = (MapNode) membersNode.items().get(i);
            Map.Entry<String, YamlNode> e = item.entries().entrySet().iterator().next();
            String name = e.getKey();
            List<Object> mp = with(path, i, name);
            if (!names.add(name)) {
                throw error(item, mp, "duplicate member `" + name + "`");
            }
            validateIdentifier(name, item, mp, "structure field type member name");
            MapNode ftNode = (MapNode) ((MapNode) e.getValue()).get("field-type");
            List<Object> fp = with(mp, "field-type");
            if ("structure".equals(string(ftNode.get("class")))) {
                throw error(ftNode, fp, "nested structure field types are not supported");
            }
            List<FieldType> fts = createFts(ftNode, fp);
            if (fts.size() == 2) {
                members.add(new Member("__" + name + "_len", fts.get(0)));
            }
            members.add(new Member(name, fts.getLast()));
        }
        return members;
    }

    private Optional<StructureType> structFt(MapNode parent, String key, List<Object> path) throws ConfigException {
        if (!(parent.get(key) instanceof MapNode ft)) {
            return Optional.empty();
        }
        return Optional.of((StructureType) createFts(ft, with(path, key)).getFirst());
    }

    /** A feature: true is barectf's default type, false none, a mapping that type; absent is {@code dflt}. */
    private <T extends FieldType> Optional<T> feature(
            MapNode features, String key, Optional<T> dflt, T defaultType, List<Object> path) throws ConfigException {
        if (features == null || !features.has(key)) {
            return dflt;
        }
        YamlNode n = features.get(key);
        if (n instanceof Scalar s && Boolean.TRUE.equals(s.value())) {
            return Optional.of(defaultType);
        }
        if (n instanceof Scalar) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        T ft = (T) createFts((MapNode) n, with(path, key)).getFirst();
        return Optional.of(ft);
    }

    private static int countMembers(YamlNode structNode) {
        return structNode instanceof MapNode m && m.get("members") instanceof ListNode l
                ? l.items().size()
                : 0;
    }

    /** The configuration the checked, normalized node describes. */
    Configuration configuration() throws ConfigException {
        MapNode tt = traceType();
        // clock types
        Map<String, ClockType> declaredClocks = new LinkedHashMap<>();
        if (tt.get("clock-types") instanceof MapNode clocks) {
            for (Map.Entry<String, YamlNode> c : clocks.entries().entrySet()) {
                List<Object> cp = with(TRACE_TYPE, "clock-types", c.getKey());
                MapNode cn = (MapNode) c.getValue();
                validateIdentifier(c.getKey(), cn, cp, "clock type name");
                long offS = 0;
                long offC = 0;
                if (cn.get("offset") instanceof MapNode off) {
                    offS = off.has("seconds") ? longValue(off.get("seconds"), with(cp, "offset", "seconds")) : 0;
                    offC = off.has("cycles") ? longValue(off.get("cycles"), with(cp, "offset", "cycles")) : 0;
                }
                declaredClocks.put(
                        c.getKey(),
                        new ClockType(
                                c.getKey(),
                                cn.has("frequency")
                                        ? longValue(cn.get("frequency"), with(cp, "frequency"))
                                        : 1_000_000_000L,
                                cn.has("uuid")
                                        ? Optional.of(UUID.fromString(string(cn.get("uuid"))))
                                        : Optional.empty(),
                                cn.has("description") ? Optional.of(string(cn.get("description"))) : Optional.empty(),
                                cn.has("precision") ? longValue(cn.get("precision"), with(cp, "precision")) : 0,
                                offS,
                                offC,
                                cn.get("origin-is-unix-epoch") instanceof Scalar s && Boolean.TRUE.equals(s.value())));
            }
        }
        clockTypes.putAll(declaredClocks);
        // trace type
        Optional<UUID> uuid = Optional.empty();
        if (tt.get("uuid") instanceof Scalar u && u.value() instanceof String s) {
            uuid = Optional.of(s.equals("auto") ? UUID.randomUUID() : UUID.fromString(s));
        }
        MapNode features = tt.map("$features");
        List<Object> fp = with(TRACE_TYPE, "$features");
        Optional<IntegerType> magic = feature(
                features, "magic-field-type", Optional.of(IntegerType.unsigned(32)), IntegerType.unsigned(32), fp);
        StaticArrayType defaultUuid = new StaticArrayType(16, IntegerType.unsigned(8));
        Optional<StaticArrayType> uuidFt = feature(
                features,
                "uuid-field-type",
                uuid.isPresent() ? Optional.of(defaultUuid) : Optional.empty(),
                defaultUuid,
                fp);
        Optional<IntegerType> dstId = feature(
                features,
                "data-stream-type-id-field-type",
                Optional.of(IntegerType.unsigned(64)),
                IntegerType.unsigned(64),
                fp);
        MapNode dstsNode = (MapNode) tt.get("data-stream-types");
        int dstCount = dstsNode.entries().size();
        YamlNode dstIdAt = features != null && features.has("data-stream-type-id-field-type")
                ? features.get("data-stream-type-id-field-type")
                : tt;
        if (dstId.isEmpty() && dstCount > 1) {
            throw error(
                    dstIdAt,
                    with(fp, "data-stream-type-id-field-type"),
                    "a data stream type ID field type is required because the trace type has more than one data stream type");
        }
        if (dstId.isPresent()
                && dstId.get().size() < 63
                && dstCount > (1L << dstId.get().size())) {
            throw error(
                    dstIdAt,
                    with(fp, "data-stream-type-id-field-type"),
                    "field type's size (" + dstId.get().size() + " bits) is too small to accommodate " + dstCount
                            + " data stream types");
        }
        List<String> dstNames = new ArrayList<>(dstsNode.entries().keySet());
        dstNames.sort(Comparator.naturalOrder());
        List<DataStreamType> dsts = new ArrayList<>();
        for (String name : dstNames) {
            dsts.add(createDst(name, dstNames.indexOf(name), (MapNode) dstsNode.get(name)));
        }
        ByteOrder bo = "big-endian".equals(string(tt.get("native-byte-order")))
                ? ByteOrder.BIG_ENDIAN
                : ByteOrder.LITTLE_ENDIAN;
        TraceType traceType = new TraceType(bo, uuid, new TraceTypeFeatures(magic, uuidFt, dstId), dsts);
        // environment
        MapNode trace = (MapNode) config.get("trace");
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("domain", "bare");
        env.put("tracer_name", "hetrace");
        env.put("tracer_major", 0L);
        env.put("tracer_minor", 1L);
        env.put("tracer_patch", 0L);
        if (trace.get("environment") instanceof MapNode envNode) {
            for (Map.Entry<String, YamlNode> e : envNode.entries().entrySet()) {
                validateIdentifier(
                        e.getKey(),
                        e.getValue(),
                        List.of("trace", "environment", e.getKey()),
                        "environment variable name");
                Object v = ((Scalar) e.getValue()).value();
                env.put(
                        e.getKey(),
                        v instanceof BigInteger
                                ? (Object) longValue(e.getValue(), List.of("trace", "environment", e.getKey()))
                                : v);
            }
        }
        // default data stream type
        String defaultDst = null;
        for (Map.Entry<String, YamlNode> d : dstsNode.entries().entrySet()) {
            YamlNode isDefault = ((MapNode) d.getValue()).get("$is-default");
            if (isDefault instanceof Scalar s && Boolean.TRUE.equals(s.value())) {
                if (defaultDst != null) {
                    throw error(
                            isDefault,
                            with(TRACE_TYPE, "data-stream-types", d.getKey(), "$is-default"),
                            "duplicate default data stream type (`" + defaultDst + "` is already the default)");
                }
                defaultDst = d.getKey();
            }
        }
        // clock C types: uint32_t unless given, for the clock types in use
        Map<String, String> cTypes = new LinkedHashMap<>();
        for (ClockType ct : traceType.clockTypes()) {
            MapNode cn = (MapNode) ((MapNode) tt.get("clock-types")).get(ct.name());
            YamlNode given = cn.get("$c-type");
            String cType = given instanceof Scalar s && s.value() instanceof String str ? str : "uint32_t";
            if (given != null && !C_TYPE.matcher(cType).matches()) {
                // pasted into the generated C: only a type name, never code, a comment or a directive
                throw error(
                        given,
                        with(TRACE_TYPE, "clock-types", ct.name(), "$c-type"),
                        "not a C type name: `"
                                + TerminalText.escape(cType) + "` (identifiers, `struct`/`union`/`enum` NAME,"
                                + " `const`, `volatile`, `signed`, `unsigned` and `*` only)");
            }
            cTypes.put(ct.name(), cType);
        }
        // code generation options
        String idPrefix = "barectf_";
        String filePrefix = "barectf";
        boolean prefixDef = false;
        boolean defDstDef = false;
        if (config.get("options") instanceof MapNode opts && opts.get("code-generation") instanceof MapNode cg) {
            YamlNode prefix = cg.get("prefix");
            if (prefix == null) {
                idPrefix = "barectf_";
                filePrefix = "barectf";
            } else if (prefix instanceof Scalar s && s.value() instanceof String str) {
                idPrefix = str + "_";
                filePrefix = str;
                checkPrefix(prefix, str, List.of("options", "code-generation", "prefix"), IDENTIFIER, "a C identifier");
            } else if (prefix instanceof MapNode pm) {
                idPrefix = string(pm.get("identifier"));
                filePrefix = string(pm.get("file-name"));
                checkPrefix(
                        pm.get("identifier"),
                        idPrefix,
                        List.of("options", "code-generation", "prefix", "identifier"),
                        IDENTIFIER_PREFIX,
                        "the start of a C identifier");
                checkPrefix(
                        pm.get("file-name"),
                        filePrefix,
                        List.of("options", "code-generation", "prefix", "file-name"),
                        FILE_PREFIX,
                        "a file name in the output folder (letters, digits, `_`, `-`, `.`; no `/`)");
            }
            if (cg.get("header") instanceof MapNode header) {
                prefixDef = header.get("identifier-prefix-definition") instanceof Scalar s
                        && Boolean.TRUE.equals(s.value());
                defDstDef = header.get("default-data-stream-type-name-definition") instanceof Scalar s
                        && Boolean.TRUE.equals(s.value());
            }
        }
        return new Configuration(
                new Trace(traceType, env),
                new CodeGenerationOptions(
                        idPrefix, filePrefix, Optional.ofNullable(defaultDst), prefixDef, defDstDef, cTypes),
                Optional.empty());
    }

    private DataStreamType createDst(String name, int id, MapNode dst) throws ConfigException {
        List<Object> dp = with(TRACE_TYPE, "data-stream-types", name);
        validateIdentifier(name, dst, dp, "data stream type name");
        Optional<ClockType> defClock = Optional.empty();
        if (dst.get("$default-clock-type-name") instanceof Scalar cn && cn.value() instanceof String clockName) {
            ClockType ct = clockTypes.get(clockName);
            if (ct == null) {
                throw error(cn, with(dp, "$default-clock-type-name"), "clock type `" + clockName + "` does not exist");
            }
            defClock = Optional.of(ct);
        }
        IntegerType u64 = IntegerType.unsigned(64);
        Optional<IntegerType> clocked = defClock.isPresent() ? Optional.of(u64) : Optional.empty();
        MapNode features = dst.map("$features");
        MapNode pkt = features == null ? null : features.map("packet");
        MapNode er = features == null ? null : features.map("event-record");
        List<Object> pp = with(dp, "$features", "packet");
        List<Object> ep = with(dp, "$features", "event-record");
        // total and content sizes cannot be disabled (barectf's schema only allows a type or true)
        IntegerType totalSize =
                feature(pkt, "total-size-field-type", Optional.of(u64), u64, pp).orElseThrow();
        IntegerType contentSize = feature(pkt, "content-size-field-type", Optional.of(u64), u64, pp)
                .orElseThrow();
        Optional<IntegerType> begTs = feature(pkt, "beginning-timestamp-field-type", clocked, u64, pp);
        Optional<IntegerType> endTs = feature(pkt, "end-timestamp-field-type", clocked, u64, pp);
        Optional<IntegerType> disc =
                feature(pkt, "discarded-event-records-counter-snapshot-field-type", Optional.of(u64), u64, pp);
        Optional<IntegerType> seq = feature(pkt, "sequence-number-field-type", Optional.empty(), u64, pp);
        Optional<IntegerType> typeId = feature(er, "type-id-field-type", Optional.of(u64), u64, ep);
        Optional<IntegerType> ts = feature(er, "timestamp-field-type", clocked, u64, ep);
        MapNode ertsNode = (MapNode) dst.get("event-record-types");
        int ertCount = ertsNode.entries().size();
        YamlNode typeIdAt = er != null && er.has("type-id-field-type") ? er.get("type-id-field-type") : dst;
        if (typeId.isEmpty() && ertCount > 1) {
            throw error(
                    typeIdAt,
                    with(ep, "type-id-field-type"),
                    "an event record type ID field type is required "
                            + "because the data stream type has more than one event record type");
        }
        if (typeId.isPresent()
                && typeId.get().size() < 63
                && ertCount > (1L << typeId.get().size())) {
            throw error(
                    typeIdAt,
                    with(ep, "type-id-field-type"),
                    "field type's size (" + typeId.get().size() + " bits) is too small to accommodate " + ertCount
                            + " event record types");
        }
        List<Member> extra = List.of();
        if (dst.get("packet-context-field-type-extra-members") instanceof ListNode extraNode) {
            List<Object> xp = with(dp, "packet-context-field-type-extra-members");
            extra = createMembers(extraNode, xp);
            Set<String> reserved = Set.of(
                    "packet_size",
                    "content_size",
                    "timestamp_begin",
                    "timestamp_end",
                    "events_discarded",
                    "packet_seq_num");
            for (Member m : extra) {
                if (reserved.contains(m.name())) {
                    throw error(extraNode, xp, "packet context field type member name `" + m.name() + "` is reserved");
                }
            }
        }
        int headerAndCommon = (typeId.isPresent() ? 1 : 0)
                + (ts.isPresent() ? 1 : 0)
                + countMembers(dst.get("event-record-common-context-field-type"));
        List<String> ertNames = new ArrayList<>(ertsNode.entries().keySet());
        ertNames.sort(Comparator.naturalOrder());
        // barectf builds the event record types before the common context: keep its order of checks
        List<EventRecordType> erts = new ArrayList<>();
        for (String ertName : new ArrayList<>(ertsNode.entries().keySet())) {
            MapNode ert = (MapNode) ertsNode.get(ertName);
            List<Object> erp = with(dp, "event-record-types", ertName);
            validateIdentifier(ertName, ert, erp, "event record type name");
            int count = headerAndCommon
                    + countMembers(ert.get("specific-context-field-type"))
                    + countMembers(ert.get("payload-field-type"));
            if (count == 0) {
                throw error(ert, erp, "event record type is empty (no members)");
            }
            Optional<Long> ll = ert.get("log-level") instanceof Scalar s && s.value() instanceof BigInteger
                    ? Optional.of(longValue(s, with(erp, "log-level")))
                    : Optional.empty();
            erts.add(new EventRecordType(
                    ertName,
                    ertNames.indexOf(ertName),
                    ll,
                    structFt(ert, "specific-context-field-type", erp),
                    structFt(ert, "payload-field-type", erp)));
        }
        erts.sort(Comparator.comparing(EventRecordType::name));
        Optional<StructureType> common = structFt(dst, "event-record-common-context-field-type", dp);
        return new DataStreamType(
                name,
                id,
                defClock,
                new PacketFeatures(totalSize, contentSize, begTs, endTs, disc, seq),
                new EventRecordFeatures(typeId, ts),
                extra,
                common,
                erts);
    }
}
