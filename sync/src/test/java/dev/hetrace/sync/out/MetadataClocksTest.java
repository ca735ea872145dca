package dev.hetrace.sync.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.write.Ctf2Writer;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
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

        assertThat(edited)
                .isEqualTo(text.replace("1000000000;", "999963001;")
                        .replace("0x6920A000", "1763689200")
                        .replace("offset = 42", "offset = 123"));
    }

    @Test
    void attributesTheBlockLeftToTheirDefaultsAreAdded() throws Exception {
        String edited =
                MetadataClocks.rewriteText("clock { name = monotonic; };", Map.of("monotonic", FIT.attributes()));

        assertThat(edited)
                .isEqualTo("clock { name = monotonic;  freq = 999963001; offset_s = 1763689200; offset = 123; };");
    }

    @Test
    void otherClocksAreLeftAlone() throws Exception {
        String text =
                "clock { name = other; freq = 7; };\nclock { name = monotonic; freq = 1; offset_s = 2; offset = 0; };";

        String edited = MetadataClocks.rewriteText(text, Map.of("monotonic", FIT.attributes()));

        assertThat(edited)
                .startsWith("clock { name = other; freq = 7; };\n")
                .endsWith("freq = 999963001; offset_s = 1763689200; offset = 123; };");
    }

    @Test
    void absoluteIsSetWhereItIsSaidAndAddedWhereItIsNot() throws Exception {
        Map<String, Map<String, String>> edits =
                Map.of("a", Map.of("absolute", "true"), "b", Map.of("absolute", "true"));

        String edited =
                MetadataClocks.rewriteText("clock { name = a; absolute = FALSE; };\nclock { name = b; };", edits);

        assertThat(edited).isEqualTo("clock { name = a; absolute = true; };\nclock { name = b;  absolute = true; };");
    }

    @Test
    void aClockWithoutABlockIsAnError() {
        assertThatThrownBy(() ->
                        MetadataClocks.rewriteText("clock { name = other; };", Map.of("monotonic", FIT.attributes())))
                .isInstanceOf(MetadataException.class)
                .hasMessageContaining("clock 'monotonic' has no clock block");
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
        ClockClass clock = MetadataReader.parse(edited, w -> {}).clocks().get("monotonic");
        assertThat(clock.frequency()).isEqualTo(999963001);
        assertThat(clock.offsetSeconds()).isEqualTo(1763689200);
        assertThat(clock.offsetCycles()).isEqualTo(123);
    }

    // ------------------------------------------------------------------ CTF 2

    private static final String RS = "\u001e";

    /** CTF 2 metadata of a trace with one clock, as hetrace's CTF 2 writer writes it from TSDL. */
    private static byte[] ctf2(String clock) throws Exception {
        String tsdl = "/* CTF 1.8 */\n"
                + "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
                + "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;\n"
                + "trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };\n"
                + clock + "\n"
                + "stream { event.header := struct { uint32_t id; clk_t timestamp; }; };\n"
                + "event { name = e; id = 0; fields := struct { uint32_t n; }; };\n";
        return Ctf2Writer.rewrite(tsdl.getBytes(StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCtf2ClockClassGetsTheNewFrequencyOffsetAndOriginAndNoOtherFragmentChanges() throws Exception {
        byte[] original =
                ctf2("clock { name = monotonic; description = \"the clock\"; freq = 1000000000; offset_s = 12;"
                        + " offset = 42; };");
        Map<String, String> edits = new LinkedHashMap<>(FIT.attributes());
        edits.put("absolute", "true");

        byte[] edited = MetadataClocks.rewrite(original, Map.of("monotonic", edits));

        String[] before = new String(original, StandardCharsets.UTF_8).split(RS, -1);
        String[] after = new String(edited, StandardCharsets.UTF_8).split(RS, -1);
        assertThat(after).hasSameSizeAs(before);
        int clocks = 0;
        for (int i = 0; i < before.length; i++) {
            if (before[i].contains("\"clock-class\"")) {
                clocks++;
                var node = new ObjectMapper().readTree(after[i]);
                assertThat(node.get("frequency").asLong()).isEqualTo(999963001);
                assertThat(node.get("offset-from-origin").get("seconds").asLong())
                        .isEqualTo(1763689200);
                assertThat(node.get("offset-from-origin").get("cycles").asLong())
                        .isEqualTo(123);
                assertThat(node.get("origin").asText()).isEqualTo("unix-epoch");
                assertThat(node.get("description").asText()).isEqualTo("the clock");
                assertThat(after[i]).endsWith("\n");
            } else {
                assertThat(after[i]).as("fragment %d", i).isEqualTo(before[i]);
            }
        }
        assertThat(clocks).isOne();
        ClockClass clock = MetadataReader.parse(edited, w -> {})
                .clocks()
                .values()
                .iterator()
                .next();
        assertThat(clock)
                .isEqualTo(new ClockClass("monotonic", "the clock", null, 999963001, 0, 1763689200, 123, true));
    }

    @Test
    void ctf2OffsetCyclesAreKeptBelowTheFrequencyAsCtf2Requires() throws Exception {
        byte[] original = ctf2("clock { name = monotonic; freq = 1000; offset_s = 5; offset = 999; };");

        // the packet route moves offset_s only; a slower frequency leaves the old cycles past it
        byte[] moved = MetadataClocks.rewrite(original, Map.of("monotonic", Map.of("offset_s", "2", "offset", "2500")));
        byte[] slower = MetadataClocks.rewrite(original, Map.of("monotonic", Map.of("freq", "500")));

        ClockClass m = MetadataReader.parse(moved, w -> {})
                .clocks()
                .values()
                .iterator()
                .next();
        assertThat(m.offsetSeconds()).isEqualTo(4);
        assertThat(m.offsetCycles()).isEqualTo(500);
        ClockClass s = MetadataReader.parse(slower, w -> {})
                .clocks()
                .values()
                .iterator()
                .next();
        assertThat(s.frequency()).isEqualTo(500);
        assertThat(s.offsetSeconds()).isEqualTo(6);
        assertThat(s.offsetCycles()).isEqualTo(499);
    }

    @Test
    void aCtf2ClockClassIsKnownByItsNameElseItsId() throws Exception {
        String text = RS + "{\"type\":\"clock-class\",\"id\":\"c0\",\"name\":\"monotonic\",\"frequency\":1000}\n" + RS
                + "{\"type\":\"clock-class\",\"id\":\"cycles\",\"frequency\":7}\n";

        String edited = MetadataClocks.rewriteJson(
                text, Map.of("monotonic", Map.of("freq", "999"), "cycles", Map.of("absolute", "true")));

        assertThat(edited)
                .isEqualTo(
                        RS + "{\"type\":\"clock-class\",\"id\":\"c0\",\"name\":\"monotonic\",\"frequency\":999}\n" + RS
                                + "{\"type\":\"clock-class\",\"id\":\"cycles\",\"frequency\":7,\"origin\":\"unix-epoch\"}\n");
        assertThatThrownBy(() -> MetadataClocks.rewriteJson(text, Map.of("c0", Map.of("freq", "999"))))
                .isInstanceOf(MetadataException.class)
                .hasMessageContaining("clock 'c0' has no clock class fragment");
    }

    @Test
    void packetizedCtf2MetadataStaysPacketizedAndParsesToTheNewClock() throws Exception {
        byte[] json = ctf2("clock { name = monotonic; freq = 1000000000; offset = 0; };");
        byte[] uuid = new byte[16];
        uuid[5] = 3;
        byte[] packed = MetadataClocks.packetize(json, uuid, ByteOrder.LITTLE_ENDIAN);

        byte[] edited = MetadataClocks.rewrite(packed, Map.of("monotonic", FIT.attributes()));

        assertThat(Arrays.copyOf(edited, 4)).containsExactly(0x57, 0x1D, 0xD1, 0x75);
        assertThat(Arrays.copyOfRange(edited, 4, 20)).isEqualTo(uuid);
        ClockClass clock = MetadataReader.parse(edited, w -> {})
                .clocks()
                .values()
                .iterator()
                .next();
        assertThat(clock.frequency()).isEqualTo(999963001);
        assertThat(clock.offsetSeconds()).isEqualTo(1763689200);
        assertThat(clock.offsetCycles()).isEqualTo(123);
    }
}
