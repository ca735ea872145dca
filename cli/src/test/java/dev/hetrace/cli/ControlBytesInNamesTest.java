package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
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
 * Names from a trace (tasks, events) holding terminal control bytes (ESC[2J clearing the screen,
 * an OSC sequence retitling the window, a carriage return overwriting the line, C1 controls)
 * reach no terminal raw: every command's text output shows them escaped, as {@code print} does.
 */
class ControlBytesInNamesTest {
    @TempDir
    Path dir;

    static final String CLEAR = "clear\u001b[2J";
    static final String TITLE = "title\u001b]0;pwned\u0007";
    static final String CR = "cr\rfake";
    static final String CSI = "csi\u009b31m";

    /** task_switch events between tasks of those names, and an event class whose name has ESC and CR in it. */
    private Path trace() throws IOException {
        Path t = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(t.resolve("metadata"), """
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := clk_t;
            trace { major = 1; minor = 8; byte_order = le; };
            clock { name = monotonic; freq = 1000000000; };
            stream { event.header := struct { uint32_t id; clk_t timestamp; }; };
            event { id = 0; name = task_switch; fields := struct { string next_task; }; };
            event { id = 1; name = "mark\\x1b[2J\\r"; fields := struct { uint8_t v; }; };
            """);
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        String[] tasks = {CLEAR, TITLE, CR, CSI, "idle"};
        long time = 1000;
        for (int round = 0; round < 4; round++) {
            for (String task : tasks) {
                b.putInt(0)
                        .putLong(time)
                        .put(task.getBytes(StandardCharsets.UTF_8))
                        .put((byte) 0);
                time += 1000 + 100L * task.length() * (round + 1);
            }
            b.putInt(1).putLong(time).put((byte) round);
            time += 10;
        }
        Files.write(t.resolve("stream"), Arrays.copyOf(b.array(), b.position()));
        return t;
    }

    private Path mapping() throws IOException {
        return Files.writeString(
                dir.resolve("mapping.yaml"), "events:\n  - {event: task_switch, does: switch, next: next_task}\n");
    }

    /** Output and errors, as bytes decoded, of one in-process run. */
    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), args);
        String o = out.toString(StandardCharsets.UTF_8);
        String e = err.toString(StandardCharsets.UTF_8);
        assertThat(status).as("%s: %s", List.of(args), e).isZero();
        assertNoControls(String.join(" ", args) + " (stdout)", o);
        assertNoControls(String.join(" ", args) + " (stderr)", e);
        return o;
    }

    private static void assertNoControls(String what, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F || (c >= 0x80 && c <= 0x9F);
            assertThat(control)
                    .as("%s: control character U+%04X at %d in:%n%s", what, (int) c, i, s)
                    .isFalse();
        }
    }

    @Test
    void statsDiagnoseQueryAndWaitsPrintNoControlByte() throws Exception {
        Path t = trace();
        String m = mapping().toString();
        String cache = dir.resolve("cache").toString();

        String stats = run("stats", "--mapping", m, t.toString());
        assertThat(stats).contains("clear\\e[2J", "title\\e]0;pwned\\a", "cr\\rfake", "csi\\x9b31m");
        run("stats", "--format", "csv", "--mapping", m, t.toString());
        String json = run("stats", "--format", "json", "--mapping", m, t.toString());
        assertThat(json).contains("clear\\u001b[2J");

        run("diagnose", "--mapping", m, t.toString());
        run("waits", "--mapping", m, t.toString());

        String tasks =
                run("query", "--cache", cache, "--mapping", m, t.toString(), "select name from tasks order by name");
        assertThat(tasks).contains("clear\\e[2J", "title\\e]0;pwned\\a", "cr\\rfake", "csi\\x9b31m");
        String events = run(
                "query",
                "--cache",
                cache,
                "--mapping",
                m,
                t.toString(),
                "select distinct name from events order by name");
        assertThat(events).contains("mark\\e[2J\\r");
        run("query", "--cache", cache, "--format", "csv", "--mapping", m, t.toString(), "select * from events");
        run("query", "--cache", cache, "--format", "json", "--mapping", m, t.toString(), "select * from tasks");

        // print writes strings as babeltrace2 does: C0 controls and DEL escaped, other bytes as they are
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(Main.run(
                        out,
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        "print",
                        t.toString()))
                .isZero();
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("\"clear\\e[2J\"").contains("\"cr\\rfake\"");
        assertThat(printed.chars().filter(c -> (c < 0x20 && c != '\n') || c == 0x7F))
                .isEmpty();
    }
}
