package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.Ctf2Properties.append;
import static dev.hetrace.ctf.metadata.Ctf2Properties.key;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BlobType;
import dev.hetrace.ctf.metadata.FieldType.BoolType;
import dev.hetrace.ctf.metadata.FieldType.Encoding;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The field classes of CTF 2 metadata, read into {@link FieldType}s: integers with their roles
 * and mappings, strings, BLOBs, structures, arrays, variants and optionals, and the field
 * class aliases they may name. Field locations are read by {@link Ctf2Locations}.
 */
final class Ctf2FieldClasses {
    private static final List<Set<Role>> SCOPE_ROLES = List.of(
            EnumSet.of(
                    Role.PACKET_MAGIC_NUMBER,
                    Role.METADATA_STREAM_UUID,
                    Role.DATA_STREAM_CLASS_ID,
                    Role.DATA_STREAM_ID),
            EnumSet.of(
                    Role.DEFAULT_CLOCK_TIMESTAMP,
                    Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP,
                    Role.DISCARDED_EVENT_RECORD_COUNTER_SNAPSHOT,
                    Role.PACKET_CONTENT_LENGTH,
                    Role.PACKET_TOTAL_LENGTH,
                    Role.PACKET_SEQUENCE_NUMBER),
            EnumSet.of(Role.DEFAULT_CLOCK_TIMESTAMP, Role.EVENT_RECORD_CLASS_ID),
            EnumSet.noneOf(Role.class),
            EnumSet.noneOf(Role.class),
            EnumSet.noneOf(Role.class));
    private static final int MAX_DEPTH = 1000;
    /** A byte of UTF-8 text in a string of a length in bytes. */
    private static final IntegerType TEXT_BYTE =
            new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 10, Encoding.UTF8, null);

    private final Ctf2Properties json;
    private final Ctf2Locations locations;
    private final Map<String, JsonNode> aliases = new HashMap<>();
    /** The name of the default clock of the data stream class being read, or null. */
    private String defaultClock;

    Ctf2FieldClasses(Ctf2Properties json, Ctf2Locations locations) {
        this.json = json;
        this.locations = locations;
    }

    void setDefaultClock(String name) {
        defaultClock = name;
    }

    /** Defines field class alias {@code name} (a field class fragment). */
    void defineAlias(String name, JsonNode fc) throws MetadataException {
        if (aliases.containsKey(name)) {
            throw json.error("$.name", "field class alias \"" + name + "\" is already defined");
        }
        if (fc.isTextual()) {
            fc = alias(fc.asText(), "$.field-class");
        } else if (!fc.isObject()) {
            throw json.error("$.field-class", "must be a field class or the name of a field class alias");
        }
        aliases.put(name, fc);
    }

    /** The field class that alias {@code name} stands for. */
    JsonNode alias(String name, String path) throws MetadataException {
        JsonNode fc = aliases.get(name);
        if (fc == null) {
            throw json.error(path, "no field class alias named \"" + name + "\" occurs before");
        }
        return fc;
    }

    /**
     * Reads a field class.
     *
     * @param names the member names that lead to it from its scope's root
     */
    FieldType fieldClass(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        if (depth > MAX_DEPTH) {
            throw json.error(path, "field classes are nested more than " + MAX_DEPTH + " levels deep");
        }
        if (fc.isTextual()) {
            fc = alias(fc.asText(), path);
        }
        if (!fc.isObject()) {
            throw json.error(path, "must be a field class (a JSON object) or the name of a field class alias");
        }
        json.noExtensions(fc, path);
        json.attributes(fc, path);
        String type = json.string(fc, "type", path, true);
        return switch (type) {
            case "fixed-length-unsigned-integer",
                    "fixed-length-signed-integer",
                    // Drafts of CTF 2 (babeltrace2 2.0's) had enumeration types: integers with mappings.
                    "fixed-length-unsigned-enumeration",
                    "fixed-length-signed-enumeration" -> fixedInteger(fc, path, type);
            case "variable-length-unsigned-integer", "variable-length-signed-integer" -> {
                boolean signed = !type.contains("unsigned");
                Set<Role> roles = roles(fc, path, signed, true);
                if (roles.contains(Role.DEFAULT_CLOCK_TIMESTAMP)
                        || roles.contains(Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP)) {
                    throw json.error(
                            path + ".roles", "a clock timestamp in a variable-length integer is not supported");
                }
                yield new VarIntType(signed, json.base(fc, path), mappings(fc, path), roles);
            }
            case "fixed-length-floating-point-number" -> {
                long length = json.length(fc, path);
                ByteOrder order = json.byteOrder(fc, path);
                json.bitOrder(fc, path, order);
                int align = json.alignment(fc, path, "alignment");
                yield switch ((int) length) {
                    case 32 -> new FloatType(8, 24, align, order);
                    case 64 -> new FloatType(11, 53, align, order);
                    default ->
                        throw json.error(
                                path + ".length",
                                "floating point numbers of " + length + " bits are not supported (32 or 64)");
                };
            }
            case "null-terminated-string" -> new StringType(encoding(fc, path));
            // Strings of a length in bytes: the text arrays and sequences of CTF 1.8, shown up to their first NUL.
            case "static-length-string" -> {
                FieldType unit = textByte(encoding(fc, path));
                yield new ArrayType(unit, json.unsigned(json.required(fc, "length", path), path + ".length"));
            }
            case "dynamic-length-string" -> {
                FieldType unit = textByte(encoding(fc, path));
                yield new SequenceType(unit, locations.location(fc, path, "length-field-location", false));
            }
            case "static-length-blob" -> {
                long length = json.unsigned(json.required(fc, "length", path), path + ".length");
                if (length > Integer.MAX_VALUE) {
                    throw json.error(
                            path + ".length", "BLOB of " + Long.toUnsignedString(length) + " bytes is too long");
                }
                Set<Role> roles = roles(fc, path, false, false);
                if (roles.contains(Role.METADATA_STREAM_UUID) && length != 16) {
                    throw json.error(path + ".length", "a metadata stream UUID BLOB must be 16 bytes long");
                }
                yield new BlobType(length, null, mediaType(fc, path), roles);
            }
            case "dynamic-length-blob" ->
                new BlobType(
                        0, locations.location(fc, path, "length-field-location", false), mediaType(fc, path), Set.of());
            case "optional" -> optional(fc, path, names, depth);
            case "structure" -> structure(fc, path, names, depth);
            case "static-length-array" -> {
                long length = json.unsigned(json.required(fc, "length", path), path + ".length");
                FieldType element = element(fc, path, names, depth);
                yield new ArrayType(element, length);
            }
            case "dynamic-length-array" -> {
                FieldPath length = locations.location(fc, path, "length-field-location", false);
                FieldType element = element(fc, path, names, depth);
                yield new SequenceType(element, length);
            }
            case "variant" -> variant(fc, path, names, depth);
            case "fixed-length-boolean" -> {
                long length = json.length(fc, path);
                if (length > 64) {
                    throw json.error(
                            path + ".length", "booleans of " + length + " bits are not supported (at most 64)");
                }
                ByteOrder order = json.byteOrder(fc, path);
                json.bitOrder(fc, path, order);
                yield new BoolType((int) length, json.alignment(fc, path, "alignment"), order);
            }
            case "fixed-length-bit-array", "fixed-length-bit-map" -> bitArray(fc, path, type.endsWith("map"));
            default -> throw json.error(path + ".type", "unknown field class type \"" + type + "\"");
        };
    }

    private FieldType.Encoding encoding(JsonNode fc, String path) throws MetadataException {
        String enc = fc.has("encoding") ? json.string(fc, "encoding", path, true) : "utf-8";
        return switch (enc) {
            case "utf-8" -> FieldType.Encoding.UTF8;
            case "utf-16be" -> FieldType.Encoding.UTF16BE;
            case "utf-16le" -> FieldType.Encoding.UTF16LE;
            case "utf-32be" -> FieldType.Encoding.UTF32BE;
            case "utf-32le" -> FieldType.Encoding.UTF32LE;
            default ->
                throw json.error(
                        path + ".encoding",
                        "unknown string encoding \"" + enc + "\" (utf-8, utf-16be, utf-16le, utf-32be or utf-32le)");
        };
    }

    /** A byte of the text of a string of a length in bytes, in {@code encoding}. */
    private static FieldType textByte(FieldType.Encoding encoding) {
        return encoding == FieldType.Encoding.UTF8
                ? TEXT_BYTE
                : new IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 10, encoding, null);
    }

    /** A fixed-length bit array, or a bit map with its flags. */
    private FieldType.BitArrayType bitArray(JsonNode fc, String path, boolean map) throws MetadataException {
        long length = json.length(fc, path);
        if (length > 64) {
            throw json.error(path + ".length", "bit arrays of " + length + " bits are not supported (at most 64)");
        }
        ByteOrder order = json.byteOrder(fc, path);
        json.bitOrder(fc, path, order);
        int align = json.alignment(fc, path, "alignment");
        List<FieldType.BitFlag> flags = new ArrayList<>();
        if (map) {
            JsonNode all = json.required(fc, "flags", path);
            if (!all.isObject() || all.isEmpty()) {
                throw json.error(path + ".flags", "must be a JSON object of one or more flags");
            }
            for (Map.Entry<String, JsonNode> e : json.properties(fc, "flags", path)) {
                String fpath = key(path + ".flags", e.getKey());
                for (EnumMapping r : json.rangeSet(e.getValue(), fpath, e.getKey(), false)) {
                    if (r.high() < 0) {
                        throw json.error(fpath, "bit index " + Long.toUnsignedString(r.high()) + " is too large");
                    }
                    flags.add(new FieldType.BitFlag(e.getKey(), r.low(), r.high()));
                }
            }
        }
        return new FieldType.BitArrayType((int) length, align, order, flags);
    }

    private FieldType fixedInteger(JsonNode fc, String path, String type) throws MetadataException {
        boolean signed = type.startsWith("fixed-length-signed");
        long length = json.length(fc, path);
        ByteOrder order = json.byteOrder(fc, path);
        json.bitOrder(fc, path, order);
        int align = json.alignment(fc, path, "alignment");
        Set<Role> roles = roles(fc, path, signed, true);
        if (length > 64 && !roles.isEmpty()) {
            throw json.error(path + ".roles", "an integer of " + length + " bits cannot have a role (at most 64 bits)");
        }
        if (length > 64 && fc.has("mappings")) {
            throw json.error(
                    path + ".mappings",
                    "mappings of an integer of " + length + " bits are not supported" + " (at most 64)");
        }
        String clock = null;
        if (roles.contains(Role.DEFAULT_CLOCK_TIMESTAMP) || roles.contains(Role.PACKET_END_DEFAULT_CLOCK_TIMESTAMP)) {
            if (defaultClock == null) {
                throw json.error(
                        path + ".roles",
                        "a default clock timestamp needs a data stream class with a default" + " clock class");
            }
            clock = defaultClock;
        }
        IntegerType it = new IntegerType(
                (int) length, align, signed, order, json.base(fc, path), FieldType.Encoding.NONE, clock, roles);
        List<EnumMapping> mappings = mappings(fc, path);
        return mappings.isEmpty() ? it : new EnumType(it, mappings);
    }

    private StructType structure(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        int minAlign = json.alignment(fc, path, "minimum-alignment");
        JsonNode members = fc.get("member-classes");
        List<Member> done = new ArrayList<>();
        if (members != null) {
            if (!members.isArray()) {
                throw json.error(path + ".member-classes", "must be a JSON array");
            }
            locations.pushFrame(done, names);
            try {
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < members.size(); i++) {
                    String mpath = path + ".member-classes[" + i + "]";
                    JsonNode m = json.objectAt(members, i, mpath, "a structure member class");
                    String name = json.string(m, "name", mpath, true);
                    json.attributes(m, mpath);
                    if (!seen.add(name)) {
                        throw json.error(
                                mpath + ".name", "member \"" + name + "\" is already defined in this structure");
                    }
                    FieldType t = fieldClass(
                            json.required(m, "field-class", mpath),
                            mpath + ".field-class",
                            names == null ? null : append(names, name),
                            depth + 1);
                    done.add(new Member(name, t));
                }
            } finally {
                locations.popFrame();
            }
        }
        return new StructType(done, minAlign);
    }

    private FieldType element(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        int minAlign = json.alignment(fc, path, "minimum-alignment");
        FieldType element = fieldClass(
                json.required(fc, "element-field-class", path), path + ".element-field-class", names, depth + 1);
        if (minAlign > element.alignment()) {
            throw json.error(
                    path + ".minimum-alignment",
                    "an array minimum alignment greater than its element's is not" + " supported");
        }
        return element;
    }

    private VariantType variant(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        FieldPath selectorPath = locations.location(fc, path, "selector-field-location", true);
        boolean signed = locations.selectorSigned();
        JsonNode options = json.required(fc, "options", path);
        if (!options.isArray() || options.isEmpty()) {
            throw json.error(path + ".options", "must be a JSON array of one or more options");
        }
        List<Member> members = new ArrayList<>();
        List<List<EnumMapping>> ranges = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < options.size(); i++) {
            String opath = path + ".options[" + i + "]";
            JsonNode o = json.objectAt(options, i, opath, "a variant option");
            String name = o.has("name") ? json.string(o, "name", opath, true) : "";
            json.attributes(o, opath);
            if (!name.isEmpty() && !seen.add(name)) {
                throw json.error(opath + ".name", "option \"" + name + "\" is already defined in this variant");
            }
            List<EnumMapping> set = json.rangeSet(
                    json.required(o, "selector-field-ranges", opath), opath + ".selector-field-ranges", name, signed);
            for (int j = 0; j < i; j++) {
                for (EnumMapping a : set) {
                    for (EnumMapping b : ranges.get(j)) {
                        if (intersect(a, b, signed)) {
                            throw json.error(opath + ".selector-field-ranges", "ranges intersect those of option " + j);
                        }
                    }
                }
            }
            ranges.add(set);
            // A field location goes through a variant to its current option, as through an array.
            members.add(new Member(
                    name,
                    fieldClass(json.required(o, "field-class", opath), opath + ".field-class", names, depth + 1)));
        }
        return new VariantType(selectorPath, members, null, ranges);
    }

    private OptionalType optional(JsonNode fc, String path, List<String> names, int depth) throws MetadataException {
        FieldPath selectorPath = locations.location(fc, path, "selector-field-location", true, true);
        boolean bool = locations.selectorBool();
        boolean signed = locations.selectorSigned();
        List<EnumMapping> ranges = null;
        JsonNode set = fc.get("selector-field-ranges");
        // With a boolean selector, the specification gives the ranges no meaning: they are ignored.
        if (!bool) {
            if (set == null) {
                throw json.error(
                        path, "missing required property \"selector-field-ranges\" (the selector is an integer)");
            }
            ranges = json.rangeSet(set, path + ".selector-field-ranges", "", signed);
        }
        FieldType content = fieldClass(json.required(fc, "field-class", path), path + ".field-class", names, depth + 1);
        return new OptionalType(selectorPath, content, ranges);
    }

    private String mediaType(JsonNode fc, String path) throws MetadataException {
        String media = json.string(fc, "media-type", path, false);
        if (media == null) {
            return BlobType.OCTET_STREAM;
        }
        if (!media.matches("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;.*)?")) {
            throw json.error(path + ".media-type", "\"" + media + "\" is not a media type (type/subtype)");
        }
        return media;
    }

    private static boolean intersect(EnumMapping a, EnumMapping b, boolean signed) {
        return a.contains(b.low(), signed) || a.contains(b.high(), signed) || b.contains(a.low(), signed);
    }

    private Set<Role> roles(JsonNode fc, String path, boolean signed, boolean integer) throws MetadataException {
        JsonNode roles = fc.get("roles");
        if (roles == null) {
            return Set.of();
        }
        if (!roles.isArray()) {
            throw json.error(path + ".roles", "must be a JSON array of role names");
        }
        Set<Role> out = EnumSet.noneOf(Role.class);
        for (int i = 0; i < roles.size(); i++) {
            String rpath = path + ".roles[" + i + "]";
            Role r = roles.get(i).isTextual() ? Role.named(roles.get(i).asText()) : null;
            if (r == null) {
                throw json.error(rpath, "unknown role " + roles.get(i));
            }
            if (!SCOPE_ROLES.get(locations.scope()).contains(r)) {
                throw json.error(
                        rpath,
                        "role " + r.jsonName() + " is not allowed in the "
                                + FieldPath.CTF2_ORIGINS.get(locations.scope()) + " scope");
            }
            if ((r == Role.METADATA_STREAM_UUID) == integer || signed) {
                throw json.error(rpath, "role " + r.jsonName() + " is not allowed on this field class");
            }
            out.add(r);
        }
        return out;
    }

    private List<EnumMapping> mappings(JsonNode fc, String path) throws MetadataException {
        boolean signed = fc.get("type").asText().contains("-signed-");
        List<EnumMapping> out = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : json.properties(fc, "mappings", path)) {
            out.addAll(json.rangeSet(e.getValue(), key(path + ".mappings", e.getKey()), e.getKey(), signed));
        }
        return out;
    }
}
