package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
        build(dir, RESOURCES, "shm.yaml", "producer.c", "shm-ring", "sr-platform-shm-ring.c", "sr-shm-ring-linux.c");
    }

    /**
     * Copies {@code yaml} and {@code program} from {@code resources} into {@code dir}, generates
     * the tracer with {@code platform} there as a user does, and builds {@code dir/producer} with
     * gcc's strict flags from the tracer ({@code PREFIX.c}, the prefix being the first word of the
     * first platform source), the {@code sources} and the program; {@code sources} ending in
     * {@code .c} are compiled, the other words are flags.
     */
    static void build(Path dir, Path resources, String yaml, String program, String platform, String... sources)
            throws IOException, InterruptedException {
        Required.that(run(dir, "gcc", "--version") == 0, "gcc is not installed: the producer is not built");
        Files.copy(resources.resolve(yaml), dir.resolve(yaml));
        Files.copy(resources.resolve(program), dir.resolve(program));
        assertThat(Main.run(
                        new ByteArrayOutputStream(),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        "tracer",
                        "generate",
                        "--platform",
                        platform,
                        "-o",
                        dir.toString(),
                        dir.resolve(yaml).toString()))
                .isZero();
        List<String> cc = new ArrayList<>(
                List.of("gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-o", "producer"));
        String tracer = Arrays.stream(sources)
                        .filter(f -> f.endsWith(".c"))
                        .findFirst()
                        .orElseThrow()
                        .split("-")[0]
                + ".c";
        cc.add(tracer);
        cc.addAll(List.of(sources));
        cc.add(program);
        assertThat(run(dir, cc.toArray(String[]::new))).isZero();
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

    /**
     * Starts the producer built in {@code dir} on {@code region} with the rest of its arguments
     * ({@code args}), its standard error discarded, once it has said "ready".
     */
    static Process startReady(Path dir, Path region, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(dir.resolve("producer").toString(), region.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(firstLine(p.getInputStream())).isEqualTo("ready");
        return p;
    }

    /** The first line of {@code in}, read byte by byte (no buffer reads past it). */
    static String firstLine(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
            s.append((char) b);
        }
        return s.toString();
    }
}
