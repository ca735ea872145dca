package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace sync --out DIR} never leaves a copy that reads with wrong times: the copies are
 * written into a hidden folder inside DIR, their metadata under another name, and moved into DIR
 * once all are written. Real processes are stopped midway by SIGINT (Ctrl-C), SIGTERM and
 * SIGKILL; real write errors come from a file-size limit and a full file system.
 */
class SyncOutSafetyTest {
    /** A board whose DSP copies take a while to write (their timestamps rewritten in the packets). */
    @TempDir
    static Path shared;

    static Path board;

    @TempDir
    Path dir;

    @BeforeAll
    static void simulate() throws Exception {
        Required.that(
                new ProcessBuilder("env", "--default-signal=INT", "true")
                                .start()
                                .waitFor()
                        == 0,
                "GNU env with --default-signal (coreutils 8.31 or later)");
        board = shared.resolve("board");
        Cli.Run sim = Cli.run(
                "sim",
                "--cores",
                "4",
                "--images",
                "300",
                "--inject",
                "preempt:dsp0,dsp1,dsp2,dsp3",
                "--out",
                board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
    }

    /** Every file under {@code folder} (hidden ones too) and its bytes' hash. */
    private static Map<String, Integer> contents(Path folder) throws IOException {
        Map<String, Integer> m = new HashMap<>();
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path f : files.toList()) {
                m.put(
                        folder.relativize(f).toString(),
                        Files.isRegularFile(f) ? Arrays.hashCode(Files.readAllBytes(f)) : 0);
            }
        }
        return m;
    }

    private static List<String> entries(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** {@code hetrace sync --out out board} as a process of its own; {@code shell} runs before it (a ulimit). */
    private Process start(Path out, Path log, String shell) throws IOException {
        List<String> java = HetraceProcess.command("sync", "--out", out.toString(), board.toString());
        List<String> command = new ArrayList<>();
        // a process started in the background of a non-interactive shell (a build run so) ignores
        // SIGINT, and so would the JVM: GNU env gives the run the default handling back, as a
        // terminal's Ctrl-C finds it
        command.addAll(List.of("env", "--default-signal=INT"));
        if (shell != null) {
            command.addAll(List.of("sh", "-c", shell + " && exec \"$@\"", "sh"));
        }
        command.addAll(java);
        return new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(log.toFile())
                .start();
    }

    /**
     * Waits until the run has finished a copy (the master's, first) and is writing the next:
     * a finished copy's metadata is held as {@code .metadata-unfinished} in the hidden folder.
     */
    private static void awaitFirstCopy(Process p, Path out, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        boolean seen = false;
        while (!seen && p.isAlive() && System.nanoTime() < deadline) {
            if (Files.isDirectory(out)) {
                try (Stream<Path> s = Files.list(out)) {
                    for (Path w : s.filter(f -> f.getFileName().toString().startsWith(".hetrace-sync-"))
                            .toList()) {
                        seen |= Files.exists(w.resolve("master/.metadata-unfinished"));
                    }
                } catch (NoSuchFileException e) {
                    // removed meanwhile
                }
            }
            Thread.sleep(2);
        }
        assertThat(seen)
                .as("the run was seen between two copies: %s", Files.readString(log))
                .isTrue();
    }

    private static void signal(Process p, String signal) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid()))
                        .start()
                        .waitFor())
                .isZero();
    }

    /** The traces any reader finds under {@code folder}: none, or only whole copies. */
    private static List<Path> tracesIn(Path folder) throws IOException {
        return Files.exists(folder) ? CtfTrace.find(folder) : List.of();
    }

    @Test
    void ctrlCOrSigtermRemovesWhatWasStartedSaysSoAndTheRerunSucceeds() throws Exception {
        for (String signal : List.of("INT", "TERM")) {
            for (boolean existed : new boolean[] {false, true}) {
                Path out = dir.resolve("synced-" + signal + "-" + existed);
                Map<String, Integer> before = Map.of();
                if (existed) {
                    // an empty folder where a copy goes, left from before, and a file of the user's
                    Files.createDirectories(out.resolve("master"));
                    Files.writeString(out.resolve("notes.txt"), "mine");
                    before = contents(out);
                }
                Path log = dir.resolve(signal + "-" + existed + ".log");
                Process p = start(out, log, null);
                awaitFirstCopy(p, out, log);
                signal(p, signal);
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

                assertThat(p.exitValue())
                        .as("exit status after SIG%s", signal)
                        .isEqualTo(signal.equals("INT") ? 130 : 143);
                assertThat(Files.readString(log).lines().toList())
                        .as("SIG%s", signal)
                        .containsExactly(
                                existed
                                        ? "hetrace: interrupted: removed the unfinished copies; " + out
                                                + " is as it was"
                                        : "hetrace: interrupted: removed the unfinished copies and " + out
                                                + ", which this run had made");
                if (existed) {
                    assertThat(contents(out)).isEqualTo(before);
                } else {
                    assertThat(out).doesNotExist();
                }
                assertThat(tracesIn(out)).isEmpty();

                Cli.Run again = Cli.run("sync", "--out", out.toString(), board.toString());
                assertThat(again.status()).as(again.err()).isZero();
                assertThat(entries(out))
                        .containsExactlyInAnyOrderElementsOf(
                                existed
                                        ? List.of("dsp0", "dsp1", "dsp2", "dsp3", "master", "notes.txt")
                                        : List.of("dsp0", "dsp1", "dsp2", "dsp3", "master"));
                assertThat(tracesIn(out)).hasSize(5);
            }
        }
    }

    @Test
    void killMinus9LeavesOnlyAHiddenFolderNoReaderTakesForATraceWhichTheNextRunRemoves() throws Exception {
        Path out = dir.resolve("synced");
        Path log = dir.resolve("kill.log");
        Process p = start(out, log, null);
        awaitFirstCopy(p, out, log);
        p.destroyForcibly(); // SIGKILL: no hook runs
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

        List<String> left = entries(out);
        assertThat(left).singleElement().asString().startsWith(".hetrace-sync-" + p.pid() + "-");
        // the finished master copy is there, its metadata under another name: no reader takes it for a trace
        assertThat(out.resolve(left.getFirst()).resolve("master/.metadata-unfinished"))
                .isRegularFile();
        assertThat(tracesIn(out)).isEmpty();
        Cli.Run print = Cli.run("print", out.toString());
        assertThat(print.status()).isEqualTo(1);
        assertThat(print.out()).isEmpty();

        Cli.Run again = Cli.run("sync", "--out", out.toString(), board.toString());
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.err().lines().toList())
                .containsExactly("hetrace: removed " + out.resolve(left.getFirst())
                        + ", left unfinished by a run that was killed");
        assertThat(entries(out)).containsExactly("dsp0", "dsp1", "dsp2", "dsp3", "master");
        Cli.Run printed = Cli.run("print", out.toString());
        assertThat(printed.status()).as(printed.err()).isZero();
        assertThat(printed.out()).isNotEmpty();
    }

    @Test
    void aWriteErrorLeavesNothingBehindAndSaysWhatFailedInOneLine() throws Exception {
        // a file-size limit the master's files fit and the DSPs' do not: the write fails with EFBIG
        // (the JVM ignores SIGXFSZ); 8192 blocks of 512 or 1024 bytes, as sh counts them
        long master = 0;
        long dsp = Long.MAX_VALUE;
        try (Stream<Path> files = Files.walk(board)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String trace = board.relativize(f).getName(0).toString();
                if (trace.equals("master")) {
                    master = Math.max(master, Files.size(f));
                } else if (trace.startsWith("dsp")
                        && !f.getFileName().toString().equals("metadata")) {
                    dsp = Math.min(dsp, Files.size(f));
                }
            }
        }
        assertThat(master).isLessThan(4L << 20);
        assertThat(dsp).isGreaterThan(8L << 20);
        for (boolean existed : new boolean[] {false, true}) {
            Path out = dir.resolve("limited-" + existed);
            Map<String, Integer> before = Map.of();
            if (existed) {
                Files.createDirectories(out);
                Files.writeString(out.resolve("notes.txt"), "mine");
                before = contents(out);
            }
            Path log = dir.resolve("limited-" + existed + ".log");
            Process p = start(out, log, "ulimit -f 8192");
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();

            assertThat(p.exitValue()).isEqualTo(1);
            assertThat(Files.readString(log).lines().toList())
                    .singleElement()
                    .asString()
                    .matches("hetrace: --out \\Q" + out + "\\E: \\Q" + out + "\\E/dsp[0-3]/stream: File too large \\("
                            + (existed ? "\\Q" + out + "\\E is as it was" : "nothing was left behind") + "\\)");
            if (existed) {
                assertThat(contents(out)).isEqualTo(before);
            } else {
                assertThat(out).doesNotExist();
            }
        }
    }

    @Test
    void aFullFileSystemLeavesNothingBehind() throws Exception {
        Path mount = Files.createDirectories(dir.resolve("small"));
        Process m = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mount.toString())
                .redirectErrorStream(true)
                .start();
        String said = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        // mounting needs root (CI's container runs as root): elsewhere the file-size limit above stands for it
        Required.machineCan(m.waitFor() == 0, "mount a tmpfs (" + said.strip() + ")");
        try {
            Path out = mount.resolve("synced");
            Cli.Run r = Cli.run("sync", "--out", out.toString(), board.toString());

            assertThat(r.status()).isEqualTo(1);
            assertThat(r.err().lines().toList())
                    .singleElement()
                    .asString()
                    .matches("hetrace: --out \\Q" + out + "\\E: \\Q" + out
                            + "\\E/\\w+/[\\w.-]+: No space left on device" + " \\(nothing was left behind\\)");
            assertThat(entries(mount)).isEmpty();
        } finally {
            assertThat(new ProcessBuilder("umount", mount.toString()).start().waitFor())
                    .isZero();
        }
    }

    @Test
    void copiesAlreadyThereAreReplacedOnlyWhenAskedAndEmptyFoldersDoNotCount() throws Exception {
        Path small = dir.resolve("small-board");
        assertThat(Cli.run("sim", "--cores", "2", "--seed", "4", "--images", "2", "--out", small.toString())
                        .status())
                .isZero();
        Path out = dir.resolve("out");
        Files.createDirectories(out.resolve("master"));
        Files.createDirectories(out.resolve("dsp0"));
        Cli.Run first = Cli.run("sync", "--out", out.toString(), small.toString());
        assertThat(first.status()).as(first.err()).isZero();
        Files.writeString(out.resolve("notes.txt"), "mine");
        Map<String, Integer> before = contents(out);

        Cli.Run again = Cli.run("sync", "--out", out.toString(), small.toString());
        assertThat(again.status()).isEqualTo(1);
        assertThat(again.err().lines().toList())
                .containsExactly("hetrace: --out " + out + ": " + out.resolve("master")
                        + " and 2 more of the copies are already there: --replace replaces them");
        assertThat(contents(out)).isEqualTo(before);

        Cli.Run replaced = Cli.run("sync", "--replace", "--out", out.toString(), small.toString());
        assertThat(replaced.status()).as(replaced.err()).isZero();
        assertThat(contents(out)).isEqualTo(before); // the same copies again, the user's file kept
        assertThat(entries(out)).containsExactly("dsp0", "dsp1", "master", "notes.txt");
    }
}
