package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@code hetrace print} on arbitrary metadata and stream bytes either succeeds or stops with
 * one clean error line: never a stack trace, an internal error, a hang or a runaway
 * allocation. An input is a metadata text, the separator line {@code #STREAM#}, then the bytes
 * of the one stream file. The build replays the committed inputs of
 * {@code PrintFuzzTestInputs/} (seeds written by hetrace's CTF writer, and what earlier fuzzing
 * found that reached new code); with {@code -Pfuzz} ({@code JAZZER_FUZZ=1}) Jazzer mutates them
 * for the duration given below, and what it finds can be committed there.
 */
class PrintFuzzTest {
    private static final byte[] SEPARATOR = "\n#STREAM#\n".getBytes(StandardCharsets.US_ASCII);
    private static Path dir;

    @BeforeAll
    static void makeTraceDirectory() throws IOException {
        dir = Files.createTempDirectory("hetrace-fuzz");
    }

    @AfterAll
    static void removeTraceDirectory() throws IOException {
        Files.deleteIfExists(dir.resolve("metadata"));
        Files.deleteIfExists(dir.resolve("stream"));
        Files.deleteIfExists(dir);
    }

    @FuzzTest(maxDuration = "90s")
    void printEndsInSuccessOrOneCleanError(byte[] input) throws IOException {
        int cut = indexOf(input, SEPARATOR);
        byte[] metadata = cut < 0 ? input : Arrays.copyOfRange(input, 0, cut);
        byte[] stream = cut < 0 ? new byte[0] : Arrays.copyOfRange(input, cut + SEPARATOR.length, input.length);
        Files.write(dir.resolve("metadata"), metadata);
        Files.write(dir.resolve("stream"), stream);
        for (PrintCommand.Format format : PrintCommand.Format.values()) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
            int rc = PrintCommand.print(
                    List.of(dir), format, out, new PrintStream(errBytes, true, StandardCharsets.UTF_8), false);
            String err = errBytes.toString(StandardCharsets.UTF_8);
            assertThat(rc).as("exit status; stderr: %s", err).isIn(0, 1);
            assertThat(err)
                    .doesNotContain("internal error")
                    .doesNotContain("\tat ")
                    .doesNotContain("Exception");
            if (rc == 1) {
                String[] lines = err.strip().split("\n");
                assertThat(lines[lines.length - 1]).startsWith("hetrace: ").doesNotStartWith("hetrace: warning");
            }
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
