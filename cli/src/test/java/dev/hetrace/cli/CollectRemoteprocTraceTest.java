package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace collect --remoteproc-trace} as a user runs it, against the producer of the
 * tracer module's RemoteprocTraceCollectorTest (a coprocessor whose tracer has the
 * remoteproc-trace platform) writing into a file mapped shared that stands in for
 * /sys/kernel/debug/remoteproc/remoteproc0/trace0.
 */
class CollectRemoteprocTraceTest {
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
        ShmProducer.build(
                dir,
                RESOURCES,
                "rpmsg.yaml",
                "rproc-producer.c",
                "remoteproc-trace",
                "-DRM_REMOTEPROC_TRACE_DA=0x10000000",
                "rm-platform-remoteproc-trace.c");
        Files.createFile(dir.resolve("trace0"));
    }

    @Test
    void aCollectorThatKeepsUpWritesEveryEventTheCoreEmitted() throws Exception {
        Process collector = collector();
        // 511 slots of 512 bytes, about 3 a packet of ~28 events 400 µs apart: a lap takes more than 2 s
        long[] sent = produce(262144, 3000, 400);

        assertThat(collector.waitFor(120, TimeUnit.SECONDS))
                .as("ends when the core is done")
                .isTrue();
        assertThat(collector.exitValue()).as(err()).isZero();
        assertThat(summary())
                .isEqualTo("%s: %d slots, %d packets, %d bytes; lost: 0 slots, 0 packets; 0 packets refused%n"
                        .formatted(dir.resolve("trace0"), sent[0], sent[1], sent[1] * PACKET_SIZE));
        Path trace = dir.resolve("trace");
        CollectorRuns.assertEveryEvent(dir, trace, 3000);
    }

    @Test
    void aCoreThatLapsTheCollectorHasItsLossCountedWithStatus3() throws Exception {
        Process collector = collector();
        long[] sent = produce(64 + 8 * 512, 20000, 20);

        assertThat(collector.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(collector.exitValue()).as(err()).isEqualTo(3);
        String[] f = summary().split("[:;,]? ");
        // trace0 N slots, P packets, B bytes lost: L slots, Q packets 0 packets refused
        long slots = Long.parseLong(f[1]);
        long packets = Long.parseLong(f[3]);
        long slotsLost = Long.parseLong(f[8]);
        long packetsLost = Long.parseLong(f[10]);
        assertThat(slotsLost).isPositive().isEqualTo(sent[0] - slots);
        assertThat(packets + packetsLost).isEqualTo(sent[1]);
        assertThat(summary()).endsWith("; 0 packets refused%n".formatted());
        assertThat(err())
                .contains("hetrace: %s: %d slots overwritten before they were read: %d packets not written"
                        .formatted(dir.resolve("trace0"), slotsLost, packetsLost));
        assertThat(Files.size(dir.resolve("trace").resolve("trace0"))).isEqualTo(packets * PACKET_SIZE);
        Cli.Run print = HetraceProcess.run(
                Duration.ofSeconds(60), "print", dir.resolve("trace").toString());
        assertThat(print.status()).isZero();
        assertThat(print.out().lines().count()).isPositive().isLessThan(20000);
    }

    @Test
    void sigtermStopsTheCollectorWithEveryWholePacketWritten() throws Exception {
        Process collector = collector();
        Process producer = start(
                new ProcessBuilder("./producer", "trace0", "262144", "100000000", Integer.toString(PACKET_SIZE), "400")
                        .directory(dir.toFile())
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD));
        Path stream = dir.resolve("trace").resolve("trace0");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(stream) || Files.size(stream) < 5L * PACKET_SIZE) {
            assertThat(collector.isAlive()).as("collector running: %s", err()).isTrue();
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        assertThat(ShmProducer.run(dir, "kill", "-TERM", Long.toString(collector.pid())))
                .isZero();
        assertThat(collector.waitFor(30, TimeUnit.SECONDS))
                .as("collector stopped")
                .isTrue();
        producer.destroyForcibly().waitFor();

        long packets = Files.size(stream) / PACKET_SIZE;
        assertThat(Files.size(stream)).isEqualTo(packets * PACKET_SIZE);
        assertThat(summary())
                .startsWith("%s: ".formatted(dir.resolve("trace0")))
                .contains(", %d packets, %d bytes; lost: 0 slots, 0 packets;".formatted(packets, packets * PACKET_SIZE))
                .endsWith(" (core not done)%n".formatted());
        CollectorRuns.assertReadsWithoutAGap(dir.resolve("trace"));
    }

    @Test
    void aMissingFileAndMisplacedOptionsAreOneLineErrors() throws Exception {
        Cli.Run missing = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--remoteproc-trace",
                dir.resolve("trace9").toString(),
                "--config",
                dir.resolve("rpmsg.yaml").toString(),
                "-o",
                dir.resolve("t1").toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.said())
                .isEqualTo("hetrace: %s: no such file (is the core running?)%n".formatted(dir.resolve("trace9")));

        Cli.Run interval = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--rpmsg",
                dir.resolve("trace0").toString(),
                "--poll-interval",
                "5",
                "--config",
                dir.resolve("rpmsg.yaml").toString(),
                "-o",
                dir.resolve("t2").toString());
        assertThat(interval.status()).isEqualTo(2);
        assertThat(interval.said()).isEqualTo("hetrace: --poll-interval goes with --remoteproc-trace%n".formatted());

        Cli.Run zero = HetraceProcess.run(
                Duration.ofSeconds(30),
                "collect",
                "--remoteproc-trace",
                dir.resolve("trace0").toString(),
                "--poll-interval",
                "0",
                "--config",
                dir.resolve("rpmsg.yaml").toString(),
                "-o",
                dir.resolve("t3").toString());
        assertThat(zero.status()).isEqualTo(2);
        assertThat(zero.said()).isEqualTo("hetrace: --poll-interval 0: from 1 to 60000 milliseconds%n".formatted());
    }

    /** Starts the collector on trace0; it waits for the core to initialize its buffer. */
    private Process collector() throws Exception {
        Process c = start(HetraceProcess.builder(
                        "collect",
                        "--remoteproc-trace",
                        dir.resolve("trace0").toString(),
                        "--config",
                        dir.resolve("rpmsg.yaml").toString(),
                        "-o",
                        dir.resolve("trace").toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()));
        CollectorRuns.awaitReading(c, this::err);
        return c;
    }

    /** Runs the producer to its end; returns the slots and packets it wrote. */
    private long[] produce(int bufferSize, int events, int pauseMicros) throws Exception {
        Process p = start(new ProcessBuilder(
                        "./producer",
                        "trace0",
                        Integer.toString(bufferSize),
                        Integer.toString(events),
                        Integer.toString(PACKET_SIZE),
                        Integer.toString(pauseMicros))
                .directory(dir.toFile()));
        String[] sent = ShmProducer.firstLine(p.getInputStream()).split(" ");
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(sent[0]).isEqualTo("sent");
        return new long[] {Long.parseLong(sent[1]), Long.parseLong(sent[2])};
    }

    private String summary() throws IOException {
        return Files.readString(dir.resolve("summary.txt"));
    }

    private String err() {
        try {
            return Files.readString(dir.resolve("err.txt"));
        } catch (IOException e) {
            return "";
        }
    }

    private Process start(ProcessBuilder pb) throws IOException {
        return runs.start(pb);
    }
}
