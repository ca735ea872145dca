package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Reads a binary {@code /api/view} answer (docs/view.md, "Binary answers") back into the JSON
 * answer it stands for, checking its frame on the way: the magic, the JSON's length, the padding
 * to 8 bytes, each array in bounds and aligned to 8 bytes, the arrays one after the other from the
 * first byte (no bytes but padding between them: nothing of another answer), nothing after the
 * last.
 */
final class BinaryAnswers {
    /** Integers read as longs, so that a tree read from JSON equals one rebuilt from binary. */
    static final ObjectMapper LONGS = new ObjectMapper().enable(DeserializationFeature.USE_LONG_FOR_INTS);

    private static final Map<String, Integer> SIZES = Map.of("i16", 2, "i32", 4, "f64", 8);

    private BinaryAnswers() {}

    /** The JSON answer {@code b} stands for, as a tree ({@link #LONGS}). */
    static JsonNode read(byte[] b) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(Arrays.copyOf(b, 4)).as("magic").isEqualTo(BinaryArrays.MAGIC);
        int n = in.getInt(4);
        int base = 8 + n + ((8 - (n & 7)) & 7);
        assertThat(base).as("arrays' start").isLessThanOrEqualTo(b.length);
        for (int i = 8 + n; i < base; i++) {
            assertThat(b[i]).as("padding at " + i).isZero();
        }
        JsonNode json = LONGS.readTree(new String(b, 8, n, StandardCharsets.UTF_8));
        java.util.TreeMap<Integer, Integer> spans = new java.util.TreeMap<>(); // at → bytes
        JsonNode whole = rebuild(json, in, base, spans);
        int next = 0;
        for (Map.Entry<Integer, Integer> s : spans.entrySet()) {
            assertThat(s.getKey()).as("an array right after the one before").isEqualTo((next + 7) & ~7);
            next = s.getKey() + s.getValue();
        }
        assertThat(base + next).as("the last array ends the answer").isEqualTo(b.length);
        return whole;
    }

    private static JsonNode rebuild(JsonNode node, ByteBuffer in, int base, Map<Integer, Integer> spans) {
        if (node.isObject() && node.has("binary")) {
            String type = node.get("binary").asText();
            int at = node.get("at").asInt();
            int n = node.get("n").asInt();
            assertThat(SIZES).as("type").containsKey(type);
            assertThat(at % 8).as("aligned: " + node).isZero();
            int size = SIZES.get(type);
            assertThat(base + at + (long) n * size).as("in bounds: " + node).isLessThanOrEqualTo(in.limit());
            ArrayNode a = JsonNodeFactory.instance.arrayNode(n);
            for (int i = 0; i < n; i++) {
                int p = base + at + i * size;
                a.add(
                        switch (type) {
                            case "i16" -> in.getShort(p);
                            case "i32" -> in.getInt(p);
                            default -> (long) in.getDouble(p);
                        });
            }
            if (n > 0) {
                spans.put(at, n * size);
            }
            return a;
        }
        if (node.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            node.properties().forEach(e -> o.set(e.getKey(), rebuild(e.getValue(), in, base, spans)));
            return o;
        }
        if (node.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            node.forEach(e -> a.add(rebuild(e, in, base, spans)));
            return a;
        }
        return node;
    }
}
