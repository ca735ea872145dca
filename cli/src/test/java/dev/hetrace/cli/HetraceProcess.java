package dev.hetrace.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code hetrace} in a JVM of its own, as a user's shell runs it: this test's java and class
 * path, native access allowed as the launcher allows it. For what an in-process run cannot show:
 * the exit status {@code System.exit} gives, a kill or a signal, a file cut while mapped.
 */
final class HetraceProcess {
    private HetraceProcess() {}

    /** The command line that runs {@code hetrace ARGS}. */
    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** A builder of {@code hetrace ARGS}, to redirect and start as the test needs. */
    static ProcessBuilder builder(String... args) {
        return new ProcessBuilder(command(args));
    }

    /**
     * Runs {@code hetrace ARGS} to its end: its exit status (-1 when it had not ended within
     * {@code timeout}: it is then killed), standard output and standard error.
     */
    static Cli.Run run(Duration timeout, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile("hetrace", ".out");
        Path err = Files.createTempFile("hetrace", ".err");
        try {
            Process p = builder(args)
                    .redirectInput(
                            ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            int status = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? p.exitValue() : -1;
            p.destroyForcibly().waitFor();
            return new Cli.Run(
                    status,
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
