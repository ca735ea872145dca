package dev.hetrace.analysis;

import java.util.Collections;
import java.util.List;

/**
 * A state model made again, table by table, from what the analysis store kept of it
 * ({@code analysis/index} ModelStore), so that the commands that analyse a trace set read its
 * store rather than its traces; and the parts of a model its accessors do not give (the names
 * by id, the point events' name ids), for the store to keep. Rows are given one at a time as
 * primitives, in the order of the model's tables, and go straight into its row storage.
 */
public final class StoredModel {
    /** The interval tables, as {@link #interval} numbers them. */
    public static final int RUNS = 0;

    public static final int TASK_STATES = 1;
    public static final int CALLS = 2;
    public static final int IRQS = 3;

    private final StateModel m = new StateModel();
    private final IntervalTable[] tables = {m.runs, m.taskStates, m.calls, m.irqs};
    private final LongColumn first = new LongColumn();
    private final LongColumn last = new LongColumn();
    private final LongColumn gap = new LongColumn();
    private final LongColumn threads = new LongColumn();

    /** The interval table {@code table} ({@link #RUNS}...) of {@code m}. */
    public static IntervalTable intervals(StateModel m, int table) {
        return switch (table) {
            case RUNS -> m.runs();
            case TASK_STATES -> m.taskStates();
            case CALLS -> m.calls();
            case IRQS -> m.irqs();
            default -> throw new IllegalArgumentException("no interval table " + table);
        };
    }

    /** The function and interrupt names of {@code m}, by id. */
    public static List<String> names(StateModel m) {
        return Collections.unmodifiableList(m.names);
    }

    /** The names of {@code m}'s point events, by the ids {@link #markNameId} gives. */
    public static List<String> eventNames(StateModel m) {
        return Collections.unmodifiableList(m.eventNames);
    }

    /** Point event {@code i}'s name id (of {@link #eventNames}). */
    public static int markNameId(StateModel m, int i) {
        return LongRows.low(m.marks.get(i, 1));
    }

    /** Trace {@code i}: its name, the mapping it was read with, its first and last timed events, its longest silence. */
    public void trace(
            String name, String mapping, long firstEvent, long lastEvent, long longestGap, boolean osThreads) {
        m.traceNames.add(name);
        m.mappingNames.add(mapping);
        first.add(firstEvent);
        last.add(lastEvent);
        gap.add(longestGap);
        threads.add(osThreads ? 1 : 0);
        m.places.add(List.of());
    }

    /** Where the last trace given sits on the board ({@link StateModel#tracePlace}), outermost first. */
    public void place(List<String> place) {
        m.places.set(m.places.size() - 1, List.copyOf(place));
    }

    public void core(String name, int trace) {
        m.cores.add(new StateModel.Core(name, trace));
    }

    /** The next task ({@code process}: its process's id, −1 when unknown). */
    public void task(String name, int trace, long id, boolean idle, long process) {
        m.tasks.add(new StateModel.Task(name, trace, id, idle, process));
    }

    /** The next function or interrupt name. */
    public void name(String name) {
        m.names.add(name);
    }

    /** The next point event name. */
    public void eventName(String name) {
        m.eventNames.add(name);
    }

    /** The next row of interval table {@code table} ({@link #RUNS}...). */
    public void interval(
            int table, long start, long end, int owner, int subject, int state, int depth, int flags, long self) {
        tables[table].add(start, end, owner, subject, state, depth, flags, self);
    }

    /**
     * The next message: a side never seen is −1 with its flag ({@link StateModel#START_UNKNOWN}:
     * no send, {@link StateModel#END_UNKNOWN}: no receive), as the state pass makes them.
     */
    public void message(
            long sendTime,
            int sendCore,
            int sendTask,
            int sendCall,
            long receiveTime,
            int receiveCore,
            int receiveTask,
            int receiveCall,
            long queue,
            long id,
            int flags) {
        if ((flags & StateModel.START_UNKNOWN) != 0) {
            m.messages.receiveOnly(receiveTime, receiveCore, receiveTask, receiveCall, queue, id);
            return;
        }
        int row = m.messages.send(sendTime, sendCore, sendTask, sendCall, queue, id);
        if ((flags & StateModel.END_UNKNOWN) == 0) {
            m.messages.received(row, receiveTime, receiveCore, receiveTask, receiveCall);
        }
    }

    public void mark(long time, int core, int name) {
        m.addMark(time, core, name);
    }

    public void wakeup(long time, int task, int waker, int core, int irq) {
        m.addWakeup(time, task, waker, core, irq);
    }

    public void fork(long time, int task, int parent) {
        m.addFork(time, task, parent);
    }

    /** The next counter series. */
    public void counter(String name, String unit, int kind, int trace, int core, int task) {
        m.counters.add(new StateModel.Counter(name, unit, kind, trace, core, task));
    }

    /** The next counter sample. */
    public void sample(long time, int series, double value) {
        m.addSample(time, series, value);
    }

    /** The first and last events' times, and the counts of events read, of untimed events and of events discarded. */
    public void totals(long begin, long end, long events, long untimed, long discarded) {
        m.begin = begin;
        m.end = end;
        m.events = events;
        m.untimed = untimed;
        m.discarded = discarded;
    }

    /** The model made of what was given. */
    public StateModel model() {
        int n = first.size();
        m.traceFirst = new long[n];
        m.traceLast = new long[n];
        m.traceLongestGap = new long[n];
        m.osThreads = new boolean[n];
        for (int i = 0; i < n; i++) {
            m.traceFirst[i] = first.get(i);
            m.traceLast[i] = last.get(i);
            m.traceLongestGap[i] = gap.get(i);
            m.osThreads[i] = threads.get(i) != 0;
        }
        return m;
    }
}
