package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Linux model on real kernel traces (lttng-modules 2.5 on Linux 3.14, 2.8 on 4.4; perf on
 * 3.10): each CPU's own idle task, thread lifecycles, prev_state read for the kernel's version,
 * wake-ups. Each check reads the trace's events directly, apart from the state pass.
 */
class LinuxModelTest {
    private static Path corpus(String... path) {
        return Required.corpus(path);
    }

    private static StateModel model(Path trace) throws Exception {
        return StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
    }

    @Test
    void theKernelVersionDecidesWhichPrevStateMeansPreempted() {
        assertThat(LinuxTaskStates.forRelease("4.4.3-1-ARCH").of(2048)).isEqualTo(StateModel.PREEMPTED);
        assertThat(LinuxTaskStates.forRelease("4.4.3-1-ARCH").of(64)).isEqualTo(StateModel.DEAD);
        assertThat(LinuxTaskStates.forRelease("4.4.3-1-ARCH").of(1026)).isEqualTo(StateModel.BLOCKED);
        assertThat(LinuxTaskStates.forRelease("3.14.23-WR7.0.0.0_standard").of(1024))
                .isEqualTo(StateModel.PREEMPTED);
        assertThat(LinuxTaskStates.forRelease("3.14.23").of(130)).isEqualTo(StateModel.BLOCKED);
        assertThat(LinuxTaskStates.forRelease("4.9.0").of(4096)).isEqualTo(StateModel.PREEMPTED);
        assertThat(LinuxTaskStates.forRelease("4.9.0").of(2048)).isEqualTo(StateModel.BLOCKED); // TASK_NEW
        assertThat(LinuxTaskStates.forRelease("6.8.0-45-generic").of(256)).isEqualTo(StateModel.PREEMPTED);
        assertThat(LinuxTaskStates.forRelease("6.8.0").of(64)).isEqualTo(StateModel.BLOCKED); // TASK_PARKED
        assertThat(LinuxTaskStates.forRelease("6.8.0").of(32)).isEqualTo(StateModel.DEAD); // EXIT_ZOMBIE
        assertThat(LinuxTaskStates.forRelease("6.8.0").of(128)).isEqualTo(StateModel.BLOCKED); // TASK_IDLE
        assertThat(LinuxTaskStates.forRelease("3.2.0").of(512)).isEqualTo(StateModel.PREEMPTED);
        for (String r : List.of("2.6.32", "4.4.3", "6.8.0")) {
            assertThat(LinuxTaskStates.forRelease(r).of(0)).isEqualTo(StateModel.PREEMPTED);
            assertThat(LinuxTaskStates.forRelease(r).of(1)).isEqualTo(StateModel.BLOCKED);
            assertThat(LinuxTaskStates.forRelease(r).of(2)).isEqualTo(StateModel.BLOCKED);
        }
        assertThat(LinuxTaskStates.forRelease("unknown")).isNull();
    }

    /** A switch out as the trace has it: when, which thread, its prev_state. */
    private record SwitchOut(long time, long tid, long state) {}

    @Test
    void manyThreadsEachCpuIdlesInItsOwnTaskAndExitedThreadsAreDeadNotBlocked() throws Exception {
        Path trace = corpus("real", "many-threads");
        StateModel m = model(trace);
        assertThat(m.mappingNames().getFirst()).startsWith("lttng-kernel");
        // direct reading: the switches out, the forks, the deaths (prev_state TASK_DEAD on 4.4)
        List<SwitchOut> outs = new ArrayList<>();
        Set<Long> forked = new HashSet<>();
        Map<Long, Long> death = new HashMap<>();
        Map<Long, String> lastComm = new HashMap<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                if (e.name().equals("sched_switch")) {
                    long prev = e.getLong("prev_tid");
                    if (prev != 0) {
                        outs.add(new SwitchOut(e.timeNanos(), prev, e.getLong("prev_state")));
                        lastComm.put(prev, e.getString("prev_comm"));
                        if (e.getLong("prev_state") == 64) {
                            death.put(prev, e.timeNanos());
                        }
                    }
                } else if (e.name().equals("sched_process_fork")) {
                    forked.add(e.getLong("child_tid"));
                }
            }
        }
        // one idle task per CPU, named after it, running only there
        List<Integer> idle = new ArrayList<>();
        for (int k = 0; k < m.tasks().size(); k++) {
            if (m.tasks().get(k).idle()) {
                idle.add(k);
            }
        }
        assertThat(idle).hasSize(m.cores().size());
        for (int i = 0; i < m.runs().size(); i++) {
            int task = m.runs().subject(i);
            if (m.tasks().get(task).idle()) {
                String cpu = m.cores().get(m.runs().owner(i)).name().replaceAll(".*/cpu", "");
                assertThat(m.tasks().get(task).name()).isEqualTo("swapper/" + cpu);
                assertThat(m.runs().state(i)).isEqualTo(StateModel.IDLE);
            }
        }
        // every switch out is a state row: preempted for 0 and 2048 (TASK_STATE_MAX on 4.4), dead for 64
        Map<String, Integer> expected = new HashMap<>();
        for (SwitchOut o : outs) {
            String s = o.state == 0 || o.state == 2048 ? "preempted" : o.state == 64 ? "dead" : "blocked";
            expected.merge(s, 1, Integer::sum);
        }
        Map<String, Integer> states = new HashMap<>();
        IntervalTable st = m.taskStates();
        int blockedToTheEnd = 0;
        for (int i = 0; i < st.size(); i++) {
            if ((st.flags(i) & StateModel.START_UNKNOWN) == 0 && st.state(i) != StateModel.RUNNABLE) {
                states.merge(StateModel.stateName(st.state(i)), 1, Integer::sum);
            }
            long tid = m.tasks().get(st.owner(i)).id();
            if (st.state(i) == StateModel.BLOCKED && death.containsKey(tid) && st.start(i) >= death.get(tid)) {
                blockedToTheEnd++;
            }
        }
        assertThat(states).isEqualTo(expected);
        assertThat(blockedToTheEnd)
                .as("blocked rows of threads after their death")
                .isZero();
        // the 8,000 threads that exited: their exit call ends at their death, and none made a clone call
        IntervalTable calls = m.calls();
        int exits = 0;
        for (int i = 0; i < calls.size(); i++) {
            StateModel.Task task = m.tasks().get(calls.owner(i));
            String f = m.name(calls.subject(i));
            if (forked.contains(task.id()) && f.equals("clone")) {
                assertThat(calls.flags(i) & StateModel.START_UNKNOWN)
                        .as("a clone call of new thread %d", task.id())
                        .isZero();
            }
            if (f.equals("exit") && death.containsKey(task.id())) {
                assertThat(calls.end(i)).isEqualTo(death.get(task.id()));
                assertThat(calls.flags(i) & StateModel.END_UNKNOWN).isZero();
                exits++;
            }
        }
        assertThat(exits).isEqualTo(8000);
        // a thread renamed after it was created (prctl) has the name it last had
        long renamed = lastComm.entrySet().stream()
                .filter(x -> x.getValue().equals("fluffy"))
                .findFirst()
                .orElseThrow()
                .getKey();
        assertThat(m.tasks().stream().filter(t -> t.id() == renamed).map(StateModel.Task::name))
                .contains("fluffy");
    }

    @Test
    void eachThreadOfTheRealTracesIsInTheProcessItsStateDumpOrForkNames() throws Exception {
        for (String name : List.of("many-threads", "flipping-endianness")) {
            Path trace = corpus("real", name);
            StateModel m = model(trace);
            // direct reading: tid to pid as the state dump lists them and the forks make them
            Map<Long, Long> pidOf = new HashMap<>();
            Map<Long, String> dumped = new HashMap<>();
            try (CtfReader r = CtfReader.open(trace)) {
                while (r.next()) {
                    Event e = r.event();
                    if (e.name().equals("lttng_statedump_process_state")) {
                        pidOf.put(e.getLong("tid"), e.getLong("pid"));
                        dumped.put(e.getLong("tid"), e.getString("name"));
                    } else if (e.name().equals("sched_process_fork")) {
                        pidOf.put(e.getLong("child_tid"), e.getLong("child_pid"));
                    }
                }
            }
            int[] leader = m.processLeaders();
            int checked = 0;
            for (int k = 0; k < m.tasks().size(); k++) {
                StateModel.Task t = m.tasks().get(k);
                if (t.idle()) {
                    assertThat(t.process()).isEqualTo(-1);
                    continue;
                }
                assertThat(t.process()).as("%s[%d]", t.name(), t.id()).isEqualTo(pidOf.get(t.id()));
                StateModel.Task l = m.tasks().get(leader[k]);
                assertThat(l.id()).isEqualTo(t.process());
                checked++;
            }
            assertThat(checked).isGreaterThan(name.equals("many-threads") ? 8500 : 60);
            if (name.equals("many-threads")) {
                // multithread's 8,000 threads, made with CLONE_THREAD, are in its process, named after it
                long inMultithread = 0;
                for (int k = 0; k < m.tasks().size(); k++) {
                    if (m.tasks().get(k).process() == 2673) {
                        inMultithread++;
                        assertThat(m.tasks().get(leader[k]).name()).isEqualTo("multithread");
                    }
                }
                assertThat(inMultithread).isEqualTo(8001);
                assertThat(dumped.get(1L)).isEqualTo("systemd");
            }
        }
    }

    @Test
    void aWakeupEndsTheBlockedStateAndNamesWhatWokeTheThread() throws Exception {
        Path trace = corpus("real", "many-threads");
        StateModel m = model(trace);
        assertThat(m.wakeups()).isPositive();
        // every wake-up (and creation) begins a runnable stretch of its task, and every blocked stretch that ends
        // before the trace does ends at a wake-up of its task
        Set<Long> wakes = new HashSet<>();
        int byIrq = 0;
        for (int i = 0; i < m.wakeups(); i++) {
            wakes.add(m.wakeupTime(i) * 31 + m.wakeupTask(i));
            if (m.wakerIrq(i) >= 0) {
                byIrq++;
            }
            if (m.wakerTask(i) >= 0) {
                assertThat(m.wakerTask(i)).isNotEqualTo(m.wakeupTask(i));
            }
        }
        Set<Long> runnableStarts = new HashSet<>();
        List<Long> blockedEnds = new ArrayList<>();
        IntervalTable st = m.taskStates();
        for (int i = 0; i < st.size(); i++) {
            if (st.state(i) == StateModel.BLOCKED && (st.flags(i) & StateModel.END_UNKNOWN) == 0) {
                blockedEnds.add(st.end(i) * 31 + st.owner(i));
            } else if (st.state(i) == StateModel.RUNNABLE) {
                runnableStarts.add(st.start(i) * 31 + st.owner(i));
            }
        }
        Set<Long> made = new HashSet<>(wakes);
        for (int i = 0; i < m.forks(); i++) {
            made.add(m.forkTime(i) * 31 + m.forkTask(i));
        }
        assertThat(runnableStarts).isEqualTo(made);
        assertThat(blockedEnds).isNotEmpty().allMatch(wakes::contains);
        assertThat(byIrq).as("wake-ups in interrupts (timers, devices)").isPositive();
    }

    @Test
    void aThreadsCriticalPathCoversItsRangeAndHopsOnlyAlongWakeupsAndForks() throws Exception {
        StateModel m = model(corpus("real", "many-threads"));
        Waits w = Waits.of(m);
        int main = -1;
        for (int t = 0; t < m.tasks().size(); t++) {
            if (m.tasks().get(t).id() == 2673) {
                main = t;
            }
        }
        long from = m.begin() + 20_000_000;
        long to = m.end() - 5_000_000;
        List<Waits.Segment> path = w.threadPath(main, from, to);
        assertThat(path.getFirst().start()).isEqualTo(from);
        assertThat(path.getLast().end()).isEqualTo(to);
        assertThat(path.getLast().task()).isEqualTo(main);
        Set<Long> wakes = new HashSet<>();
        for (int i = 0; i < m.wakeups(); i++) {
            wakes.add(m.wakeupTime(i) * 31 + m.wakeupTask(i));
        }
        for (int i = 0; i < m.forks(); i++) {
            wakes.add(m.forkTime(i) * 31 + m.forkTask(i));
        }
        IntervalTable runs = m.runs();
        IntervalTable st = m.taskStates();
        Set<Long> blocks = new HashSet<>();
        for (int i = 0; i < st.size(); i++) {
            if (st.state(i) == StateModel.BLOCKED) {
                blocks.add(st.start(i) * 31 + st.owner(i));
            }
        }
        int hops = 0;
        for (int k = 0; k < path.size(); k++) {
            Waits.Segment s = path.get(k);
            assertThat(s.end()).isGreaterThanOrEqualTo(s.start());
            if (k > 0) {
                Waits.Segment p = path.get(k - 1);
                assertThat(s.start()).as("no gap, no overlap").isEqualTo(p.end());
                if (p.task() != s.task() && s.doing() != Waits.Doing.UNKNOWN) {
                    // the path goes to the thread another one waited for where that one blocked, and
                    // back where the first was woken (or made)
                    assertThat(wakes.contains(s.start() * 31 + s.task()) || blocks.contains(s.start() * 31 + p.task()))
                            .as("%s then %s", p, s)
                            .isTrue();
                    hops++;
                }
            }
            if (s.doing() == Waits.Doing.RUNNING) {
                boolean inRun = false;
                for (int i = 0; i < runs.size() && !inRun; i++) {
                    inRun = runs.subject(i) == s.task()
                            && runs.owner(i) == s.core()
                            && runs.start(i) <= s.start()
                            && runs.end(i) >= s.end();
                }
                assertThat(inRun)
                        .as("%s is in a run of its task on its core", s)
                        .isTrue();
            } else if (s.doing() == Waits.Doing.WAITING_FOR_CPU) {
                boolean inState = false;
                for (int i = 0; i < st.size() && !inState; i++) {
                    inState = st.owner(i) == s.task()
                            && st.start(i) <= s.start()
                            && st.end(i) >= s.end()
                            && (st.state(i) == StateModel.PREEMPTED || st.state(i) == StateModel.RUNNABLE);
                }
                assertThat(inState)
                        .as("%s is in a runnable stretch of its task", s)
                        .isTrue();
            }
        }
        assertThat(hops)
                .as("the main thread waited for the threads it made and that woke it")
                .isPositive();
    }

    @Test
    void anOlderKernelsPreemptedBitAndAPerfRecordingAreReadTheSameWay() throws Exception {
        // Linux 3.14: a preempted task is 1024 (TASK_RUNNING | TASK_STATE_MAX)
        StateModel fe = model(corpus("real", "flipping-endianness"));
        long preempted = 0;
        for (int i = 0; i < fe.taskStates().size(); i++) {
            preempted += fe.taskStates().state(i) == StateModel.PREEMPTED ? 1 : 0;
        }
        long direct = 0;
        try (CtfReader r = CtfReader.open(corpus("real", "flipping-endianness"))) {
            while (r.next()) {
                Event e = r.event();
                if (e.name().equals("sched_switch")
                        && e.getLong("prev_tid") != 0
                        && (e.getLong("prev_state") == 0 || e.getLong("prev_state") == 1024)) {
                    direct++;
                }
            }
        }
        assertThat(preempted).isEqualTo(direct);
        // perf data convert --to-ctf: sched:sched_switch with perf's fields, the CPU in perf_cpu
        StateModel perf = model(corpus("real", "perf-taskset2"));
        assertThat(perf.mappingNames().getFirst()).startsWith("perf-kernel");
        assertThat(perf.cores()).extracting(StateModel.Core::name).allMatch(n -> n.matches("perf-taskset2/cpu\\d+"));
        assertThat(perf.runs().size()).isPositive();
        assertThat(perf.wakeups()).isPositive();
    }

    @Test
    void interruptsOfOneKindAreNotClosedByAnotherKindsExitNorPairedAcrossManyRules() throws Exception {
        Path trace = corpus("real", "many-threads");
        // a user mapping whose pattern rule expands to hundreds of rules (every syscall) before the interrupts'
        Path dir = Files.createTempDirectory("mapping");
        Path f = dir.resolve("wide.yaml");
        Files.writeString(f, """
            name: wide
            core: packet_context.cpu_id
            idle: {id: 0}
            events:
              - {event: "syscall_entry_*", does: enter, func: "=*"}
              - {event: "syscall_exit_*", does: exit, func: "=*"}
              - {event: sched_switch, does: switch, next: next_comm, next-id: next_tid, prev: prev_comm, prev-id: prev_tid, prev-state: prev_state}
              - {event: irq_handler_entry, does: irq-entry, irq: irq, name: name}
              - {event: irq_handler_exit, does: irq-exit, irq: irq, label: irq}
              - {event: irq_softirq_entry, does: irq-entry, irq: vec, label: softirq}
              - {event: irq_softirq_exit, does: irq-exit, irq: vec, label: softirq}
            """);
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(trace), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(Mapping.read(f)));
        assertThat(m.mappingNames()).containsExactly("wide");
        // every interrupt entry and exit pair on its CPU: none cut short, none left open but at the ends
        long entries = 0;
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                String n = r.event().name();
                entries += n.equals("irq_handler_entry") || n.equals("irq_softirq_entry") ? 1 : 0;
            }
        }
        long whole = 0;
        for (int i = 0; i < m.irqs().size(); i++) {
            if ((m.irqs().flags(i) & (StateModel.START_UNKNOWN | StateModel.END_UNKNOWN)) == 0) {
                whole++;
            }
            String name = m.name(m.irqs().subject(i));
            assertThat(name).doesNotStartWith("irq "); // the hard interrupts are named by their field
            assertThat(name.startsWith("softirq ") || !name.contains("softirq")).isTrue();
        }
        assertThat(whole).isGreaterThanOrEqualTo(entries - m.cores().size());
    }
}
