package dev.hetrace.tracer.c;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** barectf's tracing configurations in the shared corpus; tests skip when it is absent. */
final class BarectfMetadataTestCorpus {
    private BarectfMetadataTestCorpus() {}

    static Path tracing() {
        String prop = System.getProperty("hetrace.corpus");
        Path p = prop != null ? Path.of(prop) : Path.of("../../shared/corpus");
        Path tracing = p.toAbsolutePath().normalize().resolve("barectf/tracing");
        Assumptions.assumeTrue(Files.isDirectory(tracing),
            "barectf corpus not found at " + tracing + " (set -Dhetrace.corpus=DIR): barectf corpus tests skipped");
        return tracing;
    }
}
