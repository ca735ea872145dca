package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.Ctf2Writer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CTF 2 optionals, BLOBs and field locations through variants and optionals, on traces built
 * here byte by byte: what {@code hetrace print} shows (babeltrace2 2.1's pretty format, and
 * JSON) and what it refuses, in one line.
 */
class Ctf2OptionalsAndBlobsTest {
    @TempDir
    Path dir;

    private static final String PREAMBLE = "{\"type\": \"preamble\", \"version\": 2}";
    private static final String TRACE_CLASS = """
        {"type": "trace-class", "packet-header-field-class": {"type": "structure", "member-classes": [
          {"name": "magic", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
            "byte-order": "little-endian", "alignment": 8, "roles": ["packet-magic-number"]}}]}}""";
    private static final String STREAM_CLASS = """
        {"type": "data-stream-class", "packet-context-field-class": {"type": "structure", "member-classes": [
          {"name": "packet_size", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
            "byte-order": "little-endian", "alignment": 8, "roles": ["packet-total-length"]}},
          {"name": "content_size", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
            "byte-order": "little-endian", "alignment": 8, "roles": ["packet-content-length"]}}]},
         "event-record-header-field-class": {"type": "structure", "member-classes": [
          {"name": "id", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
            "byte-order": "little-endian", "alignment": 8, "roles": ["event-record-class-id"]}}]}}""";
    private static final String U8 = """
        {"type": "fixed-length-unsigned-integer", "length": 8, "byte-order": "little-endian", "alignment": 8}""";
    private static final String BOOL8 = """
        {"type": "fixed-length-boolean", "length": 8, "byte-order": "little-endian", "alignment": 8}""";

    /** An event record class "NAME" (id 0) whose payload has these member classes. */
    private static String event(String name, String members) {
        return "{\"type\": \"event-record-class\", \"id\": 0, \"name\": \"" + name + "\", \"payload-field-class\":"
                + " {\"type\": \"structure\", \"member-classes\": [" + members + "]}}";
    }

    private static String member(String name, String fieldClass) {
        return "{\"name\": \"" + name + "\", \"field-class\": " + fieldClass + "}";
    }

    /** A trace of one packet: magic, packet and content sizes (12 bytes), then the events (each: id 0, payload). */
    private Path trace(String eventClass, int[]... events) throws IOException {
        return trace(dir, eventClass, events);
    }

    private static Path trace(Path dir, String eventClass, int[]... events) throws IOException {
        Files.createDirectories(dir);
        StringBuilder meta = new StringBuilder();
        for (String f : List.of(PREAMBLE, TRACE_CLASS, STREAM_CLASS, eventClass)) {
            meta.append('\u001e').append(f).append('\n');
        }
        ByteArrayOutputStream payloads = new ByteArrayOutputStream();
        for (int[] e : events) {
            payloads.write(0);
            for (int b : e) {
                payloads.write(b);
            }
        }
        int bits = (12 + payloads.size()) * 8;
        ByteBuffer header = ByteBuffer.allocate(12)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0xC1FC1FC1)
                .putInt(bits)
                .putInt(bits);
        Files.writeString(dir.resolve("metadata"), meta, StandardCharsets.UTF_8);
        Files.write(dir.resolve("stream"), concat(header.array(), payloads.toByteArray()));
        return dir;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String text(Path trace) {
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        return run.out();
    }

    private static List<String> json(Path trace) {
        Cli.Run run = Cli.run("print", "--format=json", trace.toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        return run.out().lines().toList();
    }

    /** The one line {@code print} says about a trace it refuses (exit status 1), after "hetrace: TRACE/". */
    private static String refusal(Path trace) {
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).as("stdout: %s", run.out()).isEqualTo(1);
        List<String> lines = run.err().lines().toList();
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst()).startsWith("hetrace: " + trace + "/");
        return lines.getFirst().substring(("hetrace: " + trace + "/").length());
    }

    private static final String OPTIONALS = event(
            "opt",
            String.join(
                    ",",
                    member("has", BOOL8),
                    member(
                            "o1",
                            "{\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"has\"]}, \"field-class\": "
                                    + U8 + "}"),
                    member(
                            "sel",
                            "{\"type\": \"fixed-length-signed-integer\", \"length\": 8, \"byte-order\": \"little-endian\"}"),
                    member(
                            "o2",
                            "{\"type\": \"optional\", \"selector-field-location\": {\"origin\": \"event-record-payload\","
                                    + " \"path\": [\"sel\"]}, \"selector-field-ranges\": [[-3, -3], [4, 6]],"
                                    + " \"field-class\": {\"type\": \"null-terminated-string\"}}")));

    @Test
    void anOptionalIsThereWhenItsBooleanOrIntegerSelectorSaysSo() throws IOException {
        // Event 1: has = 01 (true): o1 = 2a; sel = 05, in [4, 6]: o2 = "hi". Event 2: has = 00, no o1;
        // sel = 02, in no range: no o2 (not an error). Event 3: sel = fd (-3 in 8-bit two's complement).
        Path t = trace(OPTIONALS, new int[] {0x01, 0x2a, 0x05, 'h', 'i', 0}, new int[] {0x00, 0x02}, new int[] {
            0x00, 0xfd, 'x', 0
        });
        assertThat(text(t)).isEqualTo("""
            opt: { has = true, o1 = { 42 }, sel = 5, o2 = { "hi" } }
            opt: { has = false, o1 = <none>, sel = 2, o2 = <none> }
            opt: { has = false, o1 = <none>, sel = -3, o2 = { "x" } }
            """);
        assertThat(json(t))
                .extracting(l -> l.substring(l.indexOf("\"payload\"")))
                .containsExactly(
                        "\"payload\":{\"has\":true,\"o1\":42,\"sel\":5,\"o2\":\"hi\"}}",
                        "\"payload\":{\"has\":false,\"o1\":null,\"sel\":2,\"o2\":null}}",
                        "\"payload\":{\"has\":false,\"o1\":null,\"sel\":-3,\"o2\":\"x\"}}");
    }

    @Test
    void blobsPrintAsTheirBytesInHexadecimal() throws IOException {
        String blobs = BLOBS;
        // Event 1: n = 3, data = de ad be, tag = 01 ff. Event 2: n = 0, an empty BLOB, tag = 00 00.
        Path t = trace(blobs, new int[] {3, 0xde, 0xad, 0xbe, 0x01, 0xff}, new int[] {0, 0, 0});
        assertThat(text(t)).isEqualTo("""
            blob: { n = 3, data = deadbe, tag = 01ff }
            blob: { n = 0, data = , tag = 0000 }
            """);
        assertThat(json(t))
                .extracting(l -> l.substring(l.indexOf("\"payload\"")))
                .containsExactly(
                        "\"payload\":{\"n\":3,\"data\":\"deadbe\",\"tag\":\"01ff\"}}",
                        "\"payload\":{\"n\":0,\"data\":\"\",\"tag\":\"0000\"}}");
    }

    private static final String BLOBS = event(
            "blob",
            String.join(
                    ",",
                    member("n", U8),
                    member(
                            "data",
                            "{\"type\": \"dynamic-length-blob\", \"length-field-location\": {\"path\": [\"n\"]},"
                                    + " \"media-type\": \"image/png\"}"),
                    member("tag", "{\"type\": \"static-length-blob\", \"length\": 2}")));

    private static final String THROUGH_VARIANT = event(
            "tv",
            String.join(
                    ",",
                    member("sel", U8),
                    member("v", """
            {"type": "variant", "selector-field-location": {"path": ["sel"]}, "options": [
              {"name": "a", "selector-field-ranges": [[0, 0]], "field-class": {"type": "structure", "member-classes": [
                {"name": "len", "field-class": %s},
                {"name": "s", "field-class": {"type": "null-terminated-string"}},
                {"name": "again", "field-class": {"type": "optional", "selector-field-location": {"path": [null, "sel"]},
                  "selector-field-ranges": [[0, 0]], "field-class": %s}}]}},
              {"name": "b", "selector-field-ranges": [[1, 1]], "field-class": {"type": "structure", "member-classes": [
                {"name": "pad", "field-class": {"type": "fixed-length-unsigned-integer", "length": 16,
                  "byte-order": "little-endian", "alignment": 8}},
                {"name": "len", "field-class": {"type": "variable-length-unsigned-integer"}},
                {"name": "bytes", "field-class": {"type": "dynamic-length-blob", "length-field-location":
                  {"origin": "event-record-payload", "path": ["v", "len"]}}}]}}]}""".formatted(U8, U8)),
                    member(
                            "data",
                            "{\"type\": \"dynamic-length-array\", \"element-field-class\": " + U8 + ","
                                    + " \"length-field-location\": {\"origin\": \"event-record-payload\", \"path\": [\"v\", \"len\"]}}")));

    @Test
    void aLengthLocatedThroughAVariantIsTheOneInTheOptionDecoded() throws IOException {
        // Event 1: sel = 0, option a: len = 2, s = "x", again (its selector, up one struct: sel = 0) = 5,
        // then data of v.len = 2 elements: 7, 8.
        // Event 2: sel = 1, option b: pad = 02 01 = 258, len = 01 (LEB128), bytes = ab (v.len, from
        // inside the option being decoded), then data of v.len = 1 element: 9.
        Path t = trace(THROUGH_VARIANT, new int[] {0, 2, 'x', 0, 5, 7, 8}, new int[] {1, 0x02, 0x01, 0x01, 0xab, 9});
        assertThat(text(t)).isEqualTo("""
            tv: { sel = 0, v = { { len = 2, s = "x", again = { 5 } } }, data = [ [0] = 7, [1] = 8 ] }
            tv: { sel = 1, v = { { pad = 258, len = 1, bytes = ab } }, data = [ [0] = 9 ] }
            """);
    }

    private static final String THROUGH_OPTIONAL = event(
            "to",
            String.join(
                    ",",
                    member("has", BOOL8),
                    member(
                            "o",
                            "{\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"has\"]}, \"field-class\":"
                                    + " {\"type\": \"structure\", \"member-classes\": [" + member("len", U8) + ","
                                    + member("name", "{\"type\": \"null-terminated-string\"}") + "]}}"),
                    member(
                            "data",
                            "{\"type\": \"dynamic-length-blob\", \"length-field-location\":"
                                    + " {\"origin\": \"event-record-payload\", \"path\": [\"o\", \"len\"]}}")));

    @Test
    void aLengthLocatedThroughAnOptionalIsInItsContent() throws IOException {
        // has = 01: o = { len = 02, name = "a" }, then data of o.len = 2 bytes: 01 02.
        Path t = trace(THROUGH_OPTIONAL, new int[] {1, 2, 'a', 0, 0x01, 0x02});
        assertThat(text(t)).isEqualTo("to: { has = true, o = { { len = 2, name = \"a\" } }, data = 0102 }\n");
        assertThat(json(t))
                .extracting(l -> l.substring(l.indexOf("\"payload\"")))
                .containsExactly("\"payload\":{\"has\":true,\"o\":{\"len\":2,\"name\":\"a\"},\"data\":\"0102\"}}");
    }

    @Test
    void aLengthInAnOptionalThatIsNotThereIsAnErrorWhereItIsNeeded() throws IOException {
        // has = 00: no o, so no o.len for data (at byte 14: 12 of packet header, 1 of id, 1 of has).
        Path t = trace(THROUGH_OPTIONAL, new int[] {0});
        assertThat(refusal(t))
                .isEqualTo(
                        "stream: packet 0, offset 14: event 'to' (id 0), field 'payload.data': the length field of a field in the event payload"
                                + " is in a variant option or optional that was not decoded (metadata fragment 3 (event record class \"to\"): $.payload-field-class.member-classes[2].field-class)");
    }

    @Test
    void aLengthInAVariantOptionNotDecodedIsAnErrorWhereItIsNeeded() throws IOException {
        String partial = event(
                "tv",
                String.join(
                        ",",
                        member("sel", U8),
                        member("v", """
                {"type": "variant", "selector-field-location": {"path": ["sel"]}, "options": [
                  {"name": "a", "selector-field-ranges": [[0, 0]], "field-class": {"type": "structure", "member-classes": [
                    {"name": "len", "field-class": %s}]}},
                  {"name": "b", "selector-field-ranges": [[1, 1]], "field-class": %s}]}""".formatted(U8, U8)),
                        member(
                                "data",
                                "{\"type\": \"dynamic-length-blob\", \"length-field-location\":"
                                        + " {\"origin\": \"event-record-payload\", \"path\": [\"v\", \"len\"]}}")));
        // Event 1 (bytes 12 to 15): id, sel = 0, option a: len = 1, data = 0a. Event 2: sel = 1, option b holds
        // no len, so data has no length (at byte 19, after its id, sel and b).
        Path t = trace(partial, new int[] {0, 1, 0x0a}, new int[] {1, 7});
        Cli.Run run = Cli.run("print", t.toString());
        assertThat(run.out()).isEqualTo("tv: { sel = 0, v = { { len = 1 } }, data = 0a }\n");
        assertThat(refusal(t))
                .isEqualTo(
                        "stream: packet 0, offset 19: event 'tv' (id 0), field 'payload.data': the length field of a field in the event payload"
                                + " is in a variant option or optional that was not decoded (metadata fragment 3 (event record class \"tv\"): $.payload-field-class.member-classes[2].field-class)");
    }

    @Test
    void aLengthThroughAVariantInAnOptionNeedsBothDecodedWithTheWayToIt() throws IOException {
        String nested = event(
                "n",
                String.join(
                        ",",
                        member("has", BOOL8),
                        member("o", """
                {"type": "optional", "selector-field-location": {"path": ["has"]}, "field-class": {"type": "structure",
                  "member-classes": [
                    {"name": "sel", "field-class": %s},
                    {"name": "v", "field-class": {"type": "variant", "selector-field-location": {"path": ["sel"]},
                      "options": [
                        {"name": "a", "selector-field-ranges": [[0, 0]], "field-class": {"type": "structure",
                          "member-classes": [{"name": "len", "field-class": %s}]}},
                        {"name": "b", "selector-field-ranges": [[1, 1]], "field-class": %s}]}}]}}""".formatted(U8, U8, U8)),
                        member(
                                "data",
                                "{\"type\": \"dynamic-length-blob\", \"length-field-location\":"
                                        + " {\"origin\": \"event-record-payload\", \"path\": [\"o\", \"v\", \"len\"]}}")));
        // has = 1, sel = 0 (option a), len = 2: data = 11 22.
        Path ok = trace(dir.resolve("ok"), nested, new int[] {1, 0, 2, 0x11, 0x22});
        assertThat(text(ok)).isEqualTo("n: { has = true, o = { { sel = 0, v = { { len = 2 } } } }, data = 1122 }\n");
        // has = 1, sel = 1 (option b, no len), b = 5: data's length (at byte 16) is nowhere.
        assertThat(refusal(trace(dir.resolve("b"), nested, new int[] {1, 1, 5})))
                .isEqualTo(
                        "stream: packet 0,"
                                + " offset 16: event 'n' (id 0), field 'payload.data': the length field of a field in the event payload is in a variant option or optional that"
                                + " was not decoded (metadata fragment 3 (event record class \"n\"): $.payload-field-class.member-classes[2].field-class)");
        // has = 0: no o at all, its variant neither (data at byte 14).
        assertThat(refusal(trace(dir.resolve("none"), nested, new int[] {0})))
                .isEqualTo(
                        "stream: packet 0,"
                                + " offset 14: event 'n' (id 0), field 'payload.data': the length field of a field in the event payload is in a variant option or optional that"
                                + " was not decoded (metadata fragment 3 (event record class \"n\"): $.payload-field-class.member-classes[2].field-class)");
    }

    @Test
    void aSelectorLocatedForwardIsRefusedWithItsFragmentAndJsonPath() throws IOException {
        String forward = event(
                "opt",
                String.join(
                        ",",
                        member(
                                "o",
                                "{\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"later\"]}, \"field-class\": "
                                        + U8 + "}"),
                        member("later", BOOL8)));
        assertThat(refusal(trace(forward, new int[] {1, 1})))
                .isEqualTo("metadata: fragment 3 (event record class"
                        + " \"opt\"): $.payload-field-class.member-classes[0].field-class.selector-field-location: no field"
                        + " \"later\" is decoded before this one");
    }

    @Test
    void aLengthLocatedForwardInsideTheVariantOptionBeingDecodedIsRefused() throws IOException {
        String forward = event("tv", String.join(",", member("sel", U8), member("v", """
                {"type": "variant", "selector-field-location": {"path": ["sel"]}, "options": [
                  {"name": "a", "selector-field-ranges": [[0, 0]], "field-class": {"type": "structure", "member-classes": [
                    {"name": "bytes", "field-class": {"type": "dynamic-length-blob", "length-field-location":
                      {"origin": "event-record-payload", "path": ["v", "len"]}}},
                    {"name": "len", "field-class": %s}]}}]}""".formatted(U8))));
        assertThat(refusal(trace(forward, new int[] {0, 0, 0})))
                .isEqualTo("metadata: fragment 3 (event record class"
                        + " \"tv\"): $.payload-field-class.member-classes[1].field-class.options[0].field-class.member-classes[0]"
                        + ".field-class.length-field-location: no field \"len\" is decoded before this one");
    }

    @Test
    void anOptionalSelectorMustBeABooleanOrAnInteger() throws IOException {
        String wrong = event(
                "opt",
                String.join(
                        ",",
                        member("s", "{\"type\": \"null-terminated-string\"}"),
                        member(
                                "o",
                                "{\"type\": \"optional\", \"selector-field-location\": {\"path\": [\"s\"]}, \"field-class\": "
                                        + U8 + "}")));
        assertThat(refusal(trace(wrong, new int[] {0})))
                .isEqualTo("metadata: fragment 3 (event record class \"opt\"):"
                        + " $.payload-field-class.member-classes[1].field-class.selector-field-location: the field at s is not a"
                        + " boolean or an integer");
    }

    @Test
    void theCtf2WriterWritesOptionalsBlobsAndLocationsThroughVariantsSoTheyReadTheSame() throws Exception {
        List<Path> traces = List.of(
                trace(dir.resolve("opt"), OPTIONALS, new int[] {0x01, 0x2a, 0x05, 'h', 'i', 0}, new int[] {0x00, 0x02}),
                trace(dir.resolve("blob"), BLOBS, new int[] {3, 0xde, 0xad, 0xbe, 0x01, 0xff}, new int[] {0, 0, 0}),
                trace(dir.resolve("tv"), THROUGH_VARIANT, new int[] {0, 2, 'x', 0, 5, 7, 8}, new int[] {
                    1, 0x02, 0x01, 0x01, 0xab, 9
                }),
                trace(dir.resolve("to"), THROUGH_OPTIONAL, new int[] {1, 2, 'a', 0, 0x01, 0x02}));
        for (Path t : traces) {
            String before = text(t);
            String json = Files.readString(t.resolve("metadata"));
            Ctf2Writer.rewrite(t.resolve("metadata"));
            String rewritten = Files.readString(t.resolve("metadata"));
            assertThat(rewritten).as("metadata written").isNotEqualTo(json);
            assertThat(text(t))
                    .as("%s rewritten:%n%s", t.getFileName(), rewritten)
                    .isEqualTo(before);
        }
        assertThat(Files.readString(dir.resolve("blob/metadata")))
                .contains("\"dynamic-length-blob\"")
                .contains("\"media-type\" : \"image/png\"");
        assertThat(Files.readString(dir.resolve("opt/metadata")))
                .contains("\"optional\"")
                .contains("\"fixed-length-boolean\"");
    }
}
