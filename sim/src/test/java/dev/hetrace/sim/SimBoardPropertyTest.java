package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.SyncQuality;
import dev.hetrace.sync.Synchronizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Whatever the seed, the board size and the faults: every event the tracers recorded reads
 * back, and every slave that is still answering the sync daemon at the end is put on the
 * master's clock within its reported bound of the truth.
 */
class SimBoardPropertyTest {
    @Property(tries = 12)
    void everyRunReadsBackAndEveryLiveSlaveIsRecoveredWithinItsBound(
            @ForAll @LongRange(min = 0, max = 1_000_000) long seed,
            @ForAll @IntRange(min = 1, max = 12) int slaves,
            @ForAll @IntRange(min = 0, max = 15) int faultMask)
            throws Exception {
        List<Fault> faults = new ArrayList<>();
        if ((faultMask & 1) != 0 && slaves >= 3) {
            faults.add(Fault.parse("preempt:dsp1,dsp2", slaves));
        }
        if ((faultMask & 2) != 0) {
            faults.add(Fault.parse("hang:dsp" + (slaves - 1), slaves));
        }
        boolean crash = (faultMask & 4) != 0 && slaves >= 2;
        if (crash) {
            faults.add(Fault.parse("crash:dsp" + (slaves / 2), slaves));
        }
        SimConfig config = SimConfig.sobel(seed)
                .withSlaves(slaves)
                .withImages(3, 300_000_000L)
                .withFaults(faults);
        Path dir = Files.createTempDirectory("hetrace-sim-property");
        try {
            Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
            long events = 0;
            for (Path trace : r.traces()) {
                try (CtfReader reader = CtfReader.open(trace)) {
                    while (reader.next()) {
                        events++;
                    }
                }
            }
            assertThat(events).isEqualTo(r.events());

            Synchronizer.Report report = Synchronizer.run(
                    r.traces(),
                    MatchRules.HETRACE_SYNC,
                    ConvexHullSync.Method.BISECTOR,
                    0,
                    0,
                    w -> {},
                    Synchronizer.Progress.NONE);
            ClockModel master = r.truth().core("master").clock();
            for (int i = 1; i < report.traces().size(); i++) {
                String core = "dsp" + (i - 1);
                Synchronizer.TraceSync s = report.traces().get(i);
                if (crash && core.equals("dsp" + (slaves / 2))) {
                    continue;
                }
                assertThat(s.quality()).as("%s (seed %d)", core, seed).isEqualTo(SyncQuality.ACCURATE);
                long bound = s.accuracyNanos().orElseThrow();
                ClockModel clock = r.truth().core(core).clock();
                for (long t = config.syncPeriodNanos();
                        t < config.effectiveDurationNanos() - config.syncPeriodNanos();
                        t += 50_000_000L) {
                    long reported = clock.traceNanos(t);
                    double truth = master.localNanos(clock.trueNanosOfTrace(reported));
                    double mapped = s.map().apply(reported) - master.offsetSeconds() * 1_000_000_000L;
                    assertThat(Math.abs(mapped - truth))
                            .as("%s at %d ns (seed %d)", core, t, seed)
                            .isLessThanOrEqualTo(bound + 2.0);
                }
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
