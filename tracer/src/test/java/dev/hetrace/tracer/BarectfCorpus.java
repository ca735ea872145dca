package dev.hetrace.tracer;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The barectf part of the shared corpus ({@code ../shared/corpus/barectf}, or
 * {@code -Dhetrace.corpus=DIR}); see {@link Required#corpus}.
 */
public final class BarectfCorpus {
    private BarectfCorpus() {}

    public static Path root() {
        return Required.corpus("barectf");
    }

    /** YAML files under {@code dir} that are configurations of their own (not {@code *.inc.yaml}), sorted. */
    public static List<Path> configurations(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .filter(f -> !f.getFileName().toString().endsWith(".inc.yaml"))
                    .sorted()
                    .toList();
        }
    }
}
