package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.sim.GroundTruth.Interval;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Sobel scenario on the default board: traces that hetrace reads back, whose events agree
 * with the ground truth, with the seeds' magnitudes (about 96 ms per part, about 300 ms when a
 * high-priority task preempts dsp1 and dsp2).
 */
class SimSobelTest {
    private static final String FILTER_NAME = SobelScenario.FILTER;

    @TempDir
    Path dir;

    @Test
    void everyCoreHasATraceThatHetraceReadsWithTheEventsOfItsTracer() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(1), dir.resolve("board"));
        assertThat(r.slaves()).hasSize(8);
        assertThat(r.groundTruthFile()).exists();
        Set<String> masterNames =
                SimTraces.read(r.master()).stream().map(SimTraces.Read::name).collect(Collectors.toSet());
        assertThat(masterNames)
                .containsExactlyInAnyOrder(
                        "lttng_ust_cyg_profile:func_entry",
                        "lttng_ust_cyg_profile:func_exit",
                        "msgq_put",
                        "msgq_get",
                        "hetrace_sync_send",
                        "hetrace_sync_recv");
        for (Path dsp : r.slaves()) {
            Set<String> names =
                    SimTraces.read(dsp).stream().map(SimTraces.Read::name).collect(Collectors.toSet());
            assertThat(names)
                    .as(dsp.toString())
                    .contains(
                            "task_switch",
                            "msgq_put",
                            "msgq_get",
                            "func_entry",
                            "func_exit",
                            "irq_entry",
                            "irq_exit",
                            "hetrace_sync_send",
                            "hetrace_sync_recv");
            // a core takes messages only from its own queues, which the truth names
            String core = dsp.getFileName().toString();
            Set<Long> own = r.truth().queues().stream()
                    .filter(q -> q.core().equals(core))
                    .map(q -> (long) q.id())
                    .collect(Collectors.toSet());
            assertThat(own).isNotEmpty();
            try (CtfReader reader = CtfReader.open(dsp)) {
                while (reader.next()) {
                    if (reader.event().name().equals("msgq_get")) {
                        assertThat(own).contains(reader.event().getLong("queue"));
                    }
                }
            }
        }
        assertThat(Files.readString(r.groundTruthFile()))
                .contains("{\"id\": 1, \"core\": \"master\", \"name\": \"alloc_reply\"}");
    }

    @Test
    void eachDspFiltersItsPartInAbout96msAsTheTraceAndTheTruthAgree() throws Exception {
        SimConfig config = SimConfig.sobel(2);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        for (int i = 0; i < 8; i++) {
            String core = "dsp" + i;
            List<Interval> truth = r.truth().calls(core, SobelScenario.FILTER);
            List<long[]> traced = SimTraces.calls(SimTraces.read(r.slaves().get(i)), SobelScenario.FILTER);
            assertThat(truth).as(core).hasSize(config.images());
            assertThat(traced).as(core).hasSize(truth.size());
            for (int k = 0; k < truth.size(); k++) {
                Interval t = truth.get(k);
                assertThat(t.durationNanos() / 1e6).as("%s image %d", core, k).isCloseTo(96, within(1.5));
                assertThat(traced.get(k)[0]).isCloseTo(t.startTraceNanos(), within(1L));
                assertThat(traced.get(k)[1]).isCloseTo(t.endTraceNanos(), within(1L));
            }
        }
    }

    @Test
    void theTaskSwitchesOfEverySlaveTellTheTrueRunningStretchesOfItsTasks() throws Exception {
        SimConfig config = SimConfig.sobel(6).withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        for (int i = 0; i < 8; i++) {
            String core = "dsp" + i;
            List<Interval> truth = r.truth().intervals().stream()
                    .filter(v -> v.core().equals(core)
                            && v.kind().equals("run")
                            && v.endNanos() < config.effectiveDurationNanos())
                    .toList();
            List<Object[]> traced = SimTraces.runs(SimTraces.read(r.slaves().get(i)));
            assertThat(traced).as(core).hasSize(truth.size());
            for (int k = 0; k < truth.size(); k++) {
                Interval t = truth.get(k);
                assertThat(traced.get(k)[0]).as("%s run %d", core, k).isEqualTo(t.task());
                assertThat((long) traced.get(k)[1]).isCloseTo(t.startTraceNanos(), within(1L));
                assertThat((long) traced.get(k)[2]).isCloseTo(t.endTraceNanos(), within(1L));
            }
        }
    }

    @Test
    void theMastersFunctionsAreTracedByAddressAtTheirTrueTimes() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(7), dir.resolve("board"));
        long addr = r.truth().symbols().get("process_image");
        List<Long> entries = new ArrayList<>();
        List<Long> exits = new ArrayList<>();
        try (CtfReader reader = CtfReader.open(r.master())) {
            while (reader.next()) {
                Event e = reader.event();
                if (e.name().startsWith("lttng_ust_cyg_profile:func_") && e.getLong("addr") == addr) {
                    (e.name().endsWith("entry") ? entries : exits).add(e.timeNanos());
                }
            }
        }
        List<Interval> truth = r.truth().calls("master", "process_image");
        assertThat(truth).hasSize(5);
        assertThat(entries).hasSize(5);
        assertThat(exits).hasSize(5);
        for (int k = 0; k < 5; k++) {
            assertThat(entries.get(k)).isCloseTo(truth.get(k).startTraceNanos(), within(1L));
            assertThat(exits.get(k)).isCloseTo(truth.get(k).endTraceNanos(), within(1L));
            // alloc ping-pong, split, 8 parts of ~96 ms in parallel, join
            assertThat(truth.get(k).durationNanos() / 1e6).isBetween(96.0, 110.0);
        }
    }

    @Test
    void aHighPriorityTaskOnDsp1AndDsp2StretchesTheirPartsToAbout300msAndTheMasterWaits() throws Exception {
        SimConfig config = SimConfig.sobel(3).withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        for (int i = 0; i < 8; i++) {
            String core = "dsp" + i;
            double expected = i == 1 || i == 2 ? 300 : 96;
            for (Interval t : r.truth().calls(core, SobelScenario.FILTER)) {
                assertThat(t.durationNanos() / 1e6).as(core).isCloseTo(expected, within(expected * 0.06));
            }
            List<long[]> traced = SimTraces.calls(SimTraces.read(r.slaves().get(i)), SobelScenario.FILTER);
            assertThat(traced).hasSize(config.images());
        }
        assertThat(SimTraces.read(r.slaves().get(1)).stream()
                        .filter(e -> e.name().equals("msgq_get"))
                        .count())
                .as("the intruders exchange messages")
                .isGreaterThan(100);
        for (Interval join : r.truth().calls("master", "join_results")) {
            assertThat(join.durationNanos() / 1e6).isGreaterThan(280);
        }
        assertThat(r.truth().faults()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo("preempt");
            assertThat(f.cores()).containsExactly("dsp1", "dsp2");
        });
    }

    @Test
    void aHungCoreNeverRepliesAndTheMasterWaitsForever() throws Exception {
        SimConfig config = SimConfig.sobel(4).withFaults(List.of(Fault.parse("hang:dsp5", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        assertThat(r.truth().calls("dsp5", SobelScenario.FILTER)).hasSize(1);
        assertThat(r.truth().calls("dsp0", SobelScenario.FILTER)).hasSize(2);
        assertThat(r.truth().calls("master", "join_results")).hasSize(1);
        GroundTruth.FaultTruth hang = r.truth().faults().getFirst();
        assertThat(hang.kind()).isEqualTo("hang");
        assertThat(hang.atNanos()).isBetween(config.imagePeriodNanos(), 2 * config.imagePeriodNanos());
        // the core still answers the sync daemon: its interrupts work
        List<SimTraces.Read> dsp5 = SimTraces.read(r.slaves().get(5));
        assertThat(dsp5.getLast().timeNanos())
                .isGreaterThan(
                        r.truth().core("dsp5").clock().traceNanos(config.effectiveDurationNanos() - 200_000_000L));
    }

    @Test
    void aCrashedCoreTracesNothingAfterItsCrash() throws Exception {
        SimConfig config = SimConfig.sobel(5).withFaults(List.of(Fault.parse("crash:dsp3", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        GroundTruth.FaultTruth crash = r.truth().faults().getFirst();
        assertThat(crash.kind()).isEqualTo("crash");
        long crashTrace = r.truth().core("dsp3").clock().traceNanos(crash.atNanos());
        List<SimTraces.Read> dsp3 = SimTraces.read(r.slaves().get(3));
        assertThat(dsp3.getLast().timeNanos()).isLessThanOrEqualTo(crashTrace);
        assertThat(r.truth().calls("master", "join_results")).hasSize(1);
    }

    /** Times as the tests write them: milliseconds. */
    private static long ms(String time) {
        if (!time.endsWith("ms")) {
            throw new IllegalArgumentException(time);
        }
        return Long.parseLong(time.substring(0, time.length() - 2)) * 1_000_000L;
    }

    @Test
    void faultsStrikeAtTheTimesGiven() throws Exception {
        SimConfig config = SimConfig.sobel(8)
                .withFaults(List.of(
                        Fault.parse("preempt:dsp1,dsp2@700ms", 8, SimSobelTest::ms),
                        Fault.parse("crash:dsp3@1500ms", 8, SimSobelTest::ms),
                        Fault.parse("hang:dsp4@900ms", 8, SimSobelTest::ms),
                        Fault.parse("drift-jump:dsp5@600ms", 8, SimSobelTest::ms)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        assertThat(r.truth().faults())
                .extracting(GroundTruth.FaultTruth::kind, GroundTruth.FaultTruth::atNanos)
                .contains(
                        Tuple.tuple("preempt", 700_000_000L),
                        Tuple.tuple("crash", 1_500_000_000L),
                        Tuple.tuple("drift-jump", 600_000_000L));
        assertThat(r.truth().core("dsp5").clock().jumpAtNanos()).isEqualTo(600_000_000L);
        // images arrive at 1, 401, 801, 1201 ms...: dsp1 is preempted from the third image on
        List<Interval> dsp1 = r.truth().calls("dsp1", FILTER_NAME);
        assertThat(dsp1.get(1).durationNanos() / 1e6).isCloseTo(96, within(2.0));
        assertThat(dsp1.get(2).durationNanos() / 1e6).isCloseTo(300, within(18.0));
        // the hang strikes the first image from 900 ms: the fourth, arriving at 1201 ms
        assertThat(r.truth().calls("dsp4", FILTER_NAME)).hasSize(3);
        assertThat(r.truth().faults())
                .filteredOn(f -> f.kind().equals("hang"))
                .singleElement()
                .satisfies(f -> assertThat(f.atNanos()).isBetween(1_201_000_000L, 1_400_000_000L));
    }

    @Test
    void aFaultTimeOutsideTheRunIsRefused() {
        assertThatThrownBy(() ->
                        SimConfig.sobel(1).withFaults(List.of(Fault.parse("crash:dsp3@3000ms", 8, SimSobelTest::ms))))
                .hasMessage("--inject crash:dsp3@3.000s: after the end of the run (2.500 s)");
        assertThatThrownBy(() ->
                        SimConfig.sobel(1).withFaults(List.of(Fault.parse("hang:dsp3@2000ms", 8, SimSobelTest::ms))))
                .hasMessage("--inject hang:dsp3@2.000s: no image arrives from then on (the last at 1.601 s)");
        assertThatThrownBy(() -> Fault.parse("crash:dsp3@soon", 8, SimSobelTest::ms))
                .hasMessage("--inject crash:dsp3@soon: 'soon' is not a time (e.g. 500ms, 1.5s)");
    }

    @Test
    void badFaultSpecsAreOneClearLine() {
        assertThatThrownBy(() -> Fault.parse("preempt:dsp9", 8))
                .hasMessage("--inject preempt:dsp9: the board has no dsp9 (dsp0 to dsp7)");
        assertThatThrownBy(() -> Fault.parse("melt:dsp1", 8))
                .hasMessageStartingWith("--inject melt:dsp1: unknown fault 'melt'");
        assertThatThrownBy(() -> Fault.parse("hang:dsp1,dsp2", 8)).hasMessageContaining("hang takes one core");
        assertThatThrownBy(() -> Fault.parse("crash", 8)).hasMessageContaining("expected KIND:CORES");
        assertThatThrownBy(() -> Fault.parse("crash:arm0", 8)).hasMessageContaining("'arm0' is not a slave core");
    }
}
