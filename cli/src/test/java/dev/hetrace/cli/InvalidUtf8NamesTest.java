package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task names that differ only in bytes that are not UTF-8 stay different tasks, each shown
 * with its bytes as {@code \xNN}: decoding them to U+FFFD made them one task.
 */
class InvalidUtf8NamesTest {
    @TempDir
    Path dir;

    private Path trace() throws IOException {
        Path t = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(t.resolve("metadata"), """
            /* CTF 1.8 */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;
            trace { major = 1; minor = 8; byte_order = le; };
            clock { name = monotonic; freq = 1000000000; };
            stream { event.header := struct { uint32_t id; clk_t timestamp; }; };
            event { id = 0; name = task_switch; fields := struct { string next_task; }; };
            """);
        byte[][] names = {
            {'w', 'o', 'r', 'k', (byte) 0x80},
            {'w', 'o', 'r', 'k', (byte) 0x81},
            {'w', 'o', 'r', 'k', (byte) 0xff},
            "idle".getBytes(StandardCharsets.US_ASCII)
        };
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        long time = 1000;
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < names.length; k++) {
                b.putInt(0).putLong(time).put(names[k]).put((byte) 0);
                time += 1000L * (k + 1);
            }
        }
        Files.write(t.resolve("stream"), Arrays.copyOf(b.array(), b.position()));
        return t;
    }

    @Test
    void namesDifferingInInvalidBytesAreDifferentTasks() throws Exception {
        Path t = trace();
        Path mapping = Files.writeString(
                dir.resolve("mapping.yaml"), "events:\n  - {event: task_switch, does: switch, next: next_task}\n");
        Cli.Run q = Cli.run(
                "query",
                "--cache",
                dir.resolve("cache").toString(),
                "--mapping",
                mapping.toString(),
                "--format",
                "csv",
                t.toString(),
                "select name from tasks order by name");
        assertThat(q.status()).as(q.err()).isZero();
        assertThat(q.out().lines().toList()).containsExactly("name", "idle", "work\\x80", "work\\x81", "work\\xff");

        Cli.Run stats = Cli.run("stats", "--mapping", mapping.toString(), t.toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        List<String> rows = stats.out().lines().filter(l -> l.contains("work")).toList();
        assertThat(rows)
                .hasSize(3)
                .anyMatch(l -> l.contains("work\\x80"))
                .anyMatch(l -> l.contains("work\\x81"))
                .anyMatch(l -> l.contains("work\\xff"))
                .noneMatch(l -> l.contains("\uFFFD"));
    }
}
