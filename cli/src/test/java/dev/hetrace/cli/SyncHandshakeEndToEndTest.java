package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with real tracers: `hetrace tracer generate --sync`, a master and a slave process
 * built with gcc doing the handshake through a shared mailbox (the slave interrupted by a
 * signal while it traces; its clock 3 × CLOCK_MONOTONIC from a far origin), then
 * `hetrace sync` on their two traces: the slave's clock comes back as the master's.
 */
class SyncHandshakeEndToEndTest {
    /** The programs and configuration of the tracer module's SyncHandshakeTest (the tests run in cli/). */
    private static final Path C_RESOURCES = Path.of("../tracer/src/test/resources/dev/hetrace/tracer/c");

    private static final long EXCHANGES = 200;

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    private int hetrace(ByteArrayOutputStream out, String... args) {
        return Main.run(out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), args);
    }

    private void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", List.of(cmd), out).isZero();
    }

    /**
     * Every sync pair's receive is not before its send on the master's clock (at the text's ns;
     * the two may fall on the same ns, in either order of lines); all 2 × EXCHANGES pairs are there.
     */
    private static void assertCausal(String text) {
        Map<Long, Long> sendTime = new HashMap<>();
        Map<Long, Long> recvTime = new HashMap<>();
        Map<Long, String> sendText = new HashMap<>();
        Pattern p = Pattern.compile(
                "^\\[(\\d+):(\\d+):(\\d+)\\.(\\d{9})\\].*(hetrace_sync_send|hetrace_sync_recv): \\{ cpu = \\d+ \\},"
                        + " \\{ seq = (\\d+),");
        for (String line : text.lines().toList()) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                long ns = ((Long.parseLong(m.group(1)) * 60 + Long.parseLong(m.group(2))) * 60
                                        + Long.parseLong(m.group(3)))
                                * 1_000_000_000L
                        + Long.parseLong(m.group(4));
                long seq = Long.parseLong(m.group(6));
                if (m.group(5).endsWith("send")) {
                    sendTime.put(seq, ns);
                    sendText.put(seq, line);
                } else {
                    recvTime.put(seq, ns);
                }
            }
        }
        assertThat(sendTime).hasSize((int) (2 * EXCHANGES));
        assertThat(recvTime.keySet()).isEqualTo(sendTime.keySet());
        for (long seq : sendTime.keySet()) {
            if (recvTime.get(seq) - sendTime.get(seq) < -43_200_000_000_000L) {
                recvTime.put(seq, recvTime.get(seq) + 86_400_000_000_000L); // the day turned between them
            }
            assertThat(recvTime.get(seq))
                    .as(
                            "pair %d received (at %d ns of the day) not before it was sent: %s",
                            seq, recvTime.get(seq), sendText.get(seq))
                    .isGreaterThanOrEqualTo(sendTime.get(seq));
        }
    }

    /**
     * The same with CTF 2 metadata: {@code tracer generate --ctf-version 2} writes the same C
     * files and a CTF 2 metadata file with which the traces the tracers wrote print as with the
     * CTF 1.8 one; {@code sync --out --ctf-version 2} writes copies that print as the CTF 1.8
     * copies do.
     */
    private void ctf2EndToEnd(Path gen, Path master, Path slave, Path synced, String syncedText) throws Exception {
        Path gen2 = dir.resolve("gen2");
        for (String platform : List.of("callback", "linux-file")) {
            assertThat(hetrace(
                            new ByteArrayOutputStream(),
                            "tracer",
                            "generate",
                            "--ctf-version",
                            "2",
                            "--platform",
                            platform,
                            "-o",
                            gen2.toString(),
                            dir.resolve("sync.yaml").toString()))
                    .isZero();
        }
        try (var files = Files.list(gen)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals("metadata")) {
                    assertThat(gen2.resolve(f.getFileName()))
                            .as("%s with --ctf-version 2", f.getFileName())
                            .hasSameBinaryContentAs(f);
                }
            }
        }
        assertThat(Files.readAllBytes(gen2.resolve("metadata"))[0])
                .as("a CTF 2 metadata stream's first byte")
                .isEqualTo((byte) 0x1E);
        for (Path trace : List.of(master, slave)) {
            Path twin = Files.createDirectories(dir.resolve("ctf2-" + trace.getFileName()));
            try (var files = Files.list(trace)) {
                for (Path f : files.toList()) {
                    Files.copy(f, twin.resolve(f.getFileName()));
                }
            }
            Files.copy(gen2.resolve("metadata"), twin.resolve("metadata"), StandardCopyOption.REPLACE_EXISTING);
            ByteArrayOutputStream original = new ByteArrayOutputStream();
            ByteArrayOutputStream fromCtf2 = new ByteArrayOutputStream();
            assertThat(hetrace(original, "print", trace.toString())).isZero();
            assertThat(hetrace(fromCtf2, "print", twin.toString())).isZero();
            assertThat(fromCtf2.toString(StandardCharsets.UTF_8))
                    .as("%s read with the CTF 2 metadata", trace)
                    .isNotEmpty()
                    .isEqualTo(original.toString(StandardCharsets.UTF_8));
        }

        Path synced2 = dir.resolve("synced2");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        assertThat(hetrace(
                        text,
                        "sync",
                        "--out",
                        synced2.toString(),
                        "--ctf-version",
                        "2",
                        master.toString(),
                        slave.toString()))
                .isZero();
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("metadata in CTF 2");
        for (String name : List.of("master", "slave")) {
            assertThat(Files.readAllBytes(synced2.resolve(name).resolve("metadata"))[0])
                    .isEqualTo((byte) 0x1E);
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertThat(hetrace(
                        printed,
                        "print",
                        synced2.resolve("master").toString(),
                        synced2.resolve("slave").toString()))
                .isZero();
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo(syncedText);
        assertThat(hetrace(
                        new ByteArrayOutputStream(),
                        "sync",
                        "--out",
                        dir.resolve("x").toString(),
                        "--ctf-version",
                        "3",
                        master.toString(),
                        slave.toString()))
                .isEqualTo(2);
    }

    @Test
    void theSlavesClockComesBackAsTheMastersWithinTheAccuracyBound() throws Exception {
        Required.tool("gcc", "--version");
        Files.copy(C_RESOURCES.resolve("sync.yaml"), dir.resolve("sync.yaml"));
        Files.copy(C_RESOURCES.resolve("sync-master.c"), dir.resolve("sync-master.c"));
        Files.copy(C_RESOURCES.resolve("sync-slave.c"), dir.resolve("sync-slave.c"));
        Path gen = dir.resolve("gen");
        for (String platform : List.of("callback", "linux-file")) {
            assertThat(hetrace(
                            new ByteArrayOutputStream(),
                            "tracer",
                            "generate",
                            "--platform",
                            platform,
                            "-o",
                            gen.toString(),
                            dir.resolve("sync.yaml").toString()))
                    .isZero();
        }
        String g = gen.toString();
        run(
                "gcc",
                "-std=c99",
                "-O2",
                "-I",
                g,
                "-o",
                "sync-slave",
                g + "/sy.c",
                g + "/sy-platform-callback.c",
                g + "/sy-sync.c",
                "sync-slave.c");
        run(
                "gcc",
                "-std=c99",
                "-O2",
                "-I",
                g,
                "-o",
                "sync-master",
                g + "/sy.c",
                g + "/sy-platform-linux-file.c",
                g + "/sy-sync.c",
                "sync-master.c");
        Path master = Files.createDirectories(dir.resolve("master"));
        Path slave = Files.createDirectories(dir.resolve("slave"));
        Files.copy(gen.resolve("metadata"), master.resolve("metadata"));
        Files.copy(gen.resolve("metadata"), slave.resolve("metadata"));

        Path mailbox = dir.resolve("mailbox");
        Files.write(mailbox, new byte[4096]);
        Process s = new ProcessBuilder(
                        dir.resolve("sync-slave").toString(), mailbox.toString(), slave.toString(), "own")
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        started.add(s);
        BufferedReader slaveOut = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        assertThat(slaveOut.readLine()).isEqualTo("ready");
        run(
                dir.resolve("sync-master").toString(),
                mailbox.toString(),
                master.resolve("stream").toString(),
                Long.toString(s.pid()),
                Long.toString(EXCHANGES),
                "500");
        slaveOut.readLine();
        assertThat(s.waitFor(60, TimeUnit.SECONDS)).isTrue();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(hetrace(out, "sync", "--format", "json", master.toString(), slave.toString()))
                .isZero();
        String json = out.toString(StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"path\":\"[^\"]*slave\",\"slope\":\"([^\"]+)\",\"offset_ns\":\"([^\"]+)\","
                        + "\"quality\":\"accurate\",\"via\":\"[^\"]*master\",\"matches_out\":(\\d+),\"matches_in\":(\\d+),"
                        + "\"accuracy_ns\":(\\d+),\"causality_violations\":0")
                .matcher(json);
        assertThat(m.find()).as(json).isTrue();
        assertThat(Long.parseLong(m.group(3))).isEqualTo(EXCHANGES);
        assertThat(Long.parseLong(m.group(4))).isEqualTo(EXCHANGES);
        BigDecimal slope = new BigDecimal(m.group(1));
        BigDecimal offset = new BigDecimal(m.group(2));
        long accuracy = Long.parseLong(m.group(5));
        // the slave's clock is 5e17 + 3 × the master's: slope 1/3, to what round trips of tens of
        // microseconds over a tenth of a second allow (the check below, event by event, is the sharp one)
        assertThat(slope.subtract(BigDecimal.ONE.divide(BigDecimal.valueOf(3), MathContext.DECIMAL64))
                        .abs())
                .isLessThan(new BigDecimal("1e-3"));
        assertThat(accuracy).isPositive().isLessThan(50_000_000L);
        // the synchronized copies: babeltrace2 (and hetrace) show the two cores' events merged on
        // the master's clock, every receive after its send
        Path synced = dir.resolve("synced");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        assertThat(hetrace(text, "sync", "--out", synced.toString(), master.toString(), slave.toString()))
                .isZero();
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("synchronized copies in " + synced);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertThat(hetrace(
                        printed,
                        "print",
                        synced.resolve("master").toString(),
                        synced.resolve("slave").toString()))
                .isZero();
        assertCausal(printed.toString(StandardCharsets.UTF_8));
        if (Required.hasBabeltrace2()) {
            Process bt = new ProcessBuilder(
                            "babeltrace2",
                            synced.resolve("master").toString(),
                            synced.resolve("slave").toString())
                    .redirectErrorStream(true)
                    .start();
            String out2 = new String(bt.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(bt.waitFor()).as(out2).isZero();
            assertCausal(out2);
        }

        ctf2EndToEnd(gen, master, slave, synced, printed.toString(StandardCharsets.UTF_8));

        try (CtfReader reader = CtfReader.open(slave)) {
            while (reader.next()) {
                Event e = reader.event();
                long t = e.timeNanos();
                double mapped =
                        slope.multiply(BigDecimal.valueOf(t)).add(offset).doubleValue();
                double truth = (t - 500_000_000_000_000_000L) / 3.0;
                // the truth up to the moment between the two clock_gettime calls, well under the bound
                assertThat(Math.abs(mapped - truth)).as("slave event at %d", t).isLessThanOrEqualTo(accuracy + 1_000.0);
            }
        }
    }
}
