package dev.hetrace.tracer.shm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.PacketIndex;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.c.CTracer;
import dev.hetrace.tracer.c.ShmRingPlatform;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shm-ring platform and the collector together: four producer processes (cores, each with
 * its own clock) built with gcc against a generated tracer trace through shm-ring regions
 * while the collector drains them, and hetrace's reader finds every event emitted, or counts
 * it as discarded. Needs gcc (see {@link dev.hetrace.ctf.testing.Required}).
 */
class ShmRingTest {
    private static final int CORES = 4;
    private static final List<String> STRICT = List.of("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic");

    @TempDir
    Path dir;

    private Configuration config;
    /** Every producer started, killed after the test if still running (a failed test must not leave them spinning). */
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killProducers() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    @BeforeEach
    void buildProducer() throws Exception {
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed: producers not built");
        Path yaml = dir.resolve("shm.yaml");
        Files.writeString(yaml, resource("shm.yaml"));
        config = ConfigReader.read(yaml, List.of(dir));
        writeAll(CTracer.generate(config));
        writeAll(ShmRingPlatform.generate(config));
        Files.writeString(dir.resolve("producer.c"), resource("producer.c"));
        List<String> cc = new ArrayList<>(List.of("gcc"));
        cc.addAll(STRICT);
        cc.addAll(List.of(
                "-O2", "-o", "producer", "sr.c", "sr-platform-shm-ring.c", "sr-shm-ring-linux.c", "producer.c"));
        Processes.run(dir, cc);
        // the path a 32-bit core without lock-free 64-bit stores takes, exercised here by core 3
        cc.addAll(List.of("-DSR_SHM_RING_SPLIT_COUNTERS"));
        cc.set(cc.indexOf("producer"), "producer-split");
        Processes.run(dir, cc);
        // the platform needs no C library at all (the tracer itself: <string.h> only)
        Processes.compileFreestanding(dir, "sr-platform-shm-ring.c");
    }

    @Test
    void everyEventOfFourCoresIsInTheTraceWhenTheRingsAreLargeEnough() throws Exception {
        int events = 4000;
        // about 40 bytes an event: 4000 events fill ~160 packets of 1 KiB, fewer than the slots
        Run run = collect(events, events / 2, 1024, 512, 50);

        for (ShmCollector.RingStats s : run.stats) {
            assertThat(s.done()).isTrue();
            assertThat(s.eventsDiscarded()).isZero();
            assertThat(s.bytes()).isEqualTo(s.packets() * 1024);
        }
        Map<Long, Long> next = new HashMap<>();
        try (CtfReader reader = CtfReader.open(run.trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long core = e.getLong("core");
                long seq = e.getLong("seq");
                assertThat(seq).as("core %d", core).isEqualTo(next.getOrDefault(core, 0L));
                next.put(core, seq + 1);
                assertThat(e.getLong("value")).isEqualTo((int) (seq * 7 - core * 1000));
                assertThat(e.getString("msg")).isEqualTo("core " + core + " event " + seq);
                assertThat(e.timeNanos()).isEqualTo(clockOffset(core) + seq * (core + 1));
                assertThat(e.getLong("events_discarded")).isZero();
            }
        }
        assertThat(next)
                .hasSize(CORES)
                .allSatisfy((core, n) -> assertThat(n).as("core %d", core).isEqualTo(events));
        // babeltrace2 reads the collected trace the same way
        Optional<String> bt2 = TraceEvents.babeltrace2(run.trace);
        if (bt2.isPresent()) {
            assertThat(bt2.get().lines().count()).isEqualTo((long) CORES * events);
            assertThat(bt2.get()).isEqualTo(TraceEvents.babeltraceText(run.trace));
        }
    }

    @Test
    void aFullRingDropsNewPacketsAndTheTraceCountsEveryEventItLost() throws Exception {
        int events = 3000;
        // 1000 events traced before the collector starts overflow the 4 slots of 512 bytes
        Run run = collect(events, 1000, 512, 4, 20);

        Map<Long, Long> read = new HashMap<>();
        Map<Long, Long> last = new HashMap<>();
        try (CtfReader reader = CtfReader.open(run.trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long core = e.getLong("core");
                long seq = e.getLong("seq");
                assertThat(seq).as("core %d", core).isGreaterThan(last.getOrDefault(core, -1L));
                // the events lost before this one are exactly those its packet counts
                assertThat(seq)
                        .as("core %d", core)
                        .isEqualTo(read.getOrDefault(core, 0L) + e.getLong("events_discarded"));
                assertThat(e.getString("msg")).isEqualTo("core " + core + " event " + seq);
                last.put(core, seq);
                read.merge(core, 1L, Long::sum);
            }
        }
        Map<Long, Long> discarded = lastPacketsDiscarded(run.trace);
        assertThat(discarded).hasSize(CORES);
        for (long core = 0; core < CORES; core++) {
            assertThat(discarded.get(core)).as("core %d discarded", core).isPositive();
            assertThat(read.get(core) + discarded.get(core))
                    .as("core %d: read + discarded", core)
                    .isEqualTo(events);
            long c = core;
            assertThat(run.stats.stream()
                            .filter(s -> s.coreId() == c)
                            .findFirst()
                            .orElseThrow()
                            .eventsDiscarded())
                    .isEqualTo(discarded.get(core));
        }
    }

    @Test
    void aCollectorStoppedMidRunLeavesATraceThatReadsUpToItsLastWholePacket() throws Exception {
        Path trace = dir.resolve("trace");
        List<Process> producers = startProducers(100_000, 0, 1024, 4096, 200);
        ShmCollector collector = new ShmCollector(regions(), trace, u -> CollectMetadata.fromConfig(config, dir, u));
        Thread t = collectorThread(collector, new AtomicReference<>());
        go(producers);
        // stop once some packets are on disk, while the producers are still tracing
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (collector.stats().stream()
                        .mapToLong(ShmCollector.RingStats::packets)
                        .sum()
                < 40) {
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(5);
        }
        collector.stop();
        t.join(10_000);
        assertThat(producers)
                .allSatisfy(p ->
                        assertThat(p.isAlive()).as("producer still tracing").isTrue());
        for (Process p : producers) {
            p.destroyForcibly().waitFor();
        }
        collector.close();

        Map<Long, Long> next = new HashMap<>();
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long core = e.getLong("core");
                long read = next.getOrDefault(core, 0L);
                // every event emitted is read or counted as discarded before it
                assertThat(e.getLong("seq")).isEqualTo(read + e.getLong("events_discarded"));
                next.put(core, read + 1);
            }
        }
        assertThat(next.values().stream().mapToLong(Long::longValue).sum()).isPositive();
        for (int c = 0; c < CORES; c++) {
            assertThat(Files.size(trace.resolve("core" + c)) % 1024)
                    .as("whole packets")
                    .isZero();
        }
    }

    /** Runs the producers, the first {@code burst} events of each before the collector starts, and collects. */
    private Run collect(int events, int burst, int slotSize, int slotCount, int pauseUs) throws Exception {
        Path trace = dir.resolve("trace");
        List<Process> producers = startProducers(events, burst, slotSize, slotCount, pauseUs);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (ShmCollector collector =
                new ShmCollector(regions(), trace, u -> CollectMetadata.fromConfig(config, dir, u))) {
            Thread t = collectorThread(collector, failure);
            go(producers);
            for (Process p : producers) {
                assertThat(p.waitFor(60, TimeUnit.SECONDS))
                        .as("producer finished")
                        .isTrue();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                assertThat(p.exitValue())
                        .as("producer exit status; output: %s", out)
                        .isZero();
                assertThat(out).isEqualTo(Integer.toString(events));
            }
            t.join(30_000);
            assertThat(t.isAlive())
                    .as("collector still running after the producers finished")
                    .isFalse();
            assertThat(failure.get()).isNull();
            return new Run(trace, collector.stats());
        }
    }

    private record Run(Path trace, List<ShmCollector.RingStats> stats) {}

    private List<Path> regions() {
        List<Path> r = new ArrayList<>();
        for (int c = 0; c < CORES; c++) {
            r.add(dir.resolve("core" + c));
        }
        return r;
    }

    private static long clockOffset(long core) {
        return 1_000_000_000L * (core + 1) + 12_345 * core;
    }

    /** Starts the producers and waits until each has traced its burst (and created its region). */
    private List<Process> startProducers(int events, int burst, int slotSize, int slotCount, int pauseUs)
            throws IOException {
        List<Process> producers = new ArrayList<>();
        for (int c = 0; c < CORES; c++) {
            producers.add(new ProcessBuilder(
                            dir.resolve(c == 3 ? "producer-split" : "producer").toString(),
                            regions().get(c).toString(),
                            Integer.toString(c),
                            Integer.toString(slotSize),
                            Integer.toString(slotCount),
                            Integer.toString(events),
                            Integer.toString(burst),
                            Long.toString(clockOffset(c)),
                            Integer.toString(c + 1),
                            Integer.toString(pauseUs))
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start());
            started.add(producers.getLast());
        }
        for (Process p : producers) {
            assertThat(readLine(p.getInputStream())).isEqualTo("ready");
        }
        return producers;
    }

    /** One line, read byte by byte so that nothing after it is consumed. */
    private static String readLine(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
            s.append((char) b);
        }
        return s.toString();
    }

    private static void go(List<Process> producers) throws IOException {
        for (Process p : producers) {
            OutputStream o = p.getOutputStream();
            o.write("go\n".getBytes(StandardCharsets.UTF_8));
            o.flush();
        }
    }

    private static Thread collectorThread(ShmCollector collector, AtomicReference<Throwable> failure) {
        Thread t = new Thread(
                () -> {
                    try {
                        collector.run(null, 0);
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "collector");
        t.start();
        return t;
    }

    /** Core (named by the stream file) to events_discarded of its stream's last packet. */
    private static Map<Long, Long> lastPacketsDiscarded(Path trace) throws Exception {
        Map<Long, Long> m = new HashMap<>();
        try (CtfTrace t = CtfTrace.open(trace, w -> {})) {
            for (int s = 0; s < t.streamCount(); s++) {
                PacketIndex idx = t.index(s);
                String name = Path.of(t.streamPath(s)).getFileName().toString();
                m.put(Long.parseLong(name.substring("core".length())), idx.eventsDiscarded(idx.size() - 1));
            }
        }
        return m;
    }

    private void writeAll(Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(dir.resolve(f.getKey()), f.getValue());
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = ShmRingTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
