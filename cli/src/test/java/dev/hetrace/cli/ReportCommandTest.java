package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
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
        assertThat(r.out()).startsWith(html + ": ").containsPattern("[\\d,]+ bytes \\([\\d.]+ MB\\), every interval \\([\\d,]+\\)"
            + " and every message \\([\\d,]+\\)\n$");
        String text = Files.readString(html);
        assertThat(text).startsWith("<!DOCTYPE html>").contains("<script type=\"application/json\" id=\"hetrace-data\">")
            .contains("task intruder preempted").doesNotContain("http://", "https://", " src=", " href=");
        try (var files = Files.list(html.getParent())) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("report.html");
        }
    }

    @Test
    void aMissingTraceAndAMissingOutputAreOneLineErrors() {
        Path html = dir.resolve("report.html");
        Cli.Run missing = Cli.run("report", dir.resolve("nothing").toString(), "-o", html.toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err().strip()).isEqualTo("hetrace: " + dir.resolve("nothing") + ": no such file or directory");
        assertThat(html).doesNotExist();
        Cli.Run noOutput = Cli.run("report", dir.toString());
        assertThat(noOutput.status()).isEqualTo(2);
        assertThat(noOutput.err()).startsWith("hetrace: Missing required option: '--output=FILE'");
    }
}
