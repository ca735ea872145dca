package dev.hetrace.ctf.metadata;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Parses CTF 2 metadata (CTF2-SPEC-2.0): a JSON text sequence (RFC 7464) of fragments, each
 * after a record separator, into the same {@link TraceClass} the TSDL parser makes. Roles are
 * kept on the types that carry them; field locations become absolute or relative
 * {@link FieldPath}s whose targets are checked here, so that an error names its fragment and
 * JSON path. Fragments are read one at a time: the stream is never held whole.
 *
 * <p>This class reads the fragments; its parts are {@link Ctf2FieldClasses} (field classes),
 * {@link Ctf2Locations} (field locations) and {@link Ctf2Properties} (JSON properties and errors).
 */
final class Ctf2Parser {
    /** The record separator that starts every fragment. */
    static final int RS = 0x1E;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    private final Ctf2Properties json = new Ctf2Properties();
    private final Ctf2Locations locations = new Ctf2Locations(json);
    private final Ctf2FieldClasses fieldClasses = new Ctf2FieldClasses(json, locations);
    private boolean preamble;
    private boolean traceClass;
    private UUID uuid;
    private StructType packetHeader;
    private final Map<String, Object> env = new LinkedHashMap<>();
    private final Map<String, ClockClass> clocks = new LinkedHashMap<>();
    private final Map<Long, StreamBuilder> streams = new TreeMap<>();
    /** Where each scope is defined (see {@link TraceClass#places()}). */
    private final Map<String, String> places = new LinkedHashMap<>();

    private ByteOrder byteOrder;

    private static final class StreamBuilder {
        final long id;
        final StructType packetContext;
        final StructType eventHeader;
        final StructType eventContext;
        final String defaultClock;
        final TreeMap<Long, EventClass> events = new TreeMap<>();

        StreamBuilder(
                long id,
                StructType packetContext,
                StructType eventHeader,
                StructType eventContext,
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

    private void fragment(byte[] text) throws MetadataException {
        json.nextFragment();
        JsonNode f;
        try {
            f = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw json.error(
                    null,
                    "malformed JSON: " + e.getOriginalMessage() + " (line "
                            + e.getLocation().getLineNr() + ", column "
                            + e.getLocation().getColumnNr() + " of the fragment)");
        } catch (IOException e) {
            throw json.error(null, "malformed JSON: " + e.getMessage());
        }
        if (f == null || f.isMissingNode()) {
            throw json.error(null, "empty fragment");
        }
        if (!f.isObject()) {
            throw json.error("$", "a fragment must be a JSON object");
        }
        String type = json.string(f, "type", "$", true);
        String name = f.path("name").isTextual() ? f.get("name").asText() : null;
        json.fragmentIs(type.replace('-', ' ') + (name == null ? "" : " \"" + name + "\""));
        if (!preamble && !type.equals("preamble")) {
            throw json.error("$.type", "the first fragment must be a preamble, not a " + type);
        }
        if (!type.equals("preamble")) {
            json.noExtensions(f, "$");
        }
        json.attributes(f, "$");
        switch (type) {
            case "preamble" -> preamble(f);
            case "field-class-alias" -> alias(f);
            case "trace-class" -> traceClass(f);
            case "clock-class" -> clockClass(f);
            case "data-stream-class" -> dataStreamClass(f);
            case "event-record-class" -> eventRecordClass(f);
            default -> throw json.error("$.type", "unknown fragment type \"" + type + "\"");
        }
    }

    private void preamble(JsonNode f) throws MetadataException {
        if (preamble) {
            throw json.error("$.type", "a metadata stream has one preamble fragment only");
        }
        preamble = true;
        JsonNode version = json.required(f, "version", "$");
        if (!version.isIntegralNumber() || version.asLong() != 2) {
            throw json.error("$.version", "unsupported CTF version " + version + " (expected 2)");
        }
        for (Map.Entry<String, JsonNode> ns : json.properties(f, "extensions", "$")) {
            if (!ns.getValue().isObject()) {
                throw json.error(Ctf2Properties.key("$.extensions", ns.getKey()), "must be a JSON object");
            }
            Iterator<String> names = ns.getValue().fieldNames();
            if (names.hasNext()) {
                String name = names.next();
                throw json.error(
                        Ctf2Properties.key(Ctf2Properties.key("$.extensions", ns.getKey()), name),
                        "unsupported extension \"" + ns.getKey() + "/" + name
                                + "\": the trace cannot be read without it");
            }
        }
        if (f.has("uuid")) {
            uuid = json.uuid(f.get("uuid"), "$.uuid");
        }
    }

    private void alias(JsonNode f) throws MetadataException {
        String name = json.string(f, "name", "$", true);
        fieldClasses.defineAlias(name, json.required(f, "field-class", "$"));
    }

    private void traceClass(JsonNode f) throws MetadataException {
        if (traceClass) {
            throw json.error("$.type", "a metadata stream has one trace class fragment only");
        }
        if (!streams.isEmpty()) {
            throw json.error("$.type", "the trace class fragment must occur before any data stream class fragment");
        }
        traceClass = true;
        if (f.has("uuid")) {
            UUID u = json.uuid(f.get("uuid"), "$.uuid");
            if (uuid == null) {
                uuid = u;
            }
        }
        for (Map.Entry<String, JsonNode> entry : json.properties(f, "environment", "$")) {
            JsonNode v = entry.getValue();
            if (v.isTextual()) {
                env.put(entry.getKey(), v.asText());
            } else if (v.isIntegralNumber() && v.canConvertToLong()) {
                env.put(entry.getKey(), v.asLong());
            } else {
                throw json.error(
                        Ctf2Properties.key("$.environment", entry.getKey()),
                        "an environment entry is a JSON integer or string");
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
        String id = f.has("id") ? json.string(f, "id", "$", true) : json.string(f, "name", "$", true);
        if (clocks.containsKey(id)) {
            throw json.error("$.id", "clock class \"" + id + "\" is already defined");
        }
        String name = f.has("name") ? json.string(f, "name", "$", true) : id;
        long frequency = json.unsigned(json.required(f, "frequency", "$"), "$.frequency");
        if (frequency == 0) {
            throw json.error("$.frequency", "must be greater than zero");
        }
        boolean unixEpoch = false;
        JsonNode origin = f.get("origin");
        if (origin != null) {
            if (origin.isTextual()) {
                if (!origin.asText().equals("unix-epoch")) {
                    throw json.error("$.origin", "must be \"unix-epoch\" or a clock origin object");
                }
                unixEpoch = true;
            } else if (origin.isObject()) {
                json.string(origin, "name", "$.origin", true);
                json.string(origin, "uid", "$.origin", true);
            } else {
                throw json.error("$.origin", "must be \"unix-epoch\" or a clock origin object");
            }
        }
        long seconds = 0;
        long cycles = 0;
        JsonNode offset = f.get("offset-from-origin");
        if (offset != null) {
            if (!offset.isObject()) {
                throw json.error("$.offset-from-origin", "must be a JSON object");
            }
            if (offset.has("seconds")) {
                seconds = json.signed(offset.get("seconds"), "$.offset-from-origin.seconds");
            }
            if (offset.has("cycles")) {
                cycles = json.unsigned(offset.get("cycles"), "$.offset-from-origin.cycles");
                if (Long.compareUnsigned(cycles, frequency) >= 0) {
                    throw json.error(
                            "$.offset-from-origin.cycles", "must be less than the frequency (" + frequency + ")");
                }
            }
        }
        long precision = f.has("precision") ? json.unsigned(f.get("precision"), "$.precision") : 0;
        String description = f.has("description") ? json.string(f, "description", "$", true) : null;
        clocks.put(id, new ClockClass(name, description, null, frequency, precision, seconds, cycles, unixEpoch));
    }

    private void dataStreamClass(JsonNode f) throws MetadataException {
        long id = f.has("id") ? json.unsigned(f.get("id"), "$.id") : 0;
        if (streams.containsKey(id)) {
            throw json.error("$.id", "data stream class " + Long.toUnsignedString(id) + " is already defined");
        }
        String clockKey = f.has("default-clock-class-id")
                ? "default-clock-class-id"
                : f.has("default-clock-class-name") ? "default-clock-class-name" : null;
        String defaultClock = null;
        if (clockKey != null) {
            String clockId = json.string(f, clockKey, "$", true);
            ClockClass c = clocks.get(clockId);
            if (c == null) {
                throw json.error("$." + clockKey, "no clock class \"" + clockId + "\" occurs before");
            }
            defaultClock = c.name();
        }
        fieldClasses.setDefaultClock(defaultClock);
        locations.clearScopes(1);
        StructType packetContext =
                scope(f, "packet-context-field-class", 1, TraceClass.placeKey("stream.packet.context", id, 0));
        StructType eventHeader =
                scope(f, "event-record-header-field-class", 2, TraceClass.placeKey("stream.event.header", id, 0));
        StructType eventContext = scope(
                f, "event-record-common-context-field-class", 3, TraceClass.placeKey("stream.event.context", id, 0));
        streams.put(id, new StreamBuilder(id, packetContext, eventHeader, eventContext, defaultClock));
    }

    private void eventRecordClass(JsonNode f) throws MetadataException {
        long id = f.has("id") ? json.unsigned(f.get("id"), "$.id") : 0;
        long streamId = f.has("data-stream-class-id")
                ? json.unsigned(f.get("data-stream-class-id"), "$.data-stream-class-id")
                : 0;
        StreamBuilder sb = streams.get(streamId);
        if (sb == null) {
            throw json.error(
                    f.has("data-stream-class-id") ? "$.data-stream-class-id" : "$",
                    "no data stream class " + Long.toUnsignedString(streamId) + " occurs before");
        }
        if (sb.events.containsKey(id)) {
            throw json.error(
                    "$.id",
                    "event record class " + Long.toUnsignedString(id) + " of data stream class "
                            + Long.toUnsignedString(streamId) + " is already defined");
        }
        String name = f.has("name") ? json.string(f, "name", "$", true) : "";
        locations.clearScopes(1);
        locations.setScope(1, sb.packetContext);
        locations.setScope(2, sb.eventHeader);
        locations.setScope(3, sb.eventContext);
        fieldClasses.setDefaultClock(sb.defaultClock);
        StructType context =
                scope(f, "specific-context-field-class", 4, TraceClass.placeKey("event.context", streamId, id));
        StructType payload = scope(f, "payload-field-class", 5, TraceClass.placeKey("event.fields", streamId, id));
        // LTTng gives its log level and EMF URI as attributes of its own (CTF 1.8's loglevel and model.emf.uri)
        JsonNode lttng = f.path("attributes").path(LttngLogLevel.NAMESPACE);
        JsonNode level = lttng.path("log-level");
        Long logLevel = level.isTextual()
                ? LttngLogLevel.of(level.asText())
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
        return new TraceClass(
                2,
                0,
                byteOrder == null ? ByteOrder.LITTLE_ENDIAN : byteOrder,
                uuid,
                packetHeader,
                clocks,
                env,
                classes,
                List.of(),
                json.attributes(),
                places);
    }

    /** Reads the root structure of scope {@code origin} (an index in {@link FieldPath#CTF2_ORIGINS}), or null. */
    private StructType scope(JsonNode f, String property, int origin, String placeKey) throws MetadataException {
        JsonNode fc = f.get(property);
        if (fc == null) {
            return null;
        }
        String path = "$." + property;
        places.put(placeKey, json.place(path));
        if (fc.isTextual()) {
            fc = fieldClasses.alias(fc.asText(), path);
        }
        locations.beginScope(origin);
        FieldType t = fieldClasses.fieldClass(fc, path, List.of(), 0);
        if (!(t instanceof StructType st)) {
            throw json.error(path, "must be a structure field class");
        }
        locations.setScope(origin, st);
        return st;
    }
}
