package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Field types nested as deep as the metadata may make them (structs through a chain of
 * typealiases, arrays of arrays: up to 10,000 levels) are printed, as text and JSON, and analysed, by
 * every thread that decodes them; one level deeper is refused in one line. Real processes, with
 * the JVM's default thread stacks, as a user runs them.
 */
class DeepNestingTest {
    @TempDir
    Path dir;

    /** A trace of 3 events whose payload is a struct and an array each nested {@code levels} deep. */
    private Path trace(int levels) throws IOException {
        Path t = Files.createDirectories(dir.resolve("deep" + levels));
        StringBuilder m = new StringBuilder("""
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;
            trace { major = 1; minor = 8; byte_order = le; };
            clock { name = monotonic; freq = 1000000000; };
            stream { event.header := struct { clk_t timestamp; }; };
            typealias struct { uint8_t v; } := t0;
            """);
        for (int i = 1; i < levels; i++) {
            m.append("typealias struct { t")
                    .append(i - 1)
                    .append(" a; } := t")
                    .append(i)
                    .append(";\n");
        }
        m.append("event { name = deep; fields := struct { t")
                .append(levels - 1)
                .append(" x; uint8_t v")
                .append("[1]".repeat(levels - 1))
                .append("; }; };\n");
        Files.writeString(t.resolve("metadata"), m);
        ByteBuffer b = ByteBuffer.allocate(30).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 3; i++) {
            b.putLong(1000L * (i + 1)).put((byte) (40 + i)).put((byte) (50 + i));
        }
        Files.write(t.resolve("stream"), b.array());
        return t;
    }

    private static Cli.Run hetrace(String... args) throws IOException, InterruptedException {
        Cli.Run r = HetraceProcess.run(Duration.ofSeconds(120), args);
        assertThat(r.status()).as("hetrace %s ended", List.of(args)).isNotEqualTo(-1);
        return r;
    }

    @ParameterizedTest(name = "{0} levels")
    @ValueSource(ints = {2000, 3000, 9990})
    void fieldsNestedUpToTheLimitArePrintedAndAnalysed(int levels) throws Exception {
        Path t = trace(levels);
        for (String format : new String[] {"text", "json"}) {
            {
                Cli.Run r = hetrace("print", "--format=" + format, "--threads", "2", t.toString());
                assertThat(r.status())
                        .as("print --format=%s: %s", format, r.err())
                        .isZero();
                assertThat(r.err()).isEmpty();
                List<String> lines = r.out().lines().toList();
                assertThat(lines).hasSize(3);
                String last = lines.get(2);
                if (format.equals("text")) {
                    assertThat(last)
                            .contains("deep: { x = { a = { a = ")
                            .contains("{ v = 42 }")
                            .contains("[0] = 52 ]")
                            .endsWith(" }");
                    assertThat(count(last, "a = ")).isEqualTo(levels - 1);
                } else {
                    assertThat(last)
                            .startsWith("{\"time_ns\":3000,")
                            .contains("{\"v\":42}")
                            .contains("[[52]]");
                    assertThat(count(last, "\"a\":")).isEqualTo(levels - 1);
                }
            }
        }
        Cli.Run q = hetrace(
                "query", "--cache", dir.resolve("cache").toString(), t.toString(), "select count(*) as n from events");
        assertThat(q.status()).as(q.err()).isZero();
        assertThat(q.out()).containsPattern("\\b3\\b");
        Cli.Run d = hetrace("diagnose", t.toString());
        assertThat(d.status()).as(d.err()).isZero();
    }

    @ParameterizedTest(name = "{0} levels")
    @ValueSource(ints = {10_001})
    void deeperIsOneLine(int levels) throws Exception {
        Path t = trace(levels);
        for (String format : new String[] {"text", "json"}) {
            Cli.Run r = hetrace("print", "--format=" + format, t.toString());
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.err().lines().toList())
                    .singleElement()
                    .asString()
                    .isEqualTo("hetrace: " + t.resolve("metadata")
                            + ": field types are nested more than 10000 levels deep");
        }
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }
}
