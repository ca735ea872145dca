package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.sim.ClockModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.GroundTruth.Interval;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.sync.PiecewiseMap;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The state model and the statistics of simulated boards, checked against the simulator's
 * ground truth: on one slave's trace to the nanosecond, on a synchronized board within each
 * core's accuracy bound.
 */
class SimStateTest {
    @TempDir
    Path dir;

    private static SimConfig config(long seed, int slaves, String fault) {
        SimConfig c = SimConfig.sobel(seed).withSlaves(slaves);
        return fault.isEmpty() ? c : c.withFaults(List.of(Fault.parse(fault, slaves)));
    }

    private static List<Interval> truthRuns(GroundTruth truth, String core, SimConfig config) {
        return truth.intervals().stream()
                .filter(v -> v.core().equals(core)
                        && v.kind().equals("run")
                        && !v.task().equals("idle")
                        && v.endNanos() < config.effectiveDurationNanos()
                        && v.endNanos() > v.startNanos())
                .toList();
    }

    @ParameterizedTest(name = "seed {0}, {1} slaves, fault ''{2}''")
    @CsvSource({"2, 8, ''", "6, 8, 'preempt:dsp1,dsp2'", "9, 4, 'preempt:dsp2,dsp3'", "13, 3, 'preempt:dsp0'"})
    void theTaskRunsOfASlaveTraceAreTheTrueRunningStretchesAndItsStatisticsTheTruths(
            long seed, int slaves, String fault) throws Exception {
        SimConfig config = config(seed, slaves, fault);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        for (int i = 0; i < slaves; i++) {
            String core = "dsp" + i;
            StateModel m = StateBuilder.build(
                    StateBuilder.synchronize(List.of(r.slaves().get(i)), w -> {}), StateBuilder.Options.of(w -> {}));
            assertThat(m.mappingNames()).containsExactly("rtos");
            List<Interval> truth = truthRuns(r.truth(), core, config);
            List<long[]> runs = new ArrayList<>();
            List<String> tasks = new ArrayList<>();
            IntervalTable t = m.runs();
            for (int k = 0; k < t.size(); k++) {
                if (t.state(k) == StateModel.RUNNING && t.flags(k) == 0) {
                    runs.add(new long[] {t.start(k), t.end(k)});
                    tasks.add(m.tasks().get(t.subject(k)).name());
                }
            }
            assertThat(runs).as(core).hasSameSizeAs(truth);
            for (int k = 0; k < truth.size(); k++) {
                assertThat(tasks.get(k))
                        .as("%s run %d", core, k)
                        .isEqualTo(truth.get(k).task());
                assertThat(runs.get(k)[0])
                        .as("%s run %d", core, k)
                        .isCloseTo(truth.get(k).startTraceNanos(), within(1L));
                assertThat(runs.get(k)[1])
                        .as("%s run %d", core, k)
                        .isCloseTo(truth.get(k).endTraceNanos(), within(1L));
            }
            // statistics over the truth's span: equal to the same computation on the truth's intervals
            long begin = truth.getFirst().startTraceNanos();
            long end = truth.getLast().endTraceNanos();
            Statistics.Table table = Statistics.of(m, begin, end);
            Map<String, List<Interval>> byTask = new TreeMap<>();
            truth.forEach(v ->
                    byTask.computeIfAbsent(v.task(), k -> new ArrayList<>()).add(v));
            for (var en : byTask.entrySet()) {
                Statistics.Row row = table.row(Statistics.Context.TASK, en.getKey());
                List<Interval> v = en.getValue();
                assertThat(row).as("%s %s", core, en.getKey()).isNotNull();
                assertThat(row.count()).as("%s %s", core, en.getKey()).isEqualTo(v.size());
                long total = v.stream()
                        .mapToLong(x -> x.endTraceNanos() - x.startTraceNanos())
                        .sum();
                assertThat(row.totalNanos()).isCloseTo(total, within(2L * v.size()));
                assertThat(row.maxNanos())
                        .isCloseTo(
                                v.stream()
                                        .mapToLong(x -> x.endTraceNanos() - x.startTraceNanos())
                                        .max()
                                        .orElseThrow(),
                                within(2L));
                assertThat(row.minNanos())
                        .isCloseTo(
                                v.stream()
                                        .mapToLong(x -> x.endTraceNanos() - x.startTraceNanos())
                                        .min()
                                        .orElseThrow(),
                                within(2L));
            }
            // every sobel_filter call, preemptions included, as the truth's; a call still running when
            // the trace ends (with fewer cores, the last image's) is counted up to there, and marked
            List<Interval> calls = r.truth().calls(core, "sobel_filter");
            long open = 0;
            long openTime = 0;
            for (int k = 0; k < m.calls().size(); k++) {
                if (m.name(m.calls().subject(k)).equals("sobel_filter")
                        && m.calls().flags(k) != 0) {
                    assertThat(m.calls().flags(k)).isEqualTo(StateModel.END_UNKNOWN);
                    assertThat(m.calls().end(k)).isEqualTo(m.end());
                    open++;
                    openTime += m.calls().duration(k);
                }
            }
            assertThat(open).as(core).isLessThanOrEqualTo(1);
            Statistics.Row f = Statistics.of(m).row(Statistics.Context.FUNCTION, "sobel_filter");
            assertThat(f.count()).as(core).isEqualTo(calls.size() + open);
            assertThat(f.totalNanos() - openTime)
                    .as(core)
                    .isCloseTo(
                            calls.stream()
                                    .mapToLong(x -> x.endTraceNanos() - x.startTraceNanos())
                                    .sum(),
                            within(2L * calls.size()));
        }
    }

    @ParameterizedTest(name = "seed {0}, fault ''{1}''")
    @CsvSource({"3, ''", "6, 'preempt:dsp1,dsp2'"})
    void onASynchronizedBoardEachDspsSobelFilterCallsAreTheTruthsWithinTheSyncAccuracy(long seed, String fault)
            throws Exception {
        SimConfig config = config(seed, 8, fault);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        StateBuilder.Input in = StateBuilder.synchronize(r.traces(), w -> {});
        StateModel m = StateBuilder.build(in, StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames().getFirst()).isEqualTo("lttng-ust-cyg-profile");
        ClockModel master = r.truth().core("master").clock();
        int filter = m.nameId("sobel_filter");
        for (int i = 0; i < 8; i++) {
            String core = "dsp" + i;
            long bound = in.sync().traces().get(i + 1).accuracyNanos().orElseThrow() + 2;
            List<Interval> truth = r.truth().calls(core, "sobel_filter");
            List<long[]> calls = new ArrayList<>();
            IntervalTable c = m.calls();
            for (int k = 0; k < c.size(); k++) {
                if (c.subject(k) == filter && m.tasks().get(c.owner(k)).trace() == i + 1) {
                    calls.add(new long[] {c.start(k), c.end(k)});
                }
            }
            calls.sort((a, b) -> Long.compare(a[0], b[0]));
            assertThat(calls).as(core).hasSameSizeAs(truth);
            for (int k = 0; k < truth.size(); k++) {
                assertThat(calls.get(k)[0])
                        .as("%s call %d", core, k)
                        .isCloseTo(master.traceNanos(truth.get(k).startNanos()), within(bound));
                assertThat(calls.get(k)[1])
                        .as("%s call %d", core, k)
                        .isCloseTo(master.traceNanos(truth.get(k).endNanos()), within(bound));
            }
        }
        // the statistics of every DSP task on the board: the truth's running stretches, each
        // within twice the core's accuracy bound; stretches the trace shows cut are counted, marked
        Statistics.Table table = Statistics.of(m);
        for (int i = 0; i < 8; i++) {
            String core = "dsp" + i;
            long bound = in.sync().traces().get(i + 1).accuracyNanos().orElseThrow() + 2;
            Map<String, List<Interval>> byTask = new TreeMap<>();
            truthRuns(r.truth(), core, config)
                    .forEach(v -> byTask.computeIfAbsent(v.task(), k -> new ArrayList<>())
                            .add(v));
            for (var en : byTask.entrySet()) {
                int task = m.task(i + 1, en.getKey());
                long cut = 0;
                long cutTime = 0;
                for (int k = 0; k < m.runs().size(); k++) {
                    if (m.runs().subject(k) == task && m.runs().flags(k) != 0) {
                        cut++;
                        cutTime += m.runs().duration(k);
                    }
                }
                Statistics.Row row = table.row(Statistics.Context.TASK, core + "/" + en.getKey());
                List<Interval> v = en.getValue();
                assertThat(row.count()).as("%s %s", core, en.getKey()).isEqualTo(v.size() + cut);
                assertThat(row.totalNanos() - cutTime)
                        .as("%s %s", core, en.getKey())
                        .isCloseTo(v.stream().mapToLong(Interval::durationNanos).sum(), within(2 * bound * v.size()));
            }
        }
        // the master's functions by address, on its own clock: as the truth's
        long addr = r.truth().symbols().get("process_image");
        Statistics.Row p = Statistics.of(m).row(Statistics.Context.FUNCTION, "master/0x" + Long.toHexString(addr));
        List<Interval> truth = r.truth().calls("master", "process_image");
        assertThat(p.count()).isEqualTo(truth.size());
        assertThat(p.totalNanos())
                .isCloseTo(
                        truth.stream()
                                .mapToLong(x -> x.endTraceNanos() - x.startTraceNanos())
                                .sum(),
                        within(2L * truth.size()));
        // messages: the work sent by the master is received on the DSPs, later on the reference clock
        MessageTable msg = m.messages();
        int linked = 0;
        for (int k = 0; k < msg.size(); k++) {
            if (msg.flags(k) == 0) {
                linked++;
                assertThat(msg.receiveTime(k)).isGreaterThanOrEqualTo(msg.sendTime(k) - 2 * 1000);
            }
        }
        assertThat(linked).isGreaterThan(8 * config.images());
    }

    @Test
    void theModelIsTheSameWhetherTheTracesAreReadOnOneThreadOrSeveral() throws Exception {
        Simulation.Result r = Simulation.sobel(config(11, 6, "preempt:dsp2"), dir.resolve("board"));
        StateBuilder.Input in = StateBuilder.synchronize(r.traces(), w -> {});
        StateModel one = StateBuilder.build(in, StateBuilder.Options.of(w -> {}).withThreads(1));
        StateModel several =
                StateBuilder.build(in, StateBuilder.Options.of(w -> {}).withThreads(4));
        assertThat(one.events()).isGreaterThan(1000);
        assertThat(one.marks())
                .as("the sync handshake's events, kept as point events")
                .isGreaterThan(10);
        assertThat(dump(several)).isEqualTo(dump(one));
        assertThat(several.messages().size()).isGreaterThan(50);
        for (int i = 0; i < several.messages().size(); i++) {
            if (several.messages().sendTime(i) >= 0 && several.messages().receiveTime(i) >= 0) {
                assertThat(several.messages().receiveCore(i))
                        .isNotEqualTo(several.messages().sendCore(i));
            }
        }
    }

    @ParameterizedTest(name = "seed {0}, fault ''{1}''")
    @CsvSource({"12, 'preempt:dsp1'", "13, 'hang:dsp3'"})
    void eachTracesTimesAreItsOwnPutOnTheReferenceClockByItsMapOnce(long seed, String fault) throws Exception {
        Simulation.Result r = Simulation.sobel(config(seed, 5, fault), dir.resolve("board"));
        StateBuilder.Built board = StateBuilder.synchronizeAndBuild(
                r.traces(), StateBuilder.Clocks.DEFAULT, StateBuilder.Options.of(w -> {}));
        StateModel synced =
                StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(dump(board.model())).isEqualTo(dump(synced));
        int checked = 0;
        for (int t = 0; t < r.traces().size(); t++) {
            PiecewiseMap map = board.input().maps().get(t);
            StateModel own = StateBuilder.build(
                    StateBuilder.synchronize(List.of(r.traces().get(t)), w -> {}), StateBuilder.Options.of(w -> {}));
            List<long[]> ownCalls = callTimes(own, 0);
            List<long[]> boardCalls = callTimes(board.model(), t);
            assertThat(boardCalls).as("trace %d", t).hasSameSizeAs(ownCalls);
            for (int k = 0; k < ownCalls.size(); k++) {
                long[] o = ownCalls.get(k);
                assertThat(boardCalls.get(k))
                        .as("trace %d call %d", t, k)
                        .containsExactly(map.apply(o[0]), map.apply(o[1]));
            }
            checked += ownCalls.size();
        }
        assertThat(checked).isGreaterThan(30);
    }

    /** The start and end of each call of trace {@code trace}'s tasks, in the model's order. */
    private static List<long[]> callTimes(StateModel m, int trace) {
        List<long[]> out = new ArrayList<>();
        IntervalTable c = m.calls();
        for (int i = 0; i < c.size(); i++) {
            if (m.tasks().get(c.owner(i)).trace() == trace) {
                out.add(new long[] {c.start(i), c.end(i)});
            }
        }
        return out;
    }

    /** Every table and list of a model, as text. */
    private static List<String> dump(StateModel m) {
        return dump(m, true);
    }

    /** Every table and list of a model, as text; the self times when {@code self}. */
    private static List<String> dump(StateModel m, boolean self) {
        List<String> out = new ArrayList<>();
        out.add(m.traceNames() + " " + m.mappingNames() + " " + m.cores() + " " + m.tasks());
        out.add(m.begin() + " " + m.end() + " " + m.events() + " " + m.untimed() + " " + m.discarded());
        for (int t = 0; t < m.traceNames().size(); t++) {
            out.add(m.traceBegin(t) + " " + m.traceEnd(t) + " " + m.traceLongestGap(t));
        }
        for (int k = 0; k < m.names.size(); k++) {
            out.add(m.name(k));
        }
        for (IntervalTable t : List.of(m.runs(), m.taskStates(), m.calls(), m.irqs())) {
            for (int i = 0; i < t.size(); i++) {
                out.add(t.start(i) + " " + t.end(i) + " " + t.owner(i) + " " + t.subject(i) + " " + t.state(i) + " "
                        + t.depth(i) + " " + t.flags(i) + (self ? " " + t.self(i) : ""));
            }
        }
        for (int i = 0; i < m.marks(); i++) {
            out.add(m.markTime(i) + " " + m.markCore(i) + " " + m.markName(i));
        }
        MessageTable msg = m.messages();
        for (int i = 0; i < msg.size(); i++) {
            out.add(msg.sendTime(i) + " " + msg.sendCore(i) + " " + msg.sendTask(i) + " " + msg.receiveTime(i) + " "
                    + msg.receiveCore(i) + " " + msg.receiveTask(i) + " " + msg.queue(i) + " " + msg.id(i) + " "
                    + msg.sendCall(i) + " " + msg.receiveCall(i) + " " + msg.flags(i));
        }
        return out;
    }

    @Test
    void preemptedTasksAreMarkedPreemptedAndTasksWaitingForAMessageBlockedOnItsQueue() throws Exception {
        SimConfig config = config(6, 8, "preempt:dsp1,dsp2");
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.slaves().get(1)), w -> {}), StateBuilder.Options.of(w -> {}));
        int sobel = m.task(0, "sobel");
        int preempted = 0;
        int blockedOnQueue = 0;
        IntervalTable s = m.taskStates();
        for (int k = 0; k < s.size(); k++) {
            if (s.owner(k) == sobel && s.state(k) == StateModel.PREEMPTED) {
                preempted++;
            }
            if (s.state(k) == StateModel.BLOCKED && s.subject(k) >= 0) {
                blockedOnQueue++;
            }
        }
        assertThat(preempted).isGreaterThan(20);
        assertThat(blockedOnQueue).isGreaterThan(0);
    }
}
