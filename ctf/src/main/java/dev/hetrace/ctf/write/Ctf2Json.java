package dev.hetrace.ctf.write;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The JSON forms of CTF 2 properties that {@link Ctf2Writer} writes: range sets, byte order, UUIDs... */
final class Ctf2Json {
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private Ctf2Json() {}

    static void mappings(ObjectNode fc, List<EnumMapping> mappings, boolean signed) {
        if (mappings.isEmpty()) {
            return;
        }
        Map<String, List<EnumMapping>> byLabel = new LinkedHashMap<>();
        for (EnumMapping m : mappings) {
            byLabel.computeIfAbsent(m.label(), k -> new ArrayList<>()).add(m);
        }
        ObjectNode o = fc.putObject("mappings");
        byLabel.forEach((label, ranges) -> o.set(label, rangeSet(ranges, signed)));
    }

    static ArrayNode rangeSet(List<EnumMapping> ranges, boolean signed) {
        ArrayNode set = NODES.arrayNode();
        for (EnumMapping r : ranges) {
            ArrayNode pair = set.addArray();
            if (signed) {
                pair.add(r.low()).add(r.high());
            } else {
                pair.add(unsigned(r.low())).add(unsigned(r.high()));
            }
        }
        return set;
    }

    static void byteOrder(ObjectNode fc, ByteOrder order) {
        fc.put("byte-order", order == ByteOrder.BIG_ENDIAN ? "big-endian" : "little-endian");
    }

    static void alignment(ObjectNode fc, String property, int bits) {
        if (bits > 1) {
            fc.put(property, bits);
        }
    }

    static void base(ObjectNode fc, int base) {
        if (base != 10) {
            fc.put("preferred-display-base", base);
        }
    }

    static BigInteger unsigned(long v) {
        return v >= 0 ? BigInteger.valueOf(v) : BigInteger.valueOf(v).add(TWO_64);
    }

    static ArrayNode uuid(UUID u) {
        ByteBuffer b =
                ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
        ArrayNode a = NODES.arrayNode();
        for (byte x : b.array()) {
            a.add(x & 0xFF);
        }
        return a;
    }

    static ObjectNode fragment(String type) {
        ObjectNode f = NODES.objectNode();
        f.put("type", type);
        return f;
    }
}
