package dev.hetrace.view;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.TimelineBuilder.Layout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of a trace whose tasks are an OS's threads and whose scheduling is traced (a Linux
 * kernel trace), laid out as Trace Compass's resources and control flow views and Perfetto lay
 * them out: each CPU (what ran on it) with its interrupts, a rate row per interrupt line or
 * softirq vector, and its load; then the threads in a section of their own, each under the task
 * that created it (a process's threads under the process), the busiest first. The threads that
 * ran less than {@link #SHORT_LIVED_NS} in all and began or ended in the trace are gathered, per
 * creator, in one "short-lived" row, so that thousands of threads that lived a millisecond do
 * not hide the others.
 */
final class KernelRows {
    /** A thread created or ended in the trace that ran less than this in all is short-lived. */
    static final long SHORT_LIVED_NS = 1_000_000;

    /** The name of a short-lived row gathering {@code n} threads. */
    static String shortLivedName(int n) {
        return "short-lived (" + String.format("%,d", n) + " threads)";
    }

    private KernelRows() {}

    /** Which tasks of {@code trace} are short-lived, and who created each (−1: not created in the trace). */
    record Threads(boolean[] shortLived, int[] creator, long[] running) {
        static Threads of(StateModel m, int trace) {
            int tasks = m.tasks().size();
            long[] running = new long[tasks];
            IntervalTable runs = m.runs();
            for (int i = 0; i < runs.size(); i++) {
                if (runs.state(i) != StateModel.IDLE) {
                    running[runs.subject(i)] += runs.duration(i);
                }
            }
            int[] creator = new int[tasks];
            Arrays.fill(creator, -1);
            boolean[] born = new boolean[tasks];
            for (int i = 0; i < m.forks(); i++) {
                int k = m.forkTask(i);
                born[k] = true;
                int p = m.forkParent(i);
                if (p >= 0
                        && p != k
                        && m.tasks().get(p).trace() == m.tasks().get(k).trace()) {
                    creator[k] = p;
                }
            }
            boolean[] died = new boolean[tasks];
            IntervalTable states = m.taskStates();
            for (int i = 0; i < states.size(); i++) {
                if (states.state(i) == StateModel.DEAD) {
                    died[states.owner(i)] = true;
                }
            }
            boolean[] shortLived = new boolean[tasks];
            for (int k = 0; k < tasks; k++) {
                StateModel.Task t = m.tasks().get(k);
                shortLived[k] = t.trace() == trace && !t.idle() && (born[k] || died[k]) && running[k] < SHORT_LIVED_NS;
            }
            return new Threads(shortLived, creator, running);
        }
    }

    /** Adds trace {@code trace}'s rows (its cores {@code cores}) under row {@code parent}, at {@code level}. */
    static void lay(Layout l, int trace, List<Integer> cores, int parent, int level) {
        StateModel m = l.m;
        String prefix = m.traceNames().get(trace) + "/";
        BitSet[] lines = new BitSet[m.cores().size()];
        IntervalTable irqs = m.irqs();
        for (int i = 0; i < irqs.size(); i++) {
            int c = irqs.owner(i);
            if (lines[c] == null) {
                lines[c] = new BitSet();
            }
            lines[c].set(irqs.subject(i));
        }
        for (int c : cores) {
            int cr = l.add(Kind.CORE, l.coreName(c, parent, prefix), parent, level, c, -1, 0);
            l.coreRow[c] = cr;
            if (l.hasIrqs[c]) {
                int ir = l.add(Kind.IRQ, "interrupts", cr, level + 1, c, -1, 0);
                l.irqRow[c] = ir;
                List<Integer> names = lines[c].stream()
                        .boxed()
                        .sorted(Comparator.comparing(m::name))
                        .toList();
                l.irqLineRow[c] = new int[lines[c].length()];
                Arrays.fill(l.irqLineRow[c], -1);
                for (int name : names) {
                    l.irqLineRow[c][name] = l.add(Kind.COUNTER, m.name(name), ir, level + 2, c, -1, Counters.RATE);
                }
            }
            l.add(Kind.COUNTER, "CPU load", cr, level + 1, c, -1, Counters.LOAD);
        }
        Threads th = Threads.of(m, trace);
        Processes ps = Processes.of(m, trace, th, l);
        int section = l.add(Kind.PROCESS, "threads", parent, level, -1, -1, 0);
        Waiting w = Waiting.of(m, trace);
        if (w.times().length > 1) {
            l.waiting.add(w);
            l.waitingRow.add(l.add(Kind.COUNTER, "waiting for a CPU", section, level + 1, -1, -1, Counters.LEVEL));
        }
        ps.place(l, th, ps.section(), section, level + 1);
    }

    /** The name of the row of a process of several threads: its leader's name, its id and how many threads. */
    static String processName(String name, long pid, int threads) {
        return name + " [" + pid + "] \u00b7 " + String.format("%,d", threads) + " threads";
    }

    /**
     * A trace's threads by process, the processes in a tree by creator, as Trace Compass's control
     * flow view nests them and Perfetto groups threads under their process. A process of several
     * threads is a row of its own that aggregates them (their runs, each labelled with its thread),
     * its threads under it, the leader first, then the busiest; a process of one thread is that
     * thread's row, with no row above it that would repeat it: most processes of a desktop or a
     * build have one thread, and a wrapper for each would double the rows to read. A process's
     * child processes are under it, the busiest first. Short-lived threads, and short-lived processes
     * of one thread, are gathered in one row under their process (or creator's process): a program
     * that started 8,000 threads, or a script that ran 8,000 commands, is one row there.
     *
     * @param proc     per task, the task standing for its process (its leader; without one, the first
     *                 task of the process met; a task whose process is unknown stands for itself); −1:
     *                 another trace's
     * @param members  per standing task, its process's shown threads
     */
    private record Processes(int[] proc, List<List<Integer>> members, List<List<Integer>> children) {
        static Processes of(StateModel m, int trace, Threads th, Layout l) {
            int tasks = m.tasks().size();
            int[] leader = m.processLeaders();
            int[] proc = new int[tasks];
            Map<Long, Integer> firstOf = new HashMap<>();
            List<List<Integer>> members = new ArrayList<>();
            List<List<Integer>> children = new ArrayList<>();
            for (int k = 0; k <= tasks; k++) {
                members.add(new ArrayList<>());
                children.add(new ArrayList<>());
            }
            for (int k = 0; k < tasks; k++) {
                StateModel.Task t = m.tasks().get(k);
                if (t.trace() != trace) {
                    proc[k] = -1;
                    continue;
                }
                final int task = k;
                proc[k] = leader[k] >= 0
                        ? leader[k]
                        : t.process() >= 0 ? firstOf.computeIfAbsent(t.process(), x -> task) : k;
                if (l.shown(k)) {
                    members.get(proc[k]).add(k);
                }
            }
            Processes ps = new Processes(proc, members, children);
            for (int p = 0; p < tasks; p++) {
                if (proc[p] == p && !members.get(p).isEmpty()) {
                    children.get(ps.parentOf(p, th)).add(p);
                }
            }
            return ps;
        }

        /** The key of the section, the root of the tree. */
        int section() {
            return proc.length;
        }

        /** Whether process {@code p} has a row: shown threads, not one short-lived thread alone. */
        boolean hasRow(int p, Threads th) {
            List<Integer> its = members.get(p);
            return its.size() > 1 || its.size() == 1 && !th.shortLived()[its.getFirst()];
        }

        /** The process under which process {@code p} goes: its creator's nearest with a row, else the section. */
        int parentOf(int p, Threads th) {
            int c = th.creator()[p];
            for (int steps = 0; c >= 0 && steps < proc.length; steps++) {
                int q = proc[c];
                if (q >= 0 && q != p && hasRow(q, th)) {
                    return q;
                }
                c = th.creator()[q >= 0 && q != p ? q : c];
            }
            return section();
        }

        /** How long process {@code p} (or the section) with every process under it ran, in {@code together}. */
        long busy(int p, Threads th, long[] together) {
            long sum = 0;
            if (p < proc.length) {
                for (int k : members.get(p)) {
                    sum += th.running()[k];
                }
            }
            for (int c : children.get(p)) {
                sum += busy(c, th, together);
            }
            together[p] = sum;
            return sum;
        }

        /** Adds the rows of the processes under {@code p} (or the section) below row {@code row}, then their short-lived row. */
        void place(Layout l, Threads th, int p, int row, int level) {
            long[] together = new long[proc.length + 1];
            busy(section(), th, together);
            placeUnder(l, th, p, row, level, together, List.of());
        }

        /** {@code shortOnes}: the short-lived threads of {@code p} itself, gathered in one row with its short-lived child processes. */
        private void placeUnder(
                Layout l, Threads th, int p, int row, int level, long[] together, List<Integer> shortOnes) {
            List<Integer> few = new ArrayList<>(shortOnes);
            List<Integer> kids = new ArrayList<>(children.get(p));
            kids.sort(Comparator.<Integer>comparingLong(k -> -together[k]).thenComparingInt(k -> k));
            for (int c : kids) {
                List<Integer> its = members.get(c);
                if (!hasRow(c, th)) {
                    few.add(its.getFirst());
                    continue;
                }
                int cr;
                if (its.size() == 1) {
                    cr = l.addTask(its.getFirst(), row, level, l.home[its.getFirst()]);
                } else {
                    StateModel.Task lead = l.m.tasks().get(c);
                    long pid = lead.process() >= 0 ? lead.process() : lead.id();
                    int busiest = its.getFirst();
                    for (int k : its) {
                        busiest = th.running()[k] > th.running()[busiest] ? k : busiest;
                    }
                    cr = l.add(
                            Kind.PROCESS,
                            processName(lead.name(), pid, its.size()),
                            row,
                            level,
                            l.home[busiest],
                            -1,
                            0);
                    List<Integer> threads = new ArrayList<>();
                    List<Integer> gathered = new ArrayList<>();
                    for (int k : its) {
                        l.processRow[k] = cr;
                        (th.shortLived()[k] ? gathered : threads).add(k);
                    }
                    threads.sort(Comparator.<Integer>comparingInt(k -> k == c ? 0 : 1)
                            .thenComparingLong(k -> -th.running()[k])
                            .thenComparingLong(k -> l.m.tasks().get(k).id())
                            .thenComparingInt(k -> k));
                    for (int k : threads) {
                        l.addTask(k, cr, level + 1, l.home[k]);
                    }
                    placeUnder(l, th, c, cr, level + 1, together, gathered);
                    continue;
                }
                placeUnder(l, th, c, cr, level + 1, together, List.of());
            }
            gather(l, th, few, row, level);
        }
    }

    /** Adds the rows of short-lived threads under {@code row}: one alone as itself, several in one row. */
    private static void gather(Layout l, Threads th, List<Integer> few, int row, int level) {
        if (few.size() == 1) {
            l.addTask(few.getFirst(), row, level, l.home[few.getFirst()]);
        } else if (few.size() > 1) {
            // shown under the core of the busiest of them, as a task is under the core it ran on most
            int busiest = few.getFirst();
            int depths = -1;
            for (int k : few) {
                depths = Math.max(depths, l.maxDepth[k]);
                busiest = th.running()[k] > th.running()[busiest] ? k : busiest;
            }
            int core = l.home[busiest];
            int sr = l.add(Kind.PROCESS, shortLivedName(few.size()), row, level, core, -1, 0);
            int[] depthRows = new int[depths + 1];
            for (int d = 0; d <= depths; d++) {
                depthRows[d] = l.add(Kind.CALLS, "depth " + d, sr, level + 1, core, -1, d);
            }
            for (int k : few) {
                l.shortRow[k] = sr;
                l.depthRow[k] = depthRows;
            }
        }
    }

    /**
     * How many of a trace's threads wait for a CPU (preempted, or woken and not yet running) over
     * time, as a step function: from {@code times[k]} to {@code times[k + 1]}, {@code levels[k]}.
     */
    record Waiting(long[] times, int[] levels) {
        static Waiting of(StateModel m, int trace) {
            IntervalTable states = m.taskStates();
            int n = 0;
            for (int i = 0; i < states.size(); i++) {
                if (waits(m, states, i, trace)) {
                    n++;
                }
            }
            // +1 at each start, −1 at each end, by time (the low bit: ends before starts at the same time)
            long[] changes = new long[2 * n];
            int k = 0;
            for (int i = 0; i < states.size(); i++) {
                if (waits(m, states, i, trace)) {
                    changes[k++] = states.start(i) << 1 | 1;
                    changes[k++] = states.end(i) << 1;
                }
            }
            Arrays.sort(changes);
            long[] times = new long[2 * n];
            int[] levels = new int[2 * n];
            int steps = 0;
            int level = 0;
            for (int i = 0; i < changes.length; ) {
                long time = changes[i] >> 1;
                for (; i < changes.length && changes[i] >> 1 == time; i++) {
                    level += (changes[i] & 1) != 0 ? 1 : -1;
                }
                if (steps == 0 || levels[steps - 1] != level) {
                    times[steps] = time;
                    levels[steps] = level;
                    steps++;
                }
            }
            return new Waiting(Arrays.copyOf(times, steps), Arrays.copyOf(levels, steps));
        }

        private static boolean waits(StateModel m, IntervalTable states, int i, int trace) {
            int s = states.state(i);
            return (s == StateModel.PREEMPTED || s == StateModel.RUNNABLE)
                    && states.end(i) > states.start(i)
                    && m.tasks().get(states.owner(i)).trace() == trace;
        }
    }
}
