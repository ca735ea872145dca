package dev.hetrace.tracer.c;

import static dev.hetrace.tracer.Processes.run;
import static dev.hetrace.tracer.Processes.works;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drop-in compatibility with barectf 3.1.1: the same application source and the same
 * (hetrace-generated) platform build against barectf's generated tracer and against
 * hetrace's, and both traces decode to the same events (timestamps aside: the clock is real).
 * Needs {@code barectf} and {@code gcc} (see {@link Required}). Little-endian only:
 * barectf's tracer writes aligned fields in the host's byte order.
 */
class BarectfTracerCompatibilityTest {
    private static final int ROUNDS = 100;

    @TempDir
    Path dir;

    @Test
    void barectfsTracerAndHetracesWriteTheSameEventsForTheSameCalls() throws Exception {
        Required.that(
                works(List.of("barectf", "--version"), dir), "barectf is not installed: compatibility not tested");
        Required.that(works(List.of("gcc", "--version"), dir), "gcc is not installed: compatibility not tested");
        Path config = dir.resolve("all-types.yaml");
        Files.writeString(config, resource("all-types.yaml"));
        Configuration c = ConfigReader.read(config, List.of(dir));

        Path ours = Files.createDirectories(dir.resolve("hetrace"));
        write(ours, CTracer.generate(c));
        write(ours, LinuxFilePlatform.generate(c));
        Files.writeString(ours.resolve("main.c"), resource("main.c"));
        Files.createDirectories(ours.resolve("trace"));
        Files.writeString(ours.resolve("trace/metadata"), BarectfMetadata.of(c));

        Path theirs = Files.createDirectories(dir.resolve("barectf"));
        Files.createDirectories(theirs.resolve("trace"));
        run(theirs, List.of("barectf", "generate", "-m", "trace", config.toString()));
        write(theirs, LinuxFilePlatform.generate(c));
        Files.writeString(theirs.resolve("main.c"), resource("main.c"));

        for (Path d : List.of(ours, theirs)) {
            // barectf's own code does not pass -Wextra -Werror, hence the plain build here
            run(d, List.of("gcc", "-std=c99", "-O2", "-o", "prog", "tt.c", "tt-platform-linux-file.c", "main.c"));
            run(
                    d,
                    List.of(
                            d.resolve("prog").toString(),
                            d.resolve("trace/stream").toString(),
                            "512",
                            Integer.toString(ROUNDS)));
        }
        List<String> ourEvents = withoutTimes(TraceEvents.json(ours.resolve("trace")));
        assertThat(ourEvents).hasSize(4 * ROUNDS);
        assertThat(ourEvents).containsExactlyElementsOf(withoutTimes(TraceEvents.json(theirs.resolve("trace"))));
    }

    /** Times blanked: the linux-file platform reads a real clock. */
    private static List<String> withoutTimes(List<String> events) {
        return events.stream()
                .map(l -> l.replaceAll("\"(time_ns|timestamp_begin|timestamp_end)\":\\d+", "\"$1\":T"))
                .toList();
    }

    private static void write(Path d, Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(d.resolve(f.getKey()), f.getValue());
        }
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = BarectfTracerCompatibilityTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
