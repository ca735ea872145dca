package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The producer program of the tracer module's ShmRingTest (a core writing packets into an
 * shm-ring region), built with gcc against the shm-ring tracer {@code hetrace tracer generate}
 * makes of its configuration: for the collect tests, which run in cli/.
 */
final class ShmProducer {
    static final Path RESOURCES = Path.of("../tracer/src/test/resources/dev/hetrace/tracer/shm");

    private ShmProducer() {}

    /** Writes the tracer, its metadata and {@code dir/producer}, built with gcc's strict flags. */
    static void build(Path dir) throws IOException, InterruptedException {
        Required.that(run(dir, "gcc", "--version") == 0, "gcc is not installed: the producer is not built");
        Files.copy(RESOURCES.resolve("shm.yaml"), dir.resolve("shm.yaml"));
        Files.copy(RESOURCES.resolve("producer.c"), dir.resolve("producer.c"));
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        "tracer",
                        "generate",
                        "--platform",
                        "shm-ring",
                        "-o",
                        dir.toString(),
                        dir.resolve("shm.yaml").toString()))
                .isZero();
        assertThat(run(
                        dir,
                        "gcc",
                        "-std=c99",
                        "-Wall",
                        "-Wextra",
                        "-Werror",
                        "-pedantic",
                        "-O2",
                        "-o",
                        "producer",
                        "sr.c",
                        "sr-platform-shm-ring.c",
                        "sr-shm-ring-linux.c",
                        "producer.c"))
                .isZero();
    }

    /** Runs {@code cmd} in {@code dir}: its exit status (its output on the standard error when it fails), -1 if it cannot start. */
    static int run(Path dir, String... cmd) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int status = p.waitFor();
            if (status != 0) {
                System.err.println(out);
            }
            return status;
        } catch (IOException e) {
            return -1;
        }
    }
}
