package dev.hetrace.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who waited for whom across the board: every stretch in which a task waited for a message,
 * linked to the core and task that sent it and to what the sender was doing, and the critical
 * path of a request, followed back from its end through the last message each waiter got.
 *
 * <p>A task whose scheduling is traced (an RTOS core, a kernel trace) waits while it is blocked
 * until the message that wakes it; one whose scheduling is not traced (an application traced in
 * user space) waits from its last traced activity (a call's entry or exit, a send) to the receive.
 */
public final class Waits {
    /**
     * Task {@code task} on {@code core} waited from {@code start} until message {@code message}
     * (a row of {@link StateModel#messages()}) reached it at {@code end}; {@code blocked} when its
     * scheduler says it was blocked, else it is inferred from its silence.
     */
    public record Wait(int task, int core, long start, long end, int message, boolean blocked) {
        public long duration() {
            return end - start;
        }
    }

    /**
     * A stretch of a critical path: {@code task} on {@code core} from {@code start} to {@code end},
     * mostly in call {@code call} (a row of {@link StateModel#calls()}, or −1), ended by sending
     * {@code message} to the next stretch's task (−1 for the last stretch).
     */
    public record Step(int task, int core, long start, long end, int call, int message) {}

    /** Time some tasks took from another, by task: how long and how many stretches. */
    public record Share(int task, long nanos, int times) {}

    private final StateModel m;
    final RowIndex calls;
    final RowIndex states;
    final RowIndex runs;
    final RowIndex irqs;
    /** Each task's runs, on whatever core, by start. */
    final RowIndex taskRuns;
    /** Each task's wake-ups (indexes of {@link StateModel#wakeupTime}), by time. */
    final int[][] wakeupsByTask;
    /** Each task's creation (an index of {@link StateModel#forkTime}), −1 when the traces do not show it. */
    final int[] forkOf;

    private final long[][] activity;
    final List<Wait> waits = new ArrayList<>();
    final int[][] waitsByTask;
    private final int[] waitOfMessage;
    private final boolean[] scheduled;
    /** Per task, the messages it sent, by send time. */
    private final int[][] sendsByTask;

    private Waits(StateModel m) {
        this.m = m;
        int tasks = m.tasks().size();
        int cores = m.cores().size();
        calls = new RowIndex(m.calls(), tasks);
        states = new RowIndex(m.taskStates(), tasks);
        runs = new RowIndex(m.runs(), cores);
        irqs = new RowIndex(m.irqs(), cores);
        taskRuns = new RowIndex(m.runs(), tasks, true);
        wakeupsByTask = wakeupsByTask(m, tasks);
        forkOf = new int[tasks];
        Arrays.fill(forkOf, -1);
        for (int i = 0; i < m.forks(); i++) {
            forkOf[m.forkTask(i)] = i;
        }
        activity = activity(m, tasks);
        scheduled = new boolean[tasks];
        for (int i = 0; i < m.runs().size(); i++) {
            scheduled[m.runs().subject(i)] = true;
        }
        MessageTable msg = m.messages();
        waitOfMessage = new int[msg.size()];
        Arrays.fill(waitOfMessage, -1);
        for (int i = 0; i < msg.size(); i++) {
            int task = msg.receiveTask(i);
            if (task < 0) {
                continue;
            }
            long r = msg.receiveTime(i);
            Wait w = scheduled[task]
                    ? blockedUntil(task, msg.receiveCore(i), r, i)
                    : silentUntil(task, msg.receiveCore(i), r, i);
            if (w != null) {
                waitOfMessage[i] = waits.size();
                waits.add(w);
            }
        }
        sendsByTask = sendsByTask(msg, tasks);
        waitsByTask = RowIndex.group(tasks, waits.size(), i -> waits.get(i).task());
        for (int[] byTask : waitsByTask) {
            sortByEnd(byTask);
        }
    }

    /** Whether the traces show {@code task}'s scheduling (it has runs on a core), so that its waits are its blocked stretches. */
    public boolean scheduled(int task) {
        return scheduled[task];
    }

    /** The waits of the model's tasks. */
    public static Waits of(StateModel m) {
        return new Waits(m);
    }

    public StateModel model() {
        return m;
    }

    /** Every wait, in the order of the messages that ended them. */
    public List<Wait> all() {
        return Collections.unmodifiableList(waits);
    }

    /** The wait that message {@code message} ended, or null (nobody waited for it). */
    public Wait ofMessage(int message) {
        int w = waitOfMessage[message];
        return w < 0 ? null : waits.get(w);
    }

    private static int[][] sendsByTask(MessageTable msg, int tasks) {
        // rows are in the order of their sends per trace, hence per task: already by time
        int[][] out = RowIndex.group(tasks, msg.size(), msg::sendTask);
        for (int[] rows : out) {
            boolean sorted = true;
            for (int k = 1; k < rows.length && sorted; k++) {
                sorted = msg.sendTime(rows[k - 1]) <= msg.sendTime(rows[k]);
            }
            if (!sorted) {
                Integer[] boxed = Arrays.stream(rows).boxed().toArray(Integer[]::new);
                Arrays.sort(boxed, (x, y) -> Long.compare(msg.sendTime(x), msg.sendTime(y)));
                for (int k = 0; k < rows.length; k++) {
                    rows[k] = boxed[k];
                }
            }
        }
        return out;
    }

    /** The messages {@code task} sent from {@code from} to {@code to} (both included), by send time. */
    public List<Integer> sent(int task, long from, long to) {
        int[] rows = sendsByTask[task];
        MessageTable msg = m.messages();
        int lo = RowIndex.firstAfter(rows, msg::sendTime, from - 1);
        List<Integer> out = new ArrayList<>();
        for (int k = lo; k < rows.length && msg.sendTime(rows[k]) <= to; k++) {
            out.add(rows[k]);
        }
        return out;
    }

    /** The waits of {@code task} that end within {@code (from, to]}, by end. */
    public List<Wait> of(int task, long from, long to) {
        int[] byTask = waitsByTask[task];
        List<Wait> out = new ArrayList<>();
        for (int k = endingAfter(byTask, from);
                k < byTask.length && waits.get(byTask[k]).end() <= to;
                k++) {
            out.add(waits.get(byTask[k]));
        }
        return out;
    }

    private Wait blockedUntil(int task, int core, long r, int message) {
        int[] rows = states.rows(task);
        IntervalTable st = m.taskStates();
        for (int k = states.after(task, r) - 1; k >= 0; k--) {
            int row = rows[k];
            if (st.end(row) > r) {
                continue;
            }
            if (st.state(row) == StateModel.PREEMPTED) {
                return null; // it was running again, after a preemption: the message was there already
            }
            // blocked (or switched out for no known reason) until it ran again, then nothing but this receive
            if (nextActivity(task, st.end(row)) < r || st.end(row) <= st.start(row)) {
                return null;
            }
            return new Wait(task, core, st.start(row), r, message, st.state(row) == StateModel.BLOCKED);
        }
        return null;
    }

    private Wait silentUntil(int task, int core, long r, int message) {
        long[] a = activity[task];
        int k = Arrays.binarySearch(a, r);
        int before = k >= 0 ? lowest(a, k) - 1 : -k - 2;
        if (before < 0 || a[before] >= r) {
            return null;
        }
        return new Wait(task, core, a[before], r, message, false);
    }

    private static int lowest(long[] a, int k) {
        while (k > 0 && a[k - 1] == a[k]) {
            k--;
        }
        return k;
    }

    /** The first activity of {@code task} strictly after {@code t}, or Long.MAX_VALUE. */
    private long nextActivity(int task, long t) {
        long[] a = activity[task];
        int k = Arrays.binarySearch(a, t);
        int next = k >= 0 ? k + 1 : -k - 1;
        while (next < a.length && a[next] <= t) {
            next++;
        }
        return next < a.length ? a[next] : Long.MAX_VALUE;
    }

    /** Per task, the times it did something other than receive a message: calls' entries and exits, sends. */
    private static long[][] activity(StateModel m, int tasks) {
        int[] counts = new int[tasks];
        IntervalTable c = m.calls();
        MessageTable msg = m.messages();
        for (int i = 0; i < c.size(); i++) {
            counts[c.owner(i)] += 2;
        }
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendTask(i) >= 0) {
                counts[msg.sendTask(i)]++;
            }
        }
        long[][] out = new long[tasks][];
        for (int t = 0; t < tasks; t++) {
            out[t] = new long[counts[t]];
        }
        Arrays.fill(counts, 0);
        for (int i = 0; i < c.size(); i++) {
            int t = c.owner(i);
            // a call cut by the trace's end did not end: its end is no activity
            if ((c.flags(i) & StateModel.START_UNKNOWN) == 0) {
                out[t][counts[t]++] = c.start(i);
            }
            if ((c.flags(i) & StateModel.END_UNKNOWN) == 0) {
                out[t][counts[t]++] = c.end(i);
            }
        }
        for (int i = 0; i < msg.size(); i++) {
            int t = msg.sendTask(i);
            if (t >= 0) {
                out[t][counts[t]++] = msg.sendTime(i);
            }
        }
        for (int t = 0; t < tasks; t++) {
            out[t] = Arrays.copyOf(out[t], counts[t]);
            Arrays.sort(out[t]);
        }
        return out;
    }

    private void sortByEnd(int[] w) {
        boolean sorted = true; // most often so: a task's waits end at its receives, in the order it made them
        for (int k = 1; k < w.length && sorted; k++) {
            sorted = waits.get(w[k - 1]).end() <= waits.get(w[k]).end();
        }
        if (sorted) {
            return;
        }
        Integer[] boxed = Arrays.stream(w).boxed().toArray(Integer[]::new);
        Arrays.sort(
                boxed, (x, y) -> Long.compare(waits.get(x).end(), waits.get(y).end()));
        for (int k = 0; k < w.length; k++) {
            w[k] = boxed[k];
        }
    }

    /**
     * The critical path of what {@code task} did on {@code core} from {@code from} to {@code to}
     * (a request): from its end, back through the last wait of each task, to the message that
     * ended it and its sender, until a stretch begins before {@code from}. In time order.
     */
    public List<Step> criticalPath(int task, int core, long from, long to) {
        return new CriticalPaths(this).request(task, core, from, to);
    }

    /** What a stretch of a thread's critical path was. */
    public enum Doing {
        /** Its task ran on {@code core}. */
        RUNNING("running"),
        /** Its task was runnable (preempted, or woken) and waited for {@code core}, where {@code by} ran. */
        WAITING_FOR_CPU("waiting for a CPU"),
        /** Its task was blocked in {@code call} until an interrupt ({@code irq}) or a task the path does not follow woke it. */
        BLOCKED("blocked"),
        /** A message its task waited for was on its way from the sender ({@code message}). */
        MESSAGE("message in transit"),
        /** The traces do not say (before the task's first event, or its state unknown then). */
        UNKNOWN("unknown");

        public final String label;

        Doing(String label) {
            this.label = label;
        }
    }

    /**
     * A stretch of a thread's critical path: {@code task} from {@code start} to {@code end},
     * {@code doing} what; on or waiting for {@code core} (−1: none); in call {@code call} (a row
     * of {@link StateModel#calls()}, −1: none); {@code by}: the task that ran on the core it
     * waited for, or the one that woke it when the path does not follow that one (−1: none);
     * {@code irq}: the interrupt that woke it (a name id, −1: none); {@code message}: the
     * message in transit (−1: none).
     */
    public record Segment(
            Doing doing, int task, int core, long start, long end, int call, int by, int irq, int message) {
        public long duration() {
            return end - start;
        }
    }

    /**
     * The critical path of {@code task} from {@code from} to {@code to}, as Trace Compass's OS
     * critical path: followed back from {@code to}, each stretch is what the task then did
     * (running, waiting for a CPU), and when it was blocked, what it waited for: the task that
     * woke it (its path, followed back from the wake-up to the start of the block), the sender of
     * the message it then got (the message's transit, and the sender's path before it sent), or
     * the interrupt that woke it (a device, a timer: the block stays, named with the
     * interrupt); before a task created in the traces existed, its creator's path. In time
     * order, covering {@code [from, to]} without gaps.
     */
    public List<Segment> threadPath(int task, long from, long to) {
        return new CriticalPaths(this).thread(task, from, to);
    }

    /** The position in a task's waits (by end) of the first that ends after {@code time}. */
    int endingAfter(int[] byTask, long time) {
        return RowIndex.firstAfter(byTask, k -> waits.get(k).end(), time);
    }

    /** The call its sender was in when it sent {@code message} (its last call, if it was in none), or −1. */
    public int sentIn(int message) {
        MessageTable msg = m.messages();
        int task = msg.sendTask(message);
        if (task < 0) {
            return -1;
        }
        long t = msg.sendTime(message);
        return msg.sendCall(message) >= 0 ? callAt(task, msg.sendCall(message), t) : activity(task, t, t);
    }

    /** The call its receiver was in when it took {@code message}, or −1. */
    public int receivedIn(int message) {
        MessageTable msg = m.messages();
        int task = msg.receiveTask(message);
        return task < 0 || msg.receiveCall(message) < 0
                ? -1
                : callAt(task, msg.receiveCall(message), msg.receiveTime(message));
    }

    /** The deepest call of function {@code func} by {@code task} that spans {@code time}, or −1. */
    private int callAt(int task, int func, long time) {
        IntervalTable c = m.calls();
        int[] rows = calls.rows(task);
        int best = -1;
        for (int k = calls.after(task, time) - 1; k >= 0; k--) {
            int row = rows[k];
            if (c.subject(row) == func
                    && c.start(row) <= time
                    && c.end(row) >= time
                    && (best < 0 || c.depth(row) > c.depth(best))) {
                best = row;
            }
            if (c.depth(row) == 0 && c.end(row) < time) {
                break;
            }
        }
        return best;
    }

    /**
     * What {@code task} was doing from {@code start} to {@code end}: the deepest call that covers
     * more than half of it, else the last call that ended by {@code end}, or −1. At a single time
     * (a send), the call it was in: the deepest one open then or, when calls end at that very
     * time (the send follows their exits in the same nanosecond), the outermost of those nested
     * in the open one.
     */
    public int activity(int task, long start, long end) {
        IntervalTable c = m.calls();
        int[] rows = calls.rows(task);
        long half = (end - start) / 2;
        int best = -1;
        int open = -1;
        int enteredThen = -1;
        int endedThen = -1;
        int lastEnded = -1;
        for (int k = calls.after(task, end) - 1; k >= 0; k--) {
            int row = rows[k];
            if (start == end) {
                if (c.start(row) < start && c.end(row) > end && (open < 0 || c.depth(row) > c.depth(open))) {
                    open = row;
                }
                if (c.start(row) == start
                        && c.end(row) > end
                        && (enteredThen < 0 || c.depth(row) < c.depth(enteredThen))) {
                    enteredThen = row;
                }
                if (c.end(row) == end && (endedThen < 0 || c.depth(row) < c.depth(endedThen))) {
                    endedThen = row;
                }
            } else if (Math.min(end, c.end(row)) - Math.max(start, c.start(row)) > half
                    && (best < 0 || c.depth(row) > c.depth(best))) {
                best = row;
            }
            if (c.end(row) <= end
                    && (lastEnded < 0
                            || c.end(row) > c.end(lastEnded)
                            || (c.end(row) == c.end(lastEnded) && c.depth(row) < c.depth(lastEnded)))) {
                lastEnded = row;
            }
            if (c.depth(row) == 0 && c.end(row) < start) {
                break; // calls at depth 0 do not overlap: nothing earlier reaches the range
            }
        }
        if (start == end) {
            // a call entered at that very time comes after it only when nothing else was going on
            best = endedThen >= 0 && (open < 0 || c.depth(endedThen) > c.depth(open))
                    ? endedThen
                    : open >= 0 ? open : enteredThen;
        }
        return best >= 0 ? best : lastEnded;
    }

    /** Each task's wake-ups: a task's are its trace's, in time order. */
    private static int[][] wakeupsByTask(StateModel m, int tasks) {
        return RowIndex.group(tasks, m.wakeups(), m::wakeupTask);
    }

    /**
     * Who ran while {@code task} was preempted (or woken and waiting for a core) within
     * {@code [from, to)}: per task, the time and the number of stretches, longest first. The
     * core it waited for is the one it ran on next (a preempted OS thread may move), else
     * {@code core}.
     */
    public List<Share> preemptedBy(int task, int core, long from, long to) {
        Map<Integer, long[]> by = new LinkedHashMap<>();
        IntervalTable st = m.taskStates();
        IntervalTable r = m.runs();
        states.overlapping(task, from, to, (row, s, e) -> {
            int state = st.state(row);
            if (state == StateModel.PREEMPTED || state == StateModel.RUNNABLE) {
                int on = nextCore(task, st.end(row), core);
                if (on < 0) {
                    return;
                }
                runs.overlapping(on, s, e, (run, rs, re) -> {
                    if (r.subject(run) != task && r.state(run) == StateModel.RUNNING) {
                        long[] a = by.computeIfAbsent(r.subject(run), k -> new long[2]);
                        a[0] += re - rs;
                        a[1]++;
                    }
                });
            }
        });
        List<Share> out = new ArrayList<>();
        by.forEach((t, a) -> out.add(new Share(t, a[0], (int) a[1])));
        out.sort((x, y) -> Long.compare(y.nanos(), x.nanos()));
        return out;
    }

    /** The core of {@code task}'s run that starts at {@code at} (where it went on after waiting), else {@code otherwise}. */
    int nextCore(int task, long at, int otherwise) {
        int[] rows = taskRuns.rows(task);
        int k = taskRuns.after(task, at) - 1;
        if (k >= 0 && m.runs().start(rows[k]) == at) {
            return m.runs().owner(rows[k]);
        }
        return otherwise;
    }

    /** The time {@code task} ran, on any core, within {@code [from, to)}. */
    public long runningTime(int task, long from, long to) {
        long[] sum = {0};
        taskRuns.overlapping(task, from, to, (row, s, e) -> sum[0] += e - s);
        return sum[0];
    }

    /** The interrupts on the cores {@code task} ran on, while it ran there within {@code [from, to)}: by name, longest first. */
    public List<Diagnosis.Part> interruptsOf(int task, long from, long to) {
        Map<Integer, long[]> by = new LinkedHashMap<>();
        taskRuns.overlapping(task, from, to, (row, s, e) -> interrupts(m.runs().owner(row), s, e, by));
        return parts(by);
    }

    /** The interrupts on {@code core} within {@code [from, to)}: by name, longest first. */
    public List<Diagnosis.Part> interruptsOn(int core, long from, long to) {
        Map<Integer, long[]> by = new LinkedHashMap<>();
        interrupts(core, from, to, by);
        return parts(by);
    }

    /** The outermost interrupts of {@code core} within {@code [from, to)}, summed by name into {@code by}. */
    private void interrupts(int core, long from, long to, Map<Integer, long[]> by) {
        IntervalTable t = m.irqs();
        int[] rows = irqs.rows(core);
        for (int k = Math.max(0, irqs.after(core, from) - 1); k < rows.length && t.start(rows[k]) < to; k++) {
            int row = rows[k];
            long s = Math.max(from, t.start(row));
            long e = Math.min(to, t.end(row));
            if (t.depth(row) == 0 && e > s) {
                long[] a = by.computeIfAbsent(t.subject(row), x -> new long[2]);
                a[0] += e - s;
                a[1]++;
            }
        }
    }

    private List<Diagnosis.Part> parts(Map<Integer, long[]> byName) {
        List<Diagnosis.Part> out = new ArrayList<>();
        byName.forEach((n, a) -> out.add(new Diagnosis.Part(m.name(n), a[0], (int) a[1])));
        out.sort((x, y) -> Long.compare(y.nanos(), x.nanos()));
        return out;
    }

    /**
     * What woke {@code task} within {@code (from, to]}, ending its blocked stretches: the
     * interrupt in progress (named as such) or the task that woke it, with the time it had been
     * blocked; longest first.
     */
    public List<Diagnosis.Part> wakersOf(int task, long from, long to) {
        int[] w = wakeupsByTask[task];
        int lo = RowIndex.firstAfter(w, m::wakeupTime, from);
        Map<String, long[]> by = new LinkedHashMap<>();
        IntervalTable st = m.taskStates();
        for (int k = lo; k < w.length && m.wakeupTime(w[k]) <= to; k++) {
            int i = w[k];
            long t = m.wakeupTime(i);
            // the blocked stretch it ended
            long blocked = 0;
            int[] rows = states.rows(task);
            for (int j = states.after(task, t) - 1; j >= 0; j--) {
                int row = rows[j];
                if (st.end(row) == t && st.state(row) == StateModel.BLOCKED) {
                    blocked = t - Math.max(from, st.start(row));
                    break;
                }
                if (st.end(row) < t) {
                    break;
                }
            }
            String who = m.wakerIrq(i) >= 0
                    ? "interrupt " + m.name(m.wakerIrq(i))
                    : m.wakerTask(i) >= 0 ? "task " + taskName(m.wakerTask(i)) : "an unknown waker";
            long[] a = by.computeIfAbsent(who, x -> new long[2]);
            a[0] += blocked;
            a[1]++;
        }
        List<Diagnosis.Part> out = new ArrayList<>();
        by.forEach((n, a) -> out.add(new Diagnosis.Part(n, a[0], (int) a[1])));
        out.sort((x, y) -> Long.compare(y.nanos(), x.nanos()));
        return out;
    }

    /** A task's name as the analyses print it: with its id when it has one ({@code Xorg[691]}). */
    String taskName(int task) {
        StateModel.Task t = m.tasks().get(task);
        return t.id() >= 0 ? t.name() + "[" + t.id() + "]" : t.name();
    }

    /** The time {@code task} spent in state {@code state} within {@code [from, to)}. */
    public long timeIn(int task, int state, long from, long to) {
        long[] sum = {0};
        IntervalTable st = m.taskStates();
        states.overlapping(task, from, to, (row, s, e) -> {
            if (st.state(row) == state) {
                sum[0] += e - s;
            }
        });
        return sum[0];
    }

    /** The time interrupts held {@code core} within {@code [from, to)} (outermost ones). */
    public long irqTime(int core, long from, long to) {
        long[] sum = {0};
        IntervalTable t = m.irqs();
        int[] rows = irqs.rows(core);
        int k = Math.max(0, irqs.after(core, from) - 1);
        for (; k < rows.length && t.start(rows[k]) < to; k++) {
            int row = rows[k];
            if (t.depth(row) == 0) {
                long s = Math.max(from, t.start(row));
                long e = Math.min(to, t.end(row));
                sum[0] += Math.max(0, e - s);
            }
        }
        return sum[0];
    }

    /**
     * The core {@code task} ran on longest within {@code [from, to)} (an instant: the one it ran on
     * then), else the one it last ran on before (or first after), else the first core of its
     * trace, or −1.
     */
    public int coreOf(int task, long from, long to) {
        // its runs within the range (an instant: the run it is in), summed per core
        Map<Integer, long[]> ran = new LinkedHashMap<>();
        IntervalTable r = m.runs();
        taskRuns.overlapping(
                task,
                from,
                Math.max(to, from + 1),
                (row, s, e) -> ran.computeIfAbsent(r.owner(row), k -> new long[1])[0] += e - s);
        int best = -1;
        long most = 0;
        for (var e : ran.entrySet()) {
            if (e.getValue()[0] > most) {
                most = e.getValue()[0];
                best = e.getKey();
            }
        }
        if (best >= 0) {
            return best;
        }
        // not running then (preempted, blocked): the core it last ran on before, else first after
        int[] rows = taskRuns.rows(task);
        if (rows.length > 0) {
            int k = taskRuns.after(task, from) - 1;
            return r.owner(rows[Math.max(0, k)]);
        }
        int trace = m.tasks().get(task).trace();
        for (int c = 0; c < m.cores().size(); c++) {
            if (m.cores().get(c).trace() == trace) {
                return c;
            }
        }
        return -1;
    }
}
