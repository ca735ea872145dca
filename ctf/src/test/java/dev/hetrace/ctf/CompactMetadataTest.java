package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.EventClassRun;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.MemberList;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compact representations of generated metadata (runs of counted names): what they hold, and
 * traces with a million options, fields or event classes read in little memory and time.
 */
class CompactMetadataTest {
    private static final String HEAD = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; base = 10; } := uint8_t;
        typealias integer { size = 64; align = 8; signed = false; base = 10; } := uint64_t;
        trace { major = 1; minor = 8; byte_order = le; };
        """;

    private static final FieldType.IntegerType U8 =
            new FieldType.IntegerType(8, 8, false, ByteOrder.LITTLE_ENDIAN, 10, FieldType.Encoding.NONE, null);

    @Test
    void aMillionCountedMembersAreOneEntry() {
        MemberList list = new MemberList();
        for (int i = 0; i < 1_000_000; i++) {
            list.add(new Member("f" + i, U8));
        }
        list.add(new Member("other", U8));
        assertThat(list).hasSize(1_000_001);
        assertThat(list.entryCount()).isEqualTo(2);
        assertThat(list.get(123_456).name()).isEqualTo("f123456");
        assertThat(list.indexOf("f999999")).isEqualTo(999_999);
        assertThat(list.indexOf("f1000000")).isEqualTo(-1);
        assertThat(list.indexOf("f01")).isEqualTo(-1);
        assertThat(list.indexOf("other")).isEqualTo(1_000_000);
        // A member named by a reference is split out of its run, and keeps its identity.
        Member m = list.find("f500000");
        assertThat(list.find("f500000")).isSameAs(m);
        assertThat(list.entryCount()).isEqualTo(4);
        assertThat(list.get(500_000)).isSameAs(m);
        assertThat(list.get(500_001).name()).isEqualTo("f500001");
        assertThat(list.get(499_999).name()).isEqualTo("f499999");
        assertThat(list.indexOf("other")).isEqualTo(1_000_000);
    }

    @Test
    void membersOfDifferentTypesOrNamesAreNotMerged() {
        MemberList list = new MemberList();
        list.add(new Member("a0", U8));
        list.add(new Member("a1", new FieldType.StringType(FieldType.Encoding.UTF8)));
        list.add(new Member("a3", U8));
        list.add(new Member("b4", U8));
        assertThat(list.entryCount()).isEqualTo(4);
        assertThat(list.stream().map(Member::name)).containsExactly("a0", "a1", "a3", "b4");
    }

    @Test
    void runsOfEventClassesAndAliasesStayCompact() throws MetadataException {
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("stream { event.header := struct { uint64_t id; }; };\n");
        for (int i = 0; i < 100_000; i++) {
            sb.append("typedef integer { size = 8; align = 8; signed = false; } t")
                    .append(i)
                    .append(";\n");
        }
        for (int i = 0; i < 100_000; i++) {
            sb.append("event { name = e")
                    .append(i)
                    .append("; id = ")
                    .append(i)
                    .append("; fields := struct { t")
                    .append(i)
                    .append(" x; }; };\n");
        }
        TraceClass t = MetadataReader.parse(sb.toString().getBytes(StandardCharsets.UTF_8), w -> {});
        assertThat(t.stream(0).eventRuns()).hasSize(1);
        EventClassRun run = t.stream(0).eventRuns().getFirst();
        assertThat(run.count()).isEqualTo(100_000);
        assertThat(t.stream(0).eventCount()).isEqualTo(100_000);
        assertThat(t.stream(0).event(76_543).name()).isEqualTo("e76543");
        assertThat(t.stream(0).event(100_000)).isNull();
    }

    @Test
    void duplicateIdsInsideRunsAreStillRejected() {
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("stream { event.header := struct { uint64_t id; }; };\n");
        for (int i = 0; i < 100; i++) {
            sb.append("event { name = e").append(i).append("; id = ").append(i).append("; };\n");
        }
        sb.append("event { name = again; id = 42; };\n");
        assertThatThrownBy(() -> MetadataReader.parse(sb.toString().getBytes(StandardCharsets.UTF_8), w -> {}))
                .isInstanceOf(MetadataException.class)
                .hasMessageContaining("duplicate event id 42");
    }

    @Test
    void aVariantWithAMillionOptionsSelectsByBinarySearch(@TempDir Path dir) throws Exception {
        int n = 1_000_000;
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("event { name = ev; fields := struct { enum : uint64_t {\n");
        for (int i = 0; i < n; i++) {
            sb.append("t").append(i).append(",\n");
        }
        sb.append("} select; variant <select> {\n");
        for (int i = 0; i < n; i++) {
            sb.append("uint8_t t").append(i).append(";\n");
        }
        sb.append("} v; uint8_t f0; uint8_t f1; uint8_t f2; uint8_t f3; }; };\n");
        Files.writeString(dir.resolve("metadata"), sb);
        // Two events: tag 999999 then tag 17.
        byte[] stream = new byte[2 * 13];
        writeEvent(stream, 0, 999_999, 7);
        writeEvent(stream, 13, 17, 8);
        Files.write(dir.resolve("stream"), stream);
        assertThat(print(dir))
                .isEqualTo(
                        "ev: { select = ( \"t999999\" : container = 999999 ), v = { 7 }, f0 = 1, f1 = 2, f2 = 3, f3 = 4 }\n"
                                + "ev: { select = ( \"t17\" : container = 17 ), v = { 8 }, f0 = 1, f1 = 2, f2 = 3, f3 = 4 }\n");
    }

    private static void writeEvent(byte[] b, int at, long tag, int option) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (tag >>> (8 * i));
        }
        b[at + 8] = (byte) option;
        for (int i = 0; i < 4; i++) {
            b[at + 9 + i] = (byte) (i + 1);
        }
    }

    @Test
    void aMillionFieldsArePrintedFromOneRun(@TempDir Path dir) throws Exception {
        int n = 1_000_000;
        StringBuilder sb = new StringBuilder(HEAD);
        sb.append("event { name = ev; fields := struct {\n");
        for (int i = 0; i < n; i++) {
            sb.append("uint8_t f").append(i).append(";\n");
        }
        sb.append("}; };\n");
        Files.writeString(dir.resolve("metadata"), sb);
        byte[] stream = new byte[n];
        for (int i = 0; i < n; i++) {
            stream[i] = (byte) i;
        }
        Files.write(dir.resolve("stream"), stream);
        String out = print(dir);
        assertThat(out)
                .startsWith("ev: { f0 = 0, f1 = 1, f2 = 2,")
                .endsWith(", f999999 = 63 }\n")
                .contains(", f500000 = 32, f500001 = 33,");
    }

    private static String print(Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            EventCursor cursor = new EventCursor(List.of(trace));
            BabeltraceText text =
                    new BabeltraceText(sink, new PrintStream(new ByteArrayOutputStream()), ZoneOffset.UTC);
            while (cursor.next()) {
                text.print(cursor);
                sink.lineDone();
            }
            sink.flush();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
