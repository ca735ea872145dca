package dev.hetrace.ctf.write;

import static dev.hetrace.ctf.write.Ctf2Json.NODES;
import static dev.hetrace.ctf.write.Ctf2Json.alignment;
import static dev.hetrace.ctf.write.Ctf2Json.base;
import static dev.hetrace.ctf.write.Ctf2Json.byteOrder;
import static dev.hetrace.ctf.write.Ctf2Json.fragment;
import static dev.hetrace.ctf.write.Ctf2Json.mappings;
import static dev.hetrace.ctf.write.Ctf2Json.rangeSet;
import static dev.hetrace.ctf.write.Ctf2Json.unsigned;
import static dev.hetrace.ctf.write.Ctf2Json.uuid;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.decode.TracePlan.EventPlanRun;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.FieldPath;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.LttngLogLevel;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.Role;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a {@link TraceClass} as CTF 2 metadata (CTF2-SPEC-2.0): a JSON text sequence of
 * fragments, each after a record separator (0x1E). It writes what the decode plan of the trace
 * class means, not how it was said: the roles CTF 1.8 gives by member names and the clocks it
 * maps by name become explicit CTF 2 roles; variants tagged by enumeration labels become
 * variants selected by integer ranges; members are named as they are shown (CTF 1.8 shows
 * {@code _x} as {@code x}); text arrays and sequences become static- and dynamic-length
 * strings. A trace read back from the result decodes its data streams as the original did.
 *
 * <p>A trace class CTF 2 cannot express (see {@link Unsupported}) is refused with the reason.
 */
public final class Ctf2Writer {
    /** The record separator that starts every fragment (RFC 7464). */
    private static final char RS = 0x1E;

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private static final int PACKET_HEADER = 0;
    private static final int PACKET_CONTEXT = 1;
    private static final int EVENT_HEADER = 2;

    /** The trace class says something CTF 2 metadata cannot (the message says what and where). */
    public static final class Unsupported extends Exception {
        Unsupported(String message) {
            super(message);
        }
    }

    /** Where a tag or length field is: its scope, its member names from the scope's root, its struct. */
    private record Location(int origin, List<String> names, Node struct) {}

    private final TracePlan plan;
    private final StringBuilder out = new StringBuilder();
    /** Locations of the fields other fields refer to, by register. */
    private final Map<Integer, Location> targets = new HashMap<>();

    private final Map<Integer, Node> targetNodes = new HashMap<>();
    private int origin;
    /** Structs being written, innermost first. */
    private final Deque<Node> structs = new ArrayDeque<>();

    private final List<String> names = new ArrayList<>();
    private String where = "";

    private Ctf2Writer(TracePlan plan) {
        this.plan = plan;
    }

    /** The CTF 2 metadata stream of {@code trace}. */
    public static String write(TraceClass trace) throws MetadataException, Unsupported {
        Ctf2Writer w = new Ctf2Writer(TracePlan.compile(trace));
        w.trace();
        return w.out.toString();
    }

    /**
     * {@code metadata} (a CTF 1.8 or CTF 2 metadata file's bytes, plain or packetized) as CTF 2,
     * checked by reading it back.
     */
    public static String rewrite(byte[] metadata) throws MetadataException, Unsupported {
        String json = write(MetadataReader.parse(metadata, w -> {}));
        TracePlan.compile(MetadataReader.parse(json.getBytes(StandardCharsets.UTF_8), w -> {}));
        return json;
    }

    /** Rewrites the metadata file {@code metadataFile} as CTF 2 (see {@link #rewrite(byte[])}). */
    public static void rewrite(Path metadataFile) throws IOException, MetadataException, Unsupported {
        String json;
        try {
            json = rewrite(Files.readAllBytes(metadataFile));
        } catch (MetadataException e) {
            throw e.in(metadataFile);
        } catch (Unsupported e) {
            throw new Unsupported(metadataFile + ": " + e.getMessage());
        }
        Files.writeString(metadataFile, json, StandardCharsets.UTF_8);
    }

    private void trace() throws Unsupported {
        TraceClass tc = plan.trace;
        ObjectNode preamble = fragment("preamble");
        preamble.put("version", 2);
        if (tc.uuid() != null) {
            preamble.set("uuid", uuid(tc.uuid()));
        }
        emit(preamble);
        ObjectNode traceClass = fragment("trace-class");
        if (!tc.env().isEmpty()) {
            ObjectNode env = traceClass.putObject("environment");
            tc.env().forEach((k, v) -> {
                if (v instanceof Long l) {
                    env.put(k, l);
                } else {
                    env.put(k, String.valueOf(v));
                }
            });
        }
        where = "trace.packet.header";
        scope(traceClass, "packet-header-field-class", PACKET_HEADER, plan.packetHeader);
        emit(traceClass);
        for (ClockClass c : plan.clocks) {
            emit(clock(c));
        }
        if (plan.streamCount() == 0) {
            // CTF 2 metadata has at least one data stream class; one without events stands for none.
            ObjectNode none = fragment("data-stream-class");
            none.put("id", 0);
            emit(none);
        }
        for (StreamPlan sp : plan.distinctStreams()) {
            if (!plan.trace.streamRuns().isEmpty() && plan.streams.get(sp.cls.id()) != sp) {
                throw new Unsupported("runs of similar stream classes (" + plan.trace.streamCount()
                        + " stream classes) are not written as CTF 2");
            }
            stream(sp);
        }
    }

    private void stream(StreamPlan sp) throws Unsupported {
        long id = sp.cls.id();
        ObjectNode f = fragment("data-stream-class");
        f.put("id", id);
        if (sp.defaultClock >= 0) {
            f.put("default-clock-class-id", plan.clocks.get(sp.defaultClock).name());
        }
        where = "stream class " + id + ": stream.packet.context";
        scope(f, "packet-context-field-class", PACKET_CONTEXT, sp.packetContext);
        where = "stream class " + id + ": stream.event.header";
        scope(f, "event-record-header-field-class", EVENT_HEADER, sp.eventHeader);
        where = "stream class " + id + ": stream.event.context";
        scope(f, "event-record-common-context-field-class", 3, sp.eventContext);
        emit(f);
        for (EventPlan ep : sp.events.values()) {
            event(ep.cls, ep);
        }
        for (EventPlanRun run : sp.eventRuns) {
            for (long k = 0; k < run.cls().count(); k++) {
                event(run.cls().get(k), run.template());
            }
        }
    }

    private void event(EventClass ec, EventPlan ep) throws Unsupported {
        ObjectNode f = fragment("event-record-class");
        f.put("id", ec.id());
        f.put("data-stream-class-id", ec.streamId());
        if (ec.name() != null && !ec.name().isEmpty()) {
            f.put("name", ec.name());
        }
        if (ec.logLevel() != null || ec.emfUri() != null) {
            // as LTTng writes CTF 1.8's loglevel and model.emf.uri in CTF 2
            ObjectNode lttng = f.putObject("attributes").putObject(LttngLogLevel.NAMESPACE);
            if (ec.logLevel() != null) {
                String level = LttngLogLevel.name(ec.logLevel());
                if (level != null) {
                    lttng.put("log-level", level);
                } else {
                    lttng.put("log-level", ec.logLevel());
                }
            }
            if (ec.emfUri() != null) {
                lttng.put("emf-uri", ec.emfUri());
            }
        }
        where = "event class " + ec.id() + " (\"" + ec.name() + "\"): event.context";
        scope(f, "specific-context-field-class", 4, ep.context);
        where = "event class " + ec.id() + " (\"" + ec.name() + "\"): event.fields";
        scope(f, "payload-field-class", 5, ep.payload);
        emit(f);
    }

    private ObjectNode clock(ClockClass c) {
        ObjectNode f = fragment("clock-class");
        f.put("id", c.name());
        f.put("name", c.name());
        if (c.description() != null) {
            f.put("description", c.description());
        }
        f.put("frequency", unsigned(c.frequency()));
        if (c.absolute()) {
            f.put("origin", "unix-epoch");
        }
        if (c.offsetSeconds() != 0 || c.offsetCycles() != 0) {
            ObjectNode offset = f.putObject("offset-from-origin");
            offset.put("seconds", c.offsetSeconds());
            offset.put("cycles", unsigned(c.offsetCycles()));
        }
        if (c.precision() != 0) {
            f.put("precision", unsigned(c.precision()));
        }
        return f;
    }

    // ---------------------------------------------------------------------------------- scopes

    private void scope(ObjectNode fragment, String property, int scope, Node root) throws Unsupported {
        if (root == null) {
            return;
        }
        origin = scope;
        structs.clear();
        names.clear();
        fragment.set(property, fieldClass(root));
    }

    private ObjectNode fieldClass(Node n) throws Unsupported {
        if (n.register >= 0) {
            targets.put(n.register, new Location(origin, List.copyOf(names), structs.peekFirst()));
            targetNodes.put(n.register, n);
        }
        ObjectNode fc = NODES.objectNode();
        if (n.blob) {
            blob(fc, n);
            return fc;
        }
        switch (n.kind) {
            case Node.INT -> {
                if (n.type instanceof FieldType.BitArrayType ba) {
                    bitArray(fc, ba);
                } else {
                    integer(fc, n);
                }
            }
            case Node.BIG_INT -> integer(fc, n);
            case Node.BOOL -> {
                FieldType.BoolType bt = (FieldType.BoolType) n.type;
                fc.put("type", "fixed-length-boolean");
                fc.put("length", bt.size());
                byteOrder(fc, bt.byteOrder());
                alignment(fc, "alignment", bt.alignment());
            }
            case Node.VARINT -> {
                VarIntType vt = (VarIntType) n.type;
                fc.put("type", vt.signed() ? "variable-length-signed-integer" : "variable-length-unsigned-integer");
                base(fc, vt.base());
                mappings(fc, vt.mappings(), vt.signed());
                roles(fc, n);
            }
            case Node.FLOAT -> {
                FloatType ft = (FloatType) n.type;
                if (!(ft.expDig() == 8 && ft.mantDig() == 24) && !(ft.expDig() == 11 && ft.mantDig() == 53)) {
                    throw unsupported("a floating point number of " + ft.expDig() + " exponent and " + ft.mantDig()
                            + " mantissa bits (CTF 2 has binary16, 32, 64 and 128 only)");
                }
                fc.put("type", "fixed-length-floating-point-number");
                fc.put("length", ft.size());
                byteOrder(fc, ft.byteOrder());
                alignment(fc, "alignment", ft.alignment());
            }
            case Node.STRING -> {
                fc.put("type", "null-terminated-string");
                encoding(fc, n);
            }
            case Node.STRUCT -> structure(fc, n);
            case Node.VARIANT -> variant(fc, n);
            case Node.OPTIONAL -> optional(fc, n);
            case Node.ARRAY, Node.PACKED_ARRAY -> {
                if (n.role == Node.ROLE_UUID) {
                    fc.put("type", "static-length-blob");
                    fc.put("length", n.length);
                    fc.putArray("roles").add(Role.METADATA_STREAM_UUID.jsonName());
                } else if (n.text) {
                    fc.put("type", "static-length-string");
                    fc.put("length", n.length);
                    encoding(fc, n);
                } else {
                    fc.put("type", "static-length-array");
                    fc.put("length", n.length);
                    fc.set("element-field-class", fieldClass(n.element()));
                }
            }
            case Node.SEQUENCE, Node.PACKED_SEQUENCE -> {
                if (n.text) {
                    fc.put("type", "dynamic-length-string");
                    fc.set("length-field-location", location(n.sourceRegister, "sequence length"));
                    encoding(fc, n);
                } else {
                    fc.put("type", "dynamic-length-array");
                    fc.set("length-field-location", location(n.sourceRegister, "sequence length"));
                    fc.set("element-field-class", fieldClass(n.element()));
                }
            }
            case Node.CHAIN -> throw unsupported("structs nested " + n.length + " levels deep in one another");
            default -> throw new IllegalStateException("unexpected plan node kind " + n.kind);
        }
        return fc;
    }

    /** The encoding of a string, said when it is not the default UTF-8. */
    private static void encoding(ObjectNode fc, Node n) {
        String name = switch (n.charset) {
            case UTF16BE -> "utf-16be";
            case UTF16LE -> "utf-16le";
            case UTF32BE -> "utf-32be";
            case UTF32LE -> "utf-32le";
            default -> null;
        };
        if (name != null) {
            fc.put("encoding", name);
        }
    }

    /** A fixed-length bit array, or a bit map with its flags (the ranges of each flag in their order). */
    private void bitArray(ObjectNode fc, FieldType.BitArrayType ba) {
        fc.put("type", ba.flags().isEmpty() ? "fixed-length-bit-array" : "fixed-length-bit-map");
        fc.put("length", ba.size());
        byteOrder(fc, ba.byteOrder());
        alignment(fc, "alignment", ba.alignment());
        if (!ba.flags().isEmpty()) {
            ObjectNode flags = fc.putObject("flags");
            for (FieldType.BitFlag f : ba.flags()) {
                ArrayNode ranges = flags.has(f.name()) ? (ArrayNode) flags.get(f.name()) : flags.putArray(f.name());
                ranges.addArray().add(f.lowBit()).add(f.highBit());
            }
        }
    }

    private void integer(ObjectNode fc, Node n) throws Unsupported {
        IntegerType it = n.type instanceof EnumType et ? et.container() : (IntegerType) n.type;
        fc.put("type", it.signed() ? "fixed-length-signed-integer" : "fixed-length-unsigned-integer");
        fc.put("length", it.size());
        byteOrder(fc, it.byteOrder());
        alignment(fc, "alignment", it.alignment());
        base(fc, it.base());
        if (n.type instanceof EnumType et) {
            mappings(fc, et.mappings(), it.signed());
        }
        roles(fc, n);
    }

    private void structure(ObjectNode fc, Node n) throws Unsupported {
        fc.put("type", "structure");
        StructType st = (StructType) n.type;
        alignment(fc, "minimum-alignment", st.minAlignment());
        ArrayNode members = fc.putArray("member-classes");
        Set<String> seen = new HashSet<>();
        structs.push(n);
        try {
            for (int i = 0; i < n.children.length; i++) {
                Node c = n.children[i];
                if (c.kind == Node.RUN || c.kind == Node.PACKED_RUN) {
                    String prefix = new String(c.runDisplayPrefix, StandardCharsets.UTF_8);
                    for (long k = 0; k < c.length; k++) {
                        member(members, seen, prefix + (c.runFirst + k), c.element());
                    }
                } else {
                    member(members, seen, n.names[i], c);
                }
            }
        } finally {
            structs.pop();
        }
    }

    private void member(ArrayNode members, Set<String> seen, String name, Node c) throws Unsupported {
        if (!seen.add(name)) {
            throw unsupported("two members of one structure shown as \"" + name + "\" (CTF 2 names members as"
                    + " they are shown)");
        }
        names.add(name);
        try {
            ObjectNode m = members.addObject();
            m.put("name", name);
            m.set("field-class", fieldClass(c));
        } finally {
            names.removeLast();
        }
    }

    /**
     * A variant selected by integer ranges. A CTF 1.8 variant selects the option named by the
     * tag's label: each option gets the ranges of its label, and an option no label names
     * (never selected) is left out.
     */
    private void variant(ObjectNode fc, Node n) throws Unsupported {
        VariantType vt = (VariantType) n.type;
        fc.put("type", "variant");
        fc.set("selector-field-location", location(n.sourceRegister, "variant tag"));
        List<List<EnumMapping>> ranges = vt.optionRanges() != null ? vt.optionRanges() : labelRanges(vt, n);
        ArrayNode options = fc.putArray("options");
        for (int i = 0; i < vt.options().size(); i++) {
            if (ranges.get(i).isEmpty()) {
                continue;
            }
            ObjectNode o = options.addObject();
            String name = shown(vt.options().get(i).name());
            if (!name.isEmpty()) {
                o.put("name", name);
            }
            o.set("selector-field-ranges", rangeSet(ranges.get(i), n.tagSigned));
            o.set("field-class", fieldClass(n.children[n.entryOf(i)]));
        }
    }

    /** A static- or dynamic-length BLOB, with its media type. */
    private void blob(ObjectNode fc, Node n) throws Unsupported {
        if (n.kind == Node.PACKED_ARRAY) {
            fc.put("type", "static-length-blob");
            fc.put("length", n.length);
        } else {
            fc.put("type", "dynamic-length-blob");
            fc.set("length-field-location", location(n.sourceRegister, "BLOB length"));
        }
        if (n.mediaType != null && !n.mediaType.equals(FieldType.BlobType.OCTET_STREAM)) {
            fc.put("media-type", n.mediaType);
        }
        if (n.role == Node.ROLE_UUID) {
            fc.putArray("roles").add(Role.METADATA_STREAM_UUID.jsonName());
        }
    }

    /** An optional: its selector is a boolean, or an integer with the ranges that enable its content. */
    private void optional(ObjectNode fc, Node n) throws Unsupported {
        fc.put("type", "optional");
        fc.set("selector-field-location", location(n.sourceRegister, "optional selector"));
        if (n.optionalRanges != null) {
            List<EnumMapping> ranges = new ArrayList<>();
            for (int k = 0; k < n.optionalRanges.length; k += 2) {
                ranges.add(new EnumMapping("", n.optionalRanges[k], n.optionalRanges[k + 1]));
            }
            fc.set("selector-field-ranges", rangeSet(ranges, n.tagSigned));
        }
        fc.set("field-class", fieldClass(n.element()));
    }

    private String shown(String raw) {
        return TracePlan.shownName(plan.trace, raw);
    }

    private List<List<EnumMapping>> labelRanges(VariantType vt, Node n) throws Unsupported {
        Node tag = targetNodes.get(n.sourceRegister);
        if (!(tag.type instanceof EnumType et)) {
            throw unsupported("a variant tag '" + vt.tag() + "' that is not an enumeration");
        }
        List<FieldType.Member> all = vt.options();
        Map<String, Integer> optionIndex = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            optionIndex.putIfAbsent(all.get(i).name(), i);
        }
        List<List<EnumMapping>> ranges = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            ranges.add(new ArrayList<>());
        }
        for (EnumMapping m : et.mappings()) {
            Integer option = optionIndex.get(m.label());
            if (option != null) {
                ranges.get(option).add(m);
            }
        }
        boolean signed = et.container().signed();
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = 0; j < i; j++) {
                for (EnumMapping a : ranges.get(i)) {
                    for (EnumMapping b : ranges.get(j)) {
                        if (a.contains(b.low(), signed)
                                || a.contains(b.high(), signed)
                                || b.contains(a.low(), signed)) {
                            throw unsupported("a variant tagged by '" + vt.tag() + "' whose values " + a.low()
                                    + " to " + a.high() + " names two options (\""
                                    + all.get(j).name() + "\" and \""
                                    + all.get(i).name() + "\")");
                        }
                    }
                }
            }
        }
        return ranges;
    }

    /** A field location: from the innermost struct when the field is one of its members, else from its scope. */
    private ObjectNode location(int register, String what) throws Unsupported {
        Location target = targets.get(register);
        if (target == null) {
            throw new IllegalStateException(what + " refers to a field not written before");
        }
        ObjectNode loc = NODES.objectNode();
        ArrayNode path = NODES.arrayNode();
        if (target.struct() != null && target.struct() == structs.peekFirst()) {
            path.add(target.names().getLast());
        } else {
            // A CTF 2 field location goes through variants and optionals to the option decoded.
            loc.put("origin", FieldPath.CTF2_ORIGINS.get(target.origin()));
            target.names().forEach(path::add);
        }
        loc.set("path", path);
        return loc;
    }

    private void roles(ObjectNode fc, Node n) throws Unsupported {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        Role byRole = switch (n.role) {
            case Node.ROLE_MAGIC -> Role.PACKET_MAGIC_NUMBER;
            case Node.ROLE_STREAM_ID -> Role.DATA_STREAM_CLASS_ID;
            case Node.ROLE_STREAM_INSTANCE_ID -> Role.DATA_STREAM_ID;
            case Node.ROLE_TIMESTAMP_BEGIN -> Role.DEFAULT_CLOCK_TIMESTAMP;
            case Node.ROLE_TIMESTAMP_END -> Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP;
            case Node.ROLE_EVENTS_DISCARDED -> Role.DISCARDED_EVENT_RECORD_COUNTER_SNAPSHOT;
            case Node.ROLE_PACKET_SIZE -> Role.PACKET_TOTAL_LENGTH;
            case Node.ROLE_CONTENT_SIZE -> Role.PACKET_CONTENT_LENGTH;
            case Node.ROLE_PACKET_SEQ_NUM -> Role.PACKET_SEQUENCE_NUMBER;
            case Node.ROLE_EVENT_ID -> Role.EVENT_RECORD_CLASS_ID;
            default -> null;
        };
        if (byRole != null) {
            roles.add(byRole);
        }
        if (n.clock >= 0) {
            boolean packetTime = n.role == Node.ROLE_TIMESTAMP_BEGIN || n.role == Node.ROLE_TIMESTAMP_END;
            if (!packetTime && origin != EVENT_HEADER) {
                throw unsupported("a field mapped to a clock that is neither an event header timestamp nor a packet's"
                        + " begin or end time (the only clock timestamps of CTF 2)");
            }
            if (!packetTime) {
                roles.add(Role.DEFAULT_CLOCK_TIMESTAMP);
            }
        }
        if (roles.isEmpty()) {
            return;
        }
        if (n.signed) {
            throw unsupported("a signed field with a role (CTF 2 roles are for unsigned integers)");
        }
        ArrayNode a = fc.putArray("roles");
        roles.forEach(r -> a.add(r.jsonName()));
    }

    private void emit(ObjectNode fragment) {
        try {
            out.append(RS)
                    .append(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(fragment))
                    .append('\n');
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private Unsupported unsupported(String what) {
        String field = names.isEmpty() ? "" : " (field '" + String.join(".", names) + "')";
        return new Unsupported(where + field + ": not written as CTF 2: " + what);
    }
}
