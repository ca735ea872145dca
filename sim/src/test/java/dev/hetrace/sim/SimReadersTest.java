package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.testing.Required;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulated traces are valid CTF for other readers too (babeltrace2), and
 * the trace buffers lose and count events as the tracer does when the master drains too slowly.
 */
class SimReadersTest {
    @TempDir
    Path dir;

    /** The times (ns) of a trace's events as hetrace's reader reports them, sorted. */
    private static List<Long> times(Path trace) throws Exception {
        List<Long> times = new ArrayList<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                times.add(r.event().timeNanos());
            }
        }
        Collections.sort(times);
        return times;
    }

    /** The times (ns) babeltrace2 prints for a trace's events ({@code [SECONDS.NANOS]}), sorted. */
    private static List<Long> babeltrace2Times(Path trace) throws Exception {
        Process p = new ProcessBuilder("babeltrace2", "--clock-seconds", trace.toString()).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("%s: %s", trace, err).isZero();
        List<Long> times = new ArrayList<>();
        for (String line : new String(out, StandardCharsets.UTF_8).lines().toList()) {
            String t = line.substring(1, line.indexOf(']'));
            int dot = t.indexOf('.');
            times.add(Long.parseLong(t.substring(0, dot)) * 1_000_000_000L + Long.parseLong(t.substring(dot + 1)));
        }
        Collections.sort(times);
        return times;
    }

    @Test
    void babeltrace2ReadsEveryCoresTraceAtTheSameTimesAsHetrace() throws Exception {
        Required.tool("babeltrace2", "--version");
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(21).withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8))), dir.resolve("board"));
        for (Path trace : r.traces()) {
            assertThat(babeltrace2Times(trace)).as(trace.toString()).isEqualTo(times(trace));
        }
    }

    @Test
    void babeltrace2ReadsTheExtendedCountersOfWrappingEcoresAsHetraceDoes() throws Exception {
        Required.tool("babeltrace2", "--version");
        // 1 GHz 32-bit counters wrap every 4.3 s: in 5 s, every one wraps
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(23).withSlaves(12).withImages(2, 400_000_000L).withDuration(5_000_000_000L),
                dir.resolve("board"));
        for (Path trace : r.slaves().subList(0, 3)) {
            List<Long> times = times(trace);
            assertThat(times.getLast() - times.getFirst()).isGreaterThan(4_500_000_000L);
            assertThat(times.getLast()).isGreaterThan(1L << 32);
            assertThat(babeltrace2Times(trace)).as(trace.toString()).isEqualTo(times);
        }
    }

    @Test
    void fullTraceBuffersDropEventsAndThePacketsCountThem() throws Exception {
        // one 512-byte packet slot per core, drained once a second, and a busy intruder: events are lost
        SimConfig config = SimConfig.sobel(22)
                .withBuffers(512, 1, 1_000_000_000L)
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
