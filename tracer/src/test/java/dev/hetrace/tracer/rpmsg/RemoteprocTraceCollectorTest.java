package dev.hetrace.tracer.rpmsg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.c.RemoteprocTracePlatform;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remoteproc-trace platform and its collector together: a producer process built with gcc
 * (C99, strict warnings, address and undefined-behaviour sanitizers) writes its packets into a
 * file mapped shared, standing in for the trace buffer Linux shows as
 * /sys/kernel/debug/remoteproc/remoteprocN/trace0, while the collector reads the whole file
 * again and again; the trace holds every event when the collector keeps up, and the slots the
 * producer overwrote before they were read are counted when it laps the collector.
 */
class RemoteprocTraceCollectorTest {
    private static final int PACKET_SIZE = 1024;
    private static final long PERIOD = TimeUnit.MILLISECONDS.toNanos(10);

    @TempDir
    Path dir;

    private Configuration config;
    private final TickProducers.Started started = new TickProducers.Started();

    @AfterEach
    void killProducers() throws InterruptedException {
        started.killAll();
    }

    @BeforeEach
    void buildProducer() throws Exception {
        // a 64-bit program: the buffer's device address is given
        config = TickProducers.build(
                dir, RemoteprocTracePlatform::generate, "rproc-producer.c", "-DRM_REMOTEPROC_TRACE_DA=0x10000000");
    }

    @Test
    void aCollectorThatKeepsUpReadsEveryEventAndTheBufferHoldsNoNul() throws Exception {
        Path buffer = dir.resolve("trace0");
        Files.createFile(buffer);
        Path trace = dir.resolve("trace");
        // 511 slots of 512 bytes, about 3 a packet of ~28 events 500 µs apart: a lap takes more than 2 s
        Collecting c = collect(buffer, trace);
        Sent sent = sent(start("trace0", 262144, 2000, 500));
        RemoteprocTraceCollector.Stats s = c.await();

        assertThat(s.done()).isTrue();
        assertThat(s.slots()).isEqualTo(sent.slots);
        assertThat(s.packets()).isEqualTo(sent.packets);
        assertThat(s.bytes()).isEqualTo(sent.packets * PACKET_SIZE);
        assertThat(s.slotsLost()).isZero();
        assertThat(s.packetsLost()).isZero();
        assertThat(s.packetsRefused()).isZero();
        assertThat(s.partialAtEnd()).isZero();
        TickProducers.assertEveryEvent(trace, 2000);
        // Linux shows the buffer up to its first NUL byte: there is none
        byte[] bytes = Files.readAllBytes(buffer);
        assertThat(bytes).hasSize(262144).doesNotContain((byte) 0);
        assertThat(new String(bytes, 0, 64, StandardCharsets.US_ASCII))
                .startsWith("HTRT 1 00000200 000001ff ")
                .endsWith(" 1                   \n");
    }

    @Test
    void slotsOverwrittenBeforeTheyWereReadAreCountedAndOnlyWholePacketsAreWritten() throws Exception {
        Path buffer = dir.resolve("trace0");
        Files.createFile(buffer);
        Path trace = dir.resolve("trace");
        // 8 slots, lapped in a few milliseconds while the collector reads every 10
        Collecting c = collect(buffer, trace);
        Sent sent = sent(start("trace0", 64 + 8 * 512, 20000, 20));
        RemoteprocTraceCollector.Stats s = c.await();

        assertThat(s.done()).isTrue();
        assertThat(s.slotsLost()).isPositive().isEqualTo(sent.slots - s.slots());
        assertThat(s.packetsLost()).isPositive();
        assertThat(s.packets() + s.packetsLost()).isEqualTo(sent.packets);
        assertThat(s.packetsRefused()).as("no torn slot taken").isZero();
        // the events of the packets written are whole, in order, and end with the last one
        long events = 0;
        long last = -1;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long seq = e.getLong("seq");
                assertThat(seq).isGreaterThan(last);
                assertThat(e.getString("msg")).isEqualTo("event " + seq);
                assertThat(e.getLong("value")).isEqualTo((int) (seq * 7) - 1000);
                last = seq;
                events++;
            }
        }
        assertThat(last).isEqualTo(19999);
        assertThat(events).isPositive().isLessThan(20000);
        Optional<String> bt2 = TraceEvents.babeltrace2(trace);
        if (bt2.isPresent()) {
            assertThat(bt2.get()).isEqualTo(TraceEvents.babeltraceText(trace));
        }
    }

    @Test
    void theResourceTableDeclaresTheTraceBufferAsLinuxReadsIt() throws Exception {
        Path binary = dir.resolve("producer");
        Processes.run(
                dir,
                List.of("objcopy", "-O", "binary", "--only-section=.resource_table", binary.toString(), "rsc.bin"));
        ByteBuffer b =
                ByteBuffer.wrap(Files.readAllBytes(dir.resolve("rsc.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        // struct resource_table: ver, num, reserved[2], offset[num]
        assertThat(b.getInt(0)).isEqualTo(1);
        assertThat(b.getInt(4)).isEqualTo(1);
        int entry = b.getInt(16);
        assertThat(entry).isEqualTo(20);
        // struct fw_rsc_hdr's type, then struct fw_rsc_trace: da, len, reserved, name[32]
        assertThat(b.getInt(entry)).isEqualTo(RemoteprocTraceLayout.RSC_TRACE);
        assertThat(b.getInt(entry + 4)).isEqualTo(0x10000000);
        assertThat(b.getInt(entry + 8)).isEqualTo(RemoteprocTraceLayout.DEFAULT_BUFFER_SIZE);
        assertThat(b.getInt(entry + 12)).isZero();
        byte[] name = new byte[32];
        b.get(entry + 16, name);
        assertThat(new String(name, StandardCharsets.US_ASCII)).isEqualTo("hetrace" + "\0".repeat(25));
        assertThat(b.capacity()).isEqualTo(entry + 48);

        // a 32-bit core: the buffer's own address is its device address; a 64-bit one must say
        if (Required.ifPresent(
                Processes.works(List.of("gcc", "-m32", "-c", "-o", "rm32.o", "rm.c"), dir),
                "gcc -m32 does not work: no 32-bit build")) {
            Processes.run(
                    dir,
                    List.of(
                            "gcc",
                            "-m32",
                            "-ffreestanding",
                            "-std=c99",
                            "-Wall",
                            "-Wextra",
                            "-Werror",
                            "-pedantic",
                            "-c",
                            "rm-platform-remoteproc-trace.c"));
            String relocations = Processes.run(
                    dir, List.of("objdump", "-r", "-j", ".resource_table", "rm-platform-remoteproc-trace.o"));
            assertThat(relocations).contains("rm_remoteproc_trace_buffer");
        }
        ProcessBuilder pb = new ProcessBuilder(
                        "gcc", "-ffreestanding", "-std=c99", "-c", "rm-platform-remoteproc-trace.c")
                .directory(dir.toFile())
                .redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isNotZero();
        assertThat(out).contains("define RM_REMOTEPROC_TRACE_DA: the trace buffer's 32-bit device address");
    }

    @Test
    void aFileGoneBeforeTheCoreIsDoneEndsTheInput() throws Exception {
        Path buffer = dir.resolve("trace0");
        Files.createFile(buffer);
        Path trace = dir.resolve("trace");
        Collecting c = collect(buffer, trace);
        Process p = start("trace0", 65536, 1_000_000, 1000);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (c.collector.stats().packets() < 3) {
            assertThat(System.nanoTime()).as("packets collected in time").isLessThan(deadline);
            Thread.sleep(10);
        }
        // remoteproc stopped the core: its trace file is removed
        Files.delete(buffer);
        RemoteprocTraceCollector.Stats s = c.await();
        p.destroyForcibly().waitFor();

        assertThat(s.done()).isFalse();
        assertThat(s.packets()).isGreaterThanOrEqualTo(3);
        assertThat(s.slotsLost()).isZero();
        assertThat(Files.size(trace.resolve("trace0"))).isEqualTo(s.packets() * PACKET_SIZE);
    }

    /** A collector running in a thread of its own. */
    private record Collecting(RemoteprocTraceCollector collector, Thread thread, AtomicReference<Throwable> failure) {
        RemoteprocTraceCollector.Stats await() throws Exception {
            thread.join(TimeUnit.SECONDS.toMillis(120));
            assertThat(thread.isAlive()).as("the collector ended").isFalse();
            collector.close();
            assertThat(failure.get()).isNull();
            return collector.stats();
        }
    }

    private Collecting collect(Path buffer, Path trace) throws IOException {
        RemoteprocTraceCollector c = new RemoteprocTraceCollector(
                buffer, List.of(), trace, first -> BarectfMetadata.of(config).getBytes(StandardCharsets.UTF_8), PERIOD);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                c.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        return new Collecting(c, t, failure);
    }

    private record Sent(long slots, long packets) {}

    private Process start(String buffer, int size, int events, int pauseMicros) throws IOException {
        return started.start(
                dir,
                List.of(
                        "./producer",
                        buffer,
                        Integer.toString(size),
                        Integer.toString(events),
                        Integer.toString(PACKET_SIZE),
                        Integer.toString(pauseMicros)));
    }

    private static Sent sent(Process p) throws Exception {
        String[] f = TickProducers.sent(p, 120);
        return new Sent(Long.parseLong(f[1]), Long.parseLong(f[2]));
    }
}
