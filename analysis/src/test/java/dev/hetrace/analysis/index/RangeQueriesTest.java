package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The statistics of a range answered from the index's tables are those the state model gives
 * ({@link Statistics#of(StateModel, long, long)}): the same rows in the same order, the same
 * numbers, on the demo's board (a fault, several traces, point events) and on a real desktop
 * kernel trace (8 CPUs, 8,000 threads, interrupts); and so is the pattern search
 * ({@link PatternSearch#run} over the traces), occurrence by occurrence.
 */
class RangeQueriesTest {
    @TempDir
    Path dir;

    private TraceIndex index;

    /** The demo's board: sobel with DSPs 1 and 2 preempted. */
    private void demo(List<Path> traces, Map<String, String> symbols) throws Exception {
        Simulation.Result sim = Simulation.sobel(
                SimConfig.sobel(1).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1))), dir.resolve("board"));
        traces.add(sim.master());
        traces.addAll(sim.slaves());
        sim.truth().symbols().forEach((name, addr) -> symbols.put("0x" + Long.toHexString(addr), name));
    }

    @Test
    void aRangesStatisticsFromTheIndexAreTheModelsOnTheDemoBoard() throws Exception {
        List<Path> traces = new ArrayList<>();
        Map<String, String> symbols = new HashMap<>();
        demo(traces, symbols);
        StateBuilder.Built built = compare(traces, symbols, 120);
        try (RangeQueries q = new RangeQueries(index)) {
            int found = 0;
            for (PatternSearch.Spec spec : List.of(
                    new PatternSearch.Spec(
                            "msgq_put", "msgq_get", List.<String[]>of(new String[] {"msg_id", "msg_id"}), false),
                    new PatternSearch.Spec(
                            "func_entry", "func_exit", List.<String[]>of(new String[] {"func", "payload.func"}), true),
                    new PatternSearch.Spec("func_entry", "func_exit", List.of(), false),
                    new PatternSearch.Spec("msgq_*", "msgq_get", List.of(), true),
                    new PatternSearch.Spec("hetrace_sync_send", "hetrace_sync_*", List.of(), true),
                    new PatternSearch.Spec("hetrace_sync_send", "nothing_of_that_name", List.of(), false))) {
                found += samePattern(q, built.input(), spec);
            }
            assertThat(found).isGreaterThan(1000);
            assertThatThrownBy(() -> q.pattern(new PatternSearch.Spec(
                            "msgq_put", "msgq_get", List.<String[]>of(new String[] {"nope", "msg_id"}), false)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--where nope=msg_id: event msgq_put has no field nope");
        }
    }

    /** The pattern search of {@code spec} from the index is the traces': returns the occurrences. */
    private static int samePattern(RangeQueries q, StateBuilder.Input input, PatternSearch.Spec spec) throws Exception {
        PatternSearch.Result expected = PatternSearch.run(input, spec, w -> {});
        PatternSearch.Result got = q.pattern(spec);
        String what = spec.first() + " then " + spec.then();
        assertThat(got.occurrences()).as(what).isEqualTo(expected.occurrences());
        assertThat(got.ignoredFirst()).as(what).isEqualTo(expected.ignoredFirst());
        assertThat(got.ignoredThen()).as(what).isEqualTo(expected.ignoredThen());
        assertThat(got.events()).as(what).isEqualTo(expected.events());
        assertThat(got.begin()).as(what).isEqualTo(expected.begin());
        assertThat(got.traceNames()).as(what).isEqualTo(expected.traceNames());
        return got.occurrences().size();
    }

    @Test
    void aRangesStatisticsFromTheIndexAreTheModelsOnADesktopKernelTrace() throws Exception {
        StateBuilder.Built built = compare(List.of(Required.corpus("real", "many-threads")), Map.of(), 40);
        try (RangeQueries q = new RangeQueries(index)) {
            int found = 0;
            for (PatternSearch.Spec spec : List.of(
                    new PatternSearch.Spec(
                            "sched_waking", "sched_switch", List.<String[]>of(new String[] {"tid", "next_tid"}), false),
                    new PatternSearch.Spec("syscall_entry_*", "syscall_exit_*", List.of(), true),
                    new PatternSearch.Spec(
                            "irq_handler_entry",
                            "irq_handler_exit",
                            List.<String[]>of(new String[] {"irq", "irq"}),
                            true))) {
                found += samePattern(q, built.input(), spec);
            }
            assertThat(found).isGreaterThan(1000);
        }
    }

    /** Compares the statistics of {@code ranges} random ranges; returns what the index was built from. */
    private StateBuilder.Built compare(List<Path> traces, Map<String, String> symbols, int ranges) throws Exception {
        index = TraceIndex.open(
                dir.resolve("cache"), traces, StateBuilder.Clocks.DEFAULT, null, symbols, n -> {}, true);
        StateBuilder.Built built = index.takeBuiltFrom();
        StateModel m = built.model();
        assertThat(index.takeBuiltFrom()).as("handed over once").isNull();
        try (RangeQueries q = new RangeQueries(index)) {
            Statistics.Table whole = Statistics.of(m);
            assertThat(whole.rows()).hasSizeGreaterThan(10);
            assertThat(q.statistics(m.begin(), m.end(), true)).isEqualTo(whole);
            assertThat(q.statistics(m.begin(), m.end())).isEqualTo(whole);
            Random random = new Random(7);
            long span = m.end() - m.begin();
            int nonEmpty = 0;
            for (int k = 0; k < ranges; k++) {
                long a = m.begin() - span / 20 + (long) (random.nextDouble() * span * 1.1);
                long w = k % 3 == 0
                        ? (long) (random.nextDouble() * span / 1000)
                        : (long) (random.nextDouble() * span / 4);
                long b = k % 7 == 0 ? a : a + w;
                Statistics.Table expected = Statistics.of(m, a, b);
                assertThat(q.statistics(a, b)).as("[%d, %d]", a, b).isEqualTo(expected);
                nonEmpty += expected.rows().isEmpty() ? 0 : 1;
            }
            assertThat(nonEmpty).isGreaterThan(ranges / 2);
            // a range on an interval's very start and end, and on a point event's time
            long s = m.runs().start(m.runs().size() / 2);
            long e = m.runs().end(m.runs().size() / 2);
            assertThat(q.statistics(s, e)).isEqualTo(Statistics.of(m, s, e));
            if (m.marks() > 0) {
                long t = m.markTime(m.marks() / 2);
                assertThat(q.statistics(t, t)).isEqualTo(Statistics.of(m, t, t));
                assertThat(q.statistics(t, t).rows(Statistics.Context.EVENT)).isNotEmpty();
            }
        }
        return built;
    }
}
