package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CTF 2 bit arrays, bit maps, UTF-16 and UTF-32 strings and integers of more than 64 bits, in
 * traces whose metadata and data streams the test writes byte by byte: the values expected are
 * worked out by hand from those bytes.
 */
class Ctf2LeafClassesTest {
    private static final String METADATA = """
        \u001e{"type": "preamble", "version": 2}
        \u001e{"type": "data-stream-class"}
        \u001e{"type": "event-record-class", "name": "e", "payload-field-class": {"type": "structure",
          "member-classes": [
          {"name": "a3", "field-class": {"type": "fixed-length-bit-array", "length": 3, "byte-order": "little-endian"}},
          {"name": "a13", "field-class": {"type": "fixed-length-bit-array", "length": 13,
            "byte-order": "little-endian"}},
          {"name": "b13", "field-class": {"type": "fixed-length-bit-array", "length": 13, "byte-order": "big-endian",
            "alignment": 8}},
          {"name": "m", "field-class": {"type": "fixed-length-bit-map", "length": 8, "byte-order": "little-endian",
            "alignment": 8, "flags": {"A": [[0, 0]], "B": [[1, 1], [3, 3]], "C": [[4, 7]]}}},
          {"name": "w16", "field-class": {"type": "null-terminated-string", "encoding": "utf-16le"}},
          {"name": "w16be", "field-class": {"type": "null-terminated-string", "encoding": "utf-16be"}},
          {"name": "w32", "field-class": {"type": "static-length-string", "length": 12, "encoding": "utf-32le"}},
          {"name": "n", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
            "byte-order": "little-endian"}},
          {"name": "d16", "field-class": {"type": "dynamic-length-string", "encoding": "utf-16be",
            "length-field-location": {"path": ["n"]}}},
          {"name": "u65", "field-class": {"type": "fixed-length-unsigned-integer", "length": 65,
            "byte-order": "little-endian", "alignment": 8}},
          {"name": "i128", "field-class": {"type": "fixed-length-signed-integer", "length": 128,
            "byte-order": "big-endian", "alignment": 8}},
          {"name": "w32be", "field-class": {"type": "null-terminated-string", "encoding": "utf-32be"}}]}}
        """;

    /** Three events of class "e"; the bit map sets no flag, then A, then B and C. */
    private static final byte[] STREAM = bytes(
            // a3 = 0b101 in bits 0-2, a13 = 0x1ABC in bits 3-15 (little-endian: low bits first)
            0xE5,
            0xD5,
            // b13 = 0x1234 in the high 13 bits of two big-endian bytes (0x1234 << 3 = 0x91A0)
            0x91,
            0xA0,
            0x00, // m: no flag
            // w16: "héllo😀" in UTF-16LE (U+1F600 as the surrogate pair D83D DE00), then a 2-byte NUL
            0x68,
            0,
            0xE9,
            0,
            0x6C,
            0,
            0x6C,
            0,
            0x6F,
            0,
            0x3D,
            0xD8,
            0x00,
            0xDE,
            0,
            0,
            0,
            0, // w16be: empty
            0x61,
            0,
            0,
            0,
            0x62,
            0,
            0,
            0,
            0,
            0,
            0,
            0, // w32: "ab", NUL
            6, // n: 6 bytes of d16
            0x03,
            0xA9,
            0x20,
            0xAC,
            0xD8,
            0x00, // d16: "Ω€" and an unpaired high surrogate
            5,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            1, // u65 = 2^64 + 5
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFE, // i128 = -2
            0,
            0,
            0,
            0x78,
            0,
            0,
            0,
            0, // w32be: "x"
            // second event
            0x00,
            0x00,
            0x00,
            0x00,
            0x01, // m: A
            0,
            0, // w16: empty
            0xD8,
            0x00,
            0x00,
            0x41,
            0,
            0, // w16be: a lone high surrogate, then "A"
            0x00,
            0xF6,
            0x01,
            0x00,
            0,
            0,
            0,
            0,
            0x7A,
            0,
            0,
            0, // w32: U+1F600, NUL, then "z" after it (padding)
            0, // n: empty d16
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0, // u65 = 0
            0x7F,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF, // 2^127 - 1
            0,
            0,
            0,
            0, // w32be: empty
            // third event
            0xFF,
            0xFF,
            0xFF,
            0xF8,
            0xBA, // m: bits 1, 3, 4, 5, 7: B and C
            0x41,
            0,
            0x00,
            0xDC,
            0,
            0, // w16: "A", a lone low surrogate
            0,
            0,
            0,
            0,
            0x11,
            0,
            0x62,
            0,
            0,
            0,
            0,
            0,
            0,
            0, // w32: a unit past U+10FFFF, then "b"
            3,
            0x00,
            0x41,
            0x00, // d16: "A" and a last odd byte
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            0xFF,
            1, // u65 = 2^65 - 1
            0x80,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0, // i128 = -2^127
            0,
            0,
            0xD8,
            0x00,
            0,
            0,
            0,
            0); // w32be: a surrogate code point

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    private static Path trace(Path dir, String metadata, byte[] stream) throws Exception {
        Files.writeString(dir.resolve("metadata"), metadata);
        Files.write(dir.resolve("stream"), stream);
        return dir;
    }

    private static String json(Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            EventCursor cursor = new EventCursor(List.of(trace));
            JsonText text = new JsonText(sink);
            while (cursor.next()) {
                text.fields(cursor.decoder());
                sink.put('\n');
                sink.lineDone();
            }
            sink.flush();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void bitArraysBitMapsWideStringsAndWideIntegersPrintAsBabeltrace2Does(@TempDir Path dir) throws Exception {
        String text = TraceReading.hetraceText(trace(dir, METADATA, STREAM));
        assertThat(text.lines().toList())
                .containsExactly(
                        "e: { a3 = 0x5, a13 = 0x1ABC, b13 = 0x1234, m = 0x0, w16 = \"héllo😀\", w16be = \"\", w32 = \"ab\","
                                + " n = 6, d16 = \"Ω€\uFFFD\", u65 = 18446744073709551621, i128 = -2, w32be = \"x\" }",
                        "e: { a3 = 0x0, a13 = 0x0, b13 = 0x0, m = 0x1, w16 = \"\", w16be = \"\uFFFDA\", w32 = \"😀\","
                                + " n = 0, d16 = \"\", u65 = 0, i128 = 170141183460469231731687303715884105727, w32be = \"\" }",
                        "e: { a3 = 0x7, a13 = 0x1FFF, b13 = 0x1FFF, m = 0xBA, w16 = \"A\uFFFD\", w16be = \"\", w32 = \"\uFFFDb\","
                                + " n = 3, d16 = \"A\uFFFD\", u65 = 36893488147419103231,"
                                + " i128 = -170141183460469231731687303715884105728, w32be = \"\uFFFD\" }");
    }

    @Test
    void jsonNamesTheFlagsABitMapSets(@TempDir Path dir) throws Exception {
        List<String> lines = json(trace(dir, METADATA, STREAM)).lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
                .contains(
                        "\"a3\":5,\"a13\":6844,\"b13\":4660,\"m\":{\"flags\":[],\"value\":0}",
                        "\"w16\":\"héllo😀\"",
                        "\"d16\":\"Ω€\uFFFD\"",
                        "\"u65\":18446744073709551621",
                        "\"i128\":-2");
        assertThat(lines.get(1)).contains("\"m\":{\"flags\":[\"A\"],\"value\":1}", "\"w32\":\"😀\"");
        assertThat(lines.get(2)).contains("\"m\":{\"flags\":[\"B\",\"C\"],\"value\":186}");
    }

    @Test
    void valueTreesHoldTheDecodedTextAndWideIntegers(@TempDir Path dir) throws Exception {
        List<TraceReading.ReadEvent> events = TraceReading.readStream(trace(dir, METADATA, STREAM), "stream");
        @SuppressWarnings("unchecked")
        Map<String, Object> first = (Map<String, Object>) events.getFirst().payload();
        assertThat(first)
                .containsEntry("m", 0L)
                .containsEntry("w16", "héllo😀")
                .containsEntry("w32", "ab")
                .containsEntry("d16", "Ω€\uFFFD")
                .containsEntry("u65", BigInteger.ONE.shiftLeft(64).add(BigInteger.valueOf(5)))
                .containsEntry("i128", BigInteger.valueOf(-2));
    }

    @Test
    void theModelKeepsBitMapFlagsAndStringEncodings() throws Exception {
        TraceClass t = MetadataReader.parse(METADATA.getBytes(StandardCharsets.UTF_8), w -> {});
        var payload = t.stream(0).event(0).payload();
        assertThat(payload.member("m").type())
                .isEqualTo(new FieldType.BitArrayType(
                        8,
                        8,
                        ByteOrder.LITTLE_ENDIAN,
                        List.of(
                                new FieldType.BitFlag("A", 0, 0),
                                new FieldType.BitFlag("B", 1, 1),
                                new FieldType.BitFlag("B", 3, 3),
                                new FieldType.BitFlag("C", 4, 7))));
        assertThat(payload.member("w16").type()).isEqualTo(new FieldType.StringType(FieldType.Encoding.UTF16LE));
    }

    @Test
    void theCtf2WriterWritesTheseClassesBackAndTheyReadTheSame(@TempDir Path dir) throws Exception {
        Path original = trace(Files.createDirectories(dir.resolve("a")), METADATA, STREAM);
        String before = TraceReading.hetraceText(original);
        Path copy = Files.createDirectories(dir.resolve("b"));
        String rewritten = Ctf2Writer.rewrite(METADATA.getBytes(StandardCharsets.UTF_8));
        assertThat(rewritten.replace(" ", ""))
                .contains(
                        "\"fixed-length-bit-map\"",
                        "\"encoding\":\"utf-16le\"",
                        "\"encoding\":\"utf-32le\"",
                        "\"length\":128",
                        "\"B\":[[1,1],[3,3]]");
        String after = TraceReading.hetraceText(trace(copy, rewritten, STREAM));
        assertThat(after).isEqualTo(before);
    }

    private static String payload(String members) {
        return "\u001e{\"type\": \"preamble\", \"version\": 2}\n\u001e{\"type\": \"data-stream-class\"}\n"
                + "\u001e{\"type\": \"event-record-class\", \"name\": \"e\", \"payload-field-class\": {\"type\":"
                + " \"structure\", \"member-classes\": [" + members + "]}}\n";
    }

    @Test
    void whatIsNotReadIsOneClearLine() {
        String u65 =
                "{\"name\": \"big\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 65,"
                        + " \"byte-order\": \"little-endian\"}}";
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload(u65 + ", {\"name\": \"s\", \"field-class\": {\"type\":"
                                        + " \"dynamic-length-array\", \"length-field-location\": {\"path\": [\"big\"]}, \"element-field-class\":"
                                        + " {\"type\": \"null-terminated-string\"}}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessage(
                        "fragment 2 (event record class \"e\"): $.payload-field-class.member-classes[1].field-class"
                                + ".length-field-location: the length field at big is an integer of 65 bits: at most 64 are supported");
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload("{\"name\": \"x\", \"field-class\": {\"type\":"
                                        + " \"fixed-length-unsigned-integer\", \"length\": 96, \"byte-order\": \"big-endian\", \"mappings\":"
                                        + " {\"A\": [[0, 1]]}}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessageEndingWith(".mappings: mappings of an integer of 96 bits are not supported (at most 64)");
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload("{\"name\": \"x\", \"field-class\": {\"type\":"
                                        + " \"fixed-length-bit-map\", \"length\": 65, \"byte-order\": \"big-endian\", \"flags\":"
                                        + " {\"A\": [[0, 1]]}}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessageEndingWith(".length: bit arrays of 65 bits are not supported (at most 64)");
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload(
                                        "{\"name\": \"x\", \"field-class\": {\"type\":"
                                                + " \"fixed-length-bit-map\", \"length\": 8, \"byte-order\": \"big-endian\", \"flags\": {}}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessageEndingWith(".flags: must be a JSON object of one or more flags");
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload("{\"name\": \"x\", \"field-class\": {\"type\":"
                                        + " \"null-terminated-string\", \"encoding\": \"latin-1\"}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessageEndingWith(".encoding: unknown string encoding \"latin-1\" (utf-8, utf-16be, utf-16le,"
                        + " utf-32be or utf-32le)");
    }

    @Test
    void aWideStringWithoutItsNulIsAStreamError(@TempDir Path dir) throws Exception {
        String meta = payload("{\"name\": \"s\", \"field-class\": {\"type\": \"null-terminated-string\","
                + " \"encoding\": \"utf-32le\"}}");
        // A 4-byte NUL must start on a unit boundary: 0x41 0 0 0 | 0 0 0 (three zero bytes) is no NUL.
        trace(dir, meta, bytes(0x41, 0, 0, 0, 0, 0, 0));
        assertThatThrownBy(() -> TraceReading.hetraceText(dir))
                .hasMessageContaining("has no terminating 4-byte NUL before the end of the packet content");
    }

    private static final String WITH_ATTRIBUTES = """
        \u001e{"type": "preamble", "version": 2, "attributes": {"my.tracer": {"version": [1, 2]}}}
        \u001e{"type": "trace-class", "attributes": {}}
        \u001e{"type": "data-stream-class", "attributes": {"my.tracer": "stream"}}
        \u001e{"type": "event-record-class", "name": "e", "attributes": {"my.tracer": {"is-nice": true}},
          "payload-field-class": {"type": "structure", "member-classes": [
            {"name": "flags", "attributes": {"ns": "member"}, "field-class": {"type": "fixed-length-bit-map",
              "length": 8, "byte-order": "little-endian", "flags": {"A": [[0, 0]]},
              "attributes": {"ns": {"unit": "états"}}}},
            {"name": "sel", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
              "byte-order": "little-endian"}},
            {"name": "v", "field-class": {"type": "variant", "selector-field-location": {"path": ["sel"]},
              "options": [{"name": "o", "selector-field-ranges": [[0, 255]], "attributes": {"ns": 1},
                "field-class": {"type": "null-terminated-string"}}]}}]}}
        """;

    @Test
    void attributesAreKeptByPlaceAndShownOnceBeforeTheEventsInJson(@TempDir Path dir) throws Exception {
        TraceClass t = MetadataReader.parse(WITH_ATTRIBUTES.getBytes(StandardCharsets.UTF_8), w -> {});
        assertThat(t.attributes())
                .containsExactly(
                        Map.entry("fragment 0 (preamble): $", "{\"my.tracer\":{\"version\":[1,2]}}"),
                        Map.entry("fragment 2 (data stream class): $", "{\"my.tracer\":\"stream\"}"),
                        Map.entry("fragment 3 (event record class \"e\"): $", "{\"my.tracer\":{\"is-nice\":true}}"),
                        Map.entry(
                                "fragment 3 (event record class \"e\"): $.payload-field-class.member-classes[0]",
                                "{\"ns\":\"member\"}"),
                        Map.entry(
                                "fragment 3 (event record class \"e\"): $.payload-field-class.member-classes[0].field-class",
                                "{\"ns\":{\"unit\":\"états\"}}"),
                        Map.entry(
                                "fragment 3 (event record class \"e\"): $.payload-field-class.member-classes[2].field-class"
                                        + ".options[0]",
                                "{\"ns\":1}"));
        trace(dir, WITH_ATTRIBUTES, bytes(0x01, 0, 'h', 'i', 0));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            new JsonText(sink).attributes(trace);
            sink.flush();
        }
        String line = bytes.toString(StandardCharsets.UTF_8);
        assertThat(line)
                .startsWith("{\"trace\":\"" + dir + "\",\"attributes\":{\"fragment 0 (preamble): $\":"
                        + "{\"my.tracer\":{\"version\":[1,2]}},")
                .endsWith("\"fragment 3 (event record class \\\"e\\\"):"
                        + " $.payload-field-class.member-classes[2].field-class.options[0]\":{\"ns\":1}}}\n");
        assertThat(new ObjectMapper().readTree(line).get("attributes")).hasSize(6);
        assertThat(json(dir))
                .as("events carry no attributes")
                .isEqualTo(
                        "{\"payload\":{\"flags\":{\"flags\":[\"A\"],\"value\":1},\"sel\":0,\"v\":{\"o\":\"hi\"}}}\n");
    }

    @Test
    void attributesThatAreNoObjectAreOneClearLine() {
        assertThatThrownBy(() -> MetadataReader.parse(
                        payload("{\"name\": \"x\", \"field-class\": {\"type\":"
                                        + " \"null-terminated-string\", \"attributes\": [1]}}")
                                .getBytes(StandardCharsets.UTF_8),
                        w -> {}))
                .hasMessage("fragment 2 (event record class \"e\"): $.payload-field-class.member-classes[0].field-class"
                        + ".attributes: must be a JSON object (attributes by namespace)");
    }
}
