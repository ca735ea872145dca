package dev.hetrace.ctf.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clocks whose times do not fit in 64-bit nanoseconds from the epoch (an offset past them, as
 * old CTF writers wrote, or values past them), which babeltrace2 refuses: every event is read,
 * in its true order across the streams, with its time from the clock's origin or saturated,
 * and the reader warns once per clock.
 */
class ClockRangeTest {
    @TempDir
    Path tmp;

    /** Three streams taking the events of {@code cycles} (increasing) in turns of random length; payload n is the rank. */
    private static Path write(Path dir, String clock, long[] cycles) throws Exception {
        String tsdl = """
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.old.value; } := clk_t;
            trace { major = 1; minor = 8; byte_order = le; uuid = "6a7f8b42-1d2c-4c3e-9a1b-0123456789ab";
                packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t stream_instance_id; }; };
            env { hostname = "old"; };
            CLOCK
            stream { id = 0;
                packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end;
                    uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };
                event.header := struct { uint32_t id; clk_t timestamp; }; };
            event { name = "tick"; id = 0; stream_id = 0; fields := struct { uint32_t n; }; };
            """.replace("CLOCK", clock);
        Random random = new Random(11);
        try (CtfWriter w = CtfWriter.create(dir, tsdl)) {
            List<StreamWriter> streams = new ArrayList<>();
            for (int s = 0; s < 3; s++) {
                streams.add(w.stream(0).packetSize(256).packetContext("cpu_id", s));
            }
            int s = 0;
            for (int n = 0; n < cycles.length; n++) {
                if (random.nextInt(3) == 0) {
                    s = (s + 1 + random.nextInt(2)) % 3;
                }
                streams.get(s).event(0, cycles[n], Map.of("n", n));
            }
        }
        return dir;
    }

    private record Read(List<Long> ranks, List<Long> times, List<String> warnings) {}

    private static Read read(Path... traces) throws Exception {
        List<Long> ranks = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        try (CtfReader reader = CtfReader.open(traces)) {
            while (reader.next()) {
                ranks.add(reader.event().getLong("n"));
                times.add(reader.event().timeNanos());
            }
            return new Read(ranks, times, List.copyOf(reader.warnings()));
        }
    }

    private static List<Long> ranks(int count) {
        List<Long> r = new ArrayList<>();
        for (long n = 0; n < count; n++) {
            r.add(n);
        }
        return r;
    }

    @Test
    void anOffsetPastNanosecondsTimesTheEventsFromTheClocksOriginInOrderWithOneWarning() throws Exception {
        long[] cycles = new long[300];
        for (int n = 0; n < cycles.length; n++) {
            cycles[n] = 1_000 + 7L * n; // 1 MHz: 7 us apart
        }
        Path trace =
                write(tmp.resolve("offset"), "clock { name = old; freq = 1000000; offset_s = 10000000000; };", cycles);

        Read read = read(trace);

        assertThat(read.ranks()).isEqualTo(ranks(cycles.length));
        for (int n = 0; n < cycles.length; n++) {
            assertThat(read.times().get(n)).as("event %d", n).isEqualTo(cycles[n] * 1_000);
        }
        assertThat(read.warnings()).hasSize(1);
        assertThat(read.warnings().getFirst())
                .contains(
                        trace.toString(),
                        "clock \"old\"",
                        "10000000000 s",
                        "does not fit in 64-bit nanoseconds",
                        "from the clock's own origin");

        // Seeking uses the same times.
        try (CtfReader reader = CtfReader.open(trace)) {
            reader.seek(cycles[150] * 1_000);
            assertThat(reader.next()).isTrue();
            assertThat(reader.event().getLong("n")).isEqualTo(150);
        }
    }

    @Test
    void valuesPastNanosecondsAreSaturatedInTheirTrueOrderWithOneWarning() throws Exception {
        long origin = 1_700_000_000L * 1_000_000_000L;
        long last = Long.MAX_VALUE - 1 - origin; // the last value whose time fits
        long[] cycles = new long[300];
        for (int n = 0; n < cycles.length; n++) {
            cycles[n] = last - 1_000L * 100 + 1_000L * n; // events 0..100 fit, the others are past
        }
        Path trace =
                write(tmp.resolve("value"), "clock { name = old; freq = 1000000000; offset_s = 1700000000; };", cycles);

        Read read = read(trace);

        assertThat(read.ranks()).isEqualTo(ranks(cycles.length));
        for (int n = 0; n <= 100; n++) {
            assertThat(read.times().get(n)).as("event %d", n).isEqualTo(origin + cycles[n]);
        }
        assertThat(read.times().subList(101, cycles.length)).containsOnly(Long.MAX_VALUE);
        assertThat(read.warnings()).hasSize(1);
        assertThat(read.warnings().getFirst())
                .contains(
                        trace.toString(),
                        "clock \"old\"",
                        "(at 1000000000 Hz) is past 64-bit nanoseconds",
                        "2262-04-11 23:47:16.854775807 UTC");
    }

    @Test
    void saturatedEventsOfTwoTracesOnTwoClocksMergeInTheirTrueOrder() throws Exception {
        // Both far past 64-bit ns: at 1 kHz from 2^62 ms, and at 2 kHz, the second trace's events 10 ms after the
        // first's.
        long[] a = new long[100];
        long[] b = new long[100];
        for (int n = 0; n < a.length; n++) {
            a[n] = (1L << 62) + 20L * n;
            b[n] = 2 * (a[n] + 10);
        }
        Path ta = write(tmp.resolve("a"), "clock { name = old; freq = 1000; };", a);
        Path tb = write(tmp.resolve("b"), "clock { name = old; freq = 2000; };", b);

        Read read = read(ta, tb);

        List<Long> expected = new ArrayList<>();
        for (long n = 0; n < a.length; n++) {
            expected.add(n); // a's
            expected.add(n); // then b's, 10 ms later
        }
        assertThat(read.ranks()).isEqualTo(expected);
        assertThat(read.times()).containsOnly(Long.MAX_VALUE);
        assertThat(read.warnings()).hasSize(2).allMatch(w -> w.contains("clock \"old\"") && w.contains("past 64-bit"));
    }

    @Test
    void aValuePastTwoToTheSixtyThreeNanosecondsOnAClockBeforeTheEpochHasItsExactTime() throws Exception {
        long[] cycles = {Long.MAX_VALUE - 10, Long.MAX_VALUE, Long.MIN_VALUE + 5, Long.MIN_VALUE + 100};
        Path trace =
                write(tmp.resolve("before"), "clock { name = old; freq = 1000000000; offset_s = -1000; };", cycles);

        Read read = read(trace);

        assertThat(read.ranks()).isEqualTo(ranks(cycles.length));
        for (int n = 0; n < cycles.length; n++) {
            // 2^63 + 5 ns after an origin 1000 s before the epoch: the signed sum is exact.
            assertThat(read.times().get(n)).isEqualTo(cycles[n] - 1_000_000_000_000L);
        }
        assertThat(read.warnings()).isEmpty();
    }
}
