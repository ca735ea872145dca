package dev.hetrace.tracer.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The comparison behind {@link BarectfMetadataTest} finds differences and names where they are. */
class TraceClassDiffTest {
    private static final String TEMPLATE = """
        /* CTF 1.8 */
        trace { major = 1; minor = 8; byte_order = le;
            packet.header := struct { integer { size = 32; align = 8; } magic; } align(8); };
        env { tracer_name = "%s"; };
        stream { id = 0;
            packet.context := struct { integer { size = 64; align = 8; } packet_size; } align(8); };
        event { stream_id = 0; id = 0; name = "ev";
            fields := struct {
                enum : integer { size = 8; align = 8; } { "A" = 0, "B" = 1 ... 3, %s } e;
                integer { size = %d; align = 8; } x;
            } align(1); };
        """;

    private static TraceClass parse(String env, String extraMapping, int size) throws Exception {
        return MetadataReader.parse(
                TEMPLATE.formatted(env, extraMapping, size).getBytes(StandardCharsets.UTF_8), w -> {});
    }

    @Test
    void identicalTraceClassesHaveNoDifferenceWhateverTheirEnvironment() throws Exception {
        assertThat(TraceClassDiff.firstDifference(parse("barectf", "\"C\" = 9", 16), parse("hetrace", "\"C\" = 9", 16)))
                .isNull();
    }

    @Test
    void aDifferentMemberSizeIsNamedByItsPlace() throws Exception {
        assertThat(TraceClassDiff.firstDifference(parse("x", "\"C\" = 9", 16), parse("x", "\"C\" = 9", 32)))
                .startsWith("stream 0 / event 0 \"ev\" / payload / x: ")
                .contains("size=16")
                .contains("size=32");
    }

    @Test
    void enumerationMappingsCompareAsSets() throws Exception {
        String reordered = """
            enum : integer { size = 8; align = 8; } { "C" = 9, "B" = 1 ... 3, "A" = 0 } e;""";
        TraceClass a = parse("x", "\"C\" = 9", 16);
        TraceClass b = MetadataReader.parse(
                TEMPLATE.formatted("x", "\"C\" = 9", 16)
                        .replaceAll("enum : .* e;", reordered)
                        .getBytes(StandardCharsets.UTF_8),
                w -> {});
        assertThat(TraceClassDiff.firstDifference(a, b)).isNull();
        assertThat(TraceClassDiff.firstDifference(a, parse("x", "\"C\" = 10", 16)))
                .startsWith("stream 0 / event 0 \"ev\" / payload / e (mappings)");
    }
}
