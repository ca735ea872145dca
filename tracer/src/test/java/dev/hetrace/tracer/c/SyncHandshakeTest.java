package dev.hetrace.tracer.c;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sync handshake between two real processes built with gcc: a master (the linux-file
 * platform, CLOCK_MONOTONIC) and a slave (the callback platform, a clock 3 times as fast from
 * a far origin) share an mmap'd mailbox file; the master's interrupt is SIGUSR1, whose handler
 * answers while the slave's main loop traces. hetrace's reader finds every pair in the two
 * traces, and once the slave's clock is mapped back, every receive after its send. Needs gcc
 * (see {@link Required}).
 */
class SyncHandshakeTest {
    private static final List<String> STRICT = List.of("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic");
    private static final long MASTER = 1;
    private static final long SLAVE = 7;
    /** The slave's clock: {@code SCALE * CLOCK_MONOTONIC ns + ORIGIN} (sync-slave.c). */
    private static final long SCALE = 3;

    private static final long ORIGIN = 500_000_000_000_000_000L;
    private static final long EXCHANGES = 150;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killProcesses() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    @ParameterizedTest(name = "byte order {0}")
    @ValueSource(strings = {"le", "be"})
    void everySeqIsASendOnOneCoreAndAReceiveOnTheOtherAndEveryReceiveComesAfterItsSend(String byteOrder)
            throws Exception {
        build(byteOrder);
        Run run = handshake("own");

        assertThat(run.master).as("master: OK TIMEOUT NOT_DELIVERED").containsExactly(EXCHANGES, 0L, 0L);
        assertThat(run.slave.subList(0, 3))
                .as("slave: ANSWERED UNTRACED NOTHING")
                .containsExactly(EXCHANGES, 0L, 0L);
        Map<Long, Event1> sends = new HashMap<>();
        Map<Long, Event1> recvs = new HashMap<>();
        long work = 0;
        for (Event1 e : events(dir.resolve("master"))) {
            assertThat(e.core).isEqualTo(MASTER);
            assertThat(e.peer).isEqualTo(SLAVE);
            assertThat(e.cpu).isZero();
            assertThat((e.name.equals("hetrace_sync_send") ? sends : recvs).put(e.seq, e))
                    .isNull();
        }
        for (Event1 e : events(dir.resolve("slave"))) {
            if (e.name.equals("work")) {
                assertThat(e.cpu).isEqualTo(1);
                work++;
                continue;
            }
            assertThat(e.core).isEqualTo(SLAVE);
            assertThat(e.peer).isEqualTo(MASTER);
            assertThat(e.cpu).isEqualTo(2);
            assertThat((e.name.equals("hetrace_sync_send") ? sends : recvs).put(e.seq, e))
                    .isNull();
        }
        assertThat(work)
                .as("work events, traced while the handler answered")
                .isEqualTo(run.slave.get(3))
                .isPositive();
        assertThat(sends.keySet()).isEqualTo(recvs.keySet()).hasSize((int) (2 * EXCHANGES));
        for (long seq = 1; seq <= 2 * EXCHANGES; seq++) {
            Event1 send = sends.get(seq);
            Event1 recv = recvs.get(seq);
            // odd: the master asks; even: the slave answers
            assertThat(send.core).as("seq %d sent by", seq).isEqualTo(seq % 2 == 1 ? MASTER : SLAVE);
            assertThat(recv.core).as("seq %d received by", seq).isEqualTo(send.peer);
            assertThat(recv.peer).isEqualTo(send.core);
            assertThat(onMasterClock(recv))
                    .as("seq %d: receive after send (master's time base, x3)", seq)
                    .isGreaterThan(onMasterClock(send));
        }
        // each exchange in order: the master's send, the slave's receive and send, the master's receive
        for (long seq = 1; seq + 2 <= 2 * EXCHANGES; seq += 2) {
            assertThat(onMasterClock(sends.get(seq + 1))).isGreaterThanOrEqualTo(onMasterClock(recvs.get(seq)));
            assertThat(onMasterClock(sends.get(seq + 2))).isGreaterThan(onMasterClock(recvs.get(seq + 1)));
        }
        if (Required.hasBabeltrace2()) {
            String text = Processes.run(
                    dir, List.of("babeltrace2", dir.resolve("master").toString()));
            assertThat(text)
                    .contains("hetrace_sync_send: { cpu = 0 }, { seq = 1, core = 1, peer = 7 }")
                    .contains("hetrace_sync_recv: { cpu = 0 }, { seq = 2, core = 1, peer = 7 }");
        }
    }

    @Test
    void anAnswerInterruptingATracepointOfItsOwnContextIsAcknowledgedButNotTraced() throws Exception {
        build("le");
        Run run = handshake("shared");

        assertThat(run.master).as("master: OK TIMEOUT NOT_DELIVERED").containsExactly(EXCHANGES, 0L, 0L);
        long answered = run.slave.get(0);
        long untraced = run.slave.get(1);
        assertThat(answered + untraced).isEqualTo(EXCHANGES);
        assertThat(untraced).as("answers that interrupted a tracepoint").isPositive();
        long slaveRecvs = 0;
        long discarded = 0;
        try (CtfReader reader = CtfReader.open(dir.resolve("slave"))) {
            while (reader.next()) {
                Event e = reader.event();
                slaveRecvs += e.name().equals("hetrace_sync_recv") ? 1 : 0;
                discarded = e.getLong("events_discarded");
            }
        }
        assertThat(slaveRecvs).isEqualTo(answered);
        assertThat(discarded).as("both events of each untraced answer, counted").isEqualTo(2 * untraced);
    }

    @Test
    void withoutACommonContextTheHandshakeTakesOnlyItsOwnArgumentsAndBuildsWithoutALibC() throws Exception {
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed: nothing built");
        Path yaml = dir.resolve("sync.yaml");
        Files.writeString(
                yaml,
                resource("sync.yaml")
                        .replace("""
                    event-record-common-context-field-type:
                      class: struct
                      members:
                        - cpu: uint8
            """, "")
                        .replace("prefix: sy", "prefix: {identifier: hs_, file-name: handshake}"));
        Configuration c = ConfigReader.read(yaml, List.of(dir));
        writeAll(CTracer.generate(c));
        writeAll(CSyncHandshake.generate(c));
        assertThat(Files.readString(dir.resolve("handshake-sync.h")))
                .contains("int hs_sync_slave_answer(struct hs_sync_mailbox *mailbox, struct hs_main_ctx *ctx,\n"
                        + "\tuint32_t core, uint32_t peer);")
                .contains("int hs_sync_master_exchange(struct hs_sync_master *master);")
                .contains("#define HS_SYNC_TIMEOUT");
        Files.writeString(dir.resolve("use.c"), """
            #include "handshake-sync.h"

            static int raise_irq(void *user_data)
            {
            	(void) user_data;
            	return 0;
            }

            int answer(struct hs_sync_mailbox *mb, struct hs_main_ctx *ctx)
            {
            	return hs_sync_slave_answer(mb, ctx, 2, 1);
            }

            int exchange(struct hs_sync_mailbox *mb, struct hs_main_ctx *ctx)
            {
            	struct hs_sync_master m = {0};

            	m.mailbox = mb;
            	m.ctx = ctx;
            	m.interrupt = raise_irq;
            	m.max_polls = 10;
            	return hs_sync_master_exchange(&m) == HS_SYNC_OK;
            }
            """);
        Processes.compileFreestanding(dir, "handshake-sync.c", "use.c");
    }

    /** A sync event's time on the master's clock, times 3 (exact integers). */
    private static long onMasterClock(Event1 e) {
        return e.core == MASTER ? SCALE * e.time : e.time - ORIGIN;
    }

    private record Event1(String name, long time, long cpu, long seq, long core, long peer) {}

    private static List<Event1> events(Path trace) throws Exception {
        List<Event1> out = new ArrayList<>();
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                boolean sync = e.name().startsWith("hetrace_sync_");
                out.add(new Event1(
                        e.name(),
                        e.timeNanos(),
                        e.getLong("cpu"),
                        sync ? e.getLong("seq") : -1,
                        sync ? e.getLong("core") : -1,
                        sync ? e.getLong("peer") : -1));
            }
        }
        return out;
    }

    private record Run(List<Long> master, List<Long> slave) {}

    /** Runs the slave, then the master against it; their first output lines. */
    private Run handshake(String handlerContext) throws Exception {
        Path mailbox = dir.resolve("mailbox");
        Files.write(mailbox, new byte[4096]);
        ProcessBuilder pb = new ProcessBuilder(
                        dir.resolve("sync-slave").toString(),
                        mailbox.toString(),
                        dir.resolve("slave").toString(),
                        handlerContext)
                .directory(dir.toFile())
                .redirectErrorStream(true);
        Process slave = pb.start();
        started.add(slave);
        BufferedReader slaveOut =
                new BufferedReader(new InputStreamReader(slave.getInputStream(), StandardCharsets.UTF_8));
        assertThat(slaveOut.readLine()).isEqualTo("ready");
        String master = Processes.run(
                dir,
                List.of(
                        dir.resolve("sync-master").toString(),
                        mailbox.toString(),
                        dir.resolve("master").resolve("stream").toString(),
                        Long.toString(slave.pid()),
                        Long.toString(EXCHANGES),
                        "200"));
        String slaveLast = slaveOut.readLine();
        assertThat(slave.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(slave.exitValue()).as("slave exit status").isZero();
        return new Run(numbers(master.lines().findFirst().orElseThrow()), numbers(slaveLast));
    }

    private static List<Long> numbers(String line) {
        return Arrays.stream(line.strip().split(" ")).map(Long::parseLong).toList();
    }

    /** Generates the tracer with its sync handshake and both platforms, and builds both programs. */
    private void build(String byteOrder) throws Exception {
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed: programs not built");
        Path yaml = dir.resolve("sync.yaml");
        Files.writeString(
                yaml, resource("sync.yaml").replace("native-byte-order: le", "native-byte-order: " + byteOrder));
        Configuration c = ConfigReader.read(yaml, List.of(dir));
        writeAll(CTracer.generate(c));
        writeAll(CallbackPlatform.generate(c));
        writeAll(LinuxFilePlatform.generate(c));
        writeAll(CSyncHandshake.generate(c));
        for (String side : List.of("master", "slave")) {
            Files.writeString(Files.createDirectories(dir.resolve(side)).resolve("metadata"), BarectfMetadata.of(c));
        }
        Files.writeString(dir.resolve("sync-slave.c"), resource("sync-slave.c"));
        Files.writeString(dir.resolve("sync-master.c"), resource("sync-master.c"));
        cc(List.of("-O2", "-o", "sync-slave", "sy.c", "sy-platform-callback.c", "sy-sync.c", "sync-slave.c"));
        cc(List.of("-O2", "-o", "sync-master", "sy.c", "sy-platform-linux-file.c", "sy-sync.c", "sync-master.c"));
        // the handshake needs no C library (a bare-metal slave), and builds for 32-bit cores
        Processes.compileFreestanding(dir, "-o", "sync-freestanding.o", "sy-sync.c");
        if (Required.ifPresent(
                Processes.works(List.of("gcc", "-m32", "-c", "-o", "sync32.o", "sy-sync.c"), dir),
                "gcc cannot compile for -m32 (gcc-multilib)")) {
            cc(List.of("-m32", "-O2", "-c", "-o", "sync32.o", "sy-sync.c"));
        }
    }

    private void cc(List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(STRICT);
        cmd.addAll(args);
        Processes.run(dir, cmd);
    }

    private void writeAll(Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(dir.resolve(f.getKey()), f.getValue());
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = SyncHandshakeTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
