package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.MessageMatcher;
import dev.hetrace.sync.SyncQuality;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.sync.Synchronizer.TraceSync;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The i.MX8-like board: Linux's LTTng-UST trace and the Cortex-M cores' Zephyr traces read back
 * as the truth says, the same seed writes the same bytes, and the RPMsg messages alone put every
 * Cortex-M core on Linux's clock within the bound the synchronizer reports.
 */
class SimImx8Test {
    @TempDir
    Path dir;

    private static Map<String, byte[]> files(Path root) throws Exception {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    @Test
    void rpmsgPairsPutEveryCortexMCoreOnLinuxsClockWithinTheReportedBound() throws Exception {
        Imx8Config config = Imx8Config.of(8).withMCores(4);
        Simulation.Result r = Simulation.imx8(config, dir.resolve("board"));
        assertThat(r.traces().stream().map(p -> p.getFileName().toString()))
                .containsExactly("linux", "m0", "m1", "m2", "m3");
        Synchronizer.Report report =
                Synchronizer.run(r.traces(), MatchRules.DEFAULT, ConvexHullSync.Method.BISECTOR, 0, w -> {});
        MessageMatcher.RuleStats rpmsg = report.rules().stream()
                .filter(s -> s.rule().name().equals("rpmsg"))
                .findFirst()
                .orElseThrow();
        // every message both sides traced meets its other half; only those still in flight at the end do not
        assertThat(rpmsg.matched()).isGreaterThan(4 * 1000);
        assertThat(rpmsg.unmatchedSends()).isLessThanOrEqualTo(4 * 2);
        assertThat(rpmsg.unmatchedReceives() + rpmsg.repeats() + rpmsg.sameTrace())
                .isZero();

        ClockModel linux = r.truth().core("linux").clock();
        for (int i = 1; i < report.traces().size(); i++) {
            TraceSync s = report.traces().get(i);
            String core = "m" + (i - 1);
            ClockModel m = r.truth().core(core).clock();
            assertThat(m.frequencyHz()).isEqualTo(400_000_000L);
            assertThat(s.quality()).as(core).isEqualTo(SyncQuality.ACCURATE);
            assertThat(s.via()).as(core).isZero();
            long bound = s.accuracyNanos().orElseThrow();
            assertThat(bound).as(core).isBetween(1L, 60_000L);
            // from the core's first messages to the end of the run
            long from = (long) m.trueNanos(0) + 100_000_000L;
            long to = config.durationNanos() - 10_000_000L;
            double worst = 0;
            for (long at = from; at <= to; at += (to - from) / 500) {
                long reported = m.floorNanos(at);
                double truth = linux.localNanos(m.trueNanos(reported * (m.frequencyHz() / 1e9)));
                double mapped = s.map().apply(reported) - linux.offsetSeconds() * 1_000_000_000L;
                worst = Math.max(worst, Math.abs(mapped - truth));
            }
            // a reported ns stands for up to 2.5 ns of counts, and the map rounds to 1 ns
            assertThat(worst).as("%s: true error vs bound %d ns", core, bound).isLessThanOrEqualTo(bound + 4.0);
        }
    }

    @Test
    void theTracesReadBackAsTheTruthSaysAndTheZephyrTimestampsWrap() throws Exception {
        Simulation.Result r = Simulation.imx8(Imx8Config.of(3).withMCores(2), dir.resolve("board"));
        // Linux's calls, by address, on its per-CPU streams
        Map<Long, String> byAddress = new TreeMap<>();
        r.truth().symbols().forEach((name, address) -> byAddress.put(address, name));
        List<String> calls = new ArrayList<>();
        List<long[]> open = new ArrayList<>();
        int sends = 0;
        try (CtfReader reader = CtfReader.open(r.master())) {
            Event e = reader.event();
            while (reader.next()) {
                switch (e.name()) {
                    case "lttng_ust_cyg_profile:func_entry" ->
                        open.add(new long[] {e.getLong("vtid"), e.getLong("addr"), e.timeNanos()});
                    case "lttng_ust_cyg_profile:func_exit" -> {
                        long vtid = e.getLong("vtid");
                        long[] entry = open.stream()
                                .filter(o -> o[0] == vtid)
                                .findFirst()
                                .orElseThrow();
                        open.remove(entry);
                        calls.add("rpmsg-m" + (vtid - 1400) + " " + byAddress.get(entry[1]) + " " + entry[2] + " "
                                + e.timeNanos());
                    }
                    case "hetrace_rpmsg:send" -> sends++;
                    default -> {}
                }
            }
        }
        List<String> truthCalls = r.truth().intervals().stream()
                .filter(i -> i.core().equals("linux"))
                .map(i -> i.task() + " " + i.name() + " " + i.startTraceNanos() + " " + i.endTraceNanos())
                .toList();
        assertThat(calls).containsExactlyInAnyOrderElementsOf(truthCalls);
        assertThat(truthCalls.stream().filter(c -> c.contains(" rproc_boot "))).hasSize(2);
        assertThat(sends).isGreaterThan(2 * 400);

        // each Zephyr core: the threads' switches at the truth's times, past the 32-bit wrap
        for (String core : List.of("m0", "m1")) {
            Path trace = r.slaves().get(Integer.parseInt(core.substring(1)));
            assertThat(Files.readString(trace.resolve("metadata"))).contains("name = named_event;");
            List<Long> switches = new ArrayList<>();
            long last = 0;
            try (CtfReader reader = CtfReader.open(trace)) {
                Event e = reader.event();
                while (reader.next()) {
                    if (e.name().equals("thread_switched_in")) {
                        switches.add(e.timeNanos());
                    }
                    last = e.timeNanos();
                }
            }
            List<Long> runs = r.truth().intervals().stream()
                    .filter(i -> i.core().equals(core) && i.kind().equals("run"))
                    .map(GroundTruth.Interval::startTraceNanos)
                    .toList();
            assertThat(switches).as(core).containsAll(runs);
            assertThat(last).as("%s: times extended past the wrap", core).isGreaterThan(1L << 32);
        }
    }

    @Test
    void theSameSeedWritesTheSameBytesAndAnotherSeedOthers() throws Exception {
        Imx8Config config = Imx8Config.of(5).withMCores(2).withDuration(2_000_000_000L);
        Map<String, byte[]> a = files(
                Simulation.imx8(config, dir.resolve("a")).groundTruthFile().getParent());
        Map<String, byte[]> b = files(
                Simulation.imx8(config, dir.resolve("b")).groundTruthFile().getParent());
        Map<String, byte[]> c =
                files(Simulation.imx8(Imx8Config.of(6).withMCores(2).withDuration(2_000_000_000L), dir.resolve("c"))
                        .groundTruthFile()
                        .getParent());
        assertThat(a.keySet())
                .isEqualTo(b.keySet())
                .isEqualTo(c.keySet())
                .contains(
                        "ground-truth.json",
                        "linux/metadata",
                        "linux/channel0_0",
                        "linux/channel0_3",
                        "m0/metadata",
                        "m0/channel0_0",
                        "m1/channel0_0");
        for (String f : a.keySet()) {
            assertThat(Arrays.equals(a.get(f), b.get(f))).as(f).isTrue();
        }
        assertThat(Arrays.equals(a.get("m0/channel0_0"), c.get("m0/channel0_0")))
                .isFalse();
    }

    @Test
    void aBoardOutsideItsLimitsIsRefusedInOneLine() {
        assertThatThrownBy(() -> Imx8Config.of(1).withMCores(5))
                .hasMessage("--m-cores 5: the imx8 board has 1 to 4 Cortex-M cores");
        assertThatThrownBy(() -> Imx8Config.of(1).withDuration(12_000_000_000L))
                .hasMessageStartingWith("--duration 12.000s: the imx8 board runs 1.5 s to 10 s");
    }
}
