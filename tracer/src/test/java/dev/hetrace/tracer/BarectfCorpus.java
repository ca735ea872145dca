package dev.hetrace.tracer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The barectf part of the shared corpus ({@code ../shared/corpus/barectf}, or
 * {@code -Dhetrace.corpus=DIR}); tests that need it skip, and say so, when it is absent.
 */
public final class BarectfCorpus {
    private BarectfCorpus() {}

    public static Path root() {
        String prop = System.getProperty("hetrace.corpus");
        Path p = prop != null ? Path.of(prop) : Path.of("../../shared/corpus");
        Path barectf = p.toAbsolutePath().normalize().resolve("barectf");
        Assumptions.assumeTrue(Files.isDirectory(barectf),
            "barectf corpus not found at " + barectf + " (set -Dhetrace.corpus=DIR): barectf corpus tests skipped");
        return barectf;
    }

    /** YAML files under {@code dir} that are configurations of their own (not {@code *.inc.yaml}), sorted. */
    public static List<Path> configurations(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                .filter(f -> f.getFileName().toString().endsWith(".yaml"))
                .filter(f -> !f.getFileName().toString().endsWith(".inc.yaml"))
                .sorted().toList();
        }
    }
}
