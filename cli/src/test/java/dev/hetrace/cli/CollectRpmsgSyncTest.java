package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync handshake over RPMsg end to end, with real processes: a "firmware" built with gcc
 * from the generated tracer (rpmsg platform, and the generated {@code rs_sync_rpmsg_answer} in
 * its endpoint callback) on a pseudo-terminal standing in for the endpoint, its clock 1.2 ×
 * CLOCK_MONOTONIC + 5e15; {@code hetrace collect --rpmsg --sync-every} collects its packets and
 * asks for the handshake when the link is idle; {@code hetrace sync} of the two traces gives
 * back the firmware's clock as CLOCK_MONOTONIC, within its bound.
 */
class CollectRpmsgSyncTest {
    private static final Path RESOURCES = Path.of("../tracer/src/test/resources/dev/hetrace/tracer/rpmsg");
    private static final int PACKET_SIZE = 1024;
    private static final int BURSTS = 8;
    private static final int EVENTS = 1500;
    private static final long CLOCK_OFFSET = 5_000_000_000_000_000L;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void theFirmwaresClockComesBackAsMonotonicWithinTheBoundAndEveryPacketIsCollected() throws Exception {
        ShmProducer.build(
                dir, RESOURCES, "rpmsg-sync.yaml", "sync-firmware.c", "rpmsg", "rs-platform-rpmsg.c", "rs-sync.c");
        Process firmware = start(new ProcessBuilder(
                        "./producer",
                        Integer.toString(BURSTS),
                        Integer.toString(EVENTS),
                        "120",
                        Integer.toString(PACKET_SIZE))
                .directory(dir.toFile())
                .redirectError(dir.resolve("firmware-err.txt").toFile()));
        Path slave = Path.of(ShmProducer.firstLine(firmware.getInputStream()));
        Path trace = dir.resolve("trace");
        Process collector = start(HetraceProcess.builder(
                        "collect",
                        "--rpmsg",
                        slave.toString(),
                        "--config",
                        dir.resolve("rpmsg-sync.yaml").toString(),
                        "--sync-every",
                        "20ms",
                        "-o",
                        trace.toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!read("err.txt").contains("reading")) {
            assertThat(collector.isAlive())
                    .as("collector running: %s", read("err.txt"))
                    .isTrue();
            assertThat(System.nanoTime()).as("collector started in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        OutputStream toFirmware = firmware.getOutputStream();
        toFirmware.write("go\n".getBytes(StandardCharsets.UTF_8));
        toFirmware.flush();
        String[] sent = ShmProducer.firstLine(firmware.getInputStream()).split(" ");
        assertThat(sent[0]).as(read("firmware-err.txt")).isEqualTo("sent");
        long messages = Long.parseLong(sent[1]);
        long packets = Long.parseLong(sent[2]);
        long answered = Long.parseLong(sent[3]);
        // about 120 ms / 20 ms requests per idle gap
        assertThat(answered).as(read("firmware-err.txt")).isGreaterThanOrEqualTo(2L * BURSTS);
        Path stream = trace.resolve(slave.getFileName().toString());
        while (!Files.exists(stream) || Files.size(stream) < packets * PACKET_SIZE) {
            assertThat(collector.isAlive())
                    .as("collector running: %s", read("err.txt"))
                    .isTrue();
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        toFirmware.write("bye\n".getBytes(StandardCharsets.UTF_8));
        toFirmware.flush();
        assertThat(firmware.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(firmware.exitValue()).isZero();
        assertThat(collector.waitFor(30, TimeUnit.SECONDS))
                .as("the collector ends when the tty hangs up")
                .isTrue();
        assertThat(collector.exitValue()).as(read("err.txt")).isZero();

        // lossless: the answers were told from the trace messages, none skipped
        List<String> summary = read("summary.txt").lines().toList();
        assertThat(summary.getFirst())
                .isEqualTo(
                        "%s: %d messages, %d packets, %d bytes; lost: 0 messages, 0 packets; 0 packets refused, 0 bytes skipped"
                                .formatted(slave, messages, packets, packets * PACKET_SIZE));
        Path linux = dir.resolve("trace-linux");
        Matcher s = Pattern.compile("sync: (\\d+) requests, (\\d+) answered( \\((\\d+) after the next request\\))?; the"
                        + " collector's events in " + Pattern.quote(linux.toString()))
                .matcher(summary.get(1));
        assertThat(s.find()).as(summary.get(1)).isTrue();
        long collectorAnswered = Long.parseLong(s.group(2));
        // every answer came back and counts, even one after the next request (a looser pair)
        assertThat(collectorAnswered).isEqualTo(answered);
        assertThat(Long.parseLong(s.group(1))).isGreaterThanOrEqualTo(answered);

        Cli.Run print = HetraceProcess.run(Duration.ofSeconds(60), "print", "--format=json", trace.toString());
        assertThat(print.status()).isZero();
        List<String> lines = print.out().lines().toList();
        assertThat(lines.stream().filter(l -> l.contains("\"tick\"")).count()).isEqualTo((long) BURSTS * EVENTS);
        assertThat(lines.stream().filter(l -> l.contains("hetrace_sync_")).count())
                .isEqualTo(2 * answered);

        Cli.Run sync = HetraceProcess.run(
                Duration.ofSeconds(60), "sync", "--format", "json", linux.toString(), trace.toString());
        assertThat(sync.status()).as(sync.said()).isZero();
        Matcher m = Pattern.compile("\"path\":\"[^\"]*trace\",\"slope\":\"([^\"]+)\",\"offset_ns\":\"([^\"]+)\","
                        + "\"quality\":\"accurate\",\"via\":\"[^\"]*trace-linux\",\"matches_out\":(\\d+),\"matches_in\":(\\d+),"
                        + "\"accuracy_ns\":(\\d+),\"causality_violations\":0")
                .matcher(sync.out());
        assertThat(m.find()).as(sync.out()).isTrue();
        // out: the firmware's answers; in: the requests it received, one per answer
        assertThat(Long.parseLong(m.group(3))).isEqualTo(answered);
        assertThat(Long.parseLong(m.group(4))).isEqualTo(answered);
        BigDecimal slope = new BigDecimal(m.group(1));
        BigDecimal offset = new BigDecimal(m.group(2));
        long accuracy = Long.parseLong(m.group(5));
        assertThat(accuracy).isPositive().isLessThan(50_000_000L);

        // the truth: the collector's clock is CLOCK_MONOTONIC + its metadata's offset, the
        // firmware's 1.2 x CLOCK_MONOTONIC + 5e15
        Matcher o = Pattern.compile("offset_s = (-?\\d+); offset = (\\d+);")
                .matcher(Files.readString(linux.resolve("metadata")));
        assertThat(o.find()).isTrue();
        Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
        if (Files.isReadable(bootId)) {
            // LTTng's monotonic clock UUID: hetrace sync takes LTTng traces of this boot as the same clock
            assertThat(Files.readString(linux.resolve("metadata")))
                    .contains("name = monotonic; uuid = \""
                            + Files.readString(bootId).strip() + "\";");
        }
        long linuxOffset = Long.parseLong(o.group(1)) * 1_000_000_000L + Long.parseLong(o.group(2));
        double worst = 0;
        long checked = 0;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long t = e.timeNanos();
                double mapped =
                        slope.multiply(BigDecimal.valueOf(t)).add(offset).doubleValue();
                double truth = (t - CLOCK_OFFSET) / 1.2 + linuxOffset;
                worst = Math.max(worst, Math.abs(mapped - truth));
                checked++;
            }
        }
        System.out.printf(
                "sync over RPMsg: %d exchanges, slope %s (truth 1/1.2), accuracy bound %d ns, worst true error %.0f ns over %d events%n",
                collectorAnswered, slope, accuracy, worst, checked);
        // 2 ns: the truth's own rounding (integer cycles from integer ns)
        assertThat(worst)
                .as("worst error of the firmware's events against the truth")
                .isLessThanOrEqualTo(accuracy + 2.0);
    }

    @Test
    void aFileOrFifoCannotTakeTheRequestsAndSyncEveryGoesWithRpmsg() throws Exception {
        Path file = dir.resolve("rpmsg0");
        Files.writeString(file, "HTRM");
        Files.writeString(dir.resolve("metadata"), "/* CTF 1.8 */\n");
        Cli.Run notADevice = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--rpmsg",
                file.toString(),
                "--sync-every",
                "100ms",
                "--metadata",
                dir.resolve("metadata").toString(),
                "-o",
                dir.resolve("t").toString());
        assertThat(notADevice.status()).isEqualTo(1);
        assertThat(notADevice.said())
                .isEqualTo(("hetrace: %s: not a character device (an rpmsg_char or rpmsg_tty device): the sync"
                                + " requests cannot be sent to it%n")
                        .formatted(file));
        assertThat(Files.readString(file)).as("the input is not written").isEqualTo("HTRM");

        Cli.Run shm = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--shm",
                file.toString(),
                "--sync-every",
                "100ms",
                "--metadata",
                dir.resolve("metadata").toString(),
                "-o",
                dir.resolve("t").toString());
        assertThat(shm.status()).isEqualTo(2);
        assertThat(shm.said()).isEqualTo("hetrace: --sync-every goes with --rpmsg%n".formatted());
    }

    private String read(String name) {
        try {
            return Files.readString(dir.resolve(name));
        } catch (IOException e) {
            return "";
        }
    }

    private Process start(ProcessBuilder pb) throws IOException {
        Process p = pb.start();
        started.add(p);
        return p;
    }
}
