package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code hetrace print} of traces babeltrace2 refuses because their clock does not fit in
 * 64-bit nanoseconds from the epoch: every event, in order, one warning line, exit status 0;
 * on one thread and on worker threads alike.
 */
class ClockRangePrintTest {
    /** Two streams (events alternating in runs of one to three), event n at {@code first + n * step} cycles. */
    private static Path write(Path dir, String clock, long first, long step) throws Exception {
        String tsdl = ParallelPrintTest.METADATA.replace(
                "clock { name = c; freq = 1000000000; offset_s = 1700000000; };", clock);
        try (CtfWriter w = CtfWriter.create(dir, tsdl)) {
            StreamWriter[] streams = {
                w.stream(0).packetSize(256).packetContext("cpu_id", 0),
                w.stream(0).packetSize(256).packetContext("cpu_id", 1)
            };
            for (int n = 0; n < 200; n++) {
                streams[(n / (1 + n % 3)) % 2].event(0, first + n * step, new Object[] {n, "e"});
            }
        }
        return dir;
    }

    private static List<String> expectedPayloads() {
        List<String> lines = new ArrayList<>();
        for (int n = 0; n < 200; n++) {
            lines.add("{ n = " + n + ", s = \"e\" }");
        }
        return lines;
    }

    private static List<String> payloads(String out) {
        return out.lines().map(l -> l.substring(l.lastIndexOf('{'))).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "2"})
    void anOffsetPastNanosecondsPrintsEveryEventFromTheClocksOrigin(String threads, @TempDir Path dir)
            throws Exception {
        Path trace = write(
                dir.resolve("offset"), "clock { name = c; freq = 1000000000; offset_s = 10000000000; };", 1_000, 1_000);

        Cli.Run run = Cli.run("print", "--threads", threads, trace.toString());

        assertThat(run.status()).isZero();
        assertThat(payloads(run.out())).isEqualTo(expectedPayloads());
        assertThat(run.out().lines().findFirst().orElseThrow())
                .startsWith("[00:00:00.000001000] (+?.?????????) board a:");
        assertThat(run.out().lines().skip(1)).allMatch(l -> l.contains("(+0.000001000)"));
        assertThat(run.err().lines())
                .containsExactly("hetrace: warning: " + trace + ": clock \"c\": its offset"
                        + " (10000000000 s + 0 cycles) does not fit in 64-bit nanoseconds from the epoch; its events are timed from"
                        + " the clock's own origin instead (1970-01-01 in dates): their order and intervals are right, their dates"
                        + " are not");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "2"})
    void valuesPastNanosecondsPrintEveryEventSaturatedInOrder(String threads, @TempDir Path dir) throws Exception {
        // 1 kHz from 2^62 ticks: 4.6e21 ns, far past 2^63.
        Path trace = write(dir.resolve("value"), "clock { name = c; freq = 1000; };", 1L << 62, 1);

        Cli.Run run = Cli.run("print", "--threads", threads, trace.toString());

        assertThat(run.status()).isZero();
        assertThat(payloads(run.out())).isEqualTo(expectedPayloads());
        assertThat(run.out().lines()).allMatch(l -> l.startsWith("[23:47:16.854775807] ("));
        assertThat(run.err().lines())
                .singleElement()
                .asString()
                .startsWith("hetrace: warning: " + trace + ": clock \"c\": value ")
                .endsWith(" (at 1000 Hz) is past 64-bit nanoseconds from the epoch; events at such values are timed"
                        + " 2262-04-11 23:47:16.854775807 UTC, the last time hetrace holds");
    }
}
