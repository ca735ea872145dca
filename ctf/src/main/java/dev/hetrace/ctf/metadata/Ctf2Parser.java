package dev.hetrace.ctf.metadata;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BlobType;
import dev.hetrace.ctf.metadata.FieldType.BoolType;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.OptionalType;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Parses CTF 2 metadata (CTF2-SPEC-2.0): a JSON text sequence (RFC 7464) of fragments, each
 * after a record separator, into the same {@link TraceClass} the TSDL parser makes. Roles are
 * kept on the types that carry them; field locations become absolute or relative
 * {@link FieldPath}s whose targets are checked here, so that an error names its fragment and
 * JSON path. Fragments are read one at a time: the stream is never held whole.
 */
final class Ctf2Parser {
    /** The record separator that starts every fragment. */
    static final int RS = 0x1E;

    private static final ObjectMapper JSON = JsonMapper.builder()
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .build();
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private static final List<List<String>> PREFIXES = List.of(List.of("trace", "packet", "header"),
        List.of("stream", "packet", "context"), List.of("stream", "event", "header"), List.of("stream", "event", "context"),
        List.of("event", "context"), List.of("event", "fields"));
    private static final List<Set<Role>> SCOPE_ROLES = List.of(
        EnumSet.of(Role.PACKET_MAGIC_NUMBER, Role.METADATA_STREAM_UUID, Role.DATA_STREAM_CLASS_ID, Role.DATA_STREAM_ID),
        EnumSet.of(Role.DEFAULT_CLOCK_TIMESTAMP, Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP,
            Role.DISCARDED_EVENT_RECORD_COUNTER_SNAPSHOT, Role.PACKET_CONTENT_LENGTH, Role.PACKET_TOTAL_LENGTH,
            Role.PACKET_SEQUENCE_NUMBER),
        EnumSet.of(Role.DEFAULT_CLOCK_TIMESTAMP, Role.EVENT_RECORD_CLASS_ID),
        EnumSet.noneOf(Role.class), EnumSet.noneOf(Role.class), EnumSet.noneOf(Role.class));
    private static final int MAX_DEPTH = 1000;
    /** A byte of UTF-8 text in a string of a length in bytes. */
    private static final IntegerType TEXT_BYTE = new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 10,
        FieldType.Encoding.UTF8, null);

    private int index = -1;
    private String what;
    private boolean preamble;
    private boolean traceClass;
    private UUID uuid;
    private StructType packetHeader;
    private final Map<String, Object> env = new LinkedHashMap<>();
    private final Map<String, ClockClass> clocks = new LinkedHashMap<>();
    private final Map<String, JsonNode> aliases = new HashMap<>();
    private final Map<Long, StreamBuilder> streams = new TreeMap<>();
    /** Attributes by where they are (see {@link TraceClass#attributes()}). */
    private final Map<String, String> attributes = new LinkedHashMap<>();
    /** Where each scope is defined (see {@link TraceClass#places()}). */
    private final Map<String, String> places = new LinkedHashMap<>();
    private ByteOrder byteOrder;

    /** The scopes of the class being read, by origin index; the one being built is in {@link #frames}. */
    private final StructType[] scopes = new StructType[FieldPath.CTF2_ORIGINS.size()];
    private int scope;
    private String defaultClock;
    /** Structs being read, innermost first. */
    private final Deque<Frame> frames = new ArrayDeque<>();

    /**
     * A struct being read: its members so far, and the member names that lead to it from its
     * scope's root (arrays, variants and optionals on the way add none: a location goes through
     * them to the element, option or content being decoded).
     */
    private record Frame(List<Member> done, List<String> names) {}

    private static final class StreamBuilder {
        final long id;
        final StructType packetContext;
        final StructType eventHeader;
        final StructType eventContext;
        final String defaultClock;
        final TreeMap<Long, EventClass> events = new TreeMap<>();

        StreamBuilder(long id, StructType packetContext, StructType eventHeader, StructType eventContext,
                      String defaultClock) {
            this.id = id;
            this.packetContext = packetContext;
            this.eventHeader = eventHeader;
            this.eventContext = eventContext;
            this.defaultClock = defaultClock;
        }
    }

    /** Parses the metadata stream {@code in}, which starts with a record separator. */
    static TraceClass parse(InputStream in) throws IOException, MetadataException {
        Ctf2Parser p = new Ctf2Parser();
        ByteArrayOutputStream fragment = new ByteArrayOutputStream();
        int b = in.read();
        if (b != RS) {
            throw new MetadataException("CTF 2 metadata must start with a record separator (0x1E)");
        }
        while (b >= 0) {
            fragment.reset();
            while ((b = in.read()) >= 0 && b != RS) {
                fragment.write(b);
            }
            p.fragment(fragment.toByteArray());
        }
        return p.finish();
    }

    private MetadataException error(String path, String detail) {
        return new MetadataException(new MetadataException.Json(index, what, path), detail);
    }

    private void fragment(byte[] text) throws MetadataException {
        index++;
        what = null;
        JsonNode f;
        try {
            f = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw error(null, "malformed JSON: " + e.getOriginalMessage() + " (line " + e.getLocation().getLineNr()
                + ", column " + e.getLocation().getColumnNr() + " of the fragment)");
        } catch (IOException e) {
            throw error(null, "malformed JSON: " + e.getMessage());
        }
        if (f == null || f.isMissingNode()) {
            throw error(null, "empty fragment");
        }
        if (!f.isObject()) {
            throw error("$", "a fragment must be a JSON object");
        }
        String type = string(f, "type", "$", true);
        String name = f.path("name").isTextual() ? f.get("name").asText() : null;
        what = type.replace('-', ' ') + (name == null ? "" : " \"" + name + "\"");
        if (!preamble && !type.equals("preamble")) {
            throw error("$.type", "the first fragment must be a preamble, not a " + type);
        }
        if (!type.equals("preamble")) {
            noExtensions(f, "$");
        }
        attributes(f, "$");
        switch (type) {
            case "preamble" -> preamble(f);
            case "field-class-alias" -> alias(f);
            case "trace-class" -> traceClass(f);
            case "clock-class" -> clockClass(f);
            case "data-stream-class" -> dataStreamClass(f);
            case "event-record-class" -> eventRecordClass(f);
            default -> throw error("$.type", "unknown fragment type \"" + type + "\"");
        }
    }

    private void preamble(JsonNode f) throws MetadataException {
        if (preamble) {
            throw error("$.type", "a metadata stream has one preamble fragment only");
        }
        preamble = true;
        JsonNode version = required(f, "version", "$");
        if (!version.isIntegralNumber() || version.asLong() != 2) {
            throw error("$.version", "unsupported CTF version " + version + " (expected 2)");
        }
        for (Map.Entry<String, JsonNode> ns : properties(f, "extensions", "$")) {
            if (!ns.getValue().isObject()) {
                throw error(key("$.extensions", ns.getKey()), "must be a JSON object");
            }
            Iterator<String> names = ns.getValue().fieldNames();
            if (names.hasNext()) {
                String name = names.next();
                throw error(key(key("$.extensions", ns.getKey()), name), "unsupported extension \""
                    + ns.getKey() + "/" + name + "\": the trace cannot be read without it");
            }
        }
        if (f.has("uuid")) {
            uuid = uuid(f.get("uuid"), "$.uuid");
        }
    }

    private void alias(JsonNode f) throws MetadataException {
        String name = string(f, "name", "$", true);
        JsonNode fc = required(f, "field-class", "$");
        if (aliases.containsKey(name)) {
            throw error("$.name", "field class alias \"" + name + "\" is already defined");
        }
        if (fc.isTextual()) {
            fc = alias(fc.asText(), "$.field-class");
        } else if (!fc.isObject()) {
            throw error("$.field-class", "must be a field class or the name of a field class alias");
        }
        aliases.put(name, fc);
    }

    private JsonNode alias(String name, String path) throws MetadataException {
        JsonNode fc = aliases.get(name);
        if (fc == null) {
            throw error(path, "no field class alias named \"" + name + "\" occurs before");
        }
        return fc;
    }

    private void traceClass(JsonNode f) throws MetadataException {
        if (traceClass) {
            throw error("$.type", "a metadata stream has one trace class fragment only");
        }
        if (!streams.isEmpty()) {
            throw error("$.type", "the trace class fragment must occur before any data stream class fragment");
        }
        traceClass = true;
        if (f.has("uuid")) {
            UUID u = uuid(f.get("uuid"), "$.uuid");
            if (uuid == null) {
                uuid = u;
            }
        }
        for (Map.Entry<String, JsonNode> entry : properties(f, "environment", "$")) {
            JsonNode v = entry.getValue();
            if (v.isTextual()) {
                env.put(entry.getKey(), v.asText());
            } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                env.put(entry.getKey(), v.asLong());
            } else {
                throw error(key("$.environment", entry.getKey()), "an environment entry is a JSON integer or string");
            }
        }
        packetHeader = scope(f, "packet-header-field-class", 0, TraceClass.placeKey("trace.packet.header", 0, 0));
        if (packetHeader != null) {
            for (Member m : packetHeader.members()) {
                if (m.type() instanceof IntegerType it && it.roles().contains(Role.PACKET_MAGIC_NUMBER)) {
                    byteOrder = it.byteOrder();
                }
            }
        }
    }

    private void clockClass(JsonNode f) throws MetadataException {
        // CTF2-SPEC-2.0 names a clock class by "id"; earlier drafts (babeltrace2 2.0's) by "name".
        String id = f.has("id") ? string(f, "id", "$", true) : string(f, "name", "$", true);
        if (clocks.containsKey(id)) {
            throw error("$.id", "clock class \"" + id + "\" is already defined");
        }
        String name = f.has("name") ? string(f, "name", "$", true) : id;
        long frequency = unsigned(required(f, "frequency", "$"), "$.frequency");
        if (frequency == 0) {
            throw error("$.frequency", "must be greater than zero");
        }
        boolean unixEpoch = false;
        JsonNode origin = f.get("origin");
        if (origin != null) {
            if (origin.isTextual()) {
                if (!origin.asText().equals("unix-epoch")) {
                    throw error("$.origin", "must be \"unix-epoch\" or a clock origin object");
                }
                unixEpoch = true;
            } else if (origin.isObject()) {
                string(origin, "name", "$.origin", true);
                string(origin, "uid", "$.origin", true);
            } else {
                throw error("$.origin", "must be \"unix-epoch\" or a clock origin object");
            }
        }
        long seconds = 0;
        long cycles = 0;
        JsonNode offset = f.get("offset-from-origin");
        if (offset != null) {
            if (!offset.isObject()) {
                throw error("$.offset-from-origin", "must be a JSON object");
            }
            if (offset.has("seconds")) {
                seconds = signed(offset.get("seconds"), "$.offset-from-origin.seconds");
            }
            if (offset.has("cycles")) {
                cycles = unsigned(offset.get("cycles"), "$.offset-from-origin.cycles");
                if (Long.compareUnsigned(cycles, frequency) >= 0) {
                    throw error("$.offset-from-origin.cycles", "must be less than the frequency (" + frequency + ")");
                }
            }
        }
        long precision = f.has("precision") ? unsigned(f.get("precision"), "$.precision") : 0;
        String description = f.has("description") ? string(f, "description", "$", true) : null;
        clocks.put(id, new ClockClass(name, description, null, frequency, precision, seconds, cycles, unixEpoch));
    }

    private void dataStreamClass(JsonNode f) throws MetadataException {
        long id = f.has("id") ? unsigned(f.get("id"), "$.id") : 0;
        if (streams.containsKey(id)) {
            throw error("$.id", "data stream class " + Long.toUnsignedString(id) + " is already defined");
        }
        String clockKey = f.has("default-clock-class-id") ? "default-clock-class-id"
            : f.has("default-clock-class-name") ? "default-clock-class-name" : null;
        defaultClock = null;
        if (clockKey != null) {
            String clockId = string(f, clockKey, "$", true);
            ClockClass c = clocks.get(clockId);
            if (c == null) {
                throw error("$." + clockKey, "no clock class \"" + clockId + "\" occurs before");
            }
            defaultClock = c.name();
        }
        clearScopes(1);
        StructType packetContext = scope(f, "packet-context-field-class", 1,
            TraceClass.placeKey("stream.packet.context", id, 0));
        StructType eventHeader = scope(f, "event-record-header-field-class", 2,
            TraceClass.placeKey("stream.event.header", id, 0));
        StructType eventContext = scope(f, "event-record-common-context-field-class", 3,
            TraceClass.placeKey("stream.event.context", id, 0));
        streams.put(id, new StreamBuilder(id, packetContext, eventHeader, eventContext, defaultClock));
    }

    private void eventRecordClass(JsonNode f) throws MetadataException {
        long id = f.has("id") ? unsigned(f.get("id"), "$.id") : 0;
        long streamId = f.has("data-stream-class-id") ? unsigned(f.get("data-stream-class-id"), "$.data-stream-class-id")
            : 0;
        StreamBuilder sb = streams.get(streamId);
        if (sb == null) {
            throw error(f.has("data-stream-class-id") ? "$.data-stream-class-id" : "$",
                "no data stream class " + Long.toUnsignedString(streamId) + " occurs before");
        }
        if (sb.events.containsKey(id)) {
            throw error("$.id", "event record class " + Long.toUnsignedString(id) + " of data stream class "
                + Long.toUnsignedString(streamId) + " is already defined");
        }
        String name = f.has("name") ? string(f, "name", "$", true) : "";
        clearScopes(1);
        scopes[1] = sb.packetContext;
        scopes[2] = sb.eventHeader;
        scopes[3] = sb.eventContext;
        defaultClock = sb.defaultClock;
        StructType context = scope(f, "specific-context-field-class", 4,
            TraceClass.placeKey("event.context", streamId, id));
        StructType payload = scope(f, "payload-field-class", 5, TraceClass.placeKey("event.fields", streamId, id));
        // LTTng gives its log level and EMF URI as attributes of its own (CTF 1.8's loglevel and model.emf.uri)
        JsonNode lttng = f.path("attributes").path(LttngLogLevel.NAMESPACE);
        JsonNode level = lttng.path("log-level");
        Long logLevel = level.isTextual() ? LttngLogLevel.of(level.asText())
            : level.isIntegralNumber() && level.canConvertToLong() ? level.asLong() : null;
        String emfUri = lttng.path("emf-uri").isTextual() ? lttng.get("emf-uri").asText() : null;
        sb.events.put(id, new EventClass(id, name, streamId, context, payload, logLevel, emfUri));
    }

    private TraceClass finish() throws MetadataException {
        if (!preamble) {
            throw new MetadataException("CTF 2 metadata without any fragment");
        }
        if (streams.isEmpty()) {
            throw new MetadataException("CTF 2 metadata must contain at least one data stream class fragment");
        }
        TreeMap<Long, StreamClass> classes = new TreeMap<>();
        for (StreamBuilder sb : streams.values()) {
            classes.put(sb.id, new StreamClass(sb.id, sb.packetContext, sb.eventHeader, sb.eventContext, sb.events));
        }
        return new TraceClass(2, 0, byteOrder == null ? ByteOrder.LITTLE_ENDIAN : byteOrder, uuid, packetHeader, clocks,
            env, classes, List.of(), attributes, places);
    }

    // ---------------------------------------------------------------------------------- scopes

    private void clearScopes(int from) {
        for (int i = from; i < scopes.length; i++) {
            scopes[i] = null;
        }
    }

    /** Reads the root structure of scope {@code origin} (an index in {@link FieldPath#CTF2_ORIGINS}), or null. */
    private StructType scope(JsonNode f, String property, int origin, String placeKey) throws MetadataException {
        JsonNode fc = f.get(property);
        if (fc == null) {
            return null;
        }
        String path = "$." + property;
        places.put(placeKey, new MetadataException.Json(index, what, path).toString());
        if (fc.isTextual()) {
            fc = alias(fc.asText(), path);
        }
        scope = origin;
        frames.clear();
        FieldType t = fieldClass(fc, path, List.of(), 0);
        if (!(t instanceof StructType st)) {
            throw error(path, "must be a structure field class");
        }
        scopes[origin] = st;
        return st;
    }

    // ---------------------------------------------------------------------------- field classes

    /**
     * Reads a field class.
     *
     * @param names the member names that lead to it from its scope's root
     */
    private FieldType fieldClass(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        if (depth > MAX_DEPTH) {
            throw error(path, "field classes are nested more than " + MAX_DEPTH + " levels deep");
        }
        if (fc.isTextual()) {
            fc = alias(fc.asText(), path);
        }
        if (!fc.isObject()) {
            throw error(path, "must be a field class (a JSON object) or the name of a field class alias");
        }
        noExtensions(fc, path);
        attributes(fc, path);
        String type = string(fc, "type", path, true);
        return switch (type) {
            case "fixed-length-unsigned-integer", "fixed-length-signed-integer",
                 // Drafts of CTF 2 (babeltrace2 2.0's) had enumeration types: integers with mappings.
                 "fixed-length-unsigned-enumeration", "fixed-length-signed-enumeration" -> fixedInteger(fc, path, type);
            case "variable-length-unsigned-integer", "variable-length-signed-integer" -> {
                boolean signed = !type.contains("unsigned");
                Set<Role> roles = roles(fc, path, signed, true);
                if (roles.contains(Role.DEFAULT_CLOCK_TIMESTAMP) || roles.contains(Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP)) {
                    throw error(path + ".roles", "a clock timestamp in a variable-length integer is not supported");
                }
                yield new VarIntType(signed, base(fc, path), mappings(fc, path), roles);
            }
            case "fixed-length-floating-point-number" -> {
                long length = length(fc, path);
                ByteOrder order = byteOrder(fc, path);
                bitOrder(fc, path, order);
                int align = alignment(fc, path, "alignment");
                yield switch ((int) length) {
                    case 32 -> new FloatType(8, 24, align, order);
                    case 64 -> new FloatType(11, 53, align, order);
                    default -> throw error(path + ".length", "floating point numbers of " + length
                        + " bits are not supported (32 or 64)");
                };
            }
            case "null-terminated-string" -> new StringType(encoding(fc, path));
            // Strings of a length in bytes: the text arrays and sequences of CTF 1.8, shown up to their first NUL.
            case "static-length-string" -> {
                FieldType unit = textByte(encoding(fc, path));
                yield new ArrayType(unit, unsigned(required(fc, "length", path), path + ".length"));
            }
            case "dynamic-length-string" -> {
                FieldType unit = textByte(encoding(fc, path));
                yield new SequenceType(unit, location(fc, path, "length-field-location", false));
            }
            case "static-length-blob" -> {
                long length = unsigned(required(fc, "length", path), path + ".length");
                if (length > Integer.MAX_VALUE) {
                    throw error(path + ".length", "BLOB of " + Long.toUnsignedString(length) + " bytes is too long");
                }
                Set<Role> roles = roles(fc, path, false, false);
                if (roles.contains(Role.METADATA_STREAM_UUID) && length != 16) {
                    throw error(path + ".length", "a metadata stream UUID BLOB must be 16 bytes long");
                }
                yield new BlobType(length, null, mediaType(fc, path), roles);
            }
            case "dynamic-length-blob" -> new BlobType(0, location(fc, path, "length-field-location", false), mediaType(fc,
                path), Set.of());
            case "optional" -> optional(fc, path, names, depth);
            case "structure" -> structure(fc, path, names, depth);
            case "static-length-array" -> {
                long length = unsigned(required(fc, "length", path), path + ".length");
                FieldType element = element(fc, path, names, depth);
                yield new ArrayType(element, length);
            }
            case "dynamic-length-array" -> {
                FieldPath length = location(fc, path, "length-field-location", false);
                FieldType element = element(fc, path, names, depth);
                yield new SequenceType(element, length);
            }
            case "variant" -> variant(fc, path, names, depth);
            case "fixed-length-boolean" -> {
                long length = length(fc, path);
                if (length > 64) {
                    throw error(path + ".length", "booleans of " + length + " bits are not supported (at most 64)");
                }
                ByteOrder order = byteOrder(fc, path);
                bitOrder(fc, path, order);
                yield new BoolType((int) length, alignment(fc, path, "alignment"), order);
            }
            case "fixed-length-bit-array", "fixed-length-bit-map" -> bitArray(fc, path, type.endsWith("map"));
            default -> throw error(path + ".type", "unknown field class type \"" + type + "\"");
        };
    }

    private FieldType.Encoding encoding(JsonNode fc, String path) throws MetadataException {
        String enc = fc.has("encoding") ? string(fc, "encoding", path, true) : "utf-8";
        return switch (enc) {
            case "utf-8" -> FieldType.Encoding.UTF8;
            case "utf-16be" -> FieldType.Encoding.UTF16BE;
            case "utf-16le" -> FieldType.Encoding.UTF16LE;
            case "utf-32be" -> FieldType.Encoding.UTF32BE;
            case "utf-32le" -> FieldType.Encoding.UTF32LE;
            default -> throw error(path + ".encoding", "unknown string encoding \"" + enc
                + "\" (utf-8, utf-16be, utf-16le, utf-32be or utf-32le)");
        };
    }

    /** A byte of the text of a string of a length in bytes, in {@code encoding}. */
    private static FieldType textByte(FieldType.Encoding encoding) {
        return encoding == FieldType.Encoding.UTF8 ? TEXT_BYTE
            : new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 10, encoding, null);
    }

    /** A fixed-length bit array, or a bit map with its flags. */
    private FieldType.BitArrayType bitArray(JsonNode fc, String path, boolean map) throws MetadataException {
        long length = length(fc, path);
        if (length > 64) {
            throw error(path + ".length", "bit arrays of " + length + " bits are not supported (at most 64)");
        }
        ByteOrder order = byteOrder(fc, path);
        bitOrder(fc, path, order);
        int align = alignment(fc, path, "alignment");
        List<FieldType.BitFlag> flags = new ArrayList<>();
        if (map) {
            JsonNode all = required(fc, "flags", path);
            if (!all.isObject() || all.isEmpty()) {
                throw error(path + ".flags", "must be a JSON object of one or more flags");
            }
            for (Map.Entry<String, JsonNode> e : properties(fc, "flags", path)) {
                String fpath = key(path + ".flags", e.getKey());
                for (EnumMapping r : rangeSet(e.getValue(), fpath, e.getKey(), false)) {
                    if (r.high() < 0) {
                        throw error(fpath, "bit index " + Long.toUnsignedString(r.high()) + " is too large");
                    }
                    flags.add(new FieldType.BitFlag(e.getKey(), r.low(), r.high()));
                }
            }
        }
        return new FieldType.BitArrayType((int) length, align, order, flags);
    }

    private FieldType fixedInteger(JsonNode fc, String path, String type) throws MetadataException {
        boolean signed = type.startsWith("fixed-length-signed");
        long length = length(fc, path);
        ByteOrder order = byteOrder(fc, path);
        bitOrder(fc, path, order);
        int align = alignment(fc, path, "alignment");
        Set<Role> roles = roles(fc, path, signed, true);
        if (length > 64 && !roles.isEmpty()) {
            throw error(path + ".roles", "an integer of " + length + " bits cannot have a role (at most 64 bits)");
        }
        if (length > 64 && fc.has("mappings")) {
            throw error(path + ".mappings", "mappings of an integer of " + length + " bits are not supported"
                + " (at most 64)");
        }
        String clock = null;
        if (roles.contains(Role.DEFAULT_CLOCK_TIMESTAMP) || roles.contains(Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP)) {
            if (defaultClock == null) {
                throw error(path + ".roles", "a default clock timestamp needs a data stream class with a default"
                    + " clock class");
            }
            clock = defaultClock;
        }
        IntegerType it = new IntegerType((int) length, align, signed, order, base(fc, path), FieldType.Encoding.NONE,
            clock, roles);
        List<EnumMapping> mappings = mappings(fc, path);
        return mappings.isEmpty() ? it : new EnumType(it, mappings);
    }

    private StructType structure(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        int minAlign = alignment(fc, path, "minimum-alignment");
        JsonNode members = fc.get("member-classes");
        List<Member> done = new ArrayList<>();
        if (members != null) {
            if (!members.isArray()) {
                throw error(path + ".member-classes", "must be a JSON array");
            }
            frames.push(new Frame(done, names));
            try {
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < members.size(); i++) {
                    String mpath = path + ".member-classes[" + i + "]";
                    JsonNode m = element(members, i, mpath, "a structure member class");
                    String name = string(m, "name", mpath, true);
                    attributes(m, mpath);
                    if (!seen.add(name)) {
                        throw error(mpath + ".name", "member \"" + name + "\" is already defined in this structure");
                    }
                    FieldType t = fieldClass(required(m, "field-class", mpath), mpath + ".field-class",
                        names == null ? null : append(names, name), depth + 1);
                    done.add(new Member(name, t));
                }
            } finally {
                frames.pop();
            }
        }
        return new StructType(done, minAlign);
    }

    private FieldType element(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        int minAlign = alignment(fc, path, "minimum-alignment");
        FieldType element = fieldClass(required(fc, "element-field-class", path), path + ".element-field-class", names,
            depth + 1);
        if (minAlign > element.alignment()) {
            throw error(path + ".minimum-alignment", "an array minimum alignment greater than its element's is not"
                + " supported");
        }
        return element;
    }

    private VariantType variant(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        FieldPath selectorPath = location(fc, path, "selector-field-location", true);
        boolean signed = selectorSigned;
        JsonNode options = required(fc, "options", path);
        if (!options.isArray() || options.isEmpty()) {
            throw error(path + ".options", "must be a JSON array of one or more options");
        }
        List<Member> members = new ArrayList<>();
        List<List<EnumMapping>> ranges = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < options.size(); i++) {
            String opath = path + ".options[" + i + "]";
            JsonNode o = element(options, i, opath, "a variant option");
            String name = o.has("name") ? string(o, "name", opath, true) : "";
            attributes(o, opath);
            if (!name.isEmpty() && !seen.add(name)) {
                throw error(opath + ".name", "option \"" + name + "\" is already defined in this variant");
            }
            List<EnumMapping> set = rangeSet(required(o, "selector-field-ranges", opath), opath + ".selector-field-ranges",
                name, signed);
            for (int j = 0; j < i; j++) {
                for (EnumMapping a : set) {
                    for (EnumMapping b : ranges.get(j)) {
                        if (intersect(a, b, signed)) {
                            throw error(opath + ".selector-field-ranges", "ranges intersect those of option " + j);
                        }
                    }
                }
            }
            ranges.add(set);
            // A field location goes through a variant to its current option, as through an array.
            members.add(new Member(name, fieldClass(required(o, "field-class", opath), opath + ".field-class", names,
                depth + 1)));
        }
        return new VariantType(selectorPath, members, null, ranges);
    }

    private OptionalType optional(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        FieldPath selectorPath = location(fc, path, "selector-field-location", true, true);
        boolean bool = selectorBool;
        boolean signed = selectorSigned;
        List<EnumMapping> ranges = null;
        JsonNode set = fc.get("selector-field-ranges");
        // With a boolean selector, the specification gives the ranges no meaning: they are ignored.
        if (!bool) {
            if (set == null) {
                throw error(path, "missing required property \"selector-field-ranges\" (the selector is an integer)");
            }
            ranges = rangeSet(set, path + ".selector-field-ranges", "", signed);
        }
        FieldType content = fieldClass(required(fc, "field-class", path), path + ".field-class", names, depth + 1);
        return new OptionalType(selectorPath, content, ranges);
    }

    private String mediaType(JsonNode fc, String path) throws MetadataException {
        String media = string(fc, "media-type", path, false);
        if (media == null) {
            return BlobType.OCTET_STREAM;
        }
        if (!media.matches("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;.*)?")) {
            throw error(path + ".media-type", "\"" + media + "\" is not a media type (type/subtype)");
        }
        return media;
    }

    /** Element {@code i} of {@code array}: an object without extensions. */
    private JsonNode element(JsonNode array, int i, String path, String what) throws MetadataException {
        JsonNode o = array.get(i);
        if (!o.isObject()) {
            throw error(path, what + " must be a JSON object");
        }
        noExtensions(o, path);
        return o;
    }

    private static boolean intersect(EnumMapping a, EnumMapping b, boolean signed) {
        return a.contains(b.low(), signed) || a.contains(b.high(), signed) || b.contains(a.low(), signed);
    }

    // ---------------------------------------------------------------------------- field locations

    /** Whether the selector field last located by {@link #location} is signed. */
    private boolean selectorSigned;

    /**
     * Reads a field location and checks that it names an integer field decoded before: with an
     * origin, a scope decoded before or the current one; without, from the innermost struct
     * ({@code null} elements going up one struct).
     */
    private FieldPath location(JsonNode fc, String owner, String property, boolean selector) throws MetadataException {
        return location(fc, owner, property, selector, false);
    }

    /** Whether the selector field last located by {@link #location} is a boolean. */
    private boolean selectorBool;

    /** As {@link #location(JsonNode, String, String, boolean)}; {@code boolOk}: the field may be a boolean. */
    private FieldPath location(JsonNode fc, String owner, String property, boolean selector, boolean boolOk)
            throws MetadataException {
        String path = owner + "." + property;
        JsonNode loc = required(fc, property, owner);
        String origin;
        List<String> parts = new ArrayList<>();
        JsonNode elements;
        if (loc.isArray()) {
            // Drafts of CTF 2 wrote a location as an array: the origin, then the path.
            if (loc.isEmpty() || !loc.get(0).isTextual()) {
                throw error(path, "must be a field location object");
            }
            origin = loc.get(0).asText();
            elements = loc.deepCopy();
            ((com.fasterxml.jackson.databind.node.ArrayNode) elements).remove(0);
        } else if (loc.isObject()) {
            origin = loc.has("origin") ? string(loc, "origin", path, true) : null;
            elements = required(loc, "path", path);
        } else {
            throw error(path, "must be a field location object");
        }
        if (!elements.isArray() || elements.isEmpty()) {
            throw error(path + ".path", "must be a non-empty JSON array");
        }
        for (int i = 0; i < elements.size(); i++) {
            JsonNode e = elements.get(i);
            if (e.isNull()) {
                parts.add(null);
            } else if (e.isTextual()) {
                parts.add(e.asText());
            } else {
                throw error(path + ".path[" + i + "]", "must be a string or null");
            }
        }
        if (parts.getLast() == null) {
            throw error(path + ".path", "the last element must not be null");
        }
        FieldType target;
        FieldPath result;
        if (origin != null) {
            int o = FieldPath.CTF2_ORIGINS.indexOf(origin);
            if (o < 0) {
                throw error(path + ".origin", "unknown origin \"" + origin + "\"");
            }
            if (parts.contains(null)) {
                throw error(path + ".path", "a location with an origin cannot go up with null");
            }
            if (o > scope) {
                throw error(path, "origin " + origin + " is decoded after this field");
            }
            List<Member> root;
            if (o == scope) {
                Frame outer = frames.peekLast();
                root = outer == null ? List.of() : outer.done();
            } else if (scopes[o] == null) {
                throw error(path, "origin " + origin + " has no field class here");
            } else {
                root = scopes[o].members();
            }
            target = walk(root, parts, path);
            List<String> full = new ArrayList<>(PREFIXES.get(o));
            full.addAll(parts);
            result = new FieldPath(full);
        } else {
            int up = 0;
            while (parts.get(up) == null) {
                up++;
            }
            if (up >= frames.size()) {
                throw error(path + ".path", "goes up " + up + " structures from a field " + (frames.size() - 1)
                    + " deep in its scope");
            }
            Frame from = frames.stream().skip(up).findFirst().orElseThrow();
            List<String> rest = parts.subList(up, parts.size());
            target = walk(from.done(), rest, path);
            if (up == 0) {
                result = new FieldPath(rest);
            } else {
                List<String> full = new ArrayList<>(PREFIXES.get(scope));
                full.addAll(from.names());
                full.addAll(rest);
                result = new FieldPath(full);
            }
        }
        if (target instanceof EnumType et) {
            target = et.container();
        }
        boolean signed;
        selectorBool = false;
        if (target instanceof IntegerType it && it.size() > 64) {
            throw error(path, "the " + (selector ? "selector" : "length") + " field at " + describe(origin, parts)
                + " is an integer of " + it.size() + " bits: at most 64 are supported");
        } else if (target instanceof IntegerType it) {
            signed = it.signed();
        } else if (target instanceof VarIntType vt) {
            signed = vt.signed();
        } else if (boolOk && target instanceof BoolType) {
            signed = false;
            selectorBool = true;
        } else {
            throw error(path, "the field at " + describe(origin, parts) + " is not " + (boolOk ? "a boolean or an integer"
                : "an integer"));
        }
        if (!selector && signed) {
            throw error(path, "the length field at " + describe(origin, parts) + " must be unsigned");
        }
        selectorSigned = signed;
        return result;
    }

    private static String describe(String origin, List<String> parts) {
        return (origin == null ? "" : origin + ":") + String.join("/", parts.stream().map(p -> p == null ? ".." : p)
            .toList());
    }

    /**
     * The field at {@code parts} from the members {@code root} decoded so far, through structs,
     * arrays, optionals and variants (whose every option may hold it: which one does is known
     * only while decoding). When several fields may be the one, they must be alike: all
     * booleans, all unsigned or all signed integers.
     */
    private FieldType walk(List<Member> root, List<String> parts, String path) throws MetadataException {
        List<List<Member>> levels = List.of(root);
        List<FieldType> found = List.of();
        for (int k = 0; k < parts.size(); k++) {
            if (levels.isEmpty()) {
                throw error(path, "\"" + parts.get(k - 1) + "\" is not a structure");
            }
            found = new ArrayList<>();
            List<List<Member>> next = new ArrayList<>();
            for (List<Member> members : levels) {
                FieldType t = null;
                for (Member m : members) {
                    if (m.name().equals(parts.get(k))) {
                        t = m.type();
                    }
                }
                if (t == null) {
                    // A struct being read is no member yet: go on among the members it has so far.
                    List<Member> within = within(members, parts.get(k));
                    if (within != null && k < parts.size() - 1) {
                        next.add(within);
                    }
                    continue;
                }
                for (FieldType leaf : leaves(t, new ArrayList<>())) {
                    found.add(leaf);
                    if (leaf instanceof StructType st) {
                        List<Member> ms = st.members();
                        for (Frame f : frames) {
                            if (f.done() == st.members()) {
                                ms = f.done();
                            }
                        }
                        next.add(ms);
                    }
                }
            }
            if (found.isEmpty() && next.isEmpty()) {
                throw error(path, "no field \"" + parts.get(k) + "\" is decoded before this one");
            }
            levels = next;
        }
        if (found.isEmpty()) {
            throw error(path, "no field \"" + parts.getLast() + "\" is decoded before this one");
        }
        FieldType first = null;
        for (FieldType t : found) {
            FieldType c = t instanceof EnumType et ? et.container() : t;
            if (c instanceof IntegerType || c instanceof VarIntType || c instanceof BoolType) {
                if (first == null) {
                    first = c;
                } else if (kindOf(first) != kindOf(c)) {
                    throw error(path, "the fields the location may name are not alike (booleans, unsigned or signed"
                        + " integers)");
                }
            }
        }
        return first != null ? first : found.getFirst();
    }

    /** 0 for a boolean, 1 for an unsigned integer, 2 for a signed one. */
    private static int kindOf(FieldType t) {
        return switch (t) {
            case IntegerType it -> it.signed() ? 2 : 1;
            case VarIntType vt -> vt.signed() ? 2 : 1;
            default -> 0;
        };
    }

    /** The field classes a location reaches at {@code t}: through arrays, optionals and every option of variants. */
    private static List<FieldType> leaves(FieldType t, List<FieldType> out) {
        switch (t) {
            case ArrayType a -> leaves(a.element(), out);
            case SequenceType q -> leaves(q.element(), out);
            case OptionalType o -> leaves(o.content(), out);
            case VariantType v -> {
                for (Member m : v.options()) {
                    leaves(m.type(), out);
                }
            }
            default -> out.add(t);
        }
        return out;
    }

    /** The members so far of the struct being read as member {@code name} of the struct whose members are {@code outer}. */
    private List<Member> within(List<Member> outer, String name) {
        List<Frame> inward = new ArrayList<>(frames);
        for (int i = 0; i + 1 < inward.size(); i++) {
            Frame f = inward.get(i);
            if (inward.get(i + 1).done() == outer && f.names() != null && !f.names().isEmpty()
                    && f.names().getLast().equals(name)) {
                return f.done();
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------- properties

    /**
     * Keeps the attributes of the object at {@code path}, if it has any, under the place an
     * error there would name. The decoder has no use for them: they are shown, not interpreted.
     */
    private void attributes(JsonNode o, String path) throws MetadataException {
        JsonNode a = o.get("attributes");
        if (a == null) {
            return;
        }
        if (!a.isObject()) {
            throw error(path + ".attributes", "must be a JSON object (attributes by namespace)");
        }
        if (!a.isEmpty()) {
            attributes.put(new MetadataException.Json(index, what, path).toString(), a.toString());
        }
    }

    private void noExtensions(JsonNode o, String path) throws MetadataException {
        JsonNode ext = o.get("extensions");
        if (ext != null && !(ext.isObject() && ext.isEmpty())) {
            throw error(path + ".extensions", "extension not declared in the preamble");
        }
    }

    /** The properties of the object that property {@code name} of {@code o} holds, if any. */
    private Iterable<Map.Entry<String, JsonNode>> properties(JsonNode o, String name, String path)
            throws MetadataException {
        JsonNode v = o.get(name);
        if (v == null) {
            return List.of();
        }
        if (!v.isObject()) {
            throw error(path + "." + name, "must be a JSON object");
        }
        return v::fields;
    }

    private JsonNode required(JsonNode o, String name, String path) throws MetadataException {
        JsonNode v = o.get(name);
        if (v == null) {
            throw error(path, "missing required property \"" + name + "\"");
        }
        return v;
    }

    private String string(JsonNode o, String name, String path, boolean required) throws MetadataException {
        JsonNode v = required ? required(o, name, path) : o.get(name);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw error(path + "." + name, "must be a JSON string");
        }
        return v.asText();
    }

    private long unsigned(JsonNode v, String path) throws MetadataException {
        if (!v.isIntegralNumber() || v.bigIntegerValue().signum() < 0 || v.bigIntegerValue().compareTo(TWO_64) >= 0) {
            throw error(path, "must be an integer from 0 to 2^64 - 1");
        }
        return v.bigIntegerValue().longValue();
    }

    private long signed(JsonNode v, String path) throws MetadataException {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw error(path, "must be a 64-bit signed integer");
        }
        return v.asLong();
    }

    private long length(JsonNode fc, String path) throws MetadataException {
        long length = unsigned(required(fc, "length", path), path + ".length");
        if (length == 0 || length > Integer.MAX_VALUE) {
            throw error(path + ".length", "must be greater than zero");
        }
        return length;
    }

    private ByteOrder byteOrder(JsonNode fc, String path) throws MetadataException {
        return switch (string(fc, "byte-order", path, true)) {
            case "big-endian" -> ByteOrder.BIG_ENDIAN;
            case "little-endian" -> ByteOrder.LITTLE_ENDIAN;
            default -> throw error(path + ".byte-order", "must be \"big-endian\" or \"little-endian\"");
        };
    }

    /** Only the default bit order (the one CTF 1.8 has) is supported. */
    private void bitOrder(JsonNode fc, String path, ByteOrder order) throws MetadataException {
        String bitOrder = string(fc, "bit-order", path, false);
        if (bitOrder == null) {
            return;
        }
        String natural = order == ByteOrder.LITTLE_ENDIAN ? "first-to-last" : "last-to-first";
        if (!bitOrder.equals("first-to-last") && !bitOrder.equals("last-to-first")) {
            throw error(path + ".bit-order", "must be \"first-to-last\" or \"last-to-first\"");
        }
        if (!bitOrder.equals(natural)) {
            throw error(path + ".bit-order", "bit order " + bitOrder + " with a " + order.name().toLowerCase()
                .replace('_', '-') + " byte order is not supported");
        }
    }

    private int alignment(JsonNode fc, String path, String property) throws MetadataException {
        if (!fc.has(property)) {
            return 1;
        }
        long a = unsigned(fc.get(property), path + "." + property);
        if (a == 0 || Long.bitCount(a) != 1 || a > (1L << 30)) {
            throw error(path + "." + property, "must be a positive power of two");
        }
        return (int) a;
    }

    private int base(JsonNode fc, String path) throws MetadataException {
        if (!fc.has("preferred-display-base")) {
            return 10;
        }
        long b = unsigned(fc.get("preferred-display-base"), path + ".preferred-display-base");
        if (b != 2 && b != 8 && b != 10 && b != 16) {
            throw error(path + ".preferred-display-base", "must be 2, 8, 10 or 16");
        }
        return (int) b;
    }

    private Set<Role> roles(JsonNode fc, String path, boolean signed, boolean integer) throws MetadataException {
        JsonNode roles = fc.get("roles");
        if (roles == null) {
            return Set.of();
        }
        if (!roles.isArray()) {
            throw error(path + ".roles", "must be a JSON array of role names");
        }
        Set<Role> out = EnumSet.noneOf(Role.class);
        for (int i = 0; i < roles.size(); i++) {
            String rpath = path + ".roles[" + i + "]";
            Role r = roles.get(i).isTextual() ? Role.named(roles.get(i).asText()) : null;
            if (r == null) {
                throw error(rpath, "unknown role " + roles.get(i));
            }
            if (!SCOPE_ROLES.get(scope).contains(r)) {
                throw error(rpath, "role " + r.jsonName() + " is not allowed in the " + FieldPath.CTF2_ORIGINS.get(scope)
                    + " scope");
            }
            if ((r == Role.METADATA_STREAM_UUID) == integer || signed) {
                throw error(rpath, "role " + r.jsonName() + " is not allowed on this field class");
            }
            out.add(r);
        }
        return out;
    }

    private List<EnumMapping> mappings(JsonNode fc, String path) throws MetadataException {
        boolean signed = fc.get("type").asText().contains("-signed-");
        List<EnumMapping> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : properties(fc, "mappings", path)) {
            out.addAll(rangeSet(e.getValue(), key(path + ".mappings", e.getKey()), e.getKey(), signed));
        }
        return out;
    }

    private List<EnumMapping> rangeSet(JsonNode set, String path, String label, boolean signed) throws MetadataException {
        if (!set.isArray() || set.isEmpty()) {
            throw error(path, "must be an integer range set: a non-empty array of [lower, upper] ranges");
        }
        List<EnumMapping> out = new ArrayList<>();
        for (int i = 0; i < set.size(); i++) {
            String rpath = path + "[" + i + "]";
            JsonNode r = set.get(i);
            if (!r.isArray() || r.size() != 2) {
                throw error(rpath, "an integer range is an array of two integers");
            }
            long lo = signed ? signed(r.get(0), rpath + "[0]") : unsigned(r.get(0), rpath + "[0]");
            long hi = signed ? signed(r.get(1), rpath + "[1]") : unsigned(r.get(1), rpath + "[1]");
            if (signed ? lo > hi : Long.compareUnsigned(lo, hi) > 0) {
                throw error(rpath, "the upper bound is less than the lower bound");
            }
            out.add(new EnumMapping(label, lo, hi));
        }
        return out;
    }

    private UUID uuid(JsonNode v, String path) throws MetadataException {
        if (!v.isArray() || v.size() != 16) {
            throw error(path, "a UUID is an array of 16 integers from 0 to 255");
        }
        ByteBuffer b = ByteBuffer.allocate(16);
        for (int i = 0; i < 16; i++) {
            JsonNode x = v.get(i);
            if (!x.isIntegralNumber() || x.asLong() < 0 || x.asLong() > 255) {
                throw error(path + "[" + i + "]", "a UUID byte is an integer from 0 to 255");
            }
            b.put((byte) x.asInt());
        }
        b.flip();
        return new UUID(b.getLong(), b.getLong());
    }

    /** A JSON path to property {@code name} of the object at {@code path}: bracketed unless a plain word. */
    private static String key(String path, String name) {
        return name.matches("[A-Za-z0-9_-]+") ? path + "." + name
            : path + "[\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
    }

    private static List<String> append(List<String> names, String name) {
        List<String> out = new ArrayList<>(names);
        out.add(name);
        return out;
    }
}
