package dev.hetrace.ctf.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The properties of CTF 2 metadata JSON objects, read and checked, with errors that name the
 * fragment being read and the JSON path of the property. Keeps the attributes found on the way.
 */
final class Ctf2Properties {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** The fragment being read: its index from 0, and what it is (e.g. {@code event record class "x"}). */
    private int index = -1;

    private String what;
    /** Attributes by where they are (see {@link TraceClass#attributes()}). */
    private final Map<String, String> attributes = new LinkedHashMap<>();

    /** Starts reading the next fragment, whose kind is not known yet. */
    void nextFragment() {
        index++;
        what = null;
    }

    /** Names the fragment being read, for errors. */
    void fragmentIs(String what) {
        this.what = what;
    }

    Map<String, String> attributes() {
        return attributes;
    }

    /** Where the property at {@code path} of the fragment being read is, as errors name it. */
    String place(String path) {
        return new MetadataException.Json(index, what, path).toString();
    }

    MetadataException error(String path, String detail) {
        return new MetadataException(new MetadataException.Json(index, what, path), detail);
    }

    /**
     * Keeps the attributes of the object at {@code path}, if it has any, under the place an
     * error there would name. The decoder has no use for them: they are shown, not interpreted.
     */
    void attributes(JsonNode o, String path) throws MetadataException {
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

    void noExtensions(JsonNode o, String path) throws MetadataException {
        JsonNode ext = o.get("extensions");
        if (ext != null && !(ext.isObject() && ext.isEmpty())) {
            throw error(path + ".extensions", "extension not declared in the preamble");
        }
    }

    /** The properties of the object that property {@code name} of {@code o} holds, if any. */
    Iterable<Map.Entry<String, JsonNode>> properties(JsonNode o, String name, String path) throws MetadataException {
        JsonNode v = o.get(name);
        if (v == null) {
            return List.of();
        }
        if (!v.isObject()) {
            throw error(path + "." + name, "must be a JSON object");
        }
        return v::fields;
    }

    JsonNode required(JsonNode o, String name, String path) throws MetadataException {
        JsonNode v = o.get(name);
        if (v == null) {
            throw error(path, "missing required property \"" + name + "\"");
        }
        return v;
    }

    String string(JsonNode o, String name, String path, boolean required) throws MetadataException {
        JsonNode v = required ? required(o, name, path) : o.get(name);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw error(path + "." + name, "must be a JSON string");
        }
        return v.asText();
    }

    long unsigned(JsonNode v, String path) throws MetadataException {
        if (!v.isIntegralNumber()
                || v.bigIntegerValue().signum() < 0
                || v.bigIntegerValue().compareTo(TWO_64) >= 0) {
            throw error(path, "must be an integer from 0 to 2^64 - 1");
        }
        return v.bigIntegerValue().longValue();
    }

    long signed(JsonNode v, String path) throws MetadataException {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw error(path, "must be a 64-bit signed integer");
        }
        return v.asLong();
    }

    long length(JsonNode fc, String path) throws MetadataException {
        long length = unsigned(required(fc, "length", path), path + ".length");
        if (length == 0 || length > Integer.MAX_VALUE) {
            throw error(path + ".length", "must be greater than zero");
        }
        return length;
    }

    ByteOrder byteOrder(JsonNode fc, String path) throws MetadataException {
        return switch (string(fc, "byte-order", path, true)) {
            case "big-endian" -> ByteOrder.BIG_ENDIAN;
            case "little-endian" -> ByteOrder.LITTLE_ENDIAN;
            default -> throw error(path + ".byte-order", "must be \"big-endian\" or \"little-endian\"");
        };
    }

    /** Only the default bit order (the one CTF 1.8 has) is supported. */
    void bitOrder(JsonNode fc, String path, ByteOrder order) throws MetadataException {
        String bitOrder = string(fc, "bit-order", path, false);
        if (bitOrder == null) {
            return;
        }
        String natural = order == ByteOrder.LITTLE_ENDIAN ? "first-to-last" : "last-to-first";
        if (!bitOrder.equals("first-to-last") && !bitOrder.equals("last-to-first")) {
            throw error(path + ".bit-order", "must be \"first-to-last\" or \"last-to-first\"");
        }
        if (!bitOrder.equals(natural)) {
            throw error(
                    path + ".bit-order",
                    "bit order " + bitOrder + " with a "
                            + order.name().toLowerCase().replace('_', '-') + " byte order is not supported");
        }
    }

    int alignment(JsonNode fc, String path, String property) throws MetadataException {
        if (!fc.has(property)) {
            return 1;
        }
        long a = unsigned(fc.get(property), path + "." + property);
        if (a == 0 || Long.bitCount(a) != 1 || a > (1L << 30)) {
            throw error(path + "." + property, "must be a positive power of two");
        }
        return (int) a;
    }

    int base(JsonNode fc, String path) throws MetadataException {
        if (!fc.has("preferred-display-base")) {
            return 10;
        }
        long b = unsigned(fc.get("preferred-display-base"), path + ".preferred-display-base");
        if (b != 2 && b != 8 && b != 10 && b != 16) {
            throw error(path + ".preferred-display-base", "must be 2, 8, 10 or 16");
        }
        return (int) b;
    }

    List<EnumMapping> rangeSet(JsonNode set, String path, String label, boolean signed) throws MetadataException {
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

    UUID uuid(JsonNode v, String path) throws MetadataException {
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
    static String key(String path, String name) {
        return name.matches("[A-Za-z0-9_-]+")
                ? path + "." + name
                : path + "[\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
    }

    static List<String> append(List<String> names, String name) {
        List<String> out = new ArrayList<>(names);
        out.add(name);
        return out;
    }
    /** Element {@code i} of {@code array}: an object without extensions. */
    JsonNode objectAt(JsonNode array, int i, String path, String what) throws MetadataException {
        JsonNode o = array.get(i);
        if (!o.isObject()) {
            throw error(path, what + " must be a JSON object");
        }
        noExtensions(o, path);
        return o;
    }
}
