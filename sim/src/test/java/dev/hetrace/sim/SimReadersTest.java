package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hetrace.ctf.api.CtfReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulated traces are valid CTF for other readers too (babeltrace2, when installed), and
 * the trace buffers lose and count events as the tracer does when the master drains too slowly.
 */
class SimReadersTest {
    @TempDir
    Path dir;

    private static boolean babeltrace2() {
        try {
            Process p = new ProcessBuilder("babeltrace2", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static long count(Path trace) throws Exception {
        long n = 0;
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                n++;
            }
        }
        return n;
    }

    @Test
    void babeltrace2ReadsEveryCoresTraceEventForEvent() throws Exception {
        assumeTrue(babeltrace2(), "babeltrace2 is not installed: skipped");
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(21).withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8))),
            dir.resolve("board"));
        for (Path trace : r.traces()) {
            Process p = new ProcessBuilder("babeltrace2", trace.toString()).redirectErrorStream(false).start();
            byte[] out = p.getInputStream().readAllBytes();
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("%s: %s", trace, err).isZero();
            long lines = new String(out, StandardCharsets.UTF_8).lines().count();
            assertThat(lines).as(trace.toString()).isEqualTo(count(trace));
        }
    }

    @Test
    void fullTraceBuffersDropEventsAndThePacketsCountThem() throws Exception {
        // one 512-byte packet slot per core, drained once a second, and a busy intruder: events are lost
        SimConfig config = SimConfig.sobel(22).withBuffers(512, 1, 1_000_000_000L)
            .withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        long truth = r.truth().discarded(2);
        assertThat(truth).isPositive();
        long[] reported = {0};
        try (CtfReader reader = CtfReader.open(r.slaves().get(1))) {
            reader.onDiscarded((items, trace, stream) -> reported[0] += items.count());
            while (reader.next()) {
                // the listener counts
            }
        }
        assertThat(reported[0]).isEqualTo(r.truth().discarded(2));
    }
}
