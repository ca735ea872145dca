package dev.hetrace.ctf.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.write.Ctf2Writer;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/** CTF 2 metadata into the trace model and its decode plan. */
class Ctf2ParserTest {
    private static final String PREAMBLE = "{\"type\": \"preamble\", \"version\": 2}";
    private static final String STREAM = """
        {"type": "data-stream-class", "default-clock-class-id": "mono",
         "packet-context-field-class": {"type": "structure", "member-classes": [
           {"name": "packet_size", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
             "byte-order": "little-endian", "alignment": 8}},
           {"name": "len", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
             "byte-order": "little-endian", "roles": ["packet-total-length"]}},
           {"name": "begin", "field-class": {"type": "fixed-length-unsigned-integer", "length": 64,
             "byte-order": "big-endian", "roles": ["default-clock-timestamp"]}}]},
         "event-record-header-field-class": {"type": "structure", "member-classes": [
           {"name": "h", "field-class": {"type": "structure", "member-classes": [
             {"name": "which", "field-class": {"type": "variable-length-unsigned-integer",
               "roles": ["event-record-class-id"]}}]}}]}}""";
    private static final String CLOCK = """
        {"type": "clock-class", "id": "mono", "name": "monotonic", "frequency": 1000, "precision": 3,
         "origin": "unix-epoch", "offset-from-origin": {"seconds": -5, "cycles": 999}}""";

    private static byte[] metadata(String... fragments) {
        StringBuilder sb = new StringBuilder();
        for (String f : fragments) {
            sb.append('\u001e').append(f).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static TraceClass parse(String... fragments) throws MetadataException {
        return MetadataReader.parse(metadata(fragments), w -> {});
    }

    /** The properties LTTng 2.15 writes beyond the ones hetrace reads (namespace, name, uid) are taken as they are. */
    @Test
    void theTraceAndClockClassPropertiesLttngWritesAreRead() throws Exception {
        TraceClass t = parse(
                "{\"type\": \"preamble\", \"version\": 2, \"uuid\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,"
                        + " 15, 16]}",
                "{\"type\": \"trace-class\", \"namespace\": \"lttng.org,2009\", \"name\": \"\", \"uid\":"
                        + " \"01020304-0506-0708-090a-0b0c0d0e0f10\", \"environment\": {\"domain\": \"ust\", \"tracer_major\": 2}}",
                "{\"type\": \"clock-class\", \"id\": \"monotonic\", \"name\": \"monotonic\", \"description\":"
                        + " \"Monotonic Clock\", \"frequency\": 1000000000, \"origin\": \"unix-epoch\", \"offset-from-origin\":"
                        + " {\"seconds\": 1764900000, \"cycles\": 12}, \"uid\": \"0a0b0c0d-0000-0000-0000-000000000001\"}",
                "{\"type\": \"data-stream-class\", \"id\": 0, \"default-clock-class-id\": \"monotonic\"}");
        assertThat(t.env()).containsEntry("domain", "ust").containsEntry("tracer_major", 2L);
        assertThat(t.clocks().get("monotonic").frequency()).isEqualTo(1_000_000_000L);
        assertThat(t.stream(0)).isNotNull();
    }

    @Test
    void lttngsLogLevelAndEmfUriAttributesAreTheEventClassesOnesBothWays() throws Exception {
        // as LTTng 2.15 writes them
        TraceClass lttng = parse(
                "{\"type\": \"preamble\", \"version\": 2}",
                "{\"type\": \"data-stream-class\"}",
                "{\"type\": \"event-record-class\", \"name\": \"w\", \"attributes\": {\"lttng.org,2009\":"
                        + " {\"log-level\": \"warning\", \"emf-uri\": \"http://x/w\"}}}");
        EventClass w = lttng.stream(0).events().get(0L);
        assertThat(w.logLevel()).isEqualTo(4L);
        assertThat(w.emfUri()).isEqualTo("http://x/w");

        // CTF 1.8's loglevel and model.emf.uri, written as CTF 2 and read back
        TraceClass tsdl = MetadataReader.parse("""
            /* CTF 1.8 */
            trace { major = 1; minor = 8; byte_order = le; };
            stream { event.header := struct { integer { size = 8; align = 8; } id; }; };
            event { name = "a"; id = 0; loglevel = 13; model.emf.uri = "http://x/a";
                    fields := struct { integer { size = 8; align = 8; } v; }; };
            event { name = "b"; id = 1; loglevel = 42; fields := struct { integer { size = 8; align = 8; } v; }; };
            event { name = "c"; id = 2; fields := struct { integer { size = 8; align = 8; } v; }; };
            """.getBytes(StandardCharsets.UTF_8), x -> {});
        String json = Ctf2Writer.write(tsdl);
        assertThat(json).contains("\"debug:line\"");
        TraceClass back = MetadataReader.parse(json.getBytes(StandardCharsets.UTF_8), x -> {});
        assertThat(back.stream(0).events().get(0L).logLevel()).isEqualTo(13L);
        assertThat(back.stream(0).events().get(0L).emfUri()).isEqualTo("http://x/a");
        assertThat(back.stream(0).events().get(1L).logLevel())
                .as("a level LTTng has no name for")
                .isEqualTo(42L);
        assertThat(back.stream(0).events().get(2L).logLevel()).isNull();
    }

    @Test
    void rolesComeFromTheMetadataNotFromMemberNames() throws Exception {
        TraceClass t = parse(PREAMBLE, CLOCK, STREAM);
        assertThat(t.major()).isEqualTo(2);
        IntegerType begin =
                (IntegerType) t.stream(0).packetContext().members().get(2).type();
        assertThat(begin.roles()).containsExactly(Role.DEFAULT_CLOCK_TIMESTAMP);
        assertThat(begin.mappedClock()).isEqualTo("monotonic");
        TracePlan plan = TracePlan.compile(t);
        Node ctx = plan.stream(0).packetContext;
        assertThat(ctx.children[0].role).as("packet_size, without a role").isEqualTo(Node.ROLE_NONE);
        assertThat(ctx.children[1].role).isEqualTo(Node.ROLE_PACKET_SIZE);
        assertThat(ctx.children[2].role).isEqualTo(Node.ROLE_TIMESTAMP_BEGIN);
        assertThat(ctx.children[2].clock).isZero();
        Node which = plan.stream(0).eventHeader.children[0].children[0];
        assertThat(which.kind).isEqualTo(Node.VARINT);
        assertThat(which.role).isEqualTo(Node.ROLE_EVENT_ID);
    }

    @Test
    void aClockClassKeepsItsOriginOffsetAndPrecision() throws Exception {
        ClockClass c = parse(PREAMBLE, CLOCK, STREAM).clocks().get("mono");
        assertThat(c).isEqualTo(new ClockClass("monotonic", null, null, 1000, 3, -5, 999, true));
    }

    @Test
    void aVariantIsSelectedByTheRangesOfItsOptions() throws Exception {
        TraceClass t = parse(PREAMBLE, CLOCK, STREAM, """
            {"type": "field-class-alias", "name": "s8", "field-class": {"type": "fixed-length-signed-integer",
              "length": 8, "byte-order": "little-endian", "mappings": {"NEG": [[-128, -1]], "ZERO": [[0, 0]]}}}""", """
            {"type": "event-record-class", "name": "e", "payload-field-class": {"type": "structure", "member-classes": [
              {"name": "_sel", "field-class": "s8"},
              {"name": "v", "field-class": {"type": "variant", "selector-field-location": {"path": ["_sel"]},
                "options": [{"selector-field-ranges": [[-3, -1], [5, 5]], "field-class": "s8"},
                            {"name": "z", "selector-field-ranges": [[0, 0]],
                             "field-class": {"type": "null-terminated-string"}}]}}]}}""");
        var payload = t.stream(0).event(0).payload();
        assertThat(payload.members().getFirst().type()).isInstanceOf(EnumType.class);
        VariantType v = (VariantType) payload.members().get(1).type();
        assertThat(v.tag().parts()).containsExactly("_sel");
        assertThat(v.optionRanges().getFirst())
                .extracting(FieldType.EnumMapping::low)
                .containsExactly(-3L, 5L);
        Node variant = TracePlan.compile(t).stream(0).event(0).payload.children[1];
        assertThat(variant.names).containsExactly("", "z");
        assertThat(TracePlan.compile(t).stream(0).event(0).payload.names)
                .as("names shown as written")
                .containsExactly("_sel", "v");
    }

    @Test
    void optionalsAndBlobsKeepTheirSelectorsLengthsAndMediaTypes() throws Exception {
        TraceClass t = parse(PREAMBLE, CLOCK, STREAM, """
            {"type": "event-record-class", "name": "e", "payload-field-class": {"type": "structure", "member-classes": [
              {"name": "has", "field-class": {"type": "fixed-length-boolean", "length": 8, "byte-order": "little-endian"}},
              {"name": "o", "field-class": {"type": "optional", "selector-field-location": {"path": ["has"]},
                "field-class": {"type": "structure", "member-classes": [
                  {"name": "n", "field-class": {"type": "variable-length-unsigned-integer"}}]}}},
              {"name": "i", "field-class": {"type": "optional", "selector-field-ranges": [[2, 3]],
                "selector-field-location": {"path": ["o", "n"], "origin": "event-record-payload"},
                "field-class": {"type": "null-terminated-string"}}},
              {"name": "b", "field-class": {"type": "dynamic-length-blob", "media-type": "text/csv",
                "length-field-location": {"origin": "event-record-payload", "path": ["o", "n"]}}},
              {"name": "s", "field-class": {"type": "static-length-blob", "length": 4}}]}}""");
        var members = t.stream(0).event(0).payload().members();
        FieldType.OptionalType o = (FieldType.OptionalType) members.get(1).type();
        assertThat(o.selector().parts()).containsExactly("has");
        assertThat(o.selectorRanges()).as("a boolean selector").isNull();
        FieldType.OptionalType i = (FieldType.OptionalType) members.get(2).type();
        assertThat(i.selectorRanges())
                .extracting(FieldType.EnumMapping::low, FieldType.EnumMapping::high)
                .containsExactly(Tuple.tuple(2L, 3L));
        assertThat(members.get(3).type())
                .isEqualTo(new FieldType.BlobType(
                        0, new FieldPath(List.of("event", "fields", "o", "n")), "text/csv", Set.of()));
        assertThat(members.get(4).type())
                .isEqualTo(new FieldType.BlobType(4, null, "application/octet-stream", Set.of()));
        Node payload = TracePlan.compile(t).stream(0).event(0).payload;
        Node opt = payload.children[1];
        Node n = opt.element().children[0];
        assertThat(opt.kind).isEqualTo(Node.OPTIONAL);
        assertThat(payload.children[3].kind).isEqualTo(Node.PACKED_SEQUENCE);
        assertThat(payload.children[3].blob).isTrue();
        assertThat(payload.children[3].mediaType).isEqualTo("text/csv");
        assertThat(payload.children[3].sourceRegister).as("the length is o's n").isEqualTo(n.register);
        assertThat(payload.children[3].guardRegisters)
                .as("checked: o was there")
                .containsExactly(opt.register);
        assertThat(payload.children[4].kind).isEqualTo(Node.PACKED_ARRAY);
        assertThat(payload.children[4].blob).isTrue();
    }

    @Test
    void anOptionalSelectedByAnIntegerNeedsItsRanges() {
        assertThatThrownBy(() -> parse(PREAMBLE, CLOCK, STREAM, """
            {"type": "event-record-class", "name": "e", "payload-field-class": {"type": "structure", "member-classes": [
              {"name": "k", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
                "byte-order": "little-endian"}},
              {"name": "o", "field-class": {"type": "optional", "selector-field-location": {"path": ["k"]},
                "field-class": {"type": "null-terminated-string"}}}]}}"""))
                .hasMessage(
                        "fragment 3 (event record class \"e\"): $.payload-field-class.member-classes[1].field-class:"
                                + " missing required property \"selector-field-ranges\" (the selector is an integer)");
    }

    @Test
    void packetizedCtf2MetadataIsRead() throws Exception {
        byte[] text = metadata(PREAMBLE, CLOCK, STREAM);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int half = text.length / 2;
        for (byte[] content : List.of(Arrays.copyOf(text, half), Arrays.copyOfRange(text, half, text.length))) {
            int packetBytes = 37 + content.length + 3; // 3 bytes of padding
            ByteBuffer h = ByteBuffer.allocate(37).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            h.putInt(0x75D11D57)
                    .put(new byte[16])
                    .putInt(0)
                    .putInt((37 + content.length) * 8)
                    .putInt(packetBytes * 8)
                    .put((byte) 0)
                    .put((byte) 0)
                    .put((byte) 0)
                    .put((byte) 2)
                    .put((byte) 0);
            out.write(h.array(), 0, 37);
            out.write(content, 0, content.length);
            out.write(new byte[3], 0, 3);
        }
        TraceClass t = MetadataReader.parse(out.toByteArray(), w -> {});
        assertThat(t.major()).isEqualTo(2);
        assertThat(t.clocks()).containsOnlyKeys("mono");
    }

    @Test
    void anotherCtfVersionIsOneClearLine() {
        assertThatThrownBy(() -> parse("{\"type\": \"preamble\", \"version\": 3}"))
                .hasMessage("fragment 0 (preamble): $.version: unsupported CTF version 3 (expected 2)");
        assertThatThrownBy(
                        () -> MetadataReader.parse("/* CTF 3.0 */ trace { }".getBytes(StandardCharsets.UTF_8), w -> {}))
                .hasMessageContaining("unsupported CTF version 3.0")
                .hasMessageContaining("CTF 1.8 and CTF 2");
        assertThatThrownBy(() -> MetadataReader.parse(PREAMBLE.getBytes(StandardCharsets.UTF_8), w -> {}))
                .hasMessageContaining("record separator (0x1E) of CTF 2");
    }

    @Test
    void errorsNameTheFragmentAndTheJsonPath() {
        List<String> messages = new ArrayList<>();
        for (String[] bad : List.of(
                new String[] {"{\"type\": \"trace-class\"}"},
                new String[] {
                    PREAMBLE,
                    "{\"type\": \"clock-class\", \"id\": \"c\", \"frequency\": 10,"
                            + " \"offset-from-origin\": {\"cycles\": 10}}"
                },
                new String[] {PREAMBLE, "{\"type\": \"data-stream-class\", \"extensions\": {\"x\": {\"y\": 1}}}"},
                new String[] {
                    PREAMBLE,
                    "{\"type\": \"data-stream-class\"}",
                    "{\"type\": \"event-record-class\","
                            + " \"name\": \"e\", \"payload-field-class\": {\"type\": \"structure\", \"member-classes\": ["
                            + "{\"name\": \"a\", \"field-class\": {\"type\": \"fixed-length-unsigned-integer\", \"length\": 8,"
                            + " \"byte-order\": \"little-endian\", \"roles\": [\"packet-magic-number\"]}}]}}"
                })) {
            try {
                parse(bad);
            } catch (MetadataException e) {
                messages.add(e.getMessage());
            }
        }
        assertThat(messages)
                .containsExactly(
                        "fragment 0 (trace class): $.type: the first fragment must be a preamble, not a trace-class",
                        "fragment 1 (clock class): $.offset-from-origin.cycles: must be less than the frequency (10)",
                        "fragment 1 (data stream class): $.extensions: extension not declared in the preamble",
                        "fragment 2 (event record class \"e\"): $.payload-field-class.member-classes[0].field-class.roles[0]:"
                                + " role packet-magic-number is not allowed in the event-record-payload scope");
    }
}
