package dev.hetrace.view;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.TimelineBuilder.Layout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

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
        int tasks = m.tasks().size();
        // each shown thread under its nearest creator that has a row of its own, else the section
        List<List<Integer>> children = new ArrayList<>();
        List<List<Integer>> shortOnes = new ArrayList<>();
        for (int k = 0; k <= tasks; k++) {
            children.add(new ArrayList<>());
            shortOnes.add(new ArrayList<>());
        }
        for (int k = 0; k < tasks; k++) {
            if (m.tasks().get(k).trace() != trace || !l.shown(k)) {
                continue;
            }
            int p = th.creator()[k];
            for (int steps = 0; p >= 0 && (th.shortLived()[p] || !l.shown(p)) && steps < tasks; steps++) {
                p = th.creator()[p];
            }
            int key = p >= 0 ? p : tasks; // tasks: the section
            (th.shortLived()[k] ? shortOnes : children).get(key).add(k);
        }
        // the busiest first: a task with the threads it created, their running time together
        long[] together = new long[tasks + 1];
        busy(th, children, shortOnes, tasks, together);
        Comparator<Integer> busiest = Comparator.<Integer>comparingLong(k -> -together[k])
                .thenComparingLong(k -> m.tasks().get(k).id())
                .thenComparingInt(k -> k);
        for (List<Integer> c : children) {
            c.sort(busiest);
        }
        int section = l.add(Kind.PROCESS, "threads", parent, level, -1, -1, 0);
        Waiting w = Waiting.of(m, trace);
        if (w.times().length > 1) {
            l.waiting.add(w);
            l.waitingRow.add(l.add(Kind.COUNTER, "waiting for a CPU", section, level + 1, -1, -1, Counters.LEVEL));
        }
        place(l, th, children, shortOnes, tasks, section, level + 1);
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

    /** How long task {@code key} (or the section) and every thread under it ran, in {@code together}. */
    private static long busy(
            Threads th, List<List<Integer>> children, List<List<Integer>> shortOnes, int key, long[] together) {
        long sum = key < th.running().length ? th.running()[key] : 0;
        for (int k : children.get(key)) {
            sum += busy(th, children, shortOnes, k, together);
        }
        for (int k : shortOnes.get(key)) {
            sum += th.running()[k];
        }
        together[key] = sum;
        return sum;
    }

    /** Adds the rows of the threads under {@code key} (a task, or the section), then their short-lived row. */
    private static void place(
            Layout l,
            Threads th,
            List<List<Integer>> children,
            List<List<Integer>> shortOnes,
            int key,
            int row,
            int level) {
        for (int k : children.get(key)) {
            int tr = l.addTask(k, row, level, l.home[k]);
            place(l, th, children, shortOnes, k, tr, level + 1);
        }
        List<Integer> few = shortOnes.get(key);
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
}
