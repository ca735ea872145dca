package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CTF 2 twins of CTF 1.8 corpus traces ({@code ../shared/corpus/ctf2}: the same data streams,
 * the metadata as CTF 2 JSON fragments) print exactly what babeltrace2 printed for the CTF 1.8
 * trace.
 */
class Ctf2CorpusTest {
    static Path ctf2(String name) {
        Path p = ConformanceTest.corpus().resolve("ctf2").resolve(name);
        if ("true".equals(System.getenv("CI"))) {
            assertThat(p).as("the corpus under CI").isDirectory();
        }
        Assumptions.assumeTrue(Files.isDirectory(p), "corpus absent: " + p);
        return p;
    }

    @ParameterizedTest
    @ValueSource(strings = {"barectf-event-before-packet", "meta-variant-no-underscore", "smalltrace", "succeed1"})
    void aCtf2TwinPrintsWhatBabeltracePrintedForItsCtf18Trace(String name) throws IOException {
        Path trace = ctf2(name);
        Cli.Run run = Cli.run("print", trace.toString());
        assertThat(run.status()).as("stderr: %s", run.err()).isZero();
        String expected = Files.readString(ConformanceTest.corpus().resolve("expected/babeltrace/succeed/" + name
            + ".out"), StandardCharsets.UTF_8);
        assertThat(run.out()).isEqualTo(expected);
    }
}
