package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** KPTrace's pattern search on a simulated board, against its ground truth and its state model. */
class PatternSearchTest {
    @TempDir
    static Path dir;

    static Simulation.Result sim;

    @BeforeAll
    static void board() throws Exception {
        sim = Simulation.sobel(SimConfig.sobel(5).withSlaves(4), dir.resolve("board"));
    }

    @Test
    void entriesFollowedByTheExitOfTheSameFunctionAreTheTruthsCalls() throws Exception {
        Path dsp2 = sim.slaves().get(2);
        PatternSearch.Result r = PatternSearch.run(
                StateBuilder.synchronize(List.of(dsp2), w -> {}),
                new PatternSearch.Spec(
                        "func_entry", "func_exit", List.<String[]>of(new String[] {"func", "func"}), true),
                w -> {});
        var truth = new ArrayList<>(sim.truth().calls("dsp2", "sobel_filter"));
        truth.addAll(sim.truth().calls("dsp2", "convolve_tile"));
        truth.sort((a, b) -> Long.compare(a.endTraceNanos(), b.endTraceNanos()));
        assertThat(r.occurrences()).hasSameSizeAs(truth);
        assertThat(r.ignoredFirst()).isZero();
        assertThat(r.ignoredThen()).isZero();
        List<Long> durations = r.occurrences().stream()
                .map(PatternSearch.Occurrence::duration)
                .sorted()
                .toList();
        List<Long> expected = truth.stream()
                .map(t -> t.endTraceNanos() - t.startTraceNanos())
                .sorted()
                .toList();
        for (int i = 0; i < expected.size(); i++) {
            // the trace's times are cycles of a 1.2 GHz clock: within a nanosecond of the truth's
            assertThat(durations.get(i)).isCloseTo(expected.get(i), within(1L));
        }
        assertThat(r.histogram(10)).matches(h -> Arrays.stream(h).sum() == truth.size());
    }

    @Test
    void withoutAKeyANewEntryReplacesTheWaitingOneAndCountsItIgnored() throws Exception {
        Path dsp2 = sim.slaves().get(2);
        PatternSearch.Result r = PatternSearch.run(
                StateBuilder.synchronize(List.of(dsp2), w -> {}),
                new PatternSearch.Spec("func_entry", "func_exit", List.of(), false),
                w -> {});
        int filters = sim.truth().calls("dsp2", "sobel_filter").size();
        int tiles = sim.truth().calls("dsp2", "convolve_tile").size();
        // each filter's entry is replaced by its first tile's; each filter's exit follows a tile's exit: no A waits
        assertThat(r.occurrences()).hasSize(tiles);
        assertThat(r.ignoredFirst()).isEqualTo(filters);
        assertThat(r.ignoredThen()).isEqualTo(filters);
    }

    @Test
    void messagesAcrossTheSynchronizedBoardPairAsTheStateModelLinksThem() throws Exception {
        StateBuilder.Input in = StateBuilder.synchronize(sim.traces(), w -> {});
        PatternSearch.Result r = PatternSearch.run(
                in,
                new PatternSearch.Spec(
                        "msgq_put", "msgq_get", List.<String[]>of(new String[] {"msg_id", "msg_id"}), false),
                w -> {});
        StateModel m = StateBuilder.build(in, StateBuilder.Options.of(w -> {}));
        List<long[]> linked = new ArrayList<>();
        for (int i = 0; i < m.messages().size(); i++) {
            if (m.messages().flags(i) == 0) {
                linked.add(new long[] {m.messages().sendTime(i), m.messages().receiveTime(i)});
            }
        }
        assertThat(r.occurrences()).hasSameSizeAs(linked);
        linked.sort((a, b) -> Long.compare(a[1], b[1]));
        for (int i = 0; i < linked.size(); i++) {
            assertThat(r.occurrences().get(i).start()).isEqualTo(linked.get(i)[0]);
            assertThat(r.occurrences().get(i).end()).isEqualTo(linked.get(i)[1]);
        }
        assertThat(r.occurrences()).anyMatch(o -> !o.startCore().equals(o.endCore()));
    }

    @Test
    void aWhereFieldTheEventLacksIsNamedInTheError() {
        assertThatThrownBy(() -> PatternSearch.run(
                        StateBuilder.synchronize(List.of(sim.slaves().get(0)), w -> {}),
                        new PatternSearch.Spec(
                                "func_entry", "func_exit", List.<String[]>of(new String[] {"nope", "func"}), false),
                        w -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--where nope=func")
                .hasMessageContaining("func_entry has no field nope");
    }

    @Test
    void eventNamesMayUseStars() {
        assertThat(PatternSearch.glob("syscall_entry_*")
                        .matcher("syscall_entry_read")
                        .matches())
                .isTrue();
        assertThat(PatternSearch.glob("*_exit").matcher("func_exit").matches()).isTrue();
        assertThat(PatternSearch.glob("a.b").matcher("axb").matches()).isFalse();
    }
}
