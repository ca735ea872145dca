package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file operation that fails is one line saying what was done, to which file, and why ("cannot
 * read FILE: is a directory", "cannot create DIR: not a directory", "cannot write the output: no
 * space left on device"), whatever the command: never the bare path the JDK gives. Real
 * failures that happen as root too (a folder read as a file, a path through a regular file, a
 * full device, /proc).
 */
class FileErrorsTest {
    @TempDir
    Path dir;

    private Path board() {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run("sim", "--cores", "1", "--images", "2", "--seed", "4", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        return board;
    }

    private static void oneLine(Cli.Run r, String line) {
        assertThat(r.status()).as(r.err()).isEqualTo(1);
        assertThat(r.err().lines().toList()).singleElement().isEqualTo(line);
    }

    @Test
    void writingThroughARegularFileSaysWhatCouldNotBeCreated() throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        oneLine(
                Cli.run(
                        "sim",
                        "--cores",
                        "1",
                        "--images",
                        "1",
                        "--out",
                        file.resolve("x").toString()),
                "hetrace: cannot create " + file.resolve("x") + ": not a directory");
        oneLine(
                Cli.run("report", "-o", file.resolve("r.html").toString(), board().toString()),
                "hetrace: cannot create " + file + ": a file is there, not a folder");
    }

    @Test
    void readingAFolderOrAnUnreadableFileSaysWhatCouldNotBeRead() throws IOException {
        Path board = board();
        oneLine(
                Cli.run(
                        "stats",
                        "--mapping",
                        dir.toString(),
                        board.resolve("dsp0").toString()),
                "hetrace: cannot read " + dir + ": is a directory");
        oneLine(
                Cli.run(
                        "query",
                        "--cache",
                        dir.resolve("cache").toString(),
                        "--mapping",
                        dir.toString(),
                        board.resolve("dsp0").toString(),
                        "select 1"),
                "hetrace: cannot read " + dir + ": is a directory");
        oneLine(
                Cli.run(
                        "collect",
                        "--shm",
                        dir.resolve("core0").toString(),
                        "--metadata",
                        dir.toString(),
                        "-o",
                        dir.resolve("trace").toString()),
                "hetrace: cannot read " + dir + ": is a directory");
        Path mem = Path.of("/proc/self/mem");
        if (Files.exists(mem)) {
            oneLine(
                    Cli.run(
                            "stats",
                            "--mapping",
                            mem.toString(),
                            board.resolve("dsp0").toString()),
                    "hetrace: cannot read " + mem + ": input/output error");
        }
    }

    @Test
    void aFullDeviceOnStandardOutputIsOneLine() throws Exception {
        Path full = Path.of("/dev/full");
        Required.that(Files.exists(full), "no /dev/full");
        Path board = board();
        // the traces' store built first: what is told is the output's failure alone
        assertThat(Cli.run("stats", board.resolve("dsp0").toString()).status()).isZero();
        for (String command : new String[] {"stats", "print"}) {
            Process p = HetraceProcess.builder(command, board.resolve("dsp0").toString())
                    .redirectOutput(full.toFile())
                    .redirectError(dir.resolve("err").toFile())
                    .start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String err = Files.readString(dir.resolve("err"));
            assertThat(p.exitValue()).as(err).isEqualTo(1);
            assertThat(err.lines().toList())
                    .as(command)
                    .singleElement()
                    .isEqualTo("hetrace: cannot write the output: no space left on device");
        }
    }

    /** Permissions bind only a user who is not root: checked when the tests run as one. */
    @Test
    void anUnreadableStreamFileSaysPermissionDenied() throws IOException {
        Required.machineCan(
                !"root".equals(System.getProperty("user.name")), "deny a read to its user (root reads every file)");
        Path trace = board().resolve("dsp0");
        Path stream = trace.resolve("stream");
        assertThat(stream.toFile().setReadable(false, false)).isTrue();
        try {
            Cli.Run r = Cli.run("print", trace.toString());
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.err().lines().toList())
                    .singleElement()
                    .asString()
                    .matches("hetrace: cannot (open|read) " + Pattern.quote(stream.toString()) + ": permission denied");
        } finally {
            stream.toFile().setReadable(true, false);
        }
    }
}
