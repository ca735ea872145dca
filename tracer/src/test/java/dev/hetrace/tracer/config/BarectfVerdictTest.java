package dev.hetrace.tracer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.hetrace.tracer.BarectfCorpus;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * barectf's own configuration tests (formats 2 and 3): hetrace accepts what barectf 3.1.1
 * accepts ({@code pass/}) and rejects, with one located message, what it rejects ({@code fail/}).
 * Each configuration is read with its folder as the inclusion directory, as barectf's tests run
 * from that folder.
 */
class BarectfVerdictTest {
    @TestFactory
    Stream<DynamicTest> everyConfigurationGetsBarectfsVerdict() throws IOException {
        Path config = BarectfCorpus.root().resolve("config");
        List<Path> files = BarectfCorpus.configurations(config);
        assertThat(files).hasSize(178);
        return files.stream()
                .map(f -> DynamicTest.dynamicTest(config.relativize(f).toString(), () -> check(f)));
    }

    private static void check(Path file) {
        boolean pass = file.toString().contains("/pass/");
        try {
            Configuration c = ConfigReader.read(file, List.of(file.getParent()));
            if (!pass) {
                fail("barectf rejects %s, hetrace accepted it: %s", file, c);
            }
        } catch (ConfigException e) {
            if (pass) {
                fail("barectf accepts %s, hetrace rejected it: %s", file, e.getMessage());
            }
            assertThat(e.mark()).as("error location of: %s", e.getMessage()).isNotNull();
            assertThat(e.getMessage())
                    .as("one line")
                    .doesNotContain("\n")
                    .startsWith(e.mark().file().toString() + ":");
        }
    }
}
