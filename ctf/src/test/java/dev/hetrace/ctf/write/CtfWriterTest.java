package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.decode.FieldValues.Choice;
import dev.hetrace.ctf.write.TraceReading.ReadEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CtfWriterTest {
    /** LTTng's layout: compact header (5-bit id, 27-bit time) or extended (32-bit id, 64-bit time). */
    private static String lttngStyle(String byteOrder) {
        return UstTsdl.head(byteOrder, "6a7f8b42-1d2c-4c3e-9a1b-0123456789ab") + """
                env { hostname = "board"; domain = "ust"; };
                clock { name = monotonic; freq = 1000000000; offset_s = 1700000000; offset = 0; };
                """ + UstTsdl.stream(null) + """
                event { name = "tick"; id = 3; stream_id = 0; fields := struct { uint32_t n; string msg; }; };
                event { name = "rare"; id = 40; stream_id = 0; fields := struct { int64_t delta; uint8_t len; uint8_t data[len]; }; };
                typealias integer { size = 64; align = 8; signed = true; } := int64_t;
                """;
    }

    @ParameterizedTest
    @ValueSource(strings = {"le", "be"})
    void lttngStyleCompactAndExtendedHeadersReadBackExactlyOverManyPackets(String byteOrder, @TempDir Path dir)
            throws Exception {
        String tsdl = lttngStyle(byteOrder)
                .replace("typealias integer { size = 64; align = 8; signed = true; }" + " := int64_t;\n", "");
        tsdl = tsdl.replace(
                "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;",
                "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
                        + "typealias integer { size = 64; align = 8; signed = true; } := int64_t;");
        List<long[]> written = new ArrayList<>();
        try (CtfWriter w = CtfWriter.create(dir, tsdl)) {
            StreamWriter s = w.stream(0).packetSize(256).packetContext("cpu_id", 3);
            long t = 1_000;
            for (int i = 0; i < 200; i++) {
                // Gaps of up to 2^30 ns force extended headers now and then; id 40 always needs one.
                t += (i % 17 == 0) ? (1L << 30) + i : 1_000 + i;
                if (i % 5 == 0) {
                    s.event(40, t, Map.of("delta", -i, "len", 3, "data", List.of(1, 2, i & 0xFF)));
                    written.add(new long[] {40, t});
                } else {
                    s.event(3, t, Map.of("n", i, "msg", "event " + i));
                    written.add(new long[] {3, t});
                }
            }
            assertThat(s.packetsWritten()).isGreaterThan(10);
        }
        List<ReadEvent> read = TraceReading.readStream(dir, "stream_0_0");
        assertThat(read).hasSize(written.size());
        for (int i = 0; i < read.size(); i++) {
            assertThat(read.get(i).id()).isEqualTo(written.get(i)[0]);
            assertThat(read.get(i).cycles()).as("event %d time", i).isEqualTo(written.get(i)[1]);
        }
        assertThat(read.get(5).payload()).isEqualTo(Map.of("delta", -5L, "len", 3L, "data", List.of(1L, 2L, 5L)));
        assertThat(read.get(1).payload()).isEqualTo(Map.of("n", 1L, "msg", "event 1"));
        if (TraceReading.babeltraceInstalled()) {
            assertThat(TraceReading.hetraceText(dir))
                    .isEqualTo(TraceReading.babeltrace(dir).out());
        }
    }

    @Test
    void eventsTooLargeForThePacketSizeGetAPacketOfTheirOwn(@TempDir Path dir) throws Exception {
        String tsdl = """
            /* CTF 1.8 */
            trace { major = 1; minor = 8; byte_order = le; };
            stream { packet.context := struct { integer { size = 64; } packet_size; integer { size = 64; } content_size; };
                     event.header := struct { integer { size = 64; map = clock.c.value; } timestamp; }; };
            clock { name = c; freq = 1000; };
            event { name = big; fields := struct { string s; }; };
            """;
        String large = "x".repeat(5000);
        try (CtfWriter w = CtfWriter.create(dir, tsdl)) {
            StreamWriter s = w.stream(0).packetSize(128);
            s.event(0, 1, Map.of("s", "small"));
            s.event(0, 2, Map.of("s", large));
            s.event(0, 3, Map.of("s", "after"));
        }
        List<ReadEvent> read = TraceReading.readStream(dir, "stream_0_0");
        assertThat(read)
                .extracting(e -> (Object) ((Map<?, ?>) e.payload()).get("s"))
                .containsExactly("small", large, "after");
    }

    @Test
    void variantsSelectTheOptionTheirTagNames(@TempDir Path dir) throws Exception {
        String tsdl = """
            /* CTF 1.8 */
            trace { major = 1; minor = 8; byte_order = be; };
            event { name = v; fields := struct {
                enum : integer { size = 3; } { a, b, c = 4 ... 6 } sel;
                variant <sel> { integer { size = 13; signed = true; } a; string b; floating_point { exp_dig = 11; mant_dig = 53; } c; } val;
            }; };
            """;
        try (CtfWriter w = CtfWriter.create(dir, tsdl)) {
            StreamWriter s = w.stream(0);
            s.event(0, 0, Map.of("sel", "a", "val", -4000));
            s.event(0, 0, Map.of("sel", "b", "val", new Choice("b", "bee")));
            s.event(0, 0, Map.of("sel", 5, "val", 2.5));
            assertThatThrownBy(() -> s.event(0, 0, Map.of("sel", "b", "val", new Choice("a", 1))))
                    .hasMessageContaining("payload val: the value is for option 'a' but the tag selects 'b'");
            assertThatThrownBy(() -> s.event(0, 0, Map.of("sel", "a", "val", 5000)))
                    .hasMessageContaining("val.a: value 5000 does not fit in a 13-bit signed integer");
        }
        List<ReadEvent> read = TraceReading.readStream(dir, "stream_0_0");
        assertThat(read)
                .extracting(ReadEvent::payload)
                .containsExactly(
                        Map.of("sel", 0L, "val", new Choice("a", -4000L)),
                        Map.of("sel", 1L, "val", new Choice("b", "bee")),
                        Map.of("sel", 5L, "val", new Choice("c", 2.5)));
    }

    @Test
    void discardedEventsAreCountedInTheNextPacket(@TempDir Path dir) throws Exception {
        try (CtfWriter w = CtfWriter.create(dir, lttngStyle("le").replace("int64_t delta;", "uint32_t delta;"))) {
            StreamWriter s = w.stream(0);
            s.event(3, 10, Map.of("n", 1, "msg", "a"));
            s.flush();
            s.discard(7);
            s.event(3, 20, Map.of("n", 2, "msg", "b"));
        }
        try (var trace = CtfTrace.open(dir, x -> {})) {
            var d = trace.decoder(0);
            List<Long> discarded = new ArrayList<>();
            while (d.nextPacket()) {
                discarded.add(d.packet().eventsDiscarded());
            }
            assertThat(discarded).containsExactly(0L, 7L);
        }
    }
}
