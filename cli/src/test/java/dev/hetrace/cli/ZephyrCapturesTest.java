package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.ZephyrTraces;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zephyr's CTF captures as a user reads them: an SMP build's stream, a circular RAM capture's
 * dump, and files that are not Zephyr captures at all, each refused in one line.
 */
class ZephyrCapturesTest {
    /** 20 ms before the 32-bit nanosecond timestamp wraps. */
    private static final long START = (1L << 32) - 20_000_000L;

    @TempDir
    Path tmp;

    @Test
    void smpTraceIsPrintedWholeAndItsStatisticsHaveACorePerCpu() throws Exception {
        ZephyrTraces z = ZephyrTraces.smpScenario(8, START, 600);
        Path dir = z.writePosix(tmp.resolve("zsmp"));
        Cli.Run print = Cli.run("print", dir.toString());
        assertThat(print.status()).as(print.err()).isZero();
        assertThat(print.out().lines()).hasSize(z.written().size());
        assertThat(print.said()).isEmpty();

        Cli.Run stats = Cli.run("stats", dir.toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.out()).contains("(zephyr)");
        for (String row : new String[] {"zsmp/cpu0 ", "zsmp/cpu1 ", "zsmp/cpu0/isr ", "zsmp/cpu1/isr "}) {
            assertThat(stats.out().lines().filter(l -> l.startsWith("  " + row)))
                    .as(row)
                    .isNotEmpty();
        }
        for (String thread : new String[] {"main[", "sensor[", "logger[", "worker["}) {
            assertThat(stats.out().lines().filter(l -> l.startsWith("  " + thread)))
                    .as("one row for " + thread + " whatever CPU it ran on")
                    .hasSize(1);
        }
    }

    @Test
    void ramDumpOfTheCircularCaptureIsPrintedInTheOrderWrittenWithTheTornPacketSaid() throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 5, 5_000_000_000L, 800);
        ZephyrTraces.RingDump dump = z.ring(4096, 32, 12);
        Path dir = dump.write(tmp.resolve("ram"));
        Cli.Run print = Cli.run("print", dir.toString());
        assertThat(print.status()).as(print.err()).isZero();
        assertThat(print.out().lines()).hasSize(dump.surviving().size());
        assertThat(print.said().lines())
                .singleElement()
                .asString()
                .startsWith("hetrace: warning: " + dir.resolve(ZephyrTraces.RING_FILE)
                        + ": ring buffer dump: the packet in slot " + dump.torn() + " ")
                .endsWith("its 128 bytes are skipped");
        long[] times = print.out()
                .lines()
                // [HH:MM:SS.NNNNNNNNN], fixed width: its digits in order are a number that grows with time
                .mapToLong(l -> Long.parseLong(l.substring(1, l.indexOf(']')).replaceAll("[:.]", "")))
                .toArray();
        for (int i = 1; i < times.length; i++) {
            assertThat(times[i]).as("line " + (i + 1)).isGreaterThanOrEqualTo(times[i - 1]);
        }
    }

    @Test
    void captureThatIsNotZephyrCtfIsRefusedInOneLine() throws Exception {
        byte[] noise = new byte[4096];
        new SplittableRandom(1).nextBytes(noise);
        StringBuilder console = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            console.append("*** Booting Zephyr OS build v3.7.0 ***\n[00:00:00.00")
                    .append(i % 10);
            console.append(",000] <inf> main: sensor sample ").append(i).append('\n');
        }
        byte[][] captures = {noise, console.toString().getBytes(StandardCharsets.US_ASCII)};
        for (int k = 0; k < captures.length; k++) {
            Path dir = Files.createDirectories(tmp.resolve("not-ctf" + k));
            Files.writeString(dir.resolve("metadata"), ZephyrTraces.metadata());
            Files.write(dir.resolve(ZephyrTraces.STREAM_FILE), captures[k]);
            Cli.Run print = Cli.run("print", dir.toString());
            assertThat(print.status()).isEqualTo(1);
            assertThat(print.said().lines())
                    .singleElement()
                    .asString()
                    .startsWith("hetrace: " + dir.resolve(ZephyrTraces.STREAM_FILE) + ": ")
                    .endsWith(
                            "; no 8 events decode one after the other from any byte of the file: it is not a stream of the events this metadata declares");
        }
        // a dump given metadata_circular that is not a ring of its packets
        Path dir = Files.createDirectories(tmp.resolve("not-a-ring"));
        Files.writeString(dir.resolve("metadata"), ZephyrTraces.Layout.CIRCULAR.metadata());
        Files.write(dir.resolve(ZephyrTraces.RING_FILE), noise);
        Cli.Run print = Cli.run("print", dir.toString());
        assertThat(print.status()).isEqualTo(1);
        assertThat(print.said().lines())
                .singleElement()
                .asString()
                .startsWith("hetrace: " + dir.resolve(ZephyrTraces.RING_FILE) + ": ")
                .contains("bad packet magic");
    }
}
