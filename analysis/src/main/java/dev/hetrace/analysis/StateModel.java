package dev.hetrace.analysis;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * What the traces say happened, as tables: per core, which task ran (or idled) when; per task,
 * why it was not running (preempted, blocked, on which queue) and its calls (depth, self and
 * total time); per core, the interrupts; per message, the send linked to the receive. Times are
 * ns on the reference clock. What the traces do not show is marked, not invented: an interval
 * whose beginning precedes the trace starts at the trace's first event with
 * {@link #START_UNKNOWN}, one still open at the end (or whose exit never came) ends at the
 * trace's last event with {@link #END_UNKNOWN}, one during which the tracer lost events has
 * {@link #EVENTS_LOST}.
 */
public final class StateModel {
    public static final int START_UNKNOWN = 1;
    public static final int END_UNKNOWN = 2;
    public static final int EVENTS_LOST = 4;

    /** States of {@link #runs()} (RUNNING, IDLE) and {@link #taskStates()} (the others). */
    public static final int RUNNING = 0;

    public static final int IDLE = 1;
    public static final int PREEMPTED = 2;
    public static final int BLOCKED = 3;
    /** Switched out, and the trace does not say why. */
    public static final int WAITING = 4;
    /** Woken (made runnable again after it blocked, or new), waiting for a core to run on. */
    public static final int RUNNABLE = 5;
    /** Exited, not yet reaped (Linux: a zombie until its parent waits for it). */
    public static final int DEAD = 6;

    private static final String[] STATE_NAMES = {
        "running", "idle", "preempted", "blocked", "waiting", "runnable", "dead"
    };

    /** How many states there are: every state is below this. */
    public static final int STATES = STATE_NAMES.length;

    /** A counter series' samples are values as sampled (a level: a queue's depth, a temperature). */
    public static final int COUNTER_VALUE = 0;

    /** A counter series' samples are a running total (a hardware counter): its rate is what changes between samples. */
    public static final int COUNTER_TOTAL = 1;

    /** A counter series' samples are events a stream lost, each the count told by one packet. */
    public static final int COUNTER_LOST = 2;

    private static final String[] COUNTER_KINDS = {"value", "total", "lost"};

    /**
     * A counter series: what it counts and in what unit, what its samples are ({@link #COUNTER_VALUE},
     * {@link #COUNTER_TOTAL}, {@link #COUNTER_LOST}), and whose it is: a core (task −1), a task (core −1),
     * or, both −1, its trace's (a stream's lost events).
     */
    public record Counter(String name, String unit, int kind, int trace, int core, int task) {}

    /** A core: a trace, or a CPU of a trace. */
    public record Core(String name, int trace) {}

    /**
     * A task of a trace, with the id its trace gives it (−1 when named only) and the process it
     * belongs to (Linux: its thread group's id, the tgid, which is its leader's id; −1 when the
     * trace does not say).
     */
    public record Task(String name, int trace, long id, boolean idle, long process) {
        public Task(String name, int trace, long id, boolean idle) {
            this(name, trace, id, idle, -1);
        }

        /** Whether it is its process's leader (its first thread, whose id is the process's). */
        public boolean leader() {
            return process >= 0 && process == id;
        }
    }

    /**
     * A binary a traced process had loaded, as LTTng-UST's state dump ({@code lttng_ust_statedump:bin_info},
     * {@code build_id}) or its {@code lttng_ust_dl:dlopen} says: what names the functions traced by
     * address in {@code [base, base + size)}.
     *
     * @param trace   the trace that says it
     * @param process its process id (the {@code vpid} context), −1 when the trace does not say
     * @param base    the address its first loadable segment was loaded at
     * @param size    the bytes it spans in memory
     * @param path    where it was loaded from, on the traced machine
     * @param pic     whether it is position-independent (its addresses are relative to {@code base})
     * @param buildId its build id as the trace recorded it (lowercase hex), or null
     */
    public record Binary(int trace, long process, long base, long size, String path, boolean pic, String buildId) {
        Binary withBuildId(String id) {
            return new Binary(trace, process, base, size, path, pic, id);
        }
    }

    final List<String> traceNames = new ArrayList<>();
    /** The binaries the traces' processes loaded. */
    final List<Binary> binaries = new ArrayList<>();
    /** The files looked at to name functions after those binaries. */
    final Set<Path> namingFiles = new TreeSet<>();

    final List<String> mappingNames = new ArrayList<>();
    final List<Core> cores = new ArrayList<>();
    final List<Task> tasks = new ArrayList<>();
    final List<String> names = new ArrayList<>();
    IntervalTable runs = new IntervalTable();
    IntervalTable taskStates = new IntervalTable();
    IntervalTable calls = new IntervalTable();
    IntervalTable irqs = new IntervalTable();
    final MessageTable messages = new MessageTable();
    /** Point events: time, core and event name (of {@link #eventNames}) side by side. */
    final LongRows marks = new LongRows(2);

    final List<String> eventNames = new ArrayList<>();
    final List<Counter> counters = new ArrayList<>();
    /** Counter samples: time; series (of {@link #counters}); value (a double's bits). */
    final LongRows samples = new LongRows(3);
    /** Wake-ups: time; woken and waker task (high, low halves); core and interrupt (name id, −1: none) of the waker. */
    final LongRows wakeups = new LongRows(3);
    /** Tasks created in the traces: time; the new task and the one that created it (high, low halves; −1: unknown). */
    final LongRows forks = new LongRows(2);
    /** Per trace: its first and last timed events, and the longest time between two of its consecutive events. */
    long[] traceFirst = new long[0];

    long[] traceLast = new long[0];
    long[] traceLongestGap = new long[0];
    boolean[] osThreads = new boolean[0];
    /** Per trace, where its core sits on the board ({@link #tracePlace}). */
    final List<List<String>> places = new ArrayList<>();

    long begin = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    long events;
    long untimed;
    long discarded;

    StateModel() {}

    public static String stateName(int state) {
        return STATE_NAMES[state];
    }

    /** The traces, by index (their directory names). */
    public List<String> traceNames() {
        return traceNames;
    }

    /** The mapping each trace was read with. */
    public List<String> mappingNames() {
        return mappingNames;
    }

    public List<Core> cores() {
        return cores;
    }

    public List<Task> tasks() {
        return tasks;
    }

    /** Function and interrupt names, by the ids in {@link #calls()} and {@link #irqs()}. */
    public String name(int id) {
        return names.get(id);
    }

    /** Per core (owner), the task (subject) running or idling (state) from start to end. */
    public IntervalTable runs() {
        return runs;
    }

    /** Per task (owner), why it was not running: preempted, blocked (subject: the queue it then read, or −1), waiting. */
    public IntervalTable taskStates() {
        return taskStates;
    }

    /** Per task (owner), the calls of functions (subject) at their depth, with their self time. */
    public IntervalTable calls() {
        return calls;
    }

    /** Per core (owner), the interrupts (subject) at their nesting depth. */
    public IntervalTable irqs() {
        return irqs;
    }

    public MessageTable messages() {
        return messages;
    }

    void addMark(long time, int core, int name) {
        int o = marks.append();
        MemorySegment m = marks.lastChunk();
        m.setAtIndex(LongRows.L, o, time);
        m.setAtIndex(LongRows.L, o + 1, LongRows.pair(core, name));
    }

    /**
     * How many point events: the events no interval is made of (those no rule of the mapping
     * reads, such as the sync handshake's, and waits), on their core (or trace), each trace's in
     * time order.
     */
    public int marks() {
        return marks.size();
    }

    /** Point event {@code i}'s time, ns on the reference clock. */
    public long markTime(int i) {
        return marks.get(i, 0);
    }

    /**
     * Point event {@code i}'s core; −1 − its trace's index when it is on no core of the model (a
     * CPU no mapped event names, such as a Linux trace's sync daemon's, or no CPU at all).
     */
    public int markCore(int i) {
        return (int) (marks.get(i, 1) >>> 32);
    }

    /** Point event {@code i}'s event name. */
    public String markName(int i) {
        return eventNames.get((int) marks.get(i, 1));
    }

    /** The counter series the traces carry, by number. */
    public List<Counter> counters() {
        return counters;
    }

    /** What {@link Counter#kind} means, as the tables name it: value, total or lost. */
    public static String counterKindName(int kind) {
        return COUNTER_KINDS[kind];
    }

    void addSample(long time, int series, double value) {
        int o = samples.append();
        MemorySegment m = samples.lastChunk();
        m.setAtIndex(LongRows.L, o, time);
        m.setAtIndex(LongRows.L, o + 1, series);
        m.setAtIndex(LongRows.L, o + 2, Double.doubleToRawLongBits(value));
    }

    /** How many counter samples: each series' in time order, trace after trace. */
    public int samples() {
        return samples.size();
    }

    /** Sample {@code i}'s time, ns on the reference clock. */
    public long sampleTime(int i) {
        return samples.get(i, 0);
    }

    /** Sample {@code i}'s series (of {@link #counters()}). */
    public int sampleSeries(int i) {
        return (int) samples.get(i, 1);
    }

    /** Sample {@code i}'s value: as sampled, the running total, or the events lost (by its series' kind). */
    public double sampleValue(int i) {
        return Double.longBitsToDouble(samples.get(i, 2));
    }

    void addWakeup(long time, int task, int waker, int core, int irq) {
        int o = wakeups.append();
        MemorySegment m = wakeups.lastChunk();
        m.setAtIndex(LongRows.L, o, time);
        m.setAtIndex(LongRows.L, o + 1, LongRows.pair(task, waker));
        m.setAtIndex(LongRows.L, o + 2, LongRows.pair(core, irq));
    }

    void addFork(long time, int task, int parent) {
        int o = forks.append();
        MemorySegment m = forks.lastChunk();
        m.setAtIndex(LongRows.L, o, time);
        m.setAtIndex(LongRows.L, o + 1, LongRows.pair(task, parent));
    }

    /** How many tasks the traces show created (Linux: forks and clones), each trace's in time order, trace after trace. */
    public int forks() {
        return forks.size();
    }

    /** Fork {@code i}'s time, ns on the reference clock. */
    public long forkTime(int i) {
        return forks.get(i, 0);
    }

    /** The task fork {@code i} created. */
    public int forkTask(int i) {
        return LongRows.high(forks.get(i, 1));
    }

    /** The task that created it (the one running where the fork happened), or −1. */
    public int forkParent(int i) {
        return LongRows.low(forks.get(i, 1));
    }

    /**
     * How many wake-ups: a task made runnable again (or for the first time), with what woke it:
     * the task running where the wake-up happened, or the interrupt that was then in progress
     * there. Each trace's in time order, trace after trace.
     */
    public int wakeups() {
        return wakeups.size();
    }

    /** Wake-up {@code i}'s time, ns on the reference clock. */
    public long wakeupTime(int i) {
        return wakeups.get(i, 0);
    }

    /** The task wake-up {@code i} made runnable. */
    public int wakeupTask(int i) {
        return LongRows.high(wakeups.get(i, 1));
    }

    /** The task that woke it (−1 when unknown); when {@link #wakerIrq} is not −1, the task that interrupt interrupted. */
    public int wakerTask(int i) {
        return LongRows.low(wakeups.get(i, 1));
    }

    /** The core the wake-up happened on (−1 when unknown). */
    public int wakerCore(int i) {
        return LongRows.high(wakeups.get(i, 2));
    }

    /** The interrupt (a name id) in progress on that core when it happened, or −1: woken by an interrupt (a timer, a device). */
    public int wakerIrq(int i) {
        return LongRows.low(wakeups.get(i, 2));
    }

    /** The time of trace {@code trace}'s first timed event, on the reference clock (Long.MIN_VALUE when it has none). */
    public long traceBegin(int trace) {
        return traceFirst[trace];
    }

    /** The time of trace {@code trace}'s last timed event, on the reference clock. */
    public long traceEnd(int trace) {
        return traceLast[trace];
    }

    /**
     * Whether trace {@code trace}'s tasks are the threads of a general-purpose OS (a Linux kernel
     * trace, or user space traced per thread): each thread does its own work, so that its calls
     * are compared with its own, not with other threads' of the same name.
     */
    public boolean osThreads(int trace) {
        return osThreads[trace];
    }

    /** The environment entries of a trace's metadata that say where its core sits, outermost first. */
    public static final List<String> PLACE_KEYS = List.of("board", "cluster", "chip");

    /**
     * Where trace {@code trace}'s core sits on the board, outermost first: the values of its
     * metadata's {@link #PLACE_KEYS} environment entries it has ({@code board}, {@code cluster},
     * {@code chip}); empty when it has none.
     */
    public List<String> tracePlace(int trace) {
        return trace < places.size() ? places.get(trace) : List.of();
    }

    /** The longest time between two consecutive timed events of trace {@code trace}: how long it is normally silent at most. */
    public long traceLongestGap(int trace) {
        return traceLongestGap[trace];
    }

    /** The first event's time, on the reference clock. */
    public long begin() {
        return begin;
    }

    /** The last event's time, on the reference clock. */
    public long end() {
        return end;
    }

    /** Events read. */
    public long events() {
        return events;
    }

    /** Events of streams without a clock: read, but in no interval. */
    public long untimed() {
        return untimed;
    }

    /** Events the tracers said they discarded (unknown counts not included). */
    public long discarded() {
        return discarded;
    }

    /**
     * Names functions traced by address ({@code 0x401180}) after a symbol table, address (as
     * {@code 0x} and lowercase hex) to name; addresses it lacks keep their number.
     */
    public void symbolize(Map<String, String> symbols) {
        for (int i = 0; i < names.size(); i++) {
            String s = symbols.get(names.get(i));
            if (s != null) {
                names.set(i, s);
            }
        }
    }

    /**
     * Names functions traced by address after {@code symbols} (as {@link #symbolize(Map)}), then
     * those still named by address after the binaries the traces' state dump says were loaded
     * there ({@link #binaries()}), read from this machine ({@link BinarySymbols}): each binary
     * that cannot be used (missing, another build, damaged, stripped) told once to {@code warnings}.
     */
    public void symbolize(Map<String, String> symbols, Consumer<String> warnings) {
        symbolize(symbols);
        if (!binaries.isEmpty()) {
            symbolize(BinarySymbols.names(binaries, names, BinarySymbols.DEBUG_ROOT, warnings, namingFiles::add));
        }
    }

    /**
     * The files {@link #symbolize(Map, Consumer)} looked at or for to name functions (binaries,
     * debug files, whether there or not): what, changed, would name them otherwise.
     */
    public Set<Path> namingFiles() {
        return Collections.unmodifiableSet(namingFiles);
    }

    /** The binaries the traces' processes loaded, as LTTng-UST's state dump says (none without one). */
    public List<Binary> binaries() {
        return Collections.unmodifiableList(binaries);
    }

    /**
     * Per task, the task that leads its process (the thread whose id is the process's, in the same
     * trace: the last such created before it, as ids are reused), −1 when its process is unknown or
     * its leader not in the traces. The process's name is its leader's.
     */
    public int[] processLeaders() {
        int n = tasks.size();
        int[] leader = new int[n];
        Arrays.fill(leader, -1);
        // tasks are numbered in the order they were met: the leader of a thread met at k is the latest at or before k
        Map<Long, Integer> latest = new HashMap<>();
        for (int k = 0; k < n; k++) {
            Task t = tasks.get(k);
            if (t.leader()) {
                latest.put(((long) t.trace() << 40) ^ t.id(), k);
            }
            if (t.process() >= 0) {
                Integer l = latest.get(((long) t.trace() << 40) ^ t.process());
                leader[k] = l == null ? -1 : l;
            }
        }
        for (int k = 0; k < n; k++) {
            Task t = tasks.get(k);
            if (leader[k] < 0 && t.process() >= 0) {
                // listed before its leader (a state dump's order): any leader of that id
                Integer l = latest.get(((long) t.trace() << 40) ^ t.process());
                leader[k] = l == null ? -1 : l;
            }
        }
        return leader;
    }

    /** The index of the core so named, or −1. */
    public int core(String name) {
        for (int i = 0; i < cores.size(); i++) {
            if (cores.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the task of core or trace {@code trace} so named, or −1. */
    public int task(int trace, String name) {
        for (int i = 0; i < tasks.size(); i++) {
            if (tasks.get(i).trace() == trace && tasks.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The id of a function or interrupt name, or −1. */
    public int nameId(String name) {
        return names.indexOf(name);
    }
}
