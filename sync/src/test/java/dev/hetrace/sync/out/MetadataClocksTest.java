package dev.hetrace.sync.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetadataClocksTest {
    private static final ClockFit FIT = new ClockFit("monotonic", 999963001, 1763689200, 123, BigDecimal.ZERO);

    @Test
    void onlyTheValuesOfFreqOffsetSAndOffsetChange() throws Exception {
        String text = """
            /* CTF 1.8 */
            env { note = "clock { name = monotonic; freq = 5; };"; };
            clock {
            \tname = "monotonic";   // the tracer's clock
            \tdescription = "it's { monotonic }";
            \tfreq = 1000000000; /* Frequency, in Hz */
            \toffset_s = 0x6920A000;
            \toffset = 42;
            };
            """;

        String edited = MetadataClocks.rewriteText(text, Map.of("monotonic", FIT.attributes()));

        assertThat(edited).isEqualTo(text.replace("1000000000;", "999963001;").replace("0x6920A000", "1763689200")
            .replace("offset = 42", "offset = 123"));
    }

    @Test
    void attributesTheBlockLeftToTheirDefaultsAreAdded() throws Exception {
        String edited = MetadataClocks.rewriteText("clock { name = monotonic; };", Map.of("monotonic", FIT.attributes()));

        assertThat(edited).isEqualTo("clock { name = monotonic;  freq = 999963001; offset_s = 1763689200; offset = 123; };");
    }

    @Test
    void otherClocksAreLeftAlone() throws Exception {
        String text = "clock { name = other; freq = 7; };\nclock { name = monotonic; freq = 1; offset_s = 2; offset = 0; };";

        String edited = MetadataClocks.rewriteText(text, Map.of("monotonic", FIT.attributes()));

        assertThat(edited).startsWith("clock { name = other; freq = 7; };\n").endsWith("freq = 999963001; offset_s = 1763689200; offset = 123; };");
    }

    @Test
    void absoluteIsSetWhereItIsSaidAndAddedWhereItIsNot() throws Exception {
        Map<String, Map<String, String>> edits = Map.of("a", Map.of("absolute", "true"), "b", Map.of("absolute", "true"));

        String edited = MetadataClocks.rewriteText("clock { name = a; absolute = FALSE; };\nclock { name = b; };", edits);

        assertThat(edited).isEqualTo("clock { name = a; absolute = true; };\nclock { name = b;  absolute = true; };");
    }

    @Test
    void aClockWithoutABlockIsAnError() {
        assertThatThrownBy(() -> MetadataClocks.rewriteText("clock { name = other; };", Map.of("monotonic", FIT.attributes())))
            .isInstanceOf(MetadataException.class).hasMessageContaining("clock 'monotonic' has no clock block");
    }

    @Test
    void packetizedMetadataStaysPacketizedAndParsesToTheNewClock() throws Exception {
        String text = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = be; };\n"
            + "clock { name = monotonic; freq = 1000000000; offset = 0; };\n" + "/* padding */\n".repeat(600);
        byte[] uuid = new byte[16];
        uuid[3] = 9;
        byte[] packed = MetadataClocks.packetize(text.getBytes(StandardCharsets.UTF_8), uuid, ByteOrder.BIG_ENDIAN);

        byte[] edited = MetadataClocks.rewrite(packed, Map.of("monotonic", FIT.attributes()));

        assertThat(edited.length).isGreaterThan(2 * 4096);
        assertThat(edited[0] & 0xFF).isEqualTo(0x75);
        ClockClass clock = MetadataReader.parse(edited, w -> { }).clocks().get("monotonic");
        assertThat(clock.frequency()).isEqualTo(999963001);
        assertThat(clock.offsetSeconds()).isEqualTo(1763689200);
        assertThat(clock.offsetCycles()).isEqualTo(123);
    }
}
