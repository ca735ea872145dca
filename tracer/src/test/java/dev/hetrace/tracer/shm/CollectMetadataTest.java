package dev.hetrace.tracer.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata of a collected trace declares the trace UUID the producers' packets hold. */
class CollectMetadataTest {
    @TempDir
    Path dir;

    @Test
    void aConfigurationWithAnAutoUuidGetsTheProducersUuid() throws Exception {
        Path yaml = dir.resolve("shm.yaml");
        try (InputStream in = getClass().getResourceAsStream("shm.yaml")) {
            Files.write(yaml, in.readAllBytes());
        }
        Configuration c = ConfigReader.read(yaml, List.of(dir));
        UUID producers = UUID.fromString("0ededbde-9417-428b-9515-a937de27feb8");
        assertThat(CollectMetadata.fromConfig(c, yaml, producers)).contains("uuid = \"" + producers + "\";");
        assertThatThrownBy(() -> CollectMetadata.fromConfig(c, yaml, null))
                .isInstanceOf(ShmRingException.class)
                .hasMessageContaining("the producers' hold none");
    }

    @Test
    void aMetadataFileOfAnotherTraceIsRefused() throws Exception {
        UUID producers = UUID.fromString("0ededbde-9417-428b-9515-a937de27feb8");
        String text = "/* CTF 1.8 */\ntrace {\n\tuuid = \"" + producers + "\";\n};\n";
        Path file = dir.resolve("metadata");
        assertThat(CollectMetadata.fromFile(text, file, producers)).isEqualTo(text);
        assertThat(CollectMetadata.fromFile(text, file, null)).isEqualTo(text);
        assertThatThrownBy(() ->
                        CollectMetadata.fromFile(text, file, UUID.fromString("11111111-9417-428b-9515-a937de27feb8")))
                .isInstanceOf(ShmRingException.class)
                .hasMessageContaining("describes another trace");
    }
}
