package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.tracer.shm.ShmRingLayout;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code hetrace collect}: killed (SIGKILL) while four gcc-built producer processes trace
 * through shm-ring regions, it leaves a trace that reads cleanly up to its last whole packet;
 * bad regions and usage get one error line and their exit status.
 */
class CollectCommandTest {
    /** The producer program and configuration of the tracer module's ShmRingTest (the tests run in cli/). */
    private static final Path SHM_RESOURCES = ShmProducer.RESOURCES;

    private static final int CORES = 4;
    private static final int SLOT_SIZE = 1024;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    /**
     * SIGKILL: nothing runs in the collector any more; SIGTERM (as Ctrl-C's SIGINT) runs its
     * shutdown hook, which finishes the packets being written and prints the summary.
     */
    @ParameterizedTest(name = "graceful stop {0}")
    @ValueSource(booleans = {false, true})
    void aCollectorKilledMidRunLeavesATraceThatReadsUpToItsLastWholePacket(boolean graceful) throws Exception {
        buildProducer();

        List<Process> producers = new ArrayList<>();
        List<String> collect = HetraceProcess.command(
                "collect",
                "--config",
                dir.resolve("shm.yaml").toString(),
                "-o",
                dir.resolve("trace").toString(),
                "--shm");
        for (int c = 0; c < CORES; c++) {
            Path region = dir.resolve("core" + c);
            collect.add(region.toString());
            // many events, paced: still tracing when the collector is killed; rings large enough to lose nothing
            producers.add(start(new ProcessBuilder(
                    dir.resolve("producer").toString(),
                    region.toString(),
                    Integer.toString(c),
                    Integer.toString(SLOT_SIZE),
                    "8192",
                    "10000000",
                    "0",
                    Long.toString(1000L * c),
                    Integer.toString(c + 1),
                    "200")));
            assertThat(ShmProducer.firstLine(producers.getLast().getInputStream()))
                    .isEqualTo("ready");
        }
        // to a file: destroy() closes the process's pipes
        Process collector = start(new ProcessBuilder(collect)
                .redirectOutput(dir.resolve("summary.txt").toFile()));
        // the producers trace once the collector has attached every region (it then creates the stream files)
        long attachDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int c = 0; c < CORES; c++) {
            while (!Files.exists(dir.resolve("trace").resolve("core" + c))) {
                assertThat(collector.isAlive()).as("collector running").isTrue();
                assertThat(System.nanoTime()).as("regions attached in time").isLessThan(attachDeadline);
                Thread.sleep(10);
            }
        }
        for (Process p : producers) {
            OutputStream o = p.getOutputStream();
            o.write("go\n".getBytes(StandardCharsets.UTF_8));
            o.flush();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (leastStreamBytes(dir.resolve("trace")) < 20L * SLOT_SIZE) {
            assertThat(collector.isAlive()).as("collector running").isTrue();
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        if (graceful) {
            collector.destroy();
        } else {
            collector.destroyForcibly();
        }
        assertThat(collector.waitFor(30, TimeUnit.SECONDS))
                .as("collector stopped")
                .isTrue();
        assertThat(producers)
                .allSatisfy(p ->
                        assertThat(p.isAlive()).as("producer still tracing").isTrue());

        for (int c = 0; c < CORES && !graceful; c++) {
            // kill -9 may stop a write at a page boundary (docs/shm-ring.md): a partial last packet, dropped here
            Path stream = dir.resolve("trace").resolve("core" + c);
            long whole = Files.size(stream) / SLOT_SIZE * SLOT_SIZE;
            try (var ch = FileChannel.open(stream, StandardOpenOption.WRITE)) {
                ch.truncate(whole);
            }
        }
        Map<Long, Long> next = new HashMap<>();
        try (CtfReader reader = CtfReader.open(dir.resolve("trace"))) {
            while (reader.next()) {
                Event e = reader.event();
                long core = e.getLong("core");
                long seq = e.getLong("seq");
                long read = next.getOrDefault(core, 0L);
                // every event emitted is read or counted (the rings are large, but the machine may be slow)
                assertThat(seq).as("core %d", core).isEqualTo(read + e.getLong("events_discarded"));
                assertThat(e.getString("msg")).isEqualTo("core " + core + " event " + seq);
                assertThat(e.timeNanos()).isEqualTo(1000L * core + seq * (core + 1));
                next.put(core, read + 1);
            }
        }
        assertThat(next.values().stream().mapToLong(Long::longValue).sum()).isPositive();
        for (int c = 0; c < CORES; c++) {
            assertThat(Files.size(dir.resolve("trace").resolve("core" + c)) % SLOT_SIZE)
                    .as("whole packets")
                    .isZero();
        }
        if (graceful) {
            String summary = Files.readString(dir.resolve("summary.txt"));
            for (int c = 0; c < CORES; c++) {
                long packets = Files.size(dir.resolve("trace").resolve("core" + c)) / SLOT_SIZE;
                // the producers may have filled their rings before the collector's JVM started: drops are possible
                assertThat(summary)
                        .containsPattern(
                                "core%d: core %d: %d packets, %d bytes, \\d+ events discarded, 0 slots refused \\(producer not done\\)"
                                        .formatted(c, c, packets, packets * SLOT_SIZE));
            }
        }
    }

    /**
     * A trace directory that is, holds, or writes a file that is a live region or the metadata
     * (reached by a link, through '..', or as a hard link) is refused before anything is
     * written: the region keeps its undrained packets, and no metadata lands beside it.
     */
    @Test
    void aTraceDirectoryThatIsOrHoldsAnInputIsRefusedAndNothingIsWritten() throws Exception {
        buildProducer();
        Path shm = Files.createDirectories(dir.resolve("shm"));
        Path region = shm.resolve("core0");
        producer(region, 2000, 1000);
        byte[] before = Files.readAllBytes(region);
        Path metadata = dir.resolve("metadata");
        assertThat(metadata).as("written by 'tracer generate'").exists();
        Files.createLink(Files.createDirectories(dir.resolve("linked")).resolve("core0"), region);
        Files.createSymbolicLink(dir.resolve("link"), shm);
        Files.createSymbolicLink(
                Files.createDirectories(dir.resolve("symlinked")).resolve("core0"), region);
        Map<String, String> outs = new LinkedHashMap<>();
        outs.put(shm.toString(), "is or holds");
        outs.put(dir.toString(), "is or holds");
        outs.put(dir.resolve("link").toString(), "is or holds");
        outs.put(dir.resolve("linked/../shm").toString(), "is or holds");
        outs.put(region.toString(), "is or holds");
        outs.put(dir.resolve("linked").toString(), "writes");
        outs.put(dir.resolve("symlinked").toString(), "writes");
        for (Map.Entry<String, String> o : outs.entrySet()) {
            Cli.Run c = collect("--shm", region.toString(), "--metadata", metadata.toString(), "-o", o.getKey());
            assertThat(c.status()).as("-o %s: %s", o.getKey(), c.err()).isEqualTo(2);
            assertThat(c.err().lines().toList())
                    .as("-o %s", o.getKey())
                    .singleElement()
                    .asString()
                    .matches(
                            o.getValue().equals("writes")
                                    ? "hetrace: .*core0: the collector would write it, but it is .*core0, which the collector reads: write the trace elsewhere"
                                    : "hetrace: .*: (is|holds) .*, which the collector reads: write the trace elsewhere");
            assertThat(Files.readAllBytes(region))
                    .as("-o %s: region unchanged", o.getKey())
                    .isEqualTo(before);
            assertThat(shm.resolve("metadata")).doesNotExist();
        }
        // a configuration's folder
        Path gen = Files.createDirectories(dir.resolve("gen"));
        Files.copy(dir.resolve("shm.yaml"), gen.resolve("shm.yaml"));
        Cli.Run y = collect(
                "--shm",
                dir.resolve("elsewhere/core0").toString(),
                "--config",
                gen.resolve("shm.yaml").toString(),
                "-o",
                gen.toString());
        assertThat(y.status()).isEqualTo(2);
        assertThat(y.err())
                .matches("hetrace: .*gen: holds .*shm.yaml, which the collector reads: write the trace elsewhere\\R");
        assertThat(gen.resolve("metadata")).doesNotExist();
    }

    @Test
    void aRegionThatIsNotThereIsOneErrorLineWithStatus1() throws Exception {
        Path metadata = Files.writeString(dir.resolve("metadata"), "/* CTF 1.8 */\n");
        Cli.Run c = collect(
                "--shm",
                dir.resolve("core0").toString(),
                "--metadata",
                metadata.toString(),
                "-o",
                dir.resolve("trace").toString());
        assertThat(c.status()).as(c.err()).isEqualTo(1);
        assertThat(c.err())
                .matches("hetrace: .*core0: no such region file \\(its producer creates it; to wait for"
                        + " it: --wait\\)\\R");
    }

    @Test
    void withWaitTheCollectorSaysOnceWhatItWaitsForThenCollectsTheRegionOnceCreated() throws Exception {
        buildProducer();
        Path region = dir.resolve("core0");
        Path errors = dir.resolve("errors.txt");
        Process collector = start(HetraceProcess.builder(
                        "collect",
                        "--wait",
                        "--shm",
                        region.toString(),
                        "--config",
                        dir.resolve("shm.yaml").toString(),
                        "-o",
                        dir.resolve("trace").toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(errors.toFile()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.size(errors) == 0) {
            assertThat(collector.isAlive()).as("collector waiting").isTrue();
            assertThat(System.nanoTime()).as("told in time what it waits for").isLessThan(deadline);
            Thread.sleep(10);
        }
        Thread.sleep(500);
        assertThat(collector.isAlive()).as("still waiting").isTrue();
        go(producer(region, 300, 0));
        assertThat(collector.waitFor(60, TimeUnit.SECONDS))
                .as("collector finished")
                .isTrue();
        // said once, however long it waited
        assertThat(Files.readString(errors))
                .isEqualTo("hetrace: " + region + ": waiting for its producer to create it" + System.lineSeparator());
        assertThat(collector.exitValue()).isZero();
        long events = 0;
        try (CtfReader reader = CtfReader.open(dir.resolve("trace"))) {
            while (reader.next()) {
                assertThat(reader.event().getLong("seq")).isEqualTo(events++);
            }
        }
        assertThat(events).isEqualTo(300);
    }

    /**
     * Slots a faulty core filled with zeros or random bytes are refused, not written: the run
     * says how many and exits 3, and the trace reads with 'hetrace print'.
     */
    @Test
    void garbageSlotsAreRefusedCountedAndTheTraceStillReads() throws Exception {
        buildProducer();
        Path region = dir.resolve("core0");
        Process producer = producer(region, 3000, 1000);
        long published;
        try (var ch = FileChannel.open(region, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, ShmRingLayout.OFF_PRODUCED);
            published = b.getLong(0);
            assertThat(published).as("packets published before 'go'").isGreaterThan(8);
            byte[] random = new byte[SLOT_SIZE];
            new Random(4).nextBytes(random);
            long header = ShmRingLayout.HEADER_SIZE;
            ch.write(ByteBuffer.allocate(SLOT_SIZE), header + 3L * SLOT_SIZE);
            ch.write(ByteBuffer.wrap(random), header + 7L * SLOT_SIZE);
        }
        Process collector = start(HetraceProcess.builder(
                        "collect",
                        "--shm",
                        region.toString(),
                        "--config",
                        dir.resolve("shm.yaml").toString(),
                        "-o",
                        dir.resolve("trace").toString())
                .redirectOutput(dir.resolve("summary.txt").toFile())
                .redirectError(dir.resolve("errors.txt").toFile()));
        go(producer);
        assertThat(producer.waitFor(60, TimeUnit.SECONDS))
                .as("producer finished")
                .isTrue();
        assertThat(collector.waitFor(60, TimeUnit.SECONDS))
                .as("collector finished")
                .isTrue();
        String errors = Files.readString(dir.resolve("errors.txt"));
        assertThat(collector.exitValue()).as(errors).isEqualTo(3);
        assertThat(errors.lines().toList())
                .singleElement()
                .asString()
                .matches("hetrace: 2 slots refused: they held no"
                        + " valid packet of this trace and were not written \\(first: .*core0: packet 3 \\(slot 3\\): field 'packet_header.magic': bad packet"
                        + " magic 0x00000000 \\(expected 0xC1FC1FC1\\)\\)");
        assertThat(Files.readString(dir.resolve("summary.txt")))
                .containsPattern(
                        "core0: core 0: \\d+ packets, \\d+" + " bytes, \\d+ events discarded, 2 slots refused\\R");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ByteArrayOutputStream printErrors = new ByteArrayOutputStream();
        assertThat(Main.run(
                        printed,
                        new PrintStream(printErrors, true, StandardCharsets.UTF_8),
                        "print",
                        dir.resolve("trace").toString()))
                .as(printErrors.toString(StandardCharsets.UTF_8))
                .isZero();
        long lines = printed.toString(StandardCharsets.UTF_8).lines().count();
        assertThat(lines).as("events but those of the 2 refused packets").isBetween(1L, 2999L);
    }

    @Test
    void aFileThatIsNotAnShmRingRegionIsOneErrorLineWithStatus1() throws Exception {
        Path bad = dir.resolve("bad");
        Files.write(bad, new byte[4096]);
        Files.write(bad, "not a ring".getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
        Path metadata = Files.writeString(dir.resolve("metadata"), "/* CTF 1.8 */\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(
                new ByteArrayOutputStream(),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                "collect",
                "--shm",
                bad.toString(),
                "--metadata",
                metadata.toString(),
                "-o",
                dir.resolve("t").toString());
        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .matches("hetrace: .*bad: not an shm-ring region \\(magic 0x[0-9a-f]{8}\\)\\R");
    }

    @Test
    void metadataAndConfigTogetherRegionsWithTheSameNameOrNoThreadsAreUsageErrors() throws Exception {
        Path m = Files.writeString(dir.resolve("metadata"), "/* CTF 1.8 */\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        e,
                        "collect",
                        "--shm",
                        "r",
                        "--metadata",
                        m.toString(),
                        "--config",
                        "c.yaml",
                        "-o",
                        "t"))
                .isEqualTo(2);
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        e,
                        "collect",
                        "--shm",
                        dir.resolve("a/r").toString(),
                        dir.resolve("b/r").toString(),
                        "--metadata",
                        m.toString(),
                        "-o",
                        dir.resolve("t").toString()))
                .isEqualTo(2);
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        e,
                        "collect",
                        "--shm",
                        dir.resolve("r").toString(),
                        "--metadata",
                        m.toString(),
                        "--threads",
                        "0",
                        "-o",
                        dir.resolve("t").toString()))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("mutually exclusive")
                .contains("must differ")
                .contains("--threads 0: at least 1");
    }

    @Test
    void syncOptionsGoWithAConfigurationAndTheirErrorsAreOneLine() throws Exception {
        Path m = Files.writeString(dir.resolve("metadata"), "/* CTF 1.8 */\n");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        e,
                        "collect",
                        "--shm",
                        dir.resolve("r").toString(),
                        "--metadata",
                        m.toString(),
                        "--sync",
                        "-o",
                        dir.resolve("t").toString()))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--sync and --sync-stream go with --config");

        err.reset();
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        e,
                        "collect",
                        "--shm",
                        dir.resolve("r").toString(),
                        "--config",
                        SHM_RESOURCES.resolve("shm.yaml").toString(),
                        "--sync-stream",
                        "nope",
                        "-o",
                        dir.resolve("t").toString()))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().toList())
                .containsExactly("hetrace: --sync-stream: data stream type `nope` does not exist (known: main)");
    }

    /**
     * A live region whose producer has traced {@code burst} events (published whole packets)
     * and waits for "go"; the region is given back.
     */
    private Process producer(Path region, int events, int burst) throws IOException {
        Process p = start(new ProcessBuilder(
                dir.resolve("producer").toString(),
                region.toString(),
                "0",
                Integer.toString(SLOT_SIZE),
                "64",
                Integer.toString(events),
                Integer.toString(burst),
                "0",
                "1",
                "0"));
        assertThat(ShmProducer.firstLine(p.getInputStream())).isEqualTo("ready");
        return p;
    }

    private static void go(Process producer) throws IOException {
        OutputStream o = producer.getOutputStream();
        o.write("go\n".getBytes(StandardCharsets.UTF_8));
        o.flush();
    }

    /** A collector process run to its end: its exit status and what it wrote; status -1 if it did not end in 30 s (killed). */
    private static Cli.Run collect(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("collect"));
        command.addAll(List.of(args));
        return HetraceProcess.run(Duration.ofSeconds(30), command.toArray(String[]::new));
    }

    /** Generates the shm-ring tracer of shm.yaml into the test directory and builds the producer with gcc. */
    private void buildProducer() throws IOException, InterruptedException {
        ShmProducer.build(dir);
    }

    private Process start(ProcessBuilder pb) throws IOException {
        if (pb.redirectError() == ProcessBuilder.Redirect.PIPE) {
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        }
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** Bytes of the smallest stream file (0 while one is missing). */
    private static long leastStreamBytes(Path trace) throws IOException {
        long n = Long.MAX_VALUE;
        for (int c = 0; c < CORES; c++) {
            Path f = trace.resolve("core" + c);
            n = Math.min(n, Files.exists(f) ? Files.size(f) : 0);
        }
        return n;
    }

    /** One line, read byte by byte so that nothing after it is consumed. */
}
