package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetadataParserTest {
    private static final String HEAD = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        trace { major = 1; minor = 8; byte_order = be; };
        """;

    private static TraceClass parse(String text) throws MetadataException {
        return MetadataReader.parse(text.getBytes(StandardCharsets.UTF_8), w -> {});
    }

    @Test
    void nativeByteOrderIsTheTraceByteOrderEvenWhenDeclaredBeforeTheTraceBlock() throws Exception {
        TraceClass t = parse("""
            /* CTF 1.8 */
            typealias integer { size = 16; byte_order = native; } := u16;
            trace { major = 1; minor = 8; byte_order = be; };
            event { name = e; fields := struct { u16 x; }; };
            """);
        FieldType.IntegerType x = (FieldType.IntegerType)
                t.stream(0).event(0).payload().members().getFirst().type();
        assertThat(x.byteOrder()).isEqualTo(ByteOrder.BIG_ENDIAN);
    }

    @Test
    void errorsNameTheLineAndColumnAndWhatWasExpected() {
        assertThatThrownBy(() -> parse(HEAD + "event { name = e; fields := struct { uint8_t a; uint8_t a; }; };\n"))
                .isInstanceOf(MetadataException.class)
                .hasMessage("line 4, column 57: duplicate field name 'a'");
        assertThatThrownBy(() -> parse(HEAD + "event { name = e; fields := struct { uint9_t a; }; };\n"))
                .hasMessage("line 4, column 38: unknown type 'uint9_t'");
        assertThatThrownBy(() -> parse(HEAD + "event { name = e\n"))
                .hasMessageContaining("line 5, column 1: expected ';' after the value of 'name'");
    }

    @Test
    void enumerationValuesMustFitTheirContainer() {
        assertThatThrownBy(() -> parse(HEAD + "enum e : uint8_t { A = 256 };\n"))
                .hasMessageContaining("does not fit its unsigned 8-bit container");
    }

    @Test
    void crlfMetadataParsesLikeLf() throws Exception {
        String lf = HEAD + "event { name = e; fields := struct { uint8_t a; }; };\n";
        assertThat(parse(lf.replace("\n", "\r\n"))).isEqualTo(parse(lf));
    }

    @Test
    void unknownAttributesAreWarningsNotErrors() throws Exception {
        List<String> warnings = new ArrayList<>();
        MetadataReader.parse(
                (HEAD + "clock { name = c; wobble = 3; };\n").getBytes(StandardCharsets.UTF_8), warnings::add);
        assertThat(warnings).singleElement().asString().contains("unknown clock attribute 'wobble'");
    }

    @Test
    void clockOffsetsAreNormalisedSoCyclesStayBelowTheFrequency() throws Exception {
        TraceClass t = parse(HEAD + "clock { name = c; freq = 1000; offset_s = 10; offset = -1500; };\n");
        var c = t.clocks().get("c");
        assertThat(c.offsetSeconds()).isEqualTo(8);
        assertThat(c.offsetCycles()).isEqualTo(500);
        assertThat(c.nanosFromOrigin(1)).isEqualTo(8_501_000_000L);
    }
}
