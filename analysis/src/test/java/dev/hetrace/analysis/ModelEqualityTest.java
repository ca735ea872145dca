package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model made again row by row through {@link StoredModel} is equal to the one it copies, and
 * {@link ModelEquality} tells one value changed anywhere, by table, row and column.
 */
class ModelEqualityTest {
    @TempDir
    Path dir;

    /** {@code m} copied through {@link StoredModel}, the self time of call {@code changedCall} (−1: none) one more. */
    private static StateModel copy(StateModel m, int changedCall, int changedMark) {
        StoredModel out = new StoredModel();
        for (int t = 0; t < m.traceNames().size(); t++) {
            out.trace(
                    m.traceNames().get(t),
                    m.mappingNames().get(t),
                    m.traceBegin(t),
                    m.traceEnd(t),
                    m.traceLongestGap(t),
                    m.osThreads(t));
            out.place(m.tracePlace(t));
        }
        m.cores().forEach(c -> out.core(c.name(), c.trace()));
        m.tasks().forEach(t -> out.task(t.name(), t.trace(), t.id(), t.idle(), t.process()));
        StoredModel.names(m).forEach(out::name);
        StoredModel.eventNames(m).forEach(out::eventName);
        for (int k = StoredModel.RUNS; k <= StoredModel.IRQS; k++) {
            IntervalTable t = StoredModel.intervals(m, k);
            for (int i = 0; i < t.size(); i++) {
                long self = t.self(i) + (k == StoredModel.CALLS && i == changedCall ? 1 : 0);
                out.interval(
                        k, t.start(i), t.end(i), t.owner(i), t.subject(i), t.state(i), t.depth(i), t.flags(i), self);
            }
        }
        MessageTable ms = m.messages();
        for (int i = 0; i < ms.size(); i++) {
            out.message(
                    ms.sendTime(i),
                    ms.sendCore(i),
                    ms.sendTask(i),
                    ms.sendCall(i),
                    ms.receiveTime(i),
                    ms.receiveCore(i),
                    ms.receiveTask(i),
                    ms.receiveCall(i),
                    ms.queue(i),
                    ms.id(i),
                    ms.flags(i));
        }
        for (int i = 0; i < m.marks(); i++) {
            out.mark(m.markTime(i) + (i == changedMark ? 1 : 0), m.markCore(i), StoredModel.markNameId(m, i));
        }
        for (int i = 0; i < m.wakeups(); i++) {
            out.wakeup(m.wakeupTime(i), m.wakeupTask(i), m.wakerTask(i), m.wakerCore(i), m.wakerIrq(i));
        }
        for (int i = 0; i < m.forks(); i++) {
            out.fork(m.forkTime(i), m.forkTask(i), m.forkParent(i));
        }
        out.totals(m.begin(), m.end(), m.events(), m.untimed(), m.discarded());
        return out.model();
    }

    @Test
    void aModelCopiedRowByRowIsEqualAndOneValueChangedIsToldWhere() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(2), dir.resolve("board"));
        List<Path> traces = new ArrayList<>();
        traces.add(r.master());
        traces.addAll(r.slaves());
        StateModel m = StateBuilder.synchronizeAndBuild(
                        traces, StateBuilder.Clocks.DEFAULT, StateBuilder.Options.of(w -> {}))
                .model();

        ModelEquality.assertEqual(m, copy(m, -1, -1));
        int call = m.calls().size() / 2;
        assertThatThrownBy(() -> ModelEquality.assertEqual(m, copy(m, call, -1)))
                .hasMessageContaining("calls: row " + call + ", self");
        int mark = m.marks() - 1;
        assertThatThrownBy(() -> ModelEquality.assertEqual(m, copy(m, -1, mark)))
                .hasMessageContaining("marks: row " + mark + ", field 0");
    }
}
