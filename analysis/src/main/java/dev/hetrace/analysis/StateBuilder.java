package dev.hetrace.analysis;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.IndexHeap;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldTypeException;
import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.sync.MessageMatcher;
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Builds the {@link StateModel} of one or several traces: one pass over each trace's events, on
 * its own thread when there are several cores (each trace's state is its own; only messages
 * cross traces, and they are linked afterwards in the merged order of their events on the
 * reference clock). Per event: its class's rule found by identity, field reads through handles
 * resolved once per class (read in place), and appends to row-stored tables. Names are read only
 * when new: known ones are recognized by their id (task ids, addresses, interrupt numbers) or by
 * a 64-bit hash of their bytes (task and function names), so that the pass allocates nothing per
 * event beyond the tables' growth.
 */
public final class StateBuilder {
    /** The traces of an input, synchronized when there are several, with the report (null for one trace). */
    public record Input(List<Path> traces, List<PiecewiseMap> maps, Synchronizer.Report sync) {}

    /**
     * Told of every event the state pass reads, so that other tables can be made in the same pass
     * rather than by reading the traces again: a trace's events in their order, on the thread
     * that reads that trace (different traces' on different threads at once).
     */
    @FunctionalInterface
    public interface EventListener {
        /**
         * @param trace  the event's trace (index in the input)
         * @param reader that trace's reader, standing on the event
         * @param time   the event's time on the reference clock (meaningless when the event has none)
         */
        void event(int trace, CtfReader reader, long time) throws StreamDecodingException;

        /**
         * Told of each trace before any event, on the calling thread, in the traces' order: its
         * reader, opened, and the mapping it is read with (the given one restricted to its events,
         * or the preset detected).
         */
        default void opened(int trace, CtfReader reader, Mapping mapping) {
        }

        /**
         * When the pass read the traces before they were synchronized
         * ({@link #synchronizeAndBuild}), the times it gave were on each trace's own clock: this
         * tells the map of trace {@code trace}'s to the reference clock, once every event is read.
         */
        default void retime(int trace, PiecewiseMap map) {
        }
    }

    private StateBuilder() {}

    /**
     * How the traces are put on one clock.
     *
     * @param sync  the synchronization's rules, method, reference and pieces
     * @param apart whether a trace that cannot be put on the reference clock is analysed on its own
     *              clock, its first event placed at the reference trace's first event (times
     *              across it and the others then mean nothing), rather than refused
     */
    public record Clocks(Synchronizer.Options sync, boolean apart) {
        /** {@link Synchronizer.Options#DEFAULT}, every trace on the reference clock or none analysed. */
        public static final Clocks DEFAULT = new Clocks(Synchronizer.Options.DEFAULT, false);
    }

    /** The traces on one clock as {@link Clocks#DEFAULT} says: see {@link #synchronize(List, Clocks, Consumer)}. */
    public static Input synchronize(List<Path> traces, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return synchronize(traces, Clocks.DEFAULT, warnings);
    }

    /**
     * The traces on one clock: one trace as it is; several synchronized as {@code clocks} say.
     *
     * @throws UnsynchronizedTraceException when a trace cannot be put on the reference clock and
     *                                      {@code clocks} does not say to analyse it apart
     */
    public static Input synchronize(List<Path> traces, Clocks clocks, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        if (traces.size() == 1) {
            return new Input(traces, List.of(PiecewiseMap.of(dev.hetrace.sync.ClockTransform.IDENTITY)), null);
        }
        // the matched messages kept: the index's sync_messages table
        Synchronizer.Report r = Synchronizer.run(traces, clocks.sync(), warnings, Synchronizer.Progress.NONE, true);
        long[] begins = new long[traces.size()];
        if (clocks.apart() && r.traces().stream().anyMatch(t -> !t.connected())) {
            for (int i = 0; i < begins.length; i++) {
                begins[i] = begin(traces.get(i));
            }
        }
        return input(traces, r, clocks, begins, warnings);
    }

    /** The time of the trace's first event that has one, on its own clock (Long.MAX_VALUE when none has). */
    private static long begin(Path trace) throws IOException, MetadataException, StreamDecodingException {
        try (CtfReader reader = CtfReader.open(List.of(trace), w -> { })) {
            while (reader.next()) {
                if (reader.event().hasTime()) {
                    return reader.event().timeNanos();
                }
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * The traces on the clocks of a synchronization; a trace it did not connect refused, or, when
     * {@code clocks} says so, on its own clock shifted to begin with the reference ({@code begins}:
     * each trace's first time on its own clock, read when some trace is apart).
     */
    private static Input input(List<Path> traces, Synchronizer.Report r, Clocks clocks, long[] begins,
                               Consumer<String> warnings) throws UnsynchronizedTraceException {
        List<PiecewiseMap> maps = new ArrayList<>();
        Path reference = r.traces().get(r.reference()).path();
        for (int i = 0; i < r.traces().size(); i++) {
            Synchronizer.TraceSync t = r.traces().get(i);
            java.util.Optional<String> why = r.notConnected(i);
            if (why.isEmpty()) {
                maps.add(t.map());
                continue;
            }
            if (!clocks.apart()) {
                throw new UnsynchronizedTraceException(t.path() + " cannot be put on the clock of " + reference + ": "
                    + why.get() + "; --apart analyses it on its own clock");
            }
            warnings.accept(t.path() + ": analysed apart, on its own clock (its first event at the first of " + reference
                + "): " + why.get());
            long own = begins[i];
            long ref = begins[r.reference()];
            maps.add(PiecewiseMap.of(own == Long.MAX_VALUE || ref == Long.MAX_VALUE ? dev.hetrace.sync.ClockTransform.IDENTITY
                : new dev.hetrace.sync.ClockTransform(own, ref, 0)));
        }
        return new Input(traces, maps, r);
    }

    /** The state of the traces, each read with the mapping its metadata selects ({@link Mapping#detect}). */
    public static StateModel build(Input input, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return build(input, null, warnings);
    }

    /**
     * The state of the traces, read with {@code mapping} (restricted to each trace's events), or
     * with the detected presets when it is null.
     *
     * @throws MappingException when no preset fits a trace
     */
    public static StateModel build(Input input, Mapping mapping, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return build(input, mapping, Long.MIN_VALUE, warnings);
    }

    /**
     * The state from {@code fromNanos} (on the reference clock) on: what was under way then
     * (tasks running, calls, interrupts) is seen as a trace that began there sees it, marked
     * {@link StateModel#START_UNKNOWN}.
     */
    public static StateModel build(Input input, Mapping mapping, long fromNanos, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return build(input, mapping, fromNanos, warnings, null);
    }

    /**
     * As {@link #build(Input, Mapping, long, Consumer)}, telling {@code listener} (when not null)
     * of each trace opened, then of every event. The traces are read in parallel, one thread per
     * core at most.
     */
    public static StateModel build(Input input, Mapping mapping, long fromNanos, Consumer<String> warnings,
                                   EventListener listener)
            throws IOException, MetadataException, StreamDecodingException {
        return build(input, mapping, fromNanos, warnings, listener, 0);
    }

    /**
     * As {@link #build(Input, Mapping, long, Consumer, EventListener)}, reading the traces
     * on {@code threads} threads (0: one per available core; 1: on the calling thread). Each
     * trace is read by one thread, on its own: the listener is told of one trace's events on
     * one thread, of different traces' on different threads at once. The model is the same
     * whatever the number of threads.
     */
    public static StateModel build(Input input, Mapping mapping, long fromNanos, Consumer<String> warnings,
                                   EventListener listener, int threads)
            throws IOException, MetadataException, StreamDecodingException {
        return pass(input.traces(), input, null, mapping, fromNanos, warnings, listener, threads).model();
    }

    /** Traces put on one clock, and their state. */
    public record Built(Input input, StateModel model) {}

    /**
     * The traces synchronized as {@link #synchronize} does and their state as {@link #build}
     * makes it, reading each trace once: the state pass also finds the sync messages, on each
     * trace's own clock, and what it made is put on the reference clock once the traces are
     * synchronized. Durations within an interval (a call's self time) are measured on the
     * trace's clock; they differ from the reference clock's by the clocks' drift (parts per
     * million).
     */
    public static Built synchronizeAndBuild(List<Path> traces, Mapping mapping, Consumer<String> warnings,
                                            EventListener listener, int threads)
            throws IOException, MetadataException, StreamDecodingException {
        return synchronizeAndBuild(traces, Clocks.DEFAULT, mapping, warnings, listener, threads);
    }

    /**
     * As {@link #synchronizeAndBuild(List, Mapping, Consumer, EventListener, int)}, the traces
     * put on one clock as {@code clocks} say.
     *
     * @throws UnsynchronizedTraceException when a trace cannot be put on the reference clock and
     *                                      {@code clocks} does not say to analyse it apart
     */
    public static Built synchronizeAndBuild(List<Path> traces, Clocks clocks, Mapping mapping, Consumer<String> warnings,
                                            EventListener listener, int threads)
            throws IOException, MetadataException, StreamDecodingException {
        if (traces.size() == 1) {
            Input in = synchronize(traces, clocks, warnings);
            return new Built(in, build(in, mapping, Long.MIN_VALUE, warnings, listener, threads));
        }
        return pass(traces, null, clocks, mapping, Long.MIN_VALUE, warnings, listener, threads);
    }

    /**
     * The passes over the traces, on {@code input}'s clocks (null: synchronized as {@code clocks}
     * say from what the passes find).
     */
    private static Built pass(List<Path> traces, Input input, Clocks clocks, Mapping mapping, long fromNanos,
                              Consumer<String> warnings, EventListener listener, int threads)
            throws IOException, MetadataException, StreamDecodingException {
        int n = traces.size();
        Object lock = new Object();
        Consumer<String> told = w -> {
            synchronized (lock) {
                warnings.accept(w);
            }
        };
        CtfReader[] readers = new CtfReader[n];
        try {
            for (int i = 0; i < n; i++) {
                readers[i] = CtfReader.open(List.of(traces.get(i)), told);
                if (fromNanos != Long.MIN_VALUE) {
                    readers[i].seek(input.maps().get(i).inverse().apply(fromNanos));
                }
            }
            TracePass[] passes = new TracePass[n];
            List<String> names = traceNames(traces);
            PiecewiseMap own = PiecewiseMap.of(dev.hetrace.sync.ClockTransform.IDENTITY);
            MessageMatcher sync = input == null ? new MessageMatcher(clocks.sync().rules(), (r, f, s, t, v) -> { }) : null;
            for (int i = 0; i < n; i++) {
                passes[i] = new TracePass(i, traces.get(i), names.get(i), readers[i], input == null ? own : input.maps().get(i),
                    mapping);
                passes[i].listener = listener;
                if (passes[i].eventsOnly) {
                    told.accept(traces.get(i) + ": " + (mapping == null ? "no preset maps its events" : "the mapping "
                        + mapping.name() + " maps none of its events") + " (" + TracePass.abridged(eventNames(readers[i].traces()))
                        + ") to tasks, calls or interrupts: each of its streams is a row of its events. For states"
                        + " and calls, give a mapping with --mapping FILE, e.g. a file holding:\n"
                        + "  events: [{event: my_entry, does: enter, func: =my}, {event: my_exit, does: exit, func: =my}]\n"
                        + "  (see 'hetrace stats --help', \"Mapping files\")");
                }
                if (sync != null) {
                    passes[i].found = new Synchronizer.Found();
                    passes[i].keys = sync.keys();
                }
            }
            if (listener != null) {
                for (TracePass p : passes) {
                    listener.opened(p.trace, p.reader, p.mapping);
                }
            }
            int workers = Math.min(n, threads > 0 ? threads : Runtime.getRuntime().availableProcessors());
            // the largest traces first, so that the threads end together
            long[] sizes = workers > 1 ? sizes(traces) : new long[n];
            Integer[] order = new Integer[n];
            Arrays.setAll(order, k -> k);
            Arrays.sort(order, (a, b) -> Long.compare(sizes[b], sizes[a]));
            List<Parallel.Work> ordered = new ArrayList<>();
            for (int k : order) {
                ordered.add(passes[k]::run);
            }
            Parallel.run(ordered, workers, () -> {
                for (TracePass p : passes) {
                    p.cancelled = true;
                }
            });
            PiecewiseMap[] retime = null;
            if (input == null) {
                List<Synchronizer.Found> found = new ArrayList<>();
                for (TracePass p : passes) {
                    found.add(p.found);
                }
                Synchronizer.Report r = Synchronizer.run(traces, found, clocks.sync());
                long[] begins = new long[n];
                for (TracePass p : passes) {
                    begins[p.trace] = p.begin; // on its own clock: the times are mapped afterwards
                }
                input = input(traces, r, clocks, begins, warnings);
                PiecewiseMap[] maps = input.maps().toArray(PiecewiseMap[]::new);
                List<Parallel.Work> retimes = new ArrayList<>();
                for (int k : order) {
                    TracePass p = passes[k];
                    retimes.add(() -> {
                        p.retime(maps[p.trace]);
                        if (listener != null) {
                            listener.retime(p.trace, maps[p.trace]);
                        }
                    });
                }
                Parallel.run(retimes, workers, () -> { });
                retime = maps;
            }
            Combine all = new Combine(passes);
            StateModel m = all.model;
            List<Runnable> copies = new ArrayList<>();
            m.runs = IntervalTable.concat(all.tables(p -> p.runs), all.coreIds, all.taskIds, retime, copies);
            m.taskStates = IntervalTable.concat(all.tables(p -> p.taskStateRows), all.taskIds, null, retime, copies);
            m.calls = IntervalTable.concat(all.tables(p -> p.calls), all.taskIds, all.nameIds, retime, copies);
            m.irqs = IntervalTable.concat(all.tables(p -> p.irqs), all.coreIds, all.nameIds, retime, copies);
            List<Parallel.Work> combine = new ArrayList<>();
            combine.add(all::messages); // the longest first
            combine.add(all::marks);
            combine.add(all::wakeups);
            combine.add(all::forks);
            copies.forEach(c -> combine.add(c::run));
            Parallel.run(combine, workers, () -> { });
            return new Built(input, m);
        } finally {
            for (CtfReader r : readers) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }

    /**
     * The traces' names: each trace directory's name, after as many of its parents' names as it
     * takes for no two traces to have the same one (two hosts' LTTng sessions: server/kernel and
     * client/kernel).
     */
    public static List<String> traceNames(List<Path> traces) {
        int n = traces.size();
        Path[] paths = new Path[n];
        int[] depth = new int[n];
        for (int i = 0; i < n; i++) {
            paths[i] = traces.get(i).toAbsolutePath().normalize();
            depth[i] = 1;
        }
        String[] names = new String[n];
        for (boolean again = true; again; ) {
            again = false;
            Map<String, List<Integer>> byName = new HashMap<>();
            for (int i = 0; i < n; i++) {
                int c = paths[i].getNameCount();
                names[i] = c == 0 ? paths[i].toString() : paths[i].subpath(Math.max(0, c - depth[i]), c).toString();
                byName.computeIfAbsent(names[i], k -> new ArrayList<>()).add(i);
            }
            for (List<Integer> same : byName.values()) {
                for (int i : same.size() < 2 ? List.<Integer>of() : same) {
                    if (depth[i] < paths[i].getNameCount()) {
                        depth[i]++;
                        again = true;
                    }
                }
            }
        }
        return Arrays.asList(names);
    }

    /** Each trace directory's size in bytes (0 when it cannot be read). */
    private static long[] sizes(List<Path> traces) {
        long[] out = new long[traces.size()];
        for (int i = 0; i < out.length; i++) {
            try (var files = java.nio.file.Files.list(traces.get(i))) {
                out[i] = files.mapToLong(f -> f.toFile().length()).sum();
            } catch (IOException | RuntimeException e) {
                out[i] = 0;
            }
        }
        return out;
    }

    /** The event names of a trace's metadata. */
    public static Set<String> eventNames(List<CtfTrace> traces) {
        Set<String> names = new TreeSet<>();
        for (CtfTrace t : traces) {
            for (StreamClass s : t.metadata().streams().values()) {
                for (EventClass e : s.events().values()) {
                    if (e.name() != null) {
                        names.add(e.name());
                    }
                }
            }
        }
        return names;
    }

    /**
     * The names of the context fields every event of a trace's streams carries (the stream event
     * context's members, as babeltrace2 names them: one leading underscore removed), in the
     * streams that have events.
     */
    public static Set<String> contextFieldNames(List<CtfTrace> traces) {
        Set<String> names = null;
        for (CtfTrace t : traces) {
            for (StreamClass s : t.metadata().streams().values()) {
                if (s.events().isEmpty()) {
                    continue;
                }
                Set<String> these = new TreeSet<>();
                if (s.eventContext() != null) {
                    for (var m : s.eventContext().members()) {
                        these.add(m.name().startsWith("_") ? m.name().substring(1) : m.name());
                    }
                }
                if (names == null) {
                    names = these;
                } else {
                    names.retainAll(these);
                }
            }
        }
        return names == null ? Set.of() : names;
    }

    /**
     * A rule compiled for one trace: its action and field handles, with what was learnt of their
     * types. Each rule has handles of its own (the mapping's core and task fields too), so that a
     * handle stays resolved in its event class and a read skips the path lookup.
     */
    private static final class Compiled {
        final Mapping.Action does;
        final Mapping.Rule rule;
        final int index;
        /** The function name id when the rule names it with =TEXT, else −1. */
        int constantName = -1;
        /** Whether the function or task-name field is a string (decided at the first event). */
        Boolean stringField;

        // the field roles (null when the rule has none)
        final Event.Field next;
        final Event.Field nextId;
        final Event.Field prev;
        final Event.Field prevId;
        final Event.Field prevState;
        final Event.Field prevPrio;
        final Event.Field nextPrio;
        final String func;
        final Event.Field funcField;
        final Event.Field irq;
        final Event.Field name;
        final String label;
        /** The interrupt's name by number ({@code names}), or null. */
        final String[] numberedNames;
        /** The interrupt's name when the rule gives it as =TEXT, else null. */
        final String constantIrqName;
        /** The kind of interrupt (the label's number: a softirq's numbers are not a hard irq's), −1 for an exit of any kind. */
        int irqClass = -1;
        final Event.Field queue;
        final Event.Field id;
        // the mapping's fields, read for every event of the rule
        final Event.Field core;
        final Event.Field taskId;
        final Event.Field taskName;

        Compiled(Mapping.Rule rule, int index, Mapping m) {
            this.rule = rule;
            this.does = rule.does();
            this.index = index;
            next = handle(rule.field("next"));
            nextId = handle(rule.field("next-id"));
            prev = handle(rule.field("prev"));
            prevId = handle(rule.field("prev-id"));
            prevState = handle(rule.field("prev-state"));
            prevPrio = handle(rule.field("prev-prio"));
            nextPrio = handle(rule.field("next-prio"));
            func = rule.field("func");
            funcField = func == null || func.startsWith("=") ? null : Event.field(func);
            irq = handle(rule.field("irq"));
            String n = rule.field("name");
            constantIrqName = n != null && n.startsWith("=") ? n.substring(1) : null;
            name = constantIrqName != null ? null : handle(n);
            label = rule.field("label");
            numberedNames = rule.names().isEmpty() ? null : rule.names().toArray(String[]::new);
            queue = handle(rule.field("queue"));
            id = handle(rule.field("id"));

            core = handle(m.core());
            taskId = handle(m.taskId());
            taskName = handle(m.taskName());
        }

        private static Event.Field handle(String path) {
            return path == null ? null : Event.field(path);
        }
    }

    /** The name of the mapping of a trace whose events no rule maps: its streams' point events only. */
    public static final String EVENTS_ONLY = "events-only";

    /** The rule of event classes no rule maps. */
    private static final Compiled NONE = new Compiled(new Mapping.Rule("", Mapping.Action.ENTER, Map.of()), -1,
        new Mapping("none", List.of(), null, null, null, null, null, List.of()));

    /**
     * A task's call stack and switched-out state. A frame is four longs side by side (function,
     * start, time in callees, loss epoch), so that a call touches one place.
     */
    private static final class TaskState {
        static final int FUNC = 0;
        static final int START = 1;
        static final int CHILD = 2;
        static final int EPOCH = 3;
        long[] frames = new long[4 * 16];
        int depth;
        /** Time covered by completed calls at the bottom of the stack since the trace began (for calls begun before it). */
        long baseChild;
        long outSince = -1;
        int outState;
        long outEpoch;
        int lastBlockedRow = -1;
        /** The queue the task said it is about to block on (a wait event), until it runs again; −1 if none. */
        int waitQueue = -1;
        /** The core it runs on, −1 when it is not running. */
        int runningOn = -1;
        /** Whether the trace has shown its state: switched in or out, woken, or created. */
        boolean known;
        /** Created in the trace (a fork): it made no call before. */
        boolean born;
        /** Said to be exiting: its next switch out is its death. */
        boolean exiting;
        /** Dead: its id names another task from its next switch in. */
        boolean dead;
        /** The hash of its name as the switches give it (tasks known by id: a new name is a rename). */
        long nameHash;

        void push(int func, long start, long epoch) {
            int o = 4 * depth;
            if (o == frames.length) {
                frames = Arrays.copyOf(frames, o * 2);
            }
            frames[o + FUNC] = func;
            frames[o + START] = start;
            frames[o + CHILD] = 0;
            frames[o + EPOCH] = epoch;
            depth++;
        }

        int func(int d) {
            return (int) frames[4 * d + FUNC];
        }
    }

    private static final class CoreState {
        int task = -1;
        long since;
        long epoch;
        int[] irqs = new int[8];
        long[] irqNumbers = new long[8];
        long[] irqStarts = new long[8];
        long[] irqEpochs = new long[8];
        int[] irqClasses = new int[8];
        int irqDepth;
        int unknownTask = -1;
        /** The core's own idle task when each core has one, −1 until met. */
        int idleTask = -1;
        /** The CPU number the trace gives the core (−1: none). */
        long cpu = -1;
    }

    /**
     * The pass over one trace, on its own thread when traces are read in parallel: its cores,
     * tasks and names numbered locally, its rows appended at the times of the events that close
     * them, its message events kept for linking across traces ({@link Combine}).
     */
    private static final class TracePass {
        /**
         * A message event kept for linking, five longs: time; core and task (high, low halves);
         * call and kind (0 send, 1 receive); queue; id.
         */
        static final int M_TIME = 0;
        static final int M_WHO = 1;
        static final int M_CALL_KIND = 2;
        static final int M_QUEUE = 3;
        static final int M_ID = 4;

        final int trace;
        final String traceName;
        final CtfReader reader;
        /** The map to the reference clock; null when it is the identity (the reference, or times mapped afterwards). */
        final PiecewiseMap.Walker map;
        /** The same map, for the loss windows (null: the identity). */
        final PiecewiseMap toReference;
        /** The time ranges of the losses the reader told, begin and end one after the other, on the trace's clock. */
        final LongColumn lossWindows = new LongColumn();
        final Mapping mapping;
        final Map<String, Compiled> compiled = new HashMap<>();
        /** What the pass needs of each event class met, by the class's identity. */
        final ClassCache<PerClass> byClass = new ClassCache<>(this::perClass);
        final Pattern idleName;
        final LongIntMap coreByCpu = new LongIntMap();
        /** The trace's core when an event names no CPU (−1 until one is made). */
        int traceCore = -1;
        final LongIntMap taskById = new LongIntMap();
        final Map<String, Integer> taskByName = new HashMap<>();
        final LongIntMap nameByNumber = new LongIntMap();
        /** Per kind of interrupt (a label's number), its names' ids by interrupt number. */
        final List<LongIntMap> irqNames = new ArrayList<>();
        final Map<String, Integer> irqClasses = new HashMap<>();
        final LongIntMap taskByHash = new LongIntMap();
        final LongIntMap nameByHash = new LongIntMap();
        final Map<String, Integer> nameIds = new HashMap<>();
        final List<TaskState> taskStates = new ArrayList<>();
        final List<CoreState> coreStates = new ArrayList<>();

        // what the pass makes, numbered locally; each core, task and name with the time it was first met
        final List<StateModel.Core> cores = new ArrayList<>();
        final LongColumn coreBorn = new LongColumn();
        final List<StateModel.Task> tasks = new ArrayList<>();
        final LongColumn taskBorn = new LongColumn();
        final List<String> names = new ArrayList<>();
        final LongColumn nameBorn = new LongColumn();
        final IntervalTable runs = new IntervalTable();
        final IntervalTable taskStateRows = new IntervalTable();
        final IntervalTable calls = new IntervalTable();
        final IntervalTable irqs = new IntervalTable();
        final LongRows messageEvents = new LongRows(5);
        /** Wake-ups, as {@link StateModel#wakeups}'s rows, numbered locally. */
        final LongRows wakeups = new LongRows(3);
        /** Tasks created, as {@link StateModel#forks}'s rows, numbered locally. */
        final LongRows forks = new LongRows(2);
        /** How a switch's prev-state reads on this trace's kernel (null: not Linux's). */
        final LinuxTaskStates linux;
        /** Whether each core has its own idle task (the mapping names an idle id and a core field). */
        final boolean idlePerCore;
        /** Point events: time, CPU (−1: none), name (of {@link #markNames}). */
        final LongRows marks = new LongRows(3);
        final List<String> markNames = new ArrayList<>();
        final Map<String, Integer> markNameIds = new HashMap<>();
        /** The mapping's core field, for point events (which no rule reads). */
        Event.Field markCpu;
        long first = Long.MIN_VALUE;
        long last;
        long gap;
        long epoch;
        long events;
        long untimed;
        long discarded;
        long begin = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        /** The time of the event being applied: the birth time of what it makes. */
        long now = Long.MIN_VALUE;
        EventListener listener;
        /** When the pass also finds the sync messages (times then on the trace's own clock, {@link #retime} after). */
        Synchronizer.Found found;
        MessageMatcher.Keys keys;
        final long[] roles = new long[48];
        /** The time of the event before the longest silence. */
        long gapFrom;
        /** Set when another trace's pass failed: this one stops early. */
        volatile boolean cancelled;
        /** No rule applies to the trace's events: each stream is a core of point events. */
        final boolean eventsOnly;
        /** The host the trace was recorded on (its metadata's {@code hostname}), or null. */
        final String host;
        /** In an events-only pass, the key ({@link #coreByCpu}) of the last event's stream, and its stream. */
        long streamKey = -1;
        CtfTrace streamTrace;
        int streamIndex = -1;

        TracePass(int trace, Path path, String name, CtfReader reader, PiecewiseMap map, Mapping given) {
            this.trace = trace;
            this.reader = reader;
            this.map = map.linear() && map.overall().equals(dev.hetrace.sync.ClockTransform.IDENTITY) ? null : map.walker();
            this.toReference = this.map == null ? null : map;
            traceName = name;
            Set<String> events = eventNames(reader.traces());
            Set<String> contexts = contextFieldNames(reader.traces());
            Mapping m = given != null ? given.restrictedTo(events).withThreadContext(contexts) : Mapping.detect(events, contexts);
            eventsOnly = m == null || m.rules().isEmpty();
            if (eventsOnly) {
                m = new Mapping(EVENTS_ONLY, List.of(), null, null, null, null, null, List.of());
            }
            mapping = m;
            linux = m.states() == Mapping.States.LINUX ? LinuxTaskStates.of(reader.traces()) : null;
            host = reader.traces().isEmpty() || !(reader.traces().getFirst().metadata().env().get("hostname") instanceof String h)
                ? null : h;
            idlePerCore = m.core() != null && m.idleId() != null;
            markCpu = m.core() == null ? null : Event.field(m.core());
            idleName = m.idleName() == null ? null : Pattern.compile(m.idleName());
            List<Mapping.Rule> list = m.rules();
            for (int k = 0; k < list.size(); k++) {
                Compiled c = new Compiled(list.get(k), k, m);
                String func = c.func;
                if (func != null && func.startsWith("=")) {
                    c.constantName = nameId(func.substring(1));
                }
                if (c.does == Mapping.Action.IRQ_ENTRY || c.does == Mapping.Action.IRQ_EXIT && c.label != null) {
                    c.irqClass = irqClasses.computeIfAbsent(c.label == null ? "irq" : c.label, x -> {
                        irqNames.add(new LongIntMap());
                        return irqNames.size() - 1;
                    });
                }
                compiled.put(c.rule.event(), c);
            }
            reader.onDiscarded((Discarded d, CtfTrace t, int stream) -> {
                epoch++;
                if (d.hasTimeRange()) {
                    lossWindows.add(d.beginNanos());
                    lossWindows.add(d.endNanos());
                }
                if (d.kind() == Discarded.Kind.EVENTS && d.countKnown()) {
                    // signed: a counter that went back (packets closed out of order) counts back
                    discarded += d.count();
                }
            });
        }

        static String abridged(Set<String> events) {
            List<String> l = new ArrayList<>(events);
            return l.size() <= 8 ? String.join(", ", l) : String.join(", ", l.subList(0, 8)) + ", ... " + l.size() + " in all";
        }

        void run() throws StreamDecodingException {
            Event e = reader.event();
            long read = 0;
            while (reader.next()) {
                if ((++read & 0xFFF) == 0 && cancelled) {
                    return;
                }
                event(e);
            }
            finish();
        }

        /**
         * What the pass needs of an event class: its rule (or {@link #NONE}), whether it is a
         * sync send or receive, and its name's number as a point event (−1 until it is one).
         */
        static final class PerClass {
            final Compiled rule;
            final boolean sync;
            int markName = -1;

            PerClass(Compiled rule, boolean sync) {
                this.rule = rule;
                this.sync = sync;
            }
        }

        /** What the pass needs of the event's class (worked out once per class, {@link #byClass}). */
        private PerClass perClass(Event e) {
            Compiled c = compiled.get(e.name());
            return new PerClass(c == null ? NONE : c, keys != null && keys.concerns(e));
        }

        /** The reader's current event. */
        private void event(Event e) throws StreamDecodingException {
            events++;
            if (!e.hasTime()) {
                // an event of a stream without a clock has no place in time: counted, not placed
                untimed++;
                if (found != null) {
                    found.untimed();
                }
                if (listener != null) {
                    listener.event(trace, reader, first == Long.MIN_VALUE ? Long.MIN_VALUE : last);
                }
                return;
            }
            long t = map == null ? e.timeNanos() : map.apply(e.timeNanos());
            if (listener != null) {
                listener.event(trace, reader, t);
            }
            PerClass k = byClass.of(e);
            if (found != null) {
                found.event(t, roles, k.sync ? keys.of(e, roles) : 0);
            }
            if (first == Long.MIN_VALUE) {
                first = t;
            } else if (t - last > gap) {
                gap = t - last;
                gapFrom = last;
            }
            last = Math.max(last, t);
            begin = Math.min(begin, t);
            end = Math.max(end, t);
            Compiled c = k.rule;
            if (c != NONE) {
                now = t;
                apply(c, e, t);
            }
            if (c == NONE || c.does == Mapping.Action.WAIT) {
                now = t;
                mark(e, k, t);
            }
        }

        /** Keeps a point event (one no interval is made of): its time, CPU (−1: none) and class name. */
        private void mark(Event e, PerClass k, long t) {
            if (k.markName < 0) {
                k.markName = markNameIds.computeIfAbsent(e.name(), n -> {
                    markNames.add(n);
                    return markNames.size() - 1;
                });
            }
            long where = eventsOnly ? streamCore() : markCpu != null && e.has(markCpu) ? e.getLong(markCpu) : -1;
            int o = marks.append();
            MemorySegment m = marks.lastChunk();
            m.setAtIndex(LongRows.L, o, t);
            m.setAtIndex(LongRows.L, o + 1, where);
            m.setAtIndex(LongRows.L, o + 2, k.markName);
        }

        /**
         * Puts what the pass made on the trace's own clock onto the reference clock (the tables
         * are mapped as they are copied, {@link IntervalTable#concat}).
         */
        void retime(PiecewiseMap to) {
            PiecewiseMap.Walker w = to.walker();
            if (first != Long.MIN_VALUE) {
                long from = w.apply(gapFrom);
                gap = gap == 0 ? 0 : w.apply(gapFrom + gap) - from;
                first = w.apply(first);
                last = w.apply(last);
                begin = w.apply(begin);
                end = w.apply(end);
            }
            for (LongColumn born : List.of(coreBorn, taskBorn, nameBorn)) {
                for (int k = 0; k < born.size(); k++) {
                    if (born.get(k) != Long.MIN_VALUE) {
                        born.set(k, w.apply(born.get(k)));
                    }
                }
            }
            messageEvents.map(M_TIME, w::apply);
            marks.map(0, to.walker()::apply);
            wakeups.map(0, to.walker()::apply);
            forks.map(0, to.walker()::apply);
        }

        private void apply(Compiled c, Event e, long t) {
            int core = core(c, e);
            switch (c.does) {
                case SWITCH -> taskSwitch(core, c, e, t);
                case ENTER -> enter(task(core, c, e), function(c, e), t);
                case EXIT -> exit(task(core, c, e), function(c, e), t);
                case IRQ_ENTRY -> irqEntry(core, c, e, t);
                case IRQ_EXIT -> irqExit(core, c, e, t);
                case SEND -> send(core, task(core, c, e), c, e, t);
                case RECEIVE -> receive(core, task(core, c, e), c, e, t);
                case WAIT -> taskStates.get(task(core, c, e)).waitQueue = (int) queue(c, e);
                case WAKE -> wake(core, c, e, t);
                case FORK -> fork(core, c, e, t);
                case EXEC -> rename(subjectTask(core, c, e), baseName(e.getString(c.name)));
                case RENAME -> rename(subjectTask(core, c, e), e.getString(c.name));
                case TASK_EXIT -> taskStates.get(subjectTask(core, c, e)).exiting = true;
                case TASK_FREE -> free(c, e, t);
                case TASK_INFO -> knownTask(e.getLong(c.id), e, c.name, false);
            }
        }

        /** The task an event names by its {@code id} role, else the one running on its core. */
        private int subjectTask(int core, Compiled c, Event e) {
            return c.id != null && e.has(c.id) ? knownTask(e.getLong(c.id), e, c.name, true) : task(core, c, e);
        }

        /**
         * The task with id {@code id}, made when new (named by {@code nameRole} when the event has
         * it). With {@code live}, a dead task's id names a new task: the id was reused after the
         * dead one was reaped (its free event not traced).
         */
        private int knownTask(long id, Event e, Event.Field nameRole, boolean live) {
            int k = taskById.get(id);
            if (k == LongIntMap.ABSENT || live && taskStates.get(k).dead) {
                String name = nameRole != null && e.has(nameRole) ? e.getString(nameRole) : "task";
                k = newTask(name, id);
                taskStates.get(k).nameHash = Event.stringHash(name);
                taskById.put(id, k);
            }
            return k;
        }

        /** The file name of a path, as Linux names a task after the program it executes. */
        private static String baseName(String path) {
            int slash = path.lastIndexOf('/');
            return slash >= 0 && slash < path.length() - 1 ? path.substring(slash + 1) : path;
        }

        /** Task {@code task} is named {@code name} from now on (a task has one name: its latest). */
        private void rename(int task, String name) {
            StateModel.Task old = tasks.get(task);
            if (!old.name().equals(name)) {
                tasks.set(task, new StateModel.Task(name, old.trace(), old.id(), old.idle()));
                taskStates.get(task).nameHash = Event.stringHash(name);
            }
        }

        /**
         * A task is created by the one running on the event's core: always a new one, its id
         * naming it from now on, runnable until it first runs.
         */
        private void fork(int core, Compiled c, Event e, long t) {
            long id = e.getLong(c.id);
            String name = c.name != null && e.has(c.name) ? e.getString(c.name) : "task";
            int k = newTask(name, id);
            TaskState s = taskStates.get(k);
            s.nameHash = Event.stringHash(name);
            s.born = true;
            s.known = true;
            s.outSince = t;
            s.outState = StateModel.RUNNABLE;
            s.outEpoch = epoch;
            taskById.put(id, k);
            int o = forks.append();
            MemorySegment m = forks.lastChunk();
            m.setAtIndex(LongRows.L, o, t);
            m.setAtIndex(LongRows.L, o + 1, LongRows.pair(k, coreStates.get(core).task));
        }

        /** A task is reaped: what it still had open ends, and its id is free for another task. */
        private void free(Compiled c, Event e, long t) {
            long id = e.getLong(c.id);
            int k = taskById.get(id);
            if (k == LongIntMap.ABSENT) {
                return;
            }
            TaskState s = taskStates.get(k);
            while (s.depth > 0) {
                pop(k, s, t, s.dead ? 0 : StateModel.END_UNKNOWN);
            }
            if (s.outSince >= 0) {
                closeOut(k, s, t);
            }
            s.dead = true;
            taskById.remove(id);
        }

        /**
         * A task is made runnable. One that was blocked (or switched out for no known reason)
         * is runnable from now on, woken by the interrupt in progress on the event's core, else by
         * the task running there; one the trace never showed was blocked since before it began.
         * A task already runnable or running (a second event of the same wake-up:
         * {@code sched_wakeup} after {@code sched_waking}) is left as it is.
         */
        private void wake(int core, Compiled c, Event e, long t) {
            int k = knownTask(e.getLong(c.id), e, c.name, true);
            TaskState s = taskStates.get(k);
            if (s.runningOn >= 0 || tasks.get(k).idle() || s.dead) {
                return;
            }
            if (s.outSince >= 0) {
                if (s.outState != StateModel.BLOCKED && s.outState != StateModel.WAITING) {
                    return;
                }
                closeOut(k, s, t);
            } else if (!s.known) {
                if (t > first) {
                    taskStateRows.add(first, t, k, -1, StateModel.BLOCKED, 0, StateModel.START_UNKNOWN, 0);
                }
            } else if (!s.born) {
                return;
            }
            CoreState cs = coreStates.get(core);
            int o = wakeups.append();
            MemorySegment m = wakeups.lastChunk();
            m.setAtIndex(LongRows.L, o, t);
            m.setAtIndex(LongRows.L, o + 1, LongRows.pair(k, cs.task));
            m.setAtIndex(LongRows.L, o + 2, LongRows.pair(core, cs.irqDepth > 0 ? cs.irqs[cs.irqDepth - 1] : -1));
            s.known = true;
            s.outSince = t;
            s.outState = StateModel.RUNNABLE;
            s.outEpoch = epoch;
        }

        /** Ends the state a task was in since it left its core (or was woken) at {@code t}. */
        private void closeOut(int task, TaskState s, long t) {
            int row = taskStateRows.add(s.outSince, t, task, s.outState == StateModel.BLOCKED ? s.waitQueue : -1,
                s.outState, 0, (epoch != s.outEpoch ? StateModel.EVENTS_LOST : 0), 0);
            if (s.outState == StateModel.BLOCKED) {
                s.lastBlockedRow = row;
            }
            s.outSince = -1;
        }

        /**
         * The key of the current event's stream as a core of its own (made when new, named after
         * the stream's file: {@code trace/channel0_1}), in {@link #coreByCpu}: looked up only when
         * the event comes from another stream than the last one.
         */
        private long streamCore() {
            dev.hetrace.ctf.EventCursor c = reader.cursor();
            CtfTrace t = c.trace();
            int stream = c.stream();
            if (t == streamTrace && stream == streamIndex) {
                return streamKey;
            }
            int traceIndex = reader.traces().indexOf(t);
            long key = ((long) traceIndex << 32) | stream;
            if (coreByCpu.get(key) == LongIntMap.ABSENT) {
                String file = Path.of(t.streamPath(stream)).getFileName().toString();
                String sub = reader.traces().size() > 1 && !t.name().isEmpty() ? t.name() + "/" : "";
                coreByCpu.put(key, cores.size());
                cores.add(new StateModel.Core(traceName + "/" + sub + file, trace));
                coreBorn.add(now);
                coreStates.add(new CoreState());
            }
            streamTrace = t;
            streamIndex = stream;
            streamKey = key;
            return key;
        }

        private int core(Compiled rule, Event e) {
            if (rule.core == null) {
                // no CPU field: the trace's one core, looked up once
                if (traceCore < 0) {
                    traceCore = coreOf(-1);
                }
                return traceCore;
            }
            return coreOf(e.has(rule.core) ? e.getLong(rule.core) : -1);
        }

        private int coreOf(long cpu) {
            int c = coreByCpu.get(cpu);
            if (c == LongIntMap.ABSENT) {
                c = cores.size();
                cores.add(new StateModel.Core(traceName + (cpu < 0 ? "" : "/cpu" + cpu), trace));
                coreBorn.add(now);
                CoreState cs = new CoreState();
                cs.cpu = cpu;
                coreStates.add(cs);
                coreByCpu.put(cpu, c);
            }
            return c;
        }

        /** The task an event belongs to: from the mapping's task fields, else the one running on the core. */
        private int task(int core, Compiled rule, Event e) {
            if (rule.taskId != null && e.has(rule.taskId)) {
                long id = e.getLong(rule.taskId);
                int k = taskById.get(id);
                if (k == LongIntMap.ABSENT) {
                    String name = rule.taskName != null && e.has(rule.taskName) ? e.getString(rule.taskName) : "task";
                    k = newTask(name, id);
                    taskById.put(id, k);
                }
                return k;
            }
            CoreState cs = coreStates.get(core);
            if (cs.task >= 0) {
                return cs.task;
            }
            if (cs.unknownTask < 0) {
                // events before the core's first switch: a task the trace does not name, marked as such
                cs.unknownTask = newTask(cores.get(core).name() + ":(before the first switch)", -1);
            }
            return cs.unknownTask;
        }

        private int newTask(String name, long id) {
            boolean idle = (mapping.idleId() != null && mapping.idleId() == id)
                || (idleName != null && idleName.matcher(name).matches());
            tasks.add(new StateModel.Task(name, trace, id, idle));
            taskBorn.add(now);
            taskStates.add(new TaskState());
            return tasks.size() - 1;
        }

        /**
         * The task a switch names: by id when it gives one (each core's own idle task when idle
         * is per core; a task whose name changed since is renamed), else by name.
         */
        private int switchedTask(int core, Event e, Event.Field nameRole, Event.Field idRole) {
            if (idRole != null && e.has(idRole)) {
                long id = e.getLong(idRole);
                if (idlePerCore && id == mapping.idleId()) {
                    CoreState cs = coreStates.get(core);
                    if (cs.idleTask < 0) {
                        String name = e.getString(nameRole);
                        cs.idleTask = newTask(name.indexOf('/') < 0 && cs.cpu >= 0 ? name + "/" + cs.cpu : name, id);
                    }
                    return cs.idleTask;
                }
                int k = knownTask(id, e, nameRole, true);
                TaskState s = taskStates.get(k);
                long hash = e.getStringHash(nameRole);
                if (hash != s.nameHash) {
                    rename(k, e.getString(nameRole));
                    s.nameHash = hash;
                }
                return k;
            }
            long hash = e.getStringHash(nameRole);
            int k = taskByHash.get(hash);
            if (k == LongIntMap.ABSENT) {
                String name = e.getString(nameRole);
                Integer known = taskByName.get(name);
                k = known != null ? known : newTask(name, -1);
                taskByName.put(name, k);
                taskByHash.put(hash, k);
            }
            return k;
        }

        private int nameId(String name) {
            Integer id = nameIds.get(name);
            if (id == null) {
                id = names.size();
                names.add(name);
                nameBorn.add(now);
                nameIds.put(name, id);
            }
            return id;
        }

        private int function(Compiled c, Event e) {
            if (c.constantName >= 0) {
                return c.constantName;
            }
            Event.Field path = c.funcField;
            if (path == null) {
                return -1; // an exit that names no function: the innermost call's
            }
            if (c.stringField == null) {
                try {
                    e.getLong(path);
                    c.stringField = false;
                } catch (FieldTypeException x) {
                    c.stringField = true;
                }
            }
            if (c.stringField) {
                // names seen before are recognized by the hash of their bytes, without reading them
                long hash = e.getStringHash(path);
                int id = nameByHash.get(hash);
                if (id == LongIntMap.ABSENT) {
                    id = nameId(e.getString(path));
                    nameByHash.put(hash, id);
                }
                return id;
            }
            long addr = e.getLong(path);
            int id = nameByNumber.get(addr);
            if (id == LongIntMap.ABSENT) {
                id = nameId("0x" + Long.toHexString(addr));
                nameByNumber.put(addr, id);
            }
            return id;
        }

        private void taskSwitch(int core, Compiled c, Event e, long t) {
            CoreState cs = coreStates.get(core);
            int next = switchedTask(core, e, c.next, c.nextId);
            int prev = cs.task;
            if (prev < 0) {
                // the first switch on this core: what ran before it ran since before the trace began
                prev = c.prev != null && e.has(c.prev) ? switchedTask(core, e, c.prev, c.prevId) : -1;
                if (prev >= 0 && t > first) {
                    runs.add(first, t, core, prev, runState(prev), 0, StateModel.START_UNKNOWN, 0);
                }
            } else {
                if (t > cs.since) {
                    runs.add(cs.since, t, core, prev, runState(prev), 0, epoch != cs.epoch ? StateModel.EVENTS_LOST : 0, 0);
                }
                if (c.prevId != null && e.has(c.prevId)) {
                    // the task the switch says leaves (renamed if its name changed while it ran; another
                    // than the one the trace showed coming in when a switch was lost)
                    int named = switchedTask(core, e, c.prev, c.prevId);
                    if (named != prev) {
                        TaskState lost = taskStates.get(prev);
                        lost.runningOn = lost.runningOn == core ? -1 : lost.runningOn;
                        prev = named;
                    }
                }
            }
            if (prev >= 0 && prev != next && !tasks.get(prev).idle()) {
                TaskState ps = taskStates.get(prev);
                if (ps.runningOn == core) {
                    ps.runningOn = -1;
                }
                int state = switchedOutState(c, e);
                if (ps.exiting && state != StateModel.PREEMPTED && (linux == null || linux.kernel() == null)) {
                    // an exiting task that blocks dies, when prev-state cannot say it (an exiting task may be preempted)
                    state = StateModel.DEAD;
                }
                if (ps.outSince >= 0) {
                    // the trace thought it out (woken before its core's first switch showed it running): it ends here
                    closeOut(prev, ps, t);
                }
                if (state == StateModel.DEAD) {
                    // it died: its calls (the exit call among them) end here
                    while (ps.depth > 0) {
                        pop(prev, ps, t, 0);
                    }
                    ps.dead = true;
                }
                ps.known = true;
                ps.outSince = t;
                ps.outEpoch = epoch;
                ps.outState = state;
            }
            TaskState ns = taskStates.get(next);
            ns.lastBlockedRow = -1;
            if (ns.outSince >= 0) {
                closeOut(next, ns, t);
            }
            ns.waitQueue = -1;
            ns.known = true;
            ns.runningOn = core;
            cs.task = next;
            cs.since = t;
            cs.epoch = epoch;
        }

        private int runState(int task) {
            return tasks.get(task).idle() ? StateModel.IDLE : StateModel.RUNNING;
        }

        private int switchedOutState(Compiled c, Event e) {
            Event.Field state = c.prevState;
            if (state != null && e.has(state)) {
                long v = e.getLong(state);
                return linux != null ? linux.of(v) : v == 0 ? StateModel.PREEMPTED : StateModel.BLOCKED;
            }
            Event.Field pp = c.prevPrio;
            Event.Field np = c.nextPrio;
            if (pp != null && np != null && e.has(pp) && e.has(np)) {
                // fixed priorities: a task is switched out for a higher one only when that one just became ready
                return e.getLong(np) > e.getLong(pp) ? StateModel.PREEMPTED : StateModel.BLOCKED;
            }
            return StateModel.WAITING;
        }

        private void enter(int task, int func, long t) {
            TaskState s = taskStates.get(task);
            s.lastBlockedRow = -1;
            s.push(func, t, epoch);
        }

        private void exit(int task, int func, long t) {
            TaskState s = taskStates.get(task);
            s.lastBlockedRow = -1;
            int at = s.depth - 1;
            while (at >= 0 && func >= 0 && s.func(at) != func) {
                at--;
            }
            if (at < 0 && s.born) {
                // a task made in the trace made no call before: this is its return from its parent's (clone)
                return;
            }
            if (at < 0) {
                // an exit without its entry: the call began before the trace (or its entry was lost)
                long total = t - first;
                if (func < 0) {
                    func = nameId("(unknown)");
                }
                calls.add(first, t, task, func, 0, 0, StateModel.START_UNKNOWN
                    | (s.depth > 0 || epoch != 0 ? StateModel.EVENTS_LOST : 0), total - s.baseChild);
                s.baseChild = total;
                return;
            }
            while (s.depth - 1 > at) {
                // entered after the exit's own entry and never exited: their exits were lost
                pop(task, s, t, StateModel.END_UNKNOWN);
            }
            pop(task, s, t, 0);
        }

        private void pop(int task, TaskState s, long t, int flags) {
            int d = --s.depth;
            long[] f = s.frames;
            int o = 4 * d;
            long start = f[o + TaskState.START];
            long total = t - start;
            calls.add(start, t, task, (int) f[o + TaskState.FUNC], 0, d,
                flags | (epoch != f[o + TaskState.EPOCH] ? StateModel.EVENTS_LOST : 0), total - f[o + TaskState.CHILD]);
            if (d > 0) {
                f[o - 4 + TaskState.CHILD] += total;
            } else {
                s.baseChild += total;
            }
        }

        /**
         * The name of interrupt {@code number} of the rule's kind: its name field, else its name
         * by number ({@code names}), else the label (or "irq") and the number; the label before
         * a name ("softirq:TIMER"). Looked up by number once known.
         */
        private int irqName(Compiled c, Event e, long number) {
            LongIntMap known = irqNames.get(c.irqClass);
            int id = known.get(number);
            if (id == LongIntMap.ABSENT) {
                String label = c.label;
                String name = c.constantIrqName != null ? c.constantIrqName
                    : c.name != null && e.has(c.name) ? e.getString(c.name)
                    : c.numberedNames != null && number >= 0 && number < c.numberedNames.length ? c.numberedNames[(int) number]
                    : null;
                id = nameId(name == null ? (label != null ? label : "irq") + " " + number
                    : label != null ? label + ":" + name : name);
                known.put(number, id);
            }
            return id;
        }

        private void irqEntry(int core, Compiled c, Event e, long t) {
            long number = e.getLong(c.irq);
            int id = irqName(c, e, number);
            CoreState cs = coreStates.get(core);
            if (cs.irqDepth == cs.irqs.length) {
                int k = cs.irqDepth * 2;
                cs.irqs = Arrays.copyOf(cs.irqs, k);
                cs.irqNumbers = Arrays.copyOf(cs.irqNumbers, k);
                cs.irqStarts = Arrays.copyOf(cs.irqStarts, k);
                cs.irqEpochs = Arrays.copyOf(cs.irqEpochs, k);
                cs.irqClasses = Arrays.copyOf(cs.irqClasses, k);
            }
            cs.irqs[cs.irqDepth] = id;
            cs.irqNumbers[cs.irqDepth] = number;
            cs.irqClasses[cs.irqDepth] = c.irqClass;
            cs.irqStarts[cs.irqDepth] = t;
            cs.irqEpochs[cs.irqDepth] = epoch;
            cs.irqDepth++;
        }

        /** Closes the innermost interrupt of the exit's number (and kind, when the exit has a label). */
        private void irqExit(int core, Compiled c, Event e, long t) {
            CoreState cs = coreStates.get(core);
            Event.Field irqField = c.irq;
            int at = cs.irqDepth - 1;
            long number = irqField != null ? e.getLong(irqField) : -1;
            if (irqField != null) {
                while (at >= 0 && (cs.irqNumbers[at] != number || c.irqClass >= 0 && cs.irqClasses[at] != c.irqClass)) {
                    at--;
                }
            }
            if (at < 0) {
                // began before the trace (or its entry was lost)
                irqs.add(first, t, core, c.irqClass >= 0 ? irqName(c, e, number) : nameId("irq " + number), 0, 0,
                    StateModel.START_UNKNOWN, 0);
                return;
            }
            while (cs.irqDepth - 1 > at) {
                closeIrq(core, cs, t, StateModel.END_UNKNOWN);
            }
            closeIrq(core, cs, t, 0);
        }

        private void closeIrq(int core, CoreState cs, long t, int flags) {
            int d = --cs.irqDepth;
            irqs.add(cs.irqStarts[d], t, core, cs.irqs[d], 0, d,
                flags | (epoch != cs.irqEpochs[d] ? StateModel.EVENTS_LOST : 0), 0);
        }

        /** The queue field's value, or −1 without one: read once per message event. */
        private static long queue(Compiled c, Event e) {
            Event.Field q = c.queue;
            return q != null && e.has(q) ? e.getLong(q) : -1;
        }

        private void message(int kind, long t, int core, int task, int call, long queue, long id) {
            int o = messageEvents.append();
            MemorySegment m = messageEvents.lastChunk();
            m.setAtIndex(LongRows.L, o + M_TIME, t);
            m.setAtIndex(LongRows.L, o + M_WHO, LongRows.pair(core, task));
            m.setAtIndex(LongRows.L, o + M_CALL_KIND, LongRows.pair(call, kind));
            m.setAtIndex(LongRows.L, o + M_QUEUE, queue);
            m.setAtIndex(LongRows.L, o + M_ID, id);
        }

        private void send(int core, int task, Compiled c, Event e, long t) {
            TaskState ts = taskStates.get(task);
            message(0, t, core, task, ts.depth > 0 ? ts.func(ts.depth - 1) : -1, queue(c, e), e.getLong(c.id));
            ts.lastBlockedRow = -1;
        }

        private void receive(int core, int task, Compiled c, Event e, long t) {
            long queue = queue(c, e);
            TaskState s = taskStates.get(task);
            message(1, t, core, task, s.depth > 0 ? s.func(s.depth - 1) : -1, queue, e.getLong(c.id));
            if (s.lastBlockedRow >= 0 && queue >= 0) {
                // the first thing the task did once switched back in: it was blocked on this queue
                taskStateRows.subject(s.lastBlockedRow, (int) queue);
            }
            s.lastBlockedRow = -1;
        }

        /** What is still open at the end of the trace ends at its last event, marked. */
        private void finish() {
            for (int core = 0; core < coreStates.size(); core++) {
                CoreState cs = coreStates.get(core);
                if (cs.task >= 0 && last > cs.since) {
                    runs.add(cs.since, last, core, cs.task, runState(cs.task), 0,
                        StateModel.END_UNKNOWN | (epoch != cs.epoch ? StateModel.EVENTS_LOST : 0), 0);
                }
                while (cs.irqDepth > 0) {
                    closeIrq(core, cs, last, StateModel.END_UNKNOWN);
                }
            }
            for (int task = 0; task < taskStates.size(); task++) {
                TaskState s = taskStates.get(task);
                while (s.depth > 0) {
                    pop(task, s, last, StateModel.END_UNKNOWN);
                }
                if (s.outSince >= 0 && last >= s.outSince) {
                    taskStateRows.add(s.outSince, last, task, s.outState == StateModel.BLOCKED ? s.waitQueue : -1,
                        s.outState, 0, StateModel.END_UNKNOWN | (epoch != s.outEpoch ? StateModel.EVENTS_LOST : 0), 0);
                }
            }
            markLosses();
        }

        /**
         * Flags every interval that overlaps a loss window (between the last packet before the
         * loss and the packet that told it, on the stream that lost): the rows open when a loss was
         * told are flagged as they close, but one that ended within the window, before another
         * stream's packet told the loss, is flagged here.
         */
        private void markLosses() {
            int n = lossWindows.size() / 2;
            if (n == 0) {
                return;
            }
            long[][] windows = new long[n][];
            PiecewiseMap.Walker w = toReference == null ? null : toReference.walker();
            for (int k = 0; k < n; k++) {
                windows[k] = new long[] {lossWindows.get(2 * k), lossWindows.get(2 * k + 1)};
            }
            Arrays.sort(windows, (a, b) -> Long.compare(a[0], b[0]));
            // merged into disjoint windows, then on the clock the rows are on
            List<long[]> merged = new ArrayList<>();
            for (long[] x : windows) {
                if (!merged.isEmpty() && x[0] <= merged.getLast()[1]) {
                    merged.getLast()[1] = Math.max(merged.getLast()[1], x[1]);
                } else {
                    merged.add(x.clone());
                }
            }
            long[] begins = new long[merged.size()];
            long[] ends = new long[merged.size()];
            for (int k = 0; k < merged.size(); k++) {
                begins[k] = w == null ? merged.get(k)[0] : w.apply(merged.get(k)[0]);
                ends[k] = w == null ? merged.get(k)[1] : w.apply(merged.get(k)[1]);
            }
            for (IntervalTable t : List.of(runs, taskStateRows, calls, irqs)) {
                t.flagOverlapping(begins, ends, StateModel.EVENTS_LOST);
            }
        }
    }

    /**
     * The traces' passes put together: cores, tasks and names numbered as one pass over the
     * merged events would number them (in the order they were first met on the reference clock;
     * at equal times, the trace given first), the messages linked in the merged order of their
     * send and receive events, as that pass would link them. The interval tables are the
     * traces' one after the other (each owner's rows in the order its trace closed them).
     */
    private static final class Combine {
        final TracePass[] passes;
        final StateModel model = new StateModel();
        final int[][] coreIds;
        final int[][] taskIds;
        final int[][] nameIds;

        Combine(TracePass[] passes) {
            this.passes = passes;
            int n = passes.length;
            model.traceFirst = new long[n];
            model.traceLast = new long[n];
            model.traceLongestGap = new long[n];
            model.osThreads = new boolean[n];
            for (TracePass p : passes) {
                model.traceNames.add(p.traceName);
                model.mappingNames.add(p.mapping.name());
                model.osThreads[p.trace] = p.mapping.states() == Mapping.States.LINUX || userThreads(p);
                model.traceFirst[p.trace] = p.first;
                model.traceLast[p.trace] = p.last;
                model.traceLongestGap[p.trace] = p.gap;
                model.begin = Math.min(model.begin, p.begin);
                model.end = Math.max(model.end, p.end);
                model.events += p.events;
                model.untimed += p.untimed;
                model.discarded += p.discarded;
            }
            coreIds = number(p -> p.coreBorn, (p, k) -> {
                model.cores.add(p.cores.get(k));
                return model.cores.size() - 1;
            });
            taskIds = number(p -> p.taskBorn, (p, k) -> {
                model.tasks.add(p.tasks.get(k));
                return model.tasks.size() - 1;
            });
            threadsOnTheirKernel();
            Map<String, Integer> names = new HashMap<>();
            nameIds = number(p -> p.nameBorn, (p, k) -> names.computeIfAbsent(p.names.get(k), s -> {
                model.names.add(s);
                return model.names.size() - 1;
            }));
        }

        interface Numbering {
            int id(TracePass p, int local);
        }

        /** Whether a pass reads user-space threads: its events' task from a context thread id, no switches. */
        private static boolean userThreads(TracePass p) {
            return p.mapping.taskId() != null && p.mapping.states() != Mapping.States.LINUX
                && p.mapping.rules().stream().noneMatch(r -> r.does() == Mapping.Action.SWITCH);
        }

        /**
         * User-space threads traced beside their host's kernel (LTTng-UST and LTTng kernel traces
         * of one host: the same {@code hostname}) are the kernel's tasks of the same thread id:
         * their calls become calls of the task the kernel ran on its CPUs, so that the analyses
         * see when they ran, waited for a CPU or blocked. Of the kernel's tasks with that id (an id
         * is reused once its thread is gone), the last one created before the user-space thread's
         * first event. The user-space trace's own tasks are then left out of the model.
         */
        private void threadsOnTheirKernel() {
            boolean[] dropped = new boolean[model.tasks.size()];
            boolean any = false;
            for (TracePass u : passes) {
                if (!userThreads(u) || u.host == null) {
                    continue;
                }
                for (TracePass k : passes) {
                    if (k.linux == null || !u.host.equals(k.host)) {
                        continue;
                    }
                    Map<Long, List<Integer>> byId = new HashMap<>();
                    for (int t = 0; t < k.tasks.size(); t++) {
                        if (k.tasks.get(t).id() > 0 && !k.tasks.get(t).idle()) {
                            byId.computeIfAbsent(k.tasks.get(t).id(), x -> new ArrayList<>()).add(t);
                        }
                    }
                    for (int t = 0; t < u.tasks.size(); t++) {
                        List<Integer> same = byId.get(u.tasks.get(t).id());
                        if (same == null) {
                            continue;
                        }
                        long born = u.taskBorn.get(t);
                        int best = same.getFirst();
                        for (int c : same) {
                            if (k.taskBorn.get(c) <= born) {
                                best = c; // created in order: the last before it
                            }
                        }
                        dropped[taskIds[u.trace][t]] = true;
                        taskIds[u.trace][t] = taskIds[k.trace][best];
                        any = true;
                    }
                    break;
                }
            }
            if (!any) {
                return;
            }
            int[] renumbered = new int[dropped.length];
            List<StateModel.Task> kept = new ArrayList<>();
            for (int g = 0; g < dropped.length; g++) {
                if (!dropped[g]) {
                    renumbered[g] = kept.size();
                    kept.add(model.tasks.get(g));
                }
            }
            model.tasks.clear();
            model.tasks.addAll(kept);
            for (int[] ids : taskIds) {
                for (int j = 0; j < ids.length; j++) {
                    ids[j] = renumbered[ids[j]];
                }
            }
        }

        /** Global ids of what the passes made, given in the merged order of their birth times. */
        private int[][] number(java.util.function.Function<TracePass, LongColumn> born, Numbering numbering) {
            int n = passes.length;
            int[][] ids = new int[n][];
            long[] keys = new long[n];
            int[] at = new int[n];
            IndexHeap heap = new IndexHeap(n, keys);
            for (TracePass p : passes) {
                LongColumn b = born.apply(p);
                ids[p.trace] = new int[b.size()];
                if (b.size() > 0) {
                    keys[p.trace] = b.get(0);
                    heap.push(p.trace);
                }
            }
            while (heap.size() > 0) {
                int i = heap.peek();
                LongColumn b = born.apply(passes[i]);
                ids[i][at[i]] = numbering.id(passes[i], at[i]);
                if (++at[i] < b.size()) {
                    keys[i] = b.get(at[i]);
                    heap.topChanged();
                } else {
                    heap.pop();
                }
            }
            return ids;
        }

        /** A table of every pass, by trace. */
        IntervalTable[] tables(java.util.function.Function<TracePass, IntervalTable> table) {
            IntervalTable[] out = new IntervalTable[passes.length];
            for (TracePass p : passes) {
                out[p.trace] = table.apply(p);
            }
            return out;
        }

        /**
         * The messages: sends and receives in their merged order, each receive linked to the send
         * it follows. A trace's events are taken in a run while they stay before the next
         * trace's, without reordering the heap for each.
         */
        void messages() {
            int n = passes.length;
            long[] keys = new long[n];
            int[] at = new int[n];
            IndexHeap heap = new IndexHeap(n, keys);
            for (TracePass p : passes) {
                if (p.messageEvents.size() > 0) {
                    keys[p.trace] = p.messageEvents.get(0, TracePass.M_TIME);
                    heap.push(p.trace);
                }
            }
            LongIntMap pending = new LongIntMap();
            while (heap.size() > 0) {
                int i = heap.peek();
                int second = heap.peekSecond();
                LongRows r = passes[i].messageEvents;
                int size = r.size();
                int k = at[i];
                long t = keys[i];
                do {
                    message(i, t, r.chunk(k), r.offset(k), pending);
                    k++;
                    t = k < size ? r.get(k, TracePass.M_TIME) : Long.MAX_VALUE;
                } while (k < size && (second < 0 || heap.before(i, t, second)));
                at[i] = k;
                if (k < size) {
                    keys[i] = t;
                    heap.topChanged();
                } else {
                    heap.pop();
                }
            }
        }

        /** Message event {@code o} of {@code m}, of trace {@code i}, at {@code t}: a send kept pending, or a receive linked to its send. */
        private void message(int i, long t, MemorySegment m, int o, LongIntMap pending) {
            MessageTable out = model.messages;
            long who = m.getAtIndex(LongRows.L, o + TracePass.M_WHO);
            int core = coreIds[i][LongRows.high(who)];
            int task = taskIds[i][LongRows.low(who)];
            long callKind = m.getAtIndex(LongRows.L, o + TracePass.M_CALL_KIND);
            int localCall = LongRows.high(callKind);
            int call = localCall < 0 ? -1 : nameIds[i][localCall];
            long queue = m.getAtIndex(LongRows.L, o + TracePass.M_QUEUE);
            long id = m.getAtIndex(LongRows.L, o + TracePass.M_ID);
            long key = messageKey(queue, id);
            if (LongRows.low(callKind) == 0) {
                pending.put(key, out.send(t, core, task, call, queue, id));
                return;
            }
            int row = pending.remove(key);
            if (row == LongIntMap.ABSENT) {
                out.receiveOnly(t, core, task, call, queue, id);
            } else {
                out.received(row, t, core, task, call);
            }
        }

        private static long messageKey(long queue, long id) {
            return Math.max(queue, 0) * 0x100000001B3L ^ id;
        }

        /** The tasks created, trace after trace, renumbered. */
        void forks() {
            for (TracePass p : passes) {
                LongRows r = p.forks;
                int[] task = taskIds[p.trace];
                for (int k = 0; k < r.size(); k++) {
                    long who = r.get(k, 1);
                    int parent = LongRows.low(who);
                    model.addFork(r.get(k, 0), task[LongRows.high(who)], parent < 0 ? -1 : task[parent]);
                }
            }
        }

        /** The wake-ups, trace after trace, renumbered. */
        void wakeups() {
            for (TracePass p : passes) {
                LongRows r = p.wakeups;
                int[] task = taskIds[p.trace];
                for (int k = 0; k < r.size(); k++) {
                    MemorySegment m = r.chunk(k);
                    int o = r.offset(k);
                    long who = m.getAtIndex(LongRows.L, o + 1);
                    long where = m.getAtIndex(LongRows.L, o + 2);
                    int waker = LongRows.low(who);
                    int irq = LongRows.low(where);
                    model.addWakeup(m.getAtIndex(LongRows.L, o), task[LongRows.high(who)], waker < 0 ? -1 : task[waker],
                        coreIds[p.trace][LongRows.high(where)], irq < 0 ? -1 : nameIds[p.trace][irq]);
                }
            }
        }

        /**
         * The point events, trace after trace, on the cores the passes made; those of a CPU no
         * mapped event named (or of no CPU) on their trace (core −1 − trace).
         */
        void marks() {
            Map<String, Integer> names = new HashMap<>();
            for (TracePass p : passes) {
                int[] name = new int[p.markNames.size()];
                for (int k = 0; k < name.length; k++) {
                    name[k] = names.computeIfAbsent(p.markNames.get(k), x -> {
                        model.eventNames.add(x);
                        return model.eventNames.size() - 1;
                    });
                }
                LongRows r = p.marks;
                for (int k = 0; k < r.size(); k++) {
                    MemorySegment m = r.chunk(k);
                    int o = r.offset(k);
                    int local = p.coreByCpu.get(m.getAtIndex(LongRows.L, o + 1));
                    model.addMark(m.getAtIndex(LongRows.L, o),
                        local == LongIntMap.ABSENT ? -1 - p.trace : coreIds[p.trace][local], name[(int) m.getAtIndex(LongRows.L, o + 2)]);
                }
            }
        }
    }
}
