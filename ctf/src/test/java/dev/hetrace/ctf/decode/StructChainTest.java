package dev.hetrace.ctf.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.StructChain;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Chains of nested structs ({@code struct { struct { ... } s_depth_0; } s_depth_1} many levels
 * deep): parsed without recursion into a {@link StructChain}, compiled into one CHAIN node, and
 * decoded, printed and read exactly as the nested structs they stand for.
 */
class StructChainTest {
    private static final String HEAD = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; base = 10; } := uint8_t;
        typealias integer { size = 16; align = 16; signed = false; base = 16; } := uint16_t;
        trace { major = 1; minor = 8; byte_order = le; };
        """;

    /** An event whose payload holds {@code levels} nested structs, each with {@code before} and {@code after} members. */
    private static String metadata(int levels, String before, String core, String after) {
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("event { name = ev; fields := struct {\n");
        for (int i = 0; i < levels; i++) {
            sb.append("\tstruct {\n").append(before);
        }
        sb.append(core);
        for (int i = 0; i < levels; i++) {
            sb.append(after).append("\t} s_depth_").append(i).append(";\n");
        }
        return sb.append("}; };\n").toString();
    }

    @Test
    void nestedStructsWithCountedNamesAreOneChain() throws MetadataException {
        TraceClass t = MetadataReader.parse(
                metadata(1000, "", "uint8_t field;\n", "struct { } empty;\n").getBytes(StandardCharsets.UTF_8),
                w -> {});
        StructType payload = t.stream(0).event(0).payload();
        Member top = payload.members().getFirst();
        assertThat(top.name()).isEqualTo("s_depth_999");
        // s_depth_0 holds the core members (field, empty); s_depth_1 to s_depth_999 are 999 levels above it.
        StructType level999 = (StructType) top.type();
        assertThat(level999.members()).isInstanceOf(StructChain.class);
        StructChain chain = (StructChain) level999.members();
        assertThat(chain.levels()).isEqualTo(999);
        assertThat(chain.first()).isZero();
        assertThat(chain.holeIndex()).isZero();
        assertThat(chain.after()).extracting(Member::name).containsExactly("empty");
        assertThat(chain.get(0).name()).isEqualTo("s_depth_998");
        StructType level1 = chain.level(1);
        assertThat(level1.members()).extracting(Member::name).containsExactly("s_depth_0", "empty");
        assertThat(level1.members().getFirst().type()).isEqualTo(chain.core());
        assertThat(((StructType) chain.core()).members())
                .extracting(Member::name)
                .containsExactly("field", "empty");
        assertThat(level999.alignment()).isEqualTo(8);
        // Equality and hashing do not walk the levels.
        assertThat(chain.level(500)).isEqualTo(chain.level(500)).hasSameHashCodeAs(chain.level(500));
        assertThat(chain.level(500)).isNotEqualTo(chain.level(499));
        assertThat(chain.toString()).contains("999");
    }

    @Test
    void shapesThatDifferAreNotChained() throws MetadataException {
        // Names that do not count, a member that differs at one level, a member a reference names.
        String differ = HEAD + """
            event { name = ev; fields := struct {
                struct { struct { struct { uint8_t x; } a_0; } b_1; } a_2;
                struct { struct { struct { uint8_t x; } c_0; uint8_t y; } c_1; uint16_t y; } c_2;
                struct { uint8_t len; struct { uint8_t len; struct { uint8_t s[len]; } d_0; } d_1; } d_2;
            }; };
            """;
        TraceClass t = MetadataReader.parse(differ.getBytes(StandardCharsets.UTF_8), w -> {});
        for (Member m : t.stream(0).event(0).payload().members()) {
            assertThat(((StructType) m.type()).members()).as(m.name()).isNotInstanceOf(StructChain.class);
        }
    }

    /** Levels, the members before and after the hole (with tape slots, alignment), text, JSON and values. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 64, 65, 300})
    void aChainDecodesAndPrintsAsTheNestedStructs(int levels, @TempDir Path dir) throws Exception {
        Files.writeString(
                dir.resolve("metadata"),
                metadata(levels, "\tuint16_t a;\n", "\tuint8_t field; string s;\n", "\tuint16_t _b; struct { } e;\n"));
        // Level k (outermost first) holds a = k; the core "field" = 7 and s = "hi"; then b of each level, innermost
        // first. Every struct is 16-bit aligned.
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (int k = levels; k >= 1; k--) {
            data.write(k);
            data.write(k >> 8);
        }
        data.write(7);
        data.writeBytes("hi\0".getBytes(StandardCharsets.US_ASCII));
        if (data.size() % 2 != 0) {
            data.write(0xEE); // padding before the 16-bit b
        }
        for (int k = 1; k <= levels; k++) {
            data.write(k * 3);
            data.write(1);
        }
        Files.write(dir.resolve("stream"), data.toByteArray());
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            TracePlan chained = TracePlan.compile(trace.metadata(), 2);
            TracePlan nested = TracePlan.compile(trace.metadata(), Integer.MAX_VALUE);
            // The innermost struct holds the core members; the levels above it are a chain.
            Node top = chained.stream(0).event(0).payload.children[0];
            if (levels - 1 >= 2) {
                assertThat(top.kind).isEqualTo(Node.CHAIN);
                assertThat(top.length).isEqualTo(levels - 1);
                assertThat(top.chainBeforeSlots).isEqualTo(1);
                assertThat(top.chainAfterSlots).isEqualTo(1);
            } else {
                assertThat(top.kind).isEqualTo(Node.STRUCT);
            }
            assertThat(read(trace, chained)).isEqualTo(read(trace, nested));
            String text = (String) read(trace, nested)[0];
            assertThat(text)
                    .startsWith("ev: { s_depth_" + (levels - 1) + " = { a = 0x"
                            + Integer.toHexString(levels).toUpperCase() + ", ")
                    .contains("s_depth_0 = { a = 0x1, field = 7, s = \"hi\", b = 0x103, e = { } }")
                    .endsWith(", b = 0x"
                            + Integer.toHexString(((levels * 3) & 0xFF) + 256).toUpperCase() + ", e = { } } }\n");
        }
    }

    /** Text, JSON and the value tree of the trace's events, decoded with {@code plan}. */
    private static Object[] read(CtfTrace trace, TracePlan plan) throws Exception {
        StreamDecoder d = new StreamDecoder(plan, trace.streams().get(0));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        TextSink textSink = new TextSink(text);
        TextSink jsonSink = new TextSink(json);
        BabeltraceText bt =
                new BabeltraceText(textSink, new PrintStream(OutputStream.nullOutputStream()), ZoneOffset.UTC);
        JsonText jt = new JsonText(jsonSink);
        StringBuilder values = new StringBuilder();
        while (d.next()) {
            bt.body(trace, d);
            jt.print(trace, d, false, 0);
            values.append(FieldValues.payload(d)).append('\n');
        }
        textSink.flush();
        jsonSink.flush();
        return new Object[] {
            text.toString(StandardCharsets.UTF_8), json.toString(StandardCharsets.UTF_8), values.toString()
        };
    }

    @Test
    void aChainTwoHundredThousandLevelsDeepNeedsNoRecursion(@TempDir Path dir) throws Exception {
        int levels = 200_000;
        Files.writeString(
                dir.resolve("metadata"), metadata(levels, "", "uint8_t field;\n", "struct { } empty_struct;\n"));
        Files.write(dir.resolve("stream"), new byte[] {42});
        // On this thread's ordinary stack: parsing, compiling, decoding and printing do not recurse per level.
        long[] length = {0};
        OutputStream counting = new OutputStream() {
            @Override
            public void write(int b) {
                length[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                length[0] += len;
            }
        };
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            // The innermost struct holds the core members, the levels above it are a chain.
            assertThat(trace.plan().deepestChain).isEqualTo(levels - 1);
            StreamDecoder d = trace.decoder(0);
            TextSink sink = new TextSink(counting);
            BabeltraceText bt =
                    new BabeltraceText(sink, new PrintStream(OutputStream.nullOutputStream()), ZoneOffset.UTC);
            assertThat(d.next()).isTrue();
            bt.body(trace, d);
            sink.flush();
            // The value tree is made level by level as it is read.
            Object v = FieldValues.payload(d);
            for (int k = levels - 1; k >= 0; k--) {
                v = ((Map<?, ?>) v).get("s_depth_" + k);
            }
            assertThat(v).isEqualTo(Map.of("field", 42L, "empty_struct", Map.of()));
            assertThat(d.next()).isFalse();
        }
        // ev: { s_depth_N-1 = { s_depth_N-2 = { ... s_depth_0 = { field = 42, empty_struct = { } } ... , empty_struct =
        // { } } }
        long expected = "ev: { ".length() + " }\n".length() + "{ field = 42, empty_struct = { } }".length();
        for (int k = 0; k < levels; k++) {
            expected += ("s_depth_" + k + " = ").length();
        }
        expected += (levels - 1L) * ("{ ".length() + ", empty_struct = { } }".length());
        assertThat(length[0]).isEqualTo(expected);
    }

    @Test
    void errorsInsideARunOfEmptyStructsGiveTheRightLine() {
        // 1000 structs opened one per line (lines 6 to 1005), 400 closed, then the end: the innermost open
        // struct is the 600th, at line 605, kept in the parser's run of open structs.
        StringBuilder sb = new StringBuilder(HEAD).append("event { name = ev; fields := struct {\n");
        sb.append("\tstruct {\n".repeat(1000)).append("uint8_t x;\n");
        for (int i = 0; i < 400; i++) {
            sb.append("} s").append(i).append(";\n");
        }
        assertThatThrownBy(() -> MetadataReader.parse(sb.toString().getBytes(StandardCharsets.UTF_8), w -> {}))
                .isInstanceOf(MetadataException.class)
                .hasMessageStartingWith("line 605, column 2: unterminated struct");
    }

    @Test
    void structsNestedDeeplyWithoutCountedNamesAreAClearError() throws Exception {
        int depth = 20_000;
        StringBuilder sb = new StringBuilder(HEAD).append("event { name = ev; fields := struct {\n");
        sb.append("struct {\n".repeat(depth)).append("uint8_t x;\n");
        for (int i = 0; i < depth; i++) {
            sb.append("} s").append(i).append("x;\n");
        }
        sb.append("}; };\n");
        // Parsing does not recurse; compiling such a plan does, up to a limit.
        TraceClass t = MetadataReader.parse(sb.toString().getBytes(StandardCharsets.UTF_8), w -> {});
        Throwable[] thrown = {null};
        Thread th = new Thread(
                null,
                () -> {
                    try {
                        TracePlan.compile(t);
                    } catch (Throwable e) {
                        thrown[0] = e;
                    }
                },
                "deep",
                256L << 20);
        th.start();
        th.join();
        assertThat(thrown[0])
                .isInstanceOf(MetadataException.class)
                .hasMessageContaining("nested more than 10000 levels");
    }

    @Test
    void theWriterWritesChainsAndTheirTsdl(@TempDir Path dir) throws Exception {
        int levels = 100;
        TraceClass parsed = MetadataReader.parse(
                metadata(levels, "\tuint8_t a;\n", "\tuint8_t field;\n", "\tuint16_t b;\n")
                        .getBytes(StandardCharsets.UTF_8),
                w -> {});
        Map<String, Object> value = Map.of("a", 1L, "field", 9L, "b", 0L);
        for (int k = 1; k < levels; k++) {
            Map<String, Object> level = new LinkedHashMap<>();
            level.put("a", (long) (k + 1));
            level.put("s_depth_" + (k - 1), value);
            level.put("b", (long) k);
            value = level;
        }
        Map<String, Object> payload = Map.of("s_depth_" + (levels - 1), value);
        try (CtfWriter w = CtfWriter.create(dir, parsed)) {
            // The metadata was written from the trace class (chains included) and read back the same.
            assertThat(w.metadata().stream(0).event(0).payload())
                    .isEqualTo(parsed.stream(0).event(0).payload());
            StreamWriter s = w.stream(0);
            s.event(0, 0, payload);
            s.event(0, 0, payload);
        }
        try (CtfTrace trace = CtfTrace.open(dir, x -> {})) {
            StreamDecoder d = trace.decoder(0);
            int events = 0;
            while (d.next()) {
                assertThat(d.event().payload.children[0].kind).isEqualTo(Node.CHAIN);
                assertThat(FieldValues.payload(d)).isEqualTo(payload);
                events++;
            }
            assertThat(events).isEqualTo(2);
        }
    }
}
