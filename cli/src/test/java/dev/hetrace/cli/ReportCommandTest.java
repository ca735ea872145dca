package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace report}: one HTML file with nothing outside it, said in one line; errors in one line, no file left. */
class ReportCommandTest {
    @TempDir
    Path dir;

    @Test
    void theReportIsOneFileThatSaysWhatItHolds() throws Exception {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run("sim", "--cores", "4", "--inject", "preempt:dsp2", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        Path html = dir.resolve("out").resolve("report.html");
        Cli.Run r = Cli.run("report", board.toString(), "-o", html.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith(html + ": ")
                .containsPattern("[\\d,]+ bytes \\([\\d.]+ MB\\), every interval \\([\\d,]+\\)"
                        + " and every message \\([\\d,]+\\)\n$");
        String text = Files.readString(html);
        assertThat(text)
                .startsWith("<!DOCTYPE html>")
                .contains("<script type=\"application/json\" id=\"hetrace-data\">")
                .contains("task intruder preempted")
                .doesNotContain("http://", "https://", " src=", " href=");
        try (var files = Files.list(html.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("report.html");
        }
    }

    @Test
    void theCoresAreGroupedAsTheTracesOrALayoutFileSayAndABadLayoutIsOneLine() throws Exception {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run("sim", "--cores", "20", "--images", "2", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        // the simulator's traces say which 16-core chip each core is on
        Path html = dir.resolve("chips.html");
        Cli.Run r = Cli.run("report", board.toString(), "-o", html.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(Files.readString(html))
                .contains("\"chip0 \u00b7 dsp0\u2013dsp15\"", "\"chip1 \u00b7 dsp16\u2013dsp19\"");
        // a layout file places the cores it lists
        Path layout = dir.resolve("layout.yaml");
        Files.writeString(layout, "groups:\n  left: [dsp0..dsp9]\n  right: [\"dsp1?\"]\n");
        Path laid = dir.resolve("laid.html");
        r = Cli.run("report", "--layout", layout.toString(), board.toString(), "-o", laid.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(Files.readString(laid))
                .contains("\"left \u00b7 dsp0\u2013dsp9\"", "\"right \u00b7 dsp10\u2013dsp19\"")
                .doesNotContain("\"chip0 \u00b7");
        Files.writeString(layout, "groups:\n  left: 3\n");
        Path none = dir.resolve("none.html");
        r = Cli.run("report", "--layout", layout.toString(), board.toString(), "-o", none.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err().strip())
                .isEqualTo("hetrace: " + layout
                        + ":2: expected group left to list its cores ([dsp0..dsp15]) or its groups ({chip0: [...]})");
        assertThat(none).doesNotExist();
    }

    @Test
    void aMissingTraceAndAMissingOutputAreOneLineErrors() {
        Path html = dir.resolve("report.html");
        Cli.Run missing = Cli.run("report", dir.resolve("nothing").toString(), "-o", html.toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err().strip())
                .isEqualTo("hetrace: " + dir.resolve("nothing") + ": no such file or directory");
        assertThat(html).doesNotExist();
        Cli.Run noOutput = Cli.run("report", dir.toString());
        assertThat(noOutput.status()).isEqualTo(2);
        assertThat(noOutput.err()).startsWith("hetrace: Missing required option: '--output=FILE'");
    }

    /**
     * An output that is not a regular file is written as it is, never replaced (as root, a
     * rename over a device or a pipe would replace it with a file): a named pipe gets the report
     * and stays a pipe; a symbolic link stays a link and the file it points to gets the report; a
     * folder is refused in one line.
     */
    @Test
    void anOutputThatIsAPipeALinkOrAFolderIsWrittenThroughOrRefusedNeverReplaced() throws Exception {
        Path board = dir.resolve("board");
        assertThat(Cli.run("sim", "--cores", "2", "--out", board.toString()).status())
                .isZero();

        Path fifo = dir.resolve("pipe");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString())
                        .inheritIO()
                        .start()
                        .waitFor())
                .isZero();
        // a thread of its own reads the pipe (the common pool may be busy with the report itself)
        CompletableFuture<byte[]> read = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                read.complete(Files.readAllBytes(fifo));
            } catch (IOException e) {
                read.completeExceptionally(e);
            }
        });
        Cli.Run toPipe = Cli.run("report", board.toString(), "-o", fifo.toString());
        assertThat(toPipe.status()).as(toPipe.err()).isZero();
        assertThat(new String(read.get(60, TimeUnit.SECONDS), StandardCharsets.UTF_8))
                .startsWith("<!DOCTYPE html>");
        assertThat(Files.isRegularFile(fifo)).as("still a pipe").isFalse();
        assertThat(fifo).exists();

        Path real = dir.resolve("real.html");
        Files.writeString(real, "old");
        Path link = Files.createSymbolicLink(dir.resolve("link.html"), real);
        Cli.Run toLink = Cli.run("report", board.toString(), "-o", link.toString());
        assertThat(toLink.status()).as(toLink.err()).isZero();
        assertThat(Files.isSymbolicLink(link)).as("still a link").isTrue();
        assertThat(Files.readString(real)).startsWith("<!DOCTYPE html>");

        Path folder = Files.createDirectories(dir.resolve("folder"));
        Cli.Run toFolder = Cli.run("report", board.toString(), "-o", folder.toString());
        assertThat(toFolder.status()).isEqualTo(1);
        assertThat(toFolder.err().strip())
                .isEqualTo("hetrace: cannot write " + folder + ": a folder is there, not a file");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("nothing left beside")
                    .noneMatch(n -> n.endsWith(".tmp"));
        }
    }
}
