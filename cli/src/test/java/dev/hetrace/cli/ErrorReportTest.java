package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Corpus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command's failure is told the same way, by the handler picocli runs for all of them: one
 * line on the standard error saying what failed and where, through the exception's chain of
 * causes, the exit status of its kind, and the stack trace only under --debug.
 */
class ErrorReportTest {
    @TempDir
    Path dir;

    /** A stream of the conformance suite that ends inside an event's integer. */
    private static final String TRUNCATED = "ctf-testsuite/regression/stream/fail/out-of-bound-integer";

    private static void oneLineNoTrace(Cli.Run r, int status) {
        assertThat(r.status()).as(r.err()).isEqualTo(status);
        assertThat(r.err().lines().toList()).as(r.err()).hasSize(1);
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception").startsWith("hetrace: ");
    }

    @Test
    void aMissingTraceIsOneLineNamingItWithStatus1() {
        Path missing = dir.resolve("nowhere");
        Cli.Run r = Cli.run("print", missing.toString());
        oneLineNoTrace(r, 1);
        assertThat(r.err()).isEqualTo("hetrace: " + missing + ": no such trace directory" + System.lineSeparator());
    }

    @Test
    void aTruncatedStreamSaysTheFilePacketOffsetAndWhereInTheEvent() {
        Path trace = Corpus.trace(TRUNCATED);
        Cli.Run r = Cli.run("print", trace.toString());
        oneLineNoTrace(r, 1);
        assertThat(r.err())
                .startsWith("hetrace: " + trace.resolve("dummystream") + ": packet 0, offset 20: event 'evname' (id 0),"
                        + " field 'payload.blah': ")
                .contains("in the event payload")
                .contains("goes past the end of the packet content");
    }

    @Test
    void badMetadataSaysTheFileLineAndColumn() {
        Path trace = Corpus.trace("babeltrace/fail/fail1");
        Cli.Run r = Cli.run("stats", trace.toString());
        oneLineNoTrace(r, 1);
        assertThat(r.err()).startsWith("hetrace: " + trace.resolve("metadata") + ": line 11, column 70: expected ';'");
    }

    @Test
    void aMetadataFileThatCannotBeReadIsSaidWithWhatWasDoneAndKeepsItsCauseForDebug() {
        Path missing = dir.resolve("metadata");
        String[] args = {
            "collect",
            "--shm",
            dir.resolve("core0").toString(),
            "--metadata",
            missing.toString(),
            "-o",
            dir.resolve("trace").toString()
        };
        Cli.Run r = Cli.run(args);
        oneLineNoTrace(r, 1);
        assertThat(r.err())
                .isEqualTo("hetrace: cannot read " + missing + ": no such file or directory" + System.lineSeparator());

        Cli.Run debug = Cli.run(withDebug(args));
        assertThat(debug.status()).isEqualTo(1);
        List<String> lines = debug.err().lines().toList();
        assertThat(lines.getFirst()).isEqualTo("hetrace: cannot read " + missing + ": no such file or directory");
        assertThat(debug.err())
                .contains("\tat dev.hetrace.cli.CollectCommand.call")
                .contains("Caused by: java.nio.file.NoSuchFileException: " + missing);
    }

    @Test
    void aBadOptionIsAUsageErrorWithStatus2AndWhereHelpIs() {
        Cli.Run r = Cli.run("stats", "--bogus", dir.toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err().lines().toList())
                .containsExactly("hetrace: Unknown option: '--bogus'", "Try 'hetrace stats --help'.");
    }

    @Test
    void aBadValueFoundWhileRunningIsAUsageErrorInOneLine() {
        Cli.Run r = Cli.run("print", "--threads", "0", dir.toString());
        oneLineNoTrace(r, 2);
        assertThat(r.err()).isEqualTo("hetrace: --threads must be at least 1" + System.lineSeparator());
        Cli.Run sim =
                Cli.run("sim", "--jitter", "-1", "--out", dir.resolve("board").toString());
        assertThat(sim.status()).isEqualTo(2);
        assertThat(sim.err().lines().toList())
                .containsExactly("hetrace: --jitter -1: a number of cycles, 0 or more", "Try 'hetrace sim --help'.");
    }

    @Test
    void withDebugTheStackTraceFollowsTheLine() {
        Path trace = Corpus.trace(TRUNCATED);
        Cli.Run r = Cli.run("print", "--debug", trace.toString());
        assertThat(r.status()).isEqualTo(1);
        List<String> lines = r.err().lines().toList();
        assertThat(lines.getFirst()).startsWith("hetrace: " + trace.resolve("dummystream") + ": packet 0, offset 20: ");
        assertThat(lines.get(1)).startsWith("dev.hetrace.ctf.api.StreamDecodingException: ");
        assertThat(lines).anyMatch(l -> l.startsWith("\tat dev.hetrace.ctf.decode.StreamDecoder."));
    }

    @Test
    void inAJvmOfItsOwnTheExitStatusAndTheLineAreTheSame() throws Exception {
        Path trace = Corpus.trace(TRUNCATED);
        Cli.Run r = HetraceProcess.run(Duration.ofSeconds(60), "print", trace.toString());
        oneLineNoTrace(r, 1);
        assertThat(r.err()).isEqualTo(Cli.run("print", trace.toString()).err());
        assertThat(r.out()).isEqualTo(Cli.run("print", trace.toString()).out());

        Cli.Run debug = HetraceProcess.run(Duration.ofSeconds(60), "print", "--debug", trace.toString());
        assertThat(debug.status()).isEqualTo(1);
        assertThat(debug.err()).startsWith(r.err()).contains("\tat dev.hetrace.");

        Cli.Run usage = HetraceProcess.run(Duration.ofSeconds(60), "stats", "--bogus", trace.toString());
        assertThat(usage.status()).isEqualTo(2);
        assertThat(usage.err().lines().toList())
                .containsExactly("hetrace: Unknown option: '--bogus'", "Try 'hetrace stats --help'.");
    }

    @Test
    void aBugIsAnInternalErrorNamingTheCommandWithItsTraceOnlyUnderDebug() {
        CommandLine.Model.CommandSpec print =
                new CommandLine(new Main()).getSubcommands().get("print").getCommandSpec();
        Exception bug = new NullPointerException("Cannot read the array length because \"<local4>\" is null");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new ErrorReport(new PrintStream(err, true, StandardCharsets.UTF_8)).failed(bug, print, false);
        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("hetrace print: internal error: java.lang.NullPointerException:"
                        + " Cannot read the array length because \"<local4>\" is null (--debug shows where)"
                        + System.lineSeparator());

        err.reset();
        new ErrorReport(new PrintStream(err, true, StandardCharsets.UTF_8)).failed(bug, print, true);
        List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.getFirst())
                .isEqualTo("hetrace print: internal error: java.lang.NullPointerException:"
                        + " Cannot read the array length because \"<local4>\" is null");
        assertThat(lines).anyMatch(l -> l.startsWith("\tat dev.hetrace.cli.ErrorReportTest."));
    }

    @Test
    void eachLayerOfTheChainAddsWhatItKnowsAndRepeatsNothing() {
        // the JDK's exception names only the file; the layer that wrote it says what it did; the command, for what
        IOException denied = new AccessDeniedException(dir.resolve("out/x").toString());
        Exception chain = CommandFailure.in(
                "--out " + dir.resolve("out"),
                new UncheckedIOException(new IOException("cannot keep the copy of core0", denied)));
        assertThat(ErrorLine.of(chain))
                .isEqualTo("--out " + dir.resolve("out") + ": cannot keep the copy of core0: cannot" + " access "
                        + dir.resolve("out/x") + ": permission denied");
        assertThat(ErrorReport.expected(chain)).isTrue();

        // a layer that already says its cause's words is not followed by them again
        Exception said = new IOException(
                "cannot read " + dir + "/m: no such file or directory", new NoSuchFileException(dir + "/m"));
        assertThat(ErrorLine.of(said)).isEqualTo("cannot read " + dir + "/m: no such file or directory");

        // a wrapper without words of its own hides neither its cause's words nor its kind
        Exception wrapped =
                new IllegalStateException(new IllegalArgumentException("--task idle: no such task in the traces"));
        assertThat(ErrorLine.of(wrapped)).isEqualTo("--task idle: no such task in the traces");
        assertThat(ErrorReport.expected(wrapped)).isTrue();
        assertThat(ErrorReport.expected(new IllegalStateException("a parked stream did not resume where it was")))
                .isFalse();
    }

    private static String[] withDebug(String[] args) {
        String[] a = new String[args.length + 1];
        a[0] = args[0];
        a[1] = "--debug";
        System.arraycopy(args, 1, a, 2, args.length - 1);
        return a;
    }
}
