package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.SyncQuality;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.sync.Synchronizer.TraceSync;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hetrace's synchronizer on simulated boards: every slave's clock is recovered within the
 * accuracy bound it reports, checked against the true clocks of the ground truth.
 */
class SimSyncTest {
    @TempDir
    Path dir;

    private static Synchronizer.Report sync(Simulation.Result r, long piecewiseNanos) throws Exception {
        List<String> warnings = new ArrayList<>();
        return Synchronizer.run(
                r.traces(),
                MatchRules.HETRACE_SYNC,
                ConvexHullSync.Method.BISECTOR,
                0,
                piecewiseNanos,
                warnings::add,
                Synchronizer.Progress.NONE);
    }

    /** The largest distance, over the run, between the synchronized time of a slave's instants and their true master time. */
    private static double worstError(Simulation.Result r, TraceSync s, String core, long from, long to) {
        ClockModel slave = r.truth().core(core).clock();
        ClockModel master = r.truth().core("master").clock();
        double worst = 0;
        for (long t = from; t <= to; t += (to - from) / 50) {
            long reported = slave.traceNanos(t);
            // on the master's clock, its offset apart (a double cannot hold 10^18 ns to the nanosecond)
            double truth = master.localNanos(slave.trueNanosOfTrace(reported));
            double mapped = s.map().apply(reported) - master.offsetSeconds() * 1_000_000_000L;
            worst = Math.max(worst, Math.abs(mapped - truth));
        }
        return worst;
    }

    @Test
    void everySlaveIsRecoveredWithinItsReportedAccuracy() throws Exception {
        SimConfig config = SimConfig.sobel(11).withJitter(2);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        Synchronizer.Report report = sync(r, 0);
        long end = config.effectiveDurationNanos();
        for (int i = 1; i < report.traces().size(); i++) {
            TraceSync s = report.traces().get(i);
            String core = "dsp" + (i - 1);
            assertThat(s.quality()).as(core).isEqualTo(SyncQuality.ACCURATE);
            long bound = s.accuracyNanos().orElseThrow();
            assertThat(bound).as(core).isBetween(1L, 20_000L);
            // between the first and the last handshake, where the bound holds; jitter and cycle rounding aside
            double error = worstError(r, s, core, config.syncPeriodNanos(), end - config.syncPeriodNanos());
            assertThat(error).as("%s: error vs bound %d ns", core, bound).isLessThanOrEqualTo(bound + 4.0);
        }
    }

    @Test
    void anEpiphanyBoardWithWrappingCountersIsRecoveredToo() throws Exception {
        // 16 eCores at 1 GHz with 32-bit counters: 6 s is more than one wrap of every counter
        SimConfig config =
                SimConfig.sobel(12).withSlaves(16).withImages(3, 400_000_000L).withDuration(6_000_000_000L);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        Synchronizer.Report report = sync(r, 0);
        for (int i = 1; i < report.traces().size(); i++) {
            TraceSync s = report.traces().get(i);
            String core = "dsp" + (i - 1);
            assertThat(r.truth().core(core).clock().wraps32()).isTrue();
            assertThat(s.quality()).as(core).isEqualTo(SyncQuality.ACCURATE);
            long bound = s.accuracyNanos().orElseThrow();
            double error = worstError(
                    r, s, core, config.syncPeriodNanos(), config.effectiveDurationNanos() - config.syncPeriodNanos());
            assertThat(error).as("%s: error vs bound %d ns", core, bound).isLessThanOrEqualTo(bound + 2.0);
        }
    }

    @Test
    void aDriftJumpDefeatsOneLineAndIsFollowedPiecewise() throws Exception {
        SimConfig config = SimConfig.sobel(13)
                .withSyncPeriod(20_000_000L)
                .withDuration(4_000_000_000L)
                .withFaults(List.of(Fault.parse("drift-jump:dsp3", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        long end = config.effectiveDurationNanos();

        Synchronizer.Report oneLine = sync(r, 0);
        TraceSync line = oneLine.traces().get(4);
        TraceSync steady = oneLine.traces().get(3);
        // no single line keeps every handshake of the pair causal: the pair fails and dsp3 is left unconnected
        assertThat(oneLine.pairs())
                .filteredOn(p -> p.other() == 4 || p.reference() == 4)
                .singleElement()
                .satisfies(p -> assertThat(p.result().quality()).isEqualTo(SyncQuality.FAIL));
        assertThat(line.connected()).isFalse();
        assertThat(steady.quality()).isEqualTo(SyncQuality.ACCURATE);

        TraceSync pieces = sync(r, 500_000_000L).traces().get(4);
        assertThat(pieces.quality()).isEqualTo(SyncQuality.ACCURATE);
        long bound = pieces.accuracyNanos().orElseThrow();
        assertThat(bound).isLessThan(50_000L);
        double error = worstError(r, pieces, "dsp3", config.syncPeriodNanos(), end - config.syncPeriodNanos());
        assertThat(error).as("error vs bound %d ns", bound).isLessThanOrEqualTo(bound + 2.0);
        System.out.printf(
                "drift jump on dsp3: one line %s (bound %s ns, dsp2's %s ns); piecewise bound %d ns, worst"
                        + " true error %.0f ns%n",
                line.quality(),
                line.accuracyNanos().map(String::valueOf).orElse("-"),
                steady.accuracyNanos().orElseThrow(),
                bound,
                error);
    }
}
