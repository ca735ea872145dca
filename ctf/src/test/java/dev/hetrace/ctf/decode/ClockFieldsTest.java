package dev.hetrace.ctf.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.decode.ClockFields.ClockField;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.SampleTrace;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ClockFields} finds every integer mapped to a clock where it lies in the file (the
 * bits there hold its value) and gives the full clock value it stands for, through compact
 * and extended headers, sequences, strings and fields at odd bit positions.
 */
class ClockFieldsTest {
    /** A 3-bit id and 13-bit compact timestamps; a payload clock field after a sequence and a string. */
    static final String TSDL = """
        /* CTF 1.8 */
        typealias integer { size = 3; align = 1; signed = false; } := uint3_t;
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 16; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 13; align = 1; signed = false; map = clock.c.value; } := uint13_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := uint64_clock_t;
        typealias integer { size = 24; align = 8; signed = false; byte_order = be; map = clock.c.value; } := be24_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        clock { name = c; freq = 1000000000; offset_s = 1700000000; };
        stream {
            id = 0;
            packet.context := struct {
                uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end; uint64_t content_size; uint64_t packet_size;
            };
            event.header := struct {
                enum : uint3_t { compact = 0 ... 6, extended = 7 } id;
                variant <id> {
                    struct { uint13_clock_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_t timestamp; } extended;
                } v;
            };
        };
        event { name = "e"; id = 0; stream_id = 0;
                fields := struct { uint8_t n; uint16_t xs[n]; string s; be24_clock_t t24; uint3_t tail; }; };
        """;

    @TempDir
    Path tmp;

    @Test
    void everyClockFieldIsFoundWhereItsBitsAreWithTheFullClockValue() throws Exception {
        Path dir = tmp.resolve("t");
        try (CtfWriter w = CtfWriter.create(dir, TSDL)) {
            StreamWriter s = w.stream(0).packetSize(512);
            long t = 1000;
            for (int i = 0; i < 500; i++) {
                t += i % 50 == 0 ? 100_000 : 1 + i % 900;
                List<Long> xs = new ArrayList<>();
                for (int k = 0; k < i % 4; k++) {
                    xs.add((long) k);
                }
                s.event(
                        0,
                        t,
                        Map.of(
                                "n",
                                (long) xs.size(),
                                "xs",
                                xs,
                                "s",
                                "x".repeat(i % 3),
                                "t24",
                                t & 0xFFFFFF,
                                "tail",
                                (long) (i & 7)));
            }
        }
        int[] seen = check(dir);
        assertThat(seen[0]).as("events").isEqualTo(500);
        assertThat(seen[1]).as("packets").isGreaterThan(5);
    }

    @Test
    void findsTheClockFieldsOfCompactAndExtendedHeadersOfASampleTrace() throws Exception {
        Path dir = tmp.resolve("sample");
        SampleTrace.write(dir, 3000, 2, 4096);
        int[] seen = check(dir);
        assertThat(seen[0]).isEqualTo(3000);
    }

    /**
     * Reads every packet and event: each clock field's bits hold its raw value, the header's
     * last clock field stands for the event's time, the packet's for its begin and end.
     */
    private static int[] check(Path dir) throws Exception {
        int events = 0;
        int packets = 0;
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            for (int s = 0; s < trace.streamCount(); s++) {
                StreamDecoder d = trace.decoder(s);
                while (d.nextPacket()) {
                    packets++;
                    PacketInfo p = d.packet();
                    List<ClockField> fields = new ArrayList<>();
                    ClockFields.ofPacket(d, fields::add);
                    assertThat(fields).hasSize(2);
                    assertThat(fields.get(0).cycles()).isEqualTo(p.timestampBegin());
                    assertThat(fields.get(1).cycles()).isEqualTo(p.timestampEnd());
                    assertThat(fields.get(1).setsClock()).isFalse();
                    assertBitsHoldValues(d, fields);
                    long end = p.offsetBits() + p.contentBits();
                    while (d.position() < end && d.next()) {
                        events++;
                        fields.clear();
                        ClockFields.ofEvent(d, fields::add);
                        assertThat(fields).isNotEmpty();
                        assertThat(fields.getFirst().cycles())
                                .as("the header's timestamp")
                                .isEqualTo(d.clockValue());
                        assertThat(fields.getLast().cycles())
                                .as("the payload's clock field")
                                .isEqualTo(d.clockValue());
                        assertBitsHoldValues(d, fields);
                    }
                }
            }
        }
        return new int[] {events, packets};
    }

    private static void assertBitsHoldValues(StreamDecoder d, List<ClockField> fields) {
        for (ClockField f : fields) {
            long mask = f.size() == 64 ? -1L : (1L << f.size()) - 1;
            assertThat(BitReader.read(d.segment(), f.bitOffset(), f.size(), f.bigEndian()))
                    .isEqualTo(f.raw() & mask);
        }
    }
}
