package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace collect --rpmsg} as a user runs it, against the producer of the tracer module's
 * RpmsgCollectorTest (a remote core whose tracer has the rpmsg platform) writing into a
 * pseudo-terminal standing in for /dev/ttyRPMSGN, or a FIFO for /dev/rpmsgN.
 */
class CollectRpmsgTest {
    private static final Path RESOURCES = Path.of("../tracer/src/test/resources/dev/hetrace/tracer/rpmsg");
    private static final int PACKET_SIZE = 1024;

    @TempDir
    Path dir;

    private final CollectorRuns runs = new CollectorRuns();

    @AfterEach
    void killAll() throws InterruptedException {
        runs.killAll();
    }

    @BeforeEach
    void buildProducer() throws Exception {
        ShmProducer.build(dir, RESOURCES, "rpmsg.yaml", "producer.c", "rpmsg", "rm-platform-rpmsg.c");
    }

    @Test
    void aTraceReadFromATtyHoldsEveryEventTheCoreEmitted() throws Exception {
        Pty pty = pty(5000, 0);
        String summary = pty.collectAndClose();

        assertThat(pty.collector.exitValue()).as(pty.err()).isZero();
        long packets = pty.packets;
        assertThat(summary)
                .isEqualTo(
                        "%s: %d messages, %d packets, %d bytes; lost: 0 messages, 0 packets; 0 packets refused, 0 bytes skipped%n"
                                .formatted(pty.slave, pty.messages, packets, packets * PACKET_SIZE));
        Path trace = dir.resolve("trace");
        assertThat(Files.size(trace.resolve(pty.slave.getFileName().toString())))
                .isEqualTo(packets * PACKET_SIZE);
        CollectorRuns.assertEveryEvent(dir, trace, 5000);
    }

    @Test
    void messagesTheLinkDropsAreCountedAndReportedWithStatus3() throws Exception {
        Pty pty = pty(3000, 7);
        String summary = pty.collectAndClose();

        assertThat(pty.collector.exitValue()).isEqualTo(3);
        long received = pty.messages - pty.dropped;
        // 1024-byte packets in 3 messages: every 7th dropped, one per packet it hits (not the last message)
        assertThat(summary)
                .as(pty.err())
                .isEqualTo(
                        "%s: %d messages, %d packets, %d bytes; lost: %d messages, %d packets; 0 packets refused, 0 bytes skipped%n"
                                .formatted(
                                        pty.slave,
                                        received,
                                        pty.packets - pty.dropped,
                                        (pty.packets - pty.dropped) * PACKET_SIZE,
                                        pty.dropped,
                                        pty.dropped));
        assertThat(pty.err())
                .contains("hetrace: %s: %d messages lost on the way (sequence gaps): %d packets not written"
                        .formatted(pty.slave, pty.dropped, pty.dropped));
        Cli.Run print = HetraceProcess.run(
                Duration.ofSeconds(60), "print", dir.resolve("trace").toString());
        assertThat(print.status()).isZero();
        assertThat(print.out().lines().count()).isPositive().isLessThan(3000);
    }

    @Test
    void ctrlCStopsTheCollectorWithEveryWholePacketWritten() throws Exception {
        Path fifo = dir.resolve("rpmsg0");
        assertThat(ShmProducer.run(dir, "mkfifo", fifo.toString())).isZero();
        // far more than is read before Ctrl-C: the producer blocks on the full FIFO
        Process producer = start(new ProcessBuilder(
                        "./producer", "fifo", fifo.toString(), "100000000", "0", Integer.toString(PACKET_SIZE))
                .directory(dir.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD));
        Path trace = dir.resolve("trace");
        Process collector = start(HetraceProcess.builder(
                        "collect",
                        "--rpmsg",
                        fifo.toString(),
                        "--config",
                        dir.resolve("rpmsg.yaml").toString(),
                        "-o",
                        trace.toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()));
        Path stream = trace.resolve("rpmsg0");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(stream) || Files.size(stream) < 50L * PACKET_SIZE) {
            assertThat(collector.isAlive()).as("collector running").isTrue();
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        // Ctrl-C
        assertThat(ShmProducer.run(dir, "kill", "-INT", Long.toString(collector.pid())))
                .isZero();
        assertThat(collector.waitFor(30, TimeUnit.SECONDS))
                .as("collector stopped")
                .isTrue();
        producer.destroyForcibly().waitFor();

        long packets = Files.size(stream) / PACKET_SIZE;
        assertThat(Files.size(stream)).isEqualTo(packets * PACKET_SIZE);
        assertThat(Files.readString(dir.resolve("summary.txt")))
                .startsWith("%s: ".formatted(fifo))
                .contains(", %d packets, %d bytes; lost: 0 messages, 0 packets;"
                        .formatted(packets, packets * PACKET_SIZE));
        CollectorRuns.assertReadsWithoutAGap(trace);
    }

    @Test
    void ctrlCStopsACollectorWaitingForADeviceThatSendsNothingMore() throws Exception {
        Pty pty = pty(2000, 0);
        pty.go();
        pty.awaitPackets();
        // the producer keeps its side open and sends nothing: the collector waits in a read
        long start = System.nanoTime();
        assertThat(ShmProducer.run(dir, "kill", "-INT", Long.toString(pty.collector.pid())))
                .isZero();
        assertThat(pty.collector.waitFor(30, TimeUnit.SECONDS))
                .as("collector stopped")
                .isTrue();
        assertThat(System.nanoTime() - start).as("stopped at once").isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(Files.readString(dir.resolve("summary.txt")))
                .isEqualTo(
                        "%s: %d messages, %d packets, %d bytes; lost: 0 messages, 0 packets; 0 packets refused, 0 bytes skipped%n"
                                .formatted(pty.slave, pty.messages, pty.packets, pty.packets * PACKET_SIZE));
        Cli.Run print = HetraceProcess.run(
                Duration.ofSeconds(60), "print", dir.resolve("trace").toString());
        assertThat(print.status()).isZero();
        assertThat(print.out().lines().count()).isEqualTo(2000);
    }

    @Test
    void aMissingDeviceInputThatHoldsNoMessageAndShmOptionsAreOneLineErrors() throws Exception {
        Path metadata = dir.resolve("metadata");
        Cli.Run missing = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--rpmsg",
                dir.resolve("rpmsg9").toString(),
                "--metadata",
                metadata.toString(),
                "-o",
                dir.resolve("t1").toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.said()).isEqualTo("hetrace: %s: no such device or file%n".formatted(dir.resolve("rpmsg9")));

        // e.g. a console, not the tracer's endpoint
        Path noise = dir.resolve("ttyRPMSG1");
        Files.writeString(noise, "login: root\r\nHTRM but no message\r\n");
        Cli.Run notMessages = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--rpmsg",
                noise.toString(),
                "--metadata",
                metadata.toString(),
                "-o",
                dir.resolve("t2").toString());
        assertThat(notMessages.status()).isEqualTo(1);
        assertThat(notMessages.said())
                .endsWith(("hetrace: %s: no message of an rpmsg tracer in the 34 bytes read: is it the endpoint of a"
                                + " tracer generated with --platform rpmsg?%n")
                        .formatted(noise));
        assertThat(dir.resolve("t2").resolve("metadata")).doesNotExist();

        Cli.Run wait = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--rpmsg",
                noise.toString(),
                "--wait",
                "--metadata",
                metadata.toString(),
                "-o",
                dir.resolve("t3").toString());
        assertThat(wait.status()).isEqualTo(2);
        assertThat(wait.said()).isEqualTo("hetrace: --wait and --threads go with --shm%n".formatted());
    }

    /** A producer on a pty and the collector reading its slave, both started. */
    private final class Pty {
        Process producer;
        Process collector;
        Path slave;
        long messages;
        long packets;
        long dropped;

        /** Lets the producer trace; once everything it sent is read, closes its side: the collector's input ends. */
        String collectAndClose() throws Exception {
            go();
            awaitPackets();
            OutputStream in = producer.getOutputStream();
            in.write("bye\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertThat(producer.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(collector.waitFor(30, TimeUnit.SECONDS))
                    .as("the collector ends when the tty hangs up")
                    .isTrue();
            return Files.readString(dir.resolve("summary.txt"));
        }

        /** Lets the producer trace, and reads what it says it sent. */
        void go() throws IOException {
            OutputStream in = producer.getOutputStream();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            String[] sent = ShmProducer.firstLine(producer.getInputStream()).split(" ");
            assertThat(sent[0]).isEqualTo("sent");
            messages = Long.parseLong(sent[1]);
            packets = Long.parseLong(sent[2]);
            dropped = Long.parseLong(sent[3]);
        }

        /** Waits until the collector has written every packet the producer sent whole. */
        void awaitPackets() throws Exception {
            Path stream = dir.resolve("trace").resolve(slave.getFileName().toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(stream) || Files.size(stream) < (packets - dropped) * PACKET_SIZE) {
                assertThat(collector.isAlive())
                        .as("collector running: %s", err())
                        .isTrue();
                assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
                Thread.sleep(10);
            }
        }

        String err() {
            try {
                return Files.readString(dir.resolve("err.txt"));
            } catch (IOException e) {
                return "";
            }
        }
    }

    private Pty pty(int events, int dropEvery) throws Exception {
        Pty t = new Pty();
        t.producer = start(new ProcessBuilder(
                        "./producer",
                        "pty",
                        Integer.toString(events),
                        Integer.toString(dropEvery),
                        Integer.toString(PACKET_SIZE))
                .directory(dir.toFile()));
        t.slave = Path.of(ShmProducer.firstLine(t.producer.getInputStream()));
        t.collector = start(HetraceProcess.builder(
                        "collect",
                        "--rpmsg",
                        t.slave.toString(),
                        "--config",
                        dir.resolve("rpmsg.yaml").toString(),
                        "-o",
                        dir.resolve("trace").toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()));
        // the collector has put the tty in raw mode once it says it reads
        CollectorRuns.awaitReading(t.collector, t::err);
        return t;
    }

    private Process start(ProcessBuilder pb) throws IOException {
        return runs.start(pb);
    }
}
