package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.Imx8Config;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The simulated i.MX8-like board's Cortex-M cores, traced as Zephyr's CTF tracing writes: the
 * zephyr preset gives every thread's runs and every interrupt's intervals the simulator's truth
 * says, to the nanosecond a reader reports (past the 32-bit timestamps' wrap), and the board's
 * Linux trace is read with LTTng-UST's mapping.
 */
class Imx8StateTest {
    @TempDir
    Path dir;

    /** An interval as the comparison needs it: what ran, from when to when (ns as the trace reports them). */
    private record Run(String name, long start, long end) {}

    @Test
    void theZephyrCoresThreadsAndInterruptsAreTheSimulatorsTruth() throws Exception {
        Simulation.Result r = Simulation.imx8(Imx8Config.of(2).withMCores(2), dir.resolve("board"));
        for (int k = 0; k < r.slaves().size(); k++) {
            String core = "m" + k;
            StateModel m = StateBuilder.build(
                    StateBuilder.synchronize(List.of(r.slaves().get(k)), w -> {}), StateBuilder.Options.of(w -> {}));
            assertThat(m.mappingNames()).containsExactly("zephyr");

            List<Run> threads = new ArrayList<>();
            List<Run> isrs = new ArrayList<>();
            for (GroundTruth.Interval i : r.truth().intervals()) {
                if (i.core().equals(core) && i.endTraceNanos() > i.startTraceNanos()) {
                    (i.kind().equals("isr") ? isrs : threads)
                            .add(new Run(i.name(), i.startTraceNanos(), i.endTraceNanos()));
                }
            }
            assertThat(threads).hasSizeGreaterThan(1000);
            assertThat(isrs).hasSizeGreaterThan(1000);
            assertThat(threads.getLast().end()).as("past the 32-bit wrap").isGreaterThan(1L << 32);
            long from = threads.getFirst().start();
            long to = threads.getLast().end();
            List<Run> runs = new ArrayList<>();
            IntervalTable t = m.runs();
            for (int i = 0; i < t.size(); i++) {
                if (t.start(i) >= from && t.end(i) <= to && t.end(i) > t.start(i)) {
                    runs.add(new Run(m.tasks().get(t.subject(i)).name(), t.start(i), t.end(i)));
                }
            }
            assertThat(runs).as(core).containsExactlyElementsOf(threads);
            assertThat(runs.stream().map(Run::name).distinct())
                    .containsExactlyInAnyOrder("main", "rpmsg_rx", "sensor", "idle");
            for (int i = 0; i < t.size(); i++) {
                assertThat(m.tasks().get(t.subject(i)).idle())
                        .isEqualTo(m.tasks().get(t.subject(i)).name().equals("idle"));
            }

            List<Run> irqs = new ArrayList<>();
            IntervalTable q = m.irqs();
            for (int i = 0; i < q.size(); i++) {
                irqs.add(new Run(m.name(q.subject(i)), q.start(i), q.end(i)));
            }
            assertThat(irqs).as(core).containsExactlyElementsOf(isrs);
        }
        StateModel linux = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.master()), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(linux.mappingNames()).containsExactly("lttng-ust-cyg-profile");
    }
}
