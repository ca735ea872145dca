package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code hetrace diagnose} on a real desktop kernel trace ({@code many-threads}: 8 CPUs, a program
 * starting and ending 8,000 threads): one screen, nothing about the threads that exited, no
 * blocking system call taken for an outlier for its wait, no cause the trace does not show.
 */
class KernelDiagnosisTest {
    private static Path manyThreads() {
        return Required.corpus("real", "many-threads");
    }

    @Test
    void aDesktopKernelTracesDiagnosisFitsOnOneScreenAndSaysNothingOfExitedThreadsNorOfBlockingCalls()
            throws Exception {
        Path trace = manyThreads();
        // the threads that exited, and the names of the system calls each thread blocked in, read apart
        Set<Long> exited = new HashSet<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                if (e.name().equals("sched_process_exit")) {
                    exited.add(e.getLong("tid"));
                }
            }
        }
        assertThat(exited).hasSizeGreaterThan(8000);
        Cli.Run text = Cli.run("diagnose", trace.toString());
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out().lines().count())
                .as("lines of the diagnosis:%n%s", text.out())
                .isLessThanOrEqualTo(50);

        Cli.Run json = Cli.run("diagnose", "--format", "json", trace.toString());
        assertThat(json.status()).as(json.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(json.out());
        // nothing stuck: the exited threads are dead, the daemons blocked in poll at the end wait for nothing asked
        assertThat(j.get("stuck")).isEmpty();
        assertThat(j.get("silent")).isEmpty();
        for (JsonNode o : j.get("outliers")) {
            assertThat(o.get("name").asText())
                    .as("an outlier of a thread's exit: %s", o)
                    .isNotEqualTo("exit");
        }
        for (JsonNode f : j.get("findings")) {
            String s = f.asText();
            // of a thread that exited, its calls while it lived only: not its exit, nor its being gone
            assertThat(s)
                    .doesNotContain("blocked since")
                    .doesNotContain("waiting since")
                    .doesNotContain(": exit took")
                    .doesNotContain(" in exit")
                    .doesNotContain("neither preempted nor blocked");
        }
        // an outlier's measure leaves out the time it was blocked: a poll or wait4 that blocked is none
        for (JsonNode o : j.get("outliers")) {
            long blocked = o.get("blocked_ns").asLong();
            long duration = o.get("duration_ns").asLong();
            if (o.get("kind").asText().equals("call")) {
                assertThat(duration - blocked)
                        .as("%s", o)
                        .isGreaterThan(2 * o.get("median_ns").asLong());
            }
        }
    }
}
