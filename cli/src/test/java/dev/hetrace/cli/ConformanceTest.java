package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs {@code hetrace print} on every trace of the conformance corpus
 * ({@code ../shared/corpus/expected/manifest.tsv}): traces the CTF suite says are valid are read
 * (and, where babeltrace2 2.0.4 read them too, printed byte for byte as it did); invalid ones are
 * rejected with one clear line. babeltrace2 gets 29 of these wrong; hetrace must get none wrong.
 */
class ConformanceTest {
    /** Rows of the manifest whose expected output we knowingly differ from (none so far). */
    private static final List<String> DOCUMENTED_EXCEPTIONS = List.of();

    record Row(String trace, boolean valid, int babeltraceStatus, int babeltraceLines) {}

    static Path corpus() {
        return Required.corpus();
    }

    @TestFactory
    Stream<DynamicTest> everyCorpusTraceIsReadOrRejectedAsTheSuiteSays() throws IOException {
        Path corpus = corpus();
        Path manifest = corpus.resolve("expected/manifest.tsv");
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(manifest)) {
            String[] f = line.split("\t");
            if (f[0].equals("trace")) {
                continue;
            }
            rows.add(new Row(f[0], f[1].equals("pass"), Integer.parseInt(f[2]), Integer.parseInt(f[3])));
        }
        assertThat(rows).hasSize(236);
        return rows.stream()
                .map(row -> DynamicTest.dynamicTest(
                        row.trace(),
                        () -> Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () -> check(corpus, row))));
    }

    private static void check(Path corpus, Row row) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            status = Main.run(out, err, "print", corpus.resolve(row.trace()).toString());
        }
        String err = errBytes.toString(StandardCharsets.UTF_8);
        if (row.valid()) {
            assertThat(status)
                    .as("exit status on a valid trace; stderr: %s", err)
                    .isZero();
            if (row.babeltraceStatus() == 0 && !DOCUMENTED_EXCEPTIONS.contains(row.trace())) {
                byte[] expected = Files.readAllBytes(corpus.resolve("expected/" + row.trace() + ".out"));
                byte[] actual = out.toByteArray();
                if (row.babeltraceLines() >= 100_000) {
                    actual = firstLines(actual, 100_000);
                }
                assertThat(new String(actual, StandardCharsets.ISO_8859_1))
                        .as("output identical to babeltrace2's")
                        .isEqualTo(new String(expected, StandardCharsets.ISO_8859_1));
            }
        } else {
            assertThat(status)
                    .as("exit status on an invalid trace; stderr: %s", err)
                    .isEqualTo(1);
            List<String> lines =
                    err.lines().filter(l -> !l.startsWith("hetrace: warning:")).toList();
            assertThat(lines).as("one clear error line").hasSize(1);
            assertThat(lines.getFirst()).startsWith("hetrace: ").doesNotContain("Exception");
        }
    }

    private static byte[] firstLines(byte[] data, int n) {
        int lines = 0;
        for (int i = 0; i < data.length; i++) {
            if (data[i] == '\n' && ++lines == n) {
                return Arrays.copyOf(data, i + 1);
            }
        }
        return data;
    }
}
