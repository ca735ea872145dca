package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the collect tests that run a producer and {@code hetrace collect} share: the processes
 * they start (killed after each test), the wait for the collector to read, and the checks of the
 * trace it wrote.
 */
final class CollectorRuns {
    private final List<Process> started = new ArrayList<>();

    /** Starts {@code pb} (its standard error inherited unless redirected), to be killed by {@link #killAll()}. */
    Process start(ProcessBuilder pb) throws IOException {
        if (pb.redirectError() == ProcessBuilder.Redirect.PIPE) {
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        }
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** Kills every process started, and waits for each to end. */
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    /** Waits (60 s at most) until the collector says on its standard error, {@code err}, that it reads. */
    static void awaitReading(Process collector, Supplier<String> err) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!err.get().contains("reading")) {
            assertThat(collector.isAlive())
                    .as("collector running: %s", err.get())
                    .isTrue();
            assertThat(System.nanoTime()).as("collector started in time").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * Checks that {@code trace} holds the producer's {@code events} events "event 0" on, as
     * {@code hetrace print} and (when installed) babeltrace2 read it.
     */
    static void assertEveryEvent(Path dir, Path trace, int events) throws Exception {
        Cli.Run print = HetraceProcess.run(Duration.ofSeconds(60), "print", "--format=json", trace.toString());
        assertThat(print.status()).isZero();
        List<String> lines = print.out().lines().toList();
        assertThat(lines).hasSize(events);
        for (int i = 0; i < lines.size(); i += 997) {
            assertThat(lines.get(i)).contains("\"seq\":" + i).contains("\"msg\":\"event " + i + "\"");
        }
        if (Required.ifPresent(ShmProducer.run(dir, "babeltrace2", "--version") == 0, "babeltrace2 is not installed")) {
            String bt2 = new String(
                    new ProcessBuilder("babeltrace2", trace.toString())
                            .start()
                            .getInputStream()
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(bt2.lines().count()).isEqualTo(events);
            assertThat(bt2.lines().filter(l -> l.contains("msg = \"event " + (events - 1) + "\"")))
                    .hasSize(1);
        }
    }

    /** Checks that the trace of a stopped collector reads, its events numbered from 0 without a gap. */
    static void assertReadsWithoutAGap(Path trace) throws Exception {
        Cli.Run print = HetraceProcess.run(Duration.ofSeconds(60), "print", "--format=json", trace.toString());
        assertThat(print.status()).isZero();
        List<String> lines = print.out().lines().toList();
        assertThat(lines).isNotEmpty();
        assertThat(lines.getLast()).contains("\"seq\":" + (lines.size() - 1) + ",");
    }
}
