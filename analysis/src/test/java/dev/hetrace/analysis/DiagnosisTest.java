package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The diagnosis of simulated boards against their ground truth: preemptions found on the cores
 * and calls the truth says, named by the preempting task, with the master waiting for them;
 * hangs and crashes found on the right core at the right time, with the master's unanswered
 * request. Fault placements, times, board sizes and seeds are drawn at random on every run.
 */
class DiagnosisTest {
    private static final long MS = 1_000_000L;

    /** A board to simulate: its size, seed and fault. */
    record Scenario(int slaves, long seed, Fault fault) {
        SimConfig config() {
            return SimConfig.sobel(seed).withSlaves(slaves).withFaults(List.of(fault));
        }

        @Override
        public String toString() {
            return slaves + " slaves, seed " + seed + ", " + fault;
        }
    }

    /** The simulated board, synchronized, its state model and diagnosis. */
    record Board(Simulation.Result sim, StateBuilder.Input input, StateModel model, Diagnosis.Report report) {
        /** The slave's sync accuracy bound; a core that stopped before its second handshake has none: 1 ms then. */
        long bound(int slave) {
            return input.sync().traces().get(slave + 1).accuracyNanos().orElse(1_000_000L) + 2;
        }

        long masterTime(long trueNanos) {
            return sim.truth().core("master").clock().traceNanos(trueNanos);
        }
    }

    static Board simulate(Scenario s) throws Exception {
        Path dir = Files.createTempDirectory("hetrace-diagnosis");
        try {
            Simulation.Result r = Simulation.sobel(s.config(), dir.resolve("board"));
            StateBuilder.Input in = StateBuilder.synchronize(r.traces(), w -> {});
            StateModel m = StateBuilder.build(in, StateBuilder.Options.of(w -> {}));
            m.symbolize(symbols(r.truth()));
            return new Board(r, in, m, Diagnosis.of(m, Diagnosis.DEFAULT_K));
        } finally {
            delete(dir);
        }
    }

    private static Map<String, String> symbols(GroundTruth truth) {
        return truth.symbolNames();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Provide
    Arbitrary<Scenario> preemptions() {
        return Combinators.combine(
                        Arbitraries.integers().between(4, 16),
                        Arbitraries.longs().between(1, 1_000_000),
                        Arbitraries.integers().between(0, 1 << 20),
                        Arbitraries.longs().between(0, 1_000))
                .as((n, seed, pick, atMs) -> {
                    // at most a third of the cores, so that the median stays the normal duration
                    int count = 1 + pick % Math.max(1, n / 3);
                    List<Integer> cores = new Random(pick)
                            .ints(0, n)
                            .distinct()
                            .limit(count)
                            .boxed()
                            .sorted()
                            .toList();
                    return new Scenario(n, seed, new Fault.Preempt(cores, atMs * MS));
                });
    }

    @Property(tries = 10)
    void preemptedCoresAreFoundWithTheirPreemptingTaskAndTheMasterWaitingForThem(@ForAll("preemptions") Scenario s)
            throws Exception {
        Board b = simulate(s);
        StateModel m = b.model();
        Fault.Preempt p = (Fault.Preempt) s.fault();
        Set<String> faulty = p.slaves().stream().map(i -> "dsp" + i).collect(Collectors.toCollection(TreeSet::new));
        int filter = m.nameId("sobel_filter");
        List<Diagnosis.Outlier> filters = b.report().outliers().stream()
                .filter(o -> o.kind() == Diagnosis.Kind.CALL && o.name() == filter)
                .toList();
        // every sobel_filter call the truth shows wholly preempted is an outlier, and no other call is
        Set<String> expected = new TreeSet<>();
        int expectedCalls = 0;
        for (String core : faulty) {
            long calls = b.sim().truth().calls(core, "sobel_filter").stream()
                    .filter(c -> c.startNanos() >= p.atNanos())
                    .count();
            if (calls > 0) {
                expected.add(core);
            }
            expectedCalls += (int) calls;
        }
        Set<String> found = filters.stream()
                .map(o -> m.cores().get(o.core()).name())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(found).as("%s: cores with slow sobel_filter calls", s).containsAll(expected);
        assertThat(found).as("%s: no healthy core is blamed", s).isSubsetOf(faulty);
        assertThat(filters.size()).as("%s", s).isBetween(expectedCalls, expectedCalls + faulty.size());
        for (Diagnosis.Outlier o : filters) {
            String core = m.cores().get(o.core()).name();
            int slave = Integer.parseInt(core.substring(3));
            // the outlier is a call of the truth, on the reference clock within the sync accuracy
            GroundTruth.Interval t = b.sim().truth().calls(core, "sobel_filter").stream()
                    .min(Comparator.comparingLong(c -> Math.abs(b.masterTime(c.startNanos()) - o.start())))
                    .orElseThrow();
            assertThat(o.start()).as("%s: %s", s, core).isCloseTo(b.masterTime(t.startNanos()), within(b.bound(slave)));
            assertThat(o.end()).as("%s: %s", s, core).isCloseTo(b.masterTime(t.endNanos()), within(b.bound(slave)));
            if (t.startNanos() >= p.atNanos()) {
                // wholly preempted: by the intruder, for most of the excess
                assertThat(o.preemptedBy()).as("%s: %s", s, core).isNotEmpty();
                assertThat(m.tasks().get(o.preemptedBy().getFirst().task()).name())
                        .isEqualTo("intruder");
                assertThat(o.preempted()).as("%s: %s", s, core).isGreaterThan((o.duration() - o.median()) / 2);
                // the master waited for its reply in join_results
                assertThat(o.waitedForIt()).as("%s: %s", s, core).isNotEmpty();
                assertThat(m.name(m.calls()
                                .subject(b.report()
                                        .waits()
                                        .receivedIn(o.waitedForIt().getFirst().message()))))
                        .isEqualTo("join_results");
            }
        }
        String words = String.join("\n", Diagnosis.summary(b.report()));
        if (!expected.isEmpty()) {
            assertThat(words).as("%s", s).contains("sobel_filter", "task intruder preempted", "waited for");
            if (found.size() <= 4) {
                assertThat(words).as("%s", s).contains(expected);
            } else {
                assertThat(words).as("%s", s).contains("(" + found.size() + " cores)");
            }
        }
        assertThat(b.report().silent()).as("%s", s).isEmpty();
        assertThat(b.report().stuck()).as("%s", s).isEmpty();
    }

    @Provide
    Arbitrary<Scenario> hangsAndCrashes() {
        return Combinators.combine(
                        Arbitraries.integers().between(4, 16),
                        Arbitraries.longs().between(1, 1_000_000),
                        Arbitraries.integers().between(0, 1 << 20),
                        Arbitraries.longs().between(150, 1_450),
                        Arbitraries.of(true, false))
                .as((n, seed, pick, atMs, hang) -> new Scenario(
                        n, seed, hang ? new Fault.Hang(pick % n, atMs * MS) : new Fault.Crash(pick % n, atMs * MS)));
    }

    @Property(tries = 10)
    void aHungOrCrashedCoreIsNamedWithWhenItStoppedAndTheRequestTheMasterWaitsFor(@ForAll("hangsAndCrashes") Scenario s)
            throws Exception {
        Board b = simulate(s);
        StateModel m = b.model();
        int slave = s.fault().slaves().getFirst();
        String core = "dsp" + slave;
        GroundTruth.FaultTruth truth = b.sim().truth().faults().getFirst();
        long at = b.masterTime(truth.atNanos());
        long bound = b.bound(slave);
        Diagnosis.Report r = b.report();
        if (s.fault() instanceof Fault.Hang) {
            // the worker blocked from the truth's time on, inside sobel_filter, to the end
            Diagnosis.Stuck worker = r.stuck().stream()
                    .filter(x -> m.cores().get(x.core()).name().equals(core))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(s + ": " + core + " is not found stuck: " + r.stuck()));
            assertThat(m.tasks().get(worker.task()).name()).isEqualTo("sobel");
            assertThat(worker.blocked()).isTrue();
            assertThat(worker.since()).as("%s", s).isCloseTo(at, within(bound));
            assertThat(m.name(m.calls().subject(worker.call()))).isEqualTo("sobel_filter");
            // on the queue the truth says, which its RTOS hook named when the task began to wait
            long queue = b.sim().truth().queues().stream()
                    .filter(q -> q.core().equals(core) && q.name().equals("border"))
                    .findFirst()
                    .orElseThrow()
                    .id();
            assertThat(worker.queue()).as("%s", s).isEqualTo(queue);
            assertThat(truth.description()).endsWith("queue " + queue);
            assertThat(r.silent())
                    .as("%s: a hung core still answers the sync daemon", s)
                    .isEmpty();
        } else {
            Diagnosis.Silent silent = r.silent().stream()
                    .filter(x -> m.cores().get(x.core()).name().equals(core))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(s + ": " + core + " is not found silent: " + r.silent()));
            assertThat(r.silent()).hasSize(1);
            // its last event came before the crash, and no earlier than the last thing the truth saw it do
            assertThat(silent.last()).as("%s", s).isLessThanOrEqualTo(at + bound);
            long lastDone = b.sim().truth().intervals().stream()
                    .filter(v -> v.core().equals(core))
                    .flatMapToLong(v -> LongStream.of(v.startNanos(), v.endNanos()))
                    .filter(t -> t < truth.atNanos())
                    .max()
                    .orElseThrow();
            assertThat(silent.last()).as("%s", s).isGreaterThanOrEqualTo(b.masterTime(lastDone) - bound);
        }
        // the master waits forever for that core's reply, and for no other: in join_results, or in
        // alloc_buffers when the core is dsp0 (its memory server) and it stopped between two images
        Diagnosis.Stuck master = r.stuck().stream()
                .filter(x -> m.tasks().get(x.task()).trace() == 0)
                .findFirst()
                .orElseThrow(() -> new AssertionError(s + ": the master is not found waiting: " + r.stuck()));
        assertThat(m.name(m.calls().subject(master.call())))
                .as("%s", s)
                .isIn(slave == 0 ? List.of("join_results", "alloc_buffers") : List.of("join_results"));
        assertThat(master.to()).as("%s", s).isNotEmpty();
        assertThat(master.to().stream()
                        .map(c -> m.cores().get(c).name())
                        .distinct()
                        .toList())
                .as("%s", s)
                .containsExactly(core);
        assertThat(r.stuck()).as("%s: only the faulty core and the master", s).hasSizeLessThanOrEqualTo(2);
        assertThat(r.outliers().stream()
                        .filter(o -> o.kind() != Diagnosis.Kind.INTERRUPT)
                        .map(o -> m.cores().get(o.core()).name()))
                .as("%s", s)
                .allMatch(c -> c.equals(core));
        String words = String.join("\n", Diagnosis.summary(r));
        assertThat(words).as("%s", s).contains(core, "never answered its message");
        assertThat(words).contains(s.fault() instanceof Fault.Hang ? "has been blocked since" : "went silent at");
        if (s.fault() instanceof Fault.Hang) {
            assertThat(words).contains("in sobel_filter on queue ").contains("(nobody ever sent on it)");
        }
    }
}
