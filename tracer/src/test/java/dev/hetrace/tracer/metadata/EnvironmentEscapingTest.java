package dev.hetrace.tracer.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A configuration's environment values are written as TSDL string literals whatever they hold
 * (newlines, quotes, backslashes, tabs, other control characters, non-ASCII): the metadata reads
 * back with the same values, in hetrace and in babeltrace2.
 */
class EnvironmentEscapingTest {
    @TempDir
    Path dir;

    static final Map<String, String> VALUES = Map.of(
            "multi", "first line\nsecond line",
            "quoted", "say \"hi\"; };",
            "slashes", "C:\\temp\\new",
            "tabbed", "a\tb\rc\u0007d\u001b[2J",
            "accents", "Zoë ☕");

    @Test
    void environmentValuesReadBackAsTheyWere() throws Exception {
        Path shm = Path.of("src/test/resources/dev/hetrace/tracer/shm/shm.yaml");
        StringBuilder env = new StringBuilder("  environment:\n");
        VALUES.forEach((k, v) ->
                env.append("    ").append(k).append(": \"").append(yaml(v)).append("\"\n"));
        String yaml = Files.readString(shm)
                .replaceFirst("(?m)^trace:\n", "trace:\n" + env.toString().replace("\\", "\\\\"));
        Path config = Files.writeString(dir.resolve("env.yaml"), yaml);
        Configuration c = ConfigReader.read(config, List.of(dir));
        String metadata = BarectfMetadata.of(c);
        Map<String, Object> read = MetadataReader.parse(metadata.getBytes(StandardCharsets.UTF_8), w -> {})
                .env();
        VALUES.forEach((k, v) -> assertThat(read).as(k).containsEntry(k, v));

        Path trace = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(trace.resolve("metadata"), metadata, StandardCharsets.UTF_8);
        if (Required.hasBabeltrace2()) {
            Processes.run(dir, List.of("babeltrace2", trace.toString())); // fails the test if babeltrace2 does
        }
    }

    /** {@code v} inside a YAML double-quoted string (its backslashes doubled afterwards, for replaceFirst). */
    private static String yaml(String v) {
        StringBuilder b = new StringBuilder();
        for (char ch : v.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\t' -> b.append("\\t");
                case '\r' -> b.append("\\r");
                default -> b.append(ch < 0x20 ? String.format("\\x%02x", (int) ch) : String.valueOf(ch));
            }
        }
        return b.toString();
    }
}
