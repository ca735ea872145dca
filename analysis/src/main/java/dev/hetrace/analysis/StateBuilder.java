package dev.hetrace.analysis;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.IndexHeap;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldTypeException;
import dev.hetrace.ctf.decode.Discarded;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.StreamClass;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Builds the {@link StateModel} in one pass over the events of one or several traces, merged in
 * the order of their times on the reference clock (a trace's events taken in a run while they
 * stay first). Per event: its class's rule found by identity, field reads through handles
 * resolved once per class (read in place), and appends to row-stored tables. Names are read only
 * when new: known ones are recognized by their id (task ids, addresses, interrupt numbers) or by
 * a 64-bit hash of their bytes (task and function names), so that the pass allocates nothing per
 * event beyond the tables' growth.
 */
public final class StateBuilder {
    /** The traces of an input, synchronized when there are several, with the report (null for one trace). */
    public record Input(List<Path> traces, List<PiecewiseMap> maps, Synchronizer.Report sync) {}

    /**
     * Told of every event the state pass reads, in its merged order, so that other tables can be
     * made in the same pass rather than by reading the traces again.
     */
    @FunctionalInterface
    public interface EventListener {
        /**
         * @param trace  the event's trace (index in the input)
         * @param reader that trace's reader, standing on the event
         * @param time   the event's time on the reference clock (meaningless when the event has none)
         */
        void event(int trace, CtfReader reader, long time) throws StreamDecodingException;
    }

    private StateBuilder() {}

    /**
     * The traces on one clock: one trace as it is; several synchronized by hetrace's sync
     * handshake on the first one's clock (traces it does not connect keep their own clock, with a
     * warning).
     */
    public static Input synchronize(List<Path> traces, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        if (traces.size() == 1) {
            return new Input(traces, List.of(PiecewiseMap.of(dev.hetrace.sync.ClockTransform.IDENTITY)), null);
        }
        Synchronizer.Report r = Synchronizer.run(traces, MatchRules.HETRACE_SYNC, ConvexHullSync.Method.BISECTOR, 0, warnings);
        List<PiecewiseMap> maps = new ArrayList<>();
        for (Synchronizer.TraceSync t : r.traces()) {
            if (!t.connected()) {
                warnings.accept(t.path() + ": no sync messages with the others: left on its own clock");
            }
            maps.add(t.map());
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
        return build(input, mapping, fromNanos, warnings, null, null);
    }

    /**
     * As {@link #build(Input, Mapping, long, Consumer)}, telling {@code listener} (when not null)
     * of every event; {@code opened} (when not null) is first given each trace's reader, opened.
     */
    public static StateModel build(Input input, Mapping mapping, long fromNanos, Consumer<String> warnings,
                                   Consumer<CtfReader> opened, EventListener listener)
            throws IOException, MetadataException, StreamDecodingException {
        int n = input.traces().size();
        CtfReader[] readers = new CtfReader[n];
        try {
            for (int i = 0; i < n; i++) {
                readers[i] = CtfReader.open(List.of(input.traces().get(i)), warnings);
                if (fromNanos != Long.MIN_VALUE) {
                    readers[i].seek(input.maps().get(i).inverse().apply(fromNanos));
                }
            }
            Pass pass = new Pass(readers, input, mapping);
            pass.listener = listener;
            if (opened != null) {
                for (CtfReader r : readers) {
                    opened.accept(r);
                }
            }
            pass.run();
            return pass.model;
        } finally {
            for (CtfReader r : readers) {
                if (r != null) {
                    r.close();
                }
            }
        }
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
            name = handle(rule.field("name"));
            label = rule.field("label");
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
        int irqDepth;
        int unknownTask = -1;
    }

    private static final class Pass {
        final CtfReader[] readers;
        final PiecewiseMap.Walker[] maps;
        final Mapping[] mappings;
        final StateModel model = new StateModel();
        final List<Map<String, Compiled>> compiled = new ArrayList<>();
        /** Per trace, the rule of each event class met (or {@link #NONE}), by the class's identity. */
        final List<IdentityHashMap<EventClass, Compiled>> byClass = new ArrayList<>();
        /** In front of that: per trace, a direct-mapped cache of 64 classes by id. */
        final EventClass[][] cachedClass;
        final Compiled[][] cachedRule;
        final long[] first;
        final long[] last;
        final long[] gap;
        final long[] epoch;
        final Pattern[] idleNames;
        // per trace: cores by CPU, tasks by id and by name, names by number
        final LongIntMap[] coreByCpu;
        /** The trace's core when an event names no CPU (−1 until one is made). */
        final int[] traceCore;
        final LongIntMap[] taskById;
        final List<Map<String, Integer>> taskByName = new ArrayList<>();
        final LongIntMap[] nameByNumber;
        final LongIntMap[] taskByHash;
        final LongIntMap nameByHash = new LongIntMap();
        final Map<String, Integer> nameIds = new HashMap<>();
        final List<TaskState> taskStates = new ArrayList<>();
        final List<CoreState> coreStates = new ArrayList<>();
        final LongIntMap pendingMessages = new LongIntMap();
        EventListener listener;

        Pass(CtfReader[] readers, Input input, Mapping given) {
            this.readers = readers;
            int n = readers.length;
            maps = input.maps().stream().map(PiecewiseMap::walker).toArray(PiecewiseMap.Walker[]::new);
            mappings = new Mapping[n];
            first = new long[n];
            last = new long[n];
            gap = new long[n];
            epoch = new long[n];
            idleNames = new Pattern[n];
            coreByCpu = new LongIntMap[n];
            traceCore = new int[n];
            Arrays.fill(traceCore, -1);
            taskById = new LongIntMap[n];
            nameByNumber = new LongIntMap[n];
            taskByHash = new LongIntMap[n];
            cachedClass = new EventClass[n][64];
            cachedRule = new Compiled[n][64];
            Arrays.fill(first, Long.MIN_VALUE);
            for (int i = 0; i < n; i++) {
                Path p = input.traces().get(i);
                Set<String> events = eventNames(readers[i].traces());
                Mapping m = given != null ? given.restrictedTo(events) : Mapping.detect(events);
                if (m == null || m.rules().isEmpty()) {
                    throw new MappingException(p + ": no preset fits its events (" + abridged(events)
                        + "); give a mapping file (see docs/analysis.md)");
                }
                mappings[i] = m;
                model.traceNames.add(p.toAbsolutePath().normalize().getFileName().toString());
                model.mappingNames.add(m.name());
                idleNames[i] = m.idleName() == null ? null : Pattern.compile(m.idleName());
                coreByCpu[i] = new LongIntMap();
                taskById[i] = new LongIntMap();
                nameByNumber[i] = new LongIntMap();
                taskByHash[i] = new LongIntMap();
                taskByName.add(new HashMap<>());
                Map<String, Compiled> rules = new HashMap<>();
                List<Mapping.Rule> list = m.rules();
                for (int k = 0; k < list.size(); k++) {
                    Compiled c = new Compiled(list.get(k), k, m);
                    String func = c.func;
                    if (func != null && func.startsWith("=")) {
                        c.constantName = nameId(func.substring(1));
                    }
                    rules.put(c.rule.event(), c);
                }
                compiled.add(rules);
                byClass.add(new IdentityHashMap<>());
                final int trace = i;
                readers[i].onDiscarded((Discarded d, CtfTrace t, int stream) -> {
                    epoch[trace]++;
                    if (d.kind() == Discarded.Kind.EVENTS && d.count() > 0) {
                        model.discarded += d.count();
                    }
                });
            }
        }

        private static String abridged(Set<String> events) {
            List<String> l = new ArrayList<>(events);
            return l.size() <= 8 ? String.join(", ", l) : String.join(", ", l.subList(0, 8)) + ", ... " + l.size() + " in all";
        }

        void run() throws StreamDecodingException {
            int n = readers.length;
            long[] keys = new long[n];
            // earlier first; at equal times, the trace given first
            IndexHeap heap = new IndexHeap(n, keys);
            for (int i = 0; i < n; i++) {
                if (advance(i)) {
                    keys[i] = time(i);
                    heap.push(i);
                }
            }
            while (heap.size() > 0) {
                int i = heap.peek();
                // the trace's events are taken in a run while they come before every other trace's next one
                int second = heap.peekSecond();
                long bound = second < 0 ? Long.MAX_VALUE : keys[second];
                boolean more;
                do {
                    event(i, keys[i]);
                    more = advance(i);
                    if (more) {
                        keys[i] = time(i);
                    }
                } while (more && (keys[i] < bound || (keys[i] == bound && i < second)));
                if (more) {
                    heap.topChanged();
                } else {
                    heap.pop();
                }
            }
            finish();
        }

        /** The rule of the event's class: looked up by name once per class. */
        private Compiled rule(int trace, Event e) {
            EventClass cls = e.eventClass();
            int slot = (int) cls.id() & 63;
            if (cachedClass[trace][slot] == cls) {
                return cachedRule[trace][slot];
            }
            Compiled c = ruleOf(trace, e, cls);
            cachedClass[trace][slot] = cls;
            cachedRule[trace][slot] = c;
            return c;
        }

        private Compiled ruleOf(int trace, Event e, EventClass cls) {
            IdentityHashMap<EventClass, Compiled> known = byClass.get(trace);
            Compiled c = known.get(cls);
            if (c == null) {
                if (known.size() >= 4096) {
                    known.clear(); // classes declared in runs may come as new objects: keep the map bounded
                }
                c = compiled.get(trace).get(e.name());
                known.put(cls, c == null ? NONE : c);
                c = c == null ? NONE : c;
            }
            return c;
        }

        /** The current event of trace {@code i}, at {@code t} on the reference clock. */
        private void event(int i, long t) throws StreamDecodingException {
            Event e = readers[i].event();
            model.events++;
            if (listener != null) {
                listener.event(i, readers[i], t);
            }
            if (!e.hasTime()) {
                // an event of a stream without a clock has no place in time: counted, not placed
                model.untimed++;
                return;
            }
            if (first[i] == Long.MIN_VALUE) {
                first[i] = t;
            } else if (t - last[i] > gap[i]) {
                gap[i] = t - last[i];
            }
            last[i] = Math.max(last[i], t);
            model.begin = Math.min(model.begin, t);
            model.end = Math.max(model.end, t);
            Compiled c = rule(i, e);
            if (c != NONE) {
                apply(i, c, e, t);
            }
        }

        private boolean advance(int i) throws StreamDecodingException {
            return readers[i].next();
        }

        /** The current event's time on the reference clock; an event without a time takes the trace's last. */
        private long time(int i) {
            Event e = readers[i].event();
            if (!e.hasTime()) {
                return first[i] == Long.MIN_VALUE ? Long.MIN_VALUE : last[i];
            }
            return maps[i].apply(e.timeNanos());
        }

        private void apply(int trace, Compiled c, Event e, long t) {
            int core = core(trace, c, e);
            switch (c.does) {
                case SWITCH -> taskSwitch(trace, core, c, e, t);
                case ENTER -> enter(trace, task(trace, core, c, e), function(trace, c, e), t);
                case EXIT -> exit(trace, task(trace, core, c, e), function(trace, c, e), t);
                case IRQ_ENTRY -> irqEntry(trace, core, c, e, t);
                case IRQ_EXIT -> irqExit(trace, core, c, e, t);
                case SEND -> send(trace, core, task(trace, core, c, e), c, e, t);
                case RECEIVE -> receive(trace, core, task(trace, core, c, e), c, e, t);
                case WAIT -> taskStates.get(task(trace, core, c, e)).waitQueue = (int) queue(c, e);
            }
        }

        private int core(int trace, Compiled rule, Event e) {
            if (rule.core == null) {
                // no CPU field: the trace's one core, looked up once
                if (traceCore[trace] < 0) {
                    traceCore[trace] = coreOf(trace, -1);
                }
                return traceCore[trace];
            }
            return coreOf(trace, e.has(rule.core) ? e.getLong(rule.core) : -1);
        }

        private int coreOf(int trace, long cpu) {
            int c = coreByCpu[trace].get(cpu);
            if (c == LongIntMap.ABSENT) {
                c = model.cores.size();
                String name = model.traceNames.get(trace) + (cpu < 0 ? "" : "/cpu" + cpu);
                model.cores.add(new StateModel.Core(name, trace));
                coreStates.add(new CoreState());
                coreByCpu[trace].put(cpu, c);
            }
            return c;
        }

        /** The task an event belongs to: from the mapping's task fields, else the one running on the core. */
        private int task(int trace, int core, Compiled rule, Event e) {
            if (rule.taskId != null && e.has(rule.taskId)) {
                long id = e.getLong(rule.taskId);
                int k = taskById[trace].get(id);
                if (k == LongIntMap.ABSENT) {
                    String name = rule.taskName != null && e.has(rule.taskName) ? e.getString(rule.taskName) : "task";
                    k = newTask(trace, name, id);
                    taskById[trace].put(id, k);
                }
                return k;
            }
            CoreState cs = coreStates.get(core);
            if (cs.task >= 0) {
                return cs.task;
            }
            if (cs.unknownTask < 0) {
                // events before the core's first switch: a task the trace does not name, marked as such
                cs.unknownTask = newTask(trace, model.cores.get(core).name() + ":(before the first switch)", -1);
            }
            return cs.unknownTask;
        }

        private int newTask(int trace, String name, long id) {
            boolean idle = (mappings[trace].idleId() != null && mappings[trace].idleId() == id)
                || (idleNames[trace] != null && idleNames[trace].matcher(name).matches());
            model.tasks.add(new StateModel.Task(name, trace, id, idle));
            taskStates.add(new TaskState());
            return model.tasks.size() - 1;
        }

        private int switchedTask(int trace, Event e, Event.Field nameRole, Event.Field idRole) {
            if (idRole != null && e.has(idRole)) {
                long id = e.getLong(idRole);
                int k = taskById[trace].get(id);
                if (k == LongIntMap.ABSENT) {
                    k = newTask(trace, e.getString(nameRole), id);
                    taskById[trace].put(id, k);
                }
                return k;
            }
            long hash = e.getStringHash(nameRole);
            int k = taskByHash[trace].get(hash);
            if (k == LongIntMap.ABSENT) {
                String name = e.getString(nameRole);
                Integer known = taskByName.get(trace).get(name);
                k = known != null ? known : newTask(trace, name, -1);
                taskByName.get(trace).put(name, k);
                taskByHash[trace].put(hash, k);
            }
            return k;
        }

        private int nameId(String name) {
            Integer id = nameIds.get(name);
            if (id == null) {
                id = model.names.size();
                model.names.add(name);
                nameIds.put(name, id);
            }
            return id;
        }

        private int function(int trace, Compiled c, Event e) {
            if (c.constantName >= 0) {
                return c.constantName;
            }
            Event.Field path = c.funcField;
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
            int id = nameByNumber[trace].get(addr);
            if (id == LongIntMap.ABSENT) {
                id = nameId("0x" + Long.toHexString(addr));
                nameByNumber[trace].put(addr, id);
            }
            return id;
        }

        private void taskSwitch(int trace, int core, Compiled c, Event e, long t) {
            CoreState cs = coreStates.get(core);
            int next = switchedTask(trace, e, c.next, c.nextId);
            int prev = cs.task;
            if (prev < 0) {
                // the first switch on this core: what ran before it ran since before the trace began
                prev = c.prev != null && e.has(c.prev) ? switchedTask(trace, e, c.prev, c.prevId) : -1;
                if (prev >= 0 && t > first[trace]) {
                    model.runs.add(first[trace], t, core, prev, runState(prev), 0,
                        StateModel.START_UNKNOWN, 0);
                }
            } else if (t > cs.since) {
                model.runs.add(cs.since, t, core, prev, runState(prev), 0,
                    epoch[trace] != cs.epoch ? StateModel.EVENTS_LOST : 0, 0);
            }
            if (prev >= 0 && prev != next && !model.tasks.get(prev).idle()) {
                TaskState ps = taskStates.get(prev);
                ps.outSince = t;
                ps.outEpoch = epoch[trace];
                ps.outState = switchedOutState(c, e);
            }
            TaskState ns = taskStates.get(next);
            ns.lastBlockedRow = -1;
            if (ns.outSince >= 0) {
                int row = model.taskStates.add(ns.outSince, t, next, ns.outState == StateModel.BLOCKED ? ns.waitQueue : -1,
                    ns.outState, 0, epoch[trace] != ns.outEpoch ? StateModel.EVENTS_LOST : 0, 0);
                if (ns.outState == StateModel.BLOCKED) {
                    ns.lastBlockedRow = row;
                }
                ns.outSince = -1;
            }
            ns.waitQueue = -1;
            cs.task = next;
            cs.since = t;
            cs.epoch = epoch[trace];
        }

        private int runState(int task) {
            return model.tasks.get(task).idle() ? StateModel.IDLE : StateModel.RUNNING;
        }

        private static int switchedOutState(Compiled c, Event e) {
            Event.Field state = c.prevState;
            if (state != null && e.has(state)) {
                return e.getLong(state) == 0 ? StateModel.PREEMPTED : StateModel.BLOCKED;
            }
            Event.Field pp = c.prevPrio;
            Event.Field np = c.nextPrio;
            if (pp != null && np != null && e.has(pp) && e.has(np)) {
                // fixed priorities: a task is switched out for a higher one only when that one just became ready
                return e.getLong(np) > e.getLong(pp) ? StateModel.PREEMPTED : StateModel.BLOCKED;
            }
            return StateModel.WAITING;
        }

        private void enter(int trace, int task, int func, long t) {
            TaskState s = taskStates.get(task);
            s.lastBlockedRow = -1;
            s.push(func, t, epoch[trace]);
        }

        private void exit(int trace, int task, int func, long t) {
            TaskState s = taskStates.get(task);
            s.lastBlockedRow = -1;
            int at = s.depth - 1;
            while (at >= 0 && s.func(at) != func) {
                at--;
            }
            if (at < 0) {
                // an exit without its entry: the call began before the trace (or its entry was lost)
                long total = t - first[trace];
                model.calls.add(first[trace], t, task, func, 0, 0, StateModel.START_UNKNOWN
                    | (s.depth > 0 || epoch[trace] != 0 ? StateModel.EVENTS_LOST : 0), total - s.baseChild);
                s.baseChild = total;
                return;
            }
            while (s.depth - 1 > at) {
                // entered after the exit's own entry and never exited: their exits were lost
                pop(trace, task, s, t, StateModel.END_UNKNOWN);
            }
            pop(trace, task, s, t, 0);
        }

        private void pop(int trace, int task, TaskState s, long t, int flags) {
            int d = --s.depth;
            long[] f = s.frames;
            int o = 4 * d;
            long start = f[o + TaskState.START];
            long total = t - start;
            model.calls.add(start, t, task, (int) f[o + TaskState.FUNC], 0, d,
                flags | (epoch[trace] != f[o + TaskState.EPOCH] ? StateModel.EVENTS_LOST : 0),
                total - f[o + TaskState.CHILD]);
            if (d > 0) {
                f[o - 4 + TaskState.CHILD] += total;
            } else {
                s.baseChild += total;
            }
        }

        private void irqEntry(int trace, int core, Compiled c, Event e, long t) {
            long number = e.getLong(c.irq);
            long key = number * 64 + c.index;
            int id = nameByNumber[trace].get(~key);
            if (id == LongIntMap.ABSENT) {
                String label = c.label;
                String name = c.name != null && e.has(c.name)
                    ? e.getString(c.name) : (label != null ? label : "irq") + " " + number;
                id = nameId(label != null && c.name != null ? label + ":" + name : name);
                nameByNumber[trace].put(~key, id);
            }
            CoreState cs = coreStates.get(core);
            if (cs.irqDepth == cs.irqs.length) {
                int k = cs.irqDepth * 2;
                cs.irqs = Arrays.copyOf(cs.irqs, k);
                cs.irqNumbers = Arrays.copyOf(cs.irqNumbers, k);
                cs.irqStarts = Arrays.copyOf(cs.irqStarts, k);
                cs.irqEpochs = Arrays.copyOf(cs.irqEpochs, k);
            }
            cs.irqs[cs.irqDepth] = id;
            cs.irqNumbers[cs.irqDepth] = key;
            cs.irqStarts[cs.irqDepth] = t;
            cs.irqEpochs[cs.irqDepth] = epoch[trace];
            cs.irqDepth++;
        }

        private void irqExit(int trace, int core, Compiled c, Event e, long t) {
            CoreState cs = coreStates.get(core);
            Event.Field irqField = c.irq;
            int at = cs.irqDepth - 1;
            if (irqField != null) {
                long number = e.getLong(irqField);
                // the entry's rule is the one before the exit's in the presets; match on the number
                while (at >= 0 && cs.irqNumbers[at] / 64 != number) {
                    at--;
                }
            }
            if (at < 0) {
                long number = irqField != null ? e.getLong(irqField) : -1;
                int id = nameId("irq " + number);
                model.irqs.add(first[trace], t, core, id, 0, 0, StateModel.START_UNKNOWN, 0);
                return;
            }
            while (cs.irqDepth - 1 > at) {
                closeIrq(trace, core, cs, t, StateModel.END_UNKNOWN);
            }
            closeIrq(trace, core, cs, t, 0);
        }

        private void closeIrq(int trace, int core, CoreState cs, long t, int flags) {
            int d = --cs.irqDepth;
            model.irqs.add(cs.irqStarts[d], t, core, cs.irqs[d], 0, d,
                flags | (epoch[trace] != cs.irqEpochs[d] ? StateModel.EVENTS_LOST : 0), 0);
        }

        /** The queue field's value, or −1 without one: read once per message event. */
        private static long queue(Compiled c, Event e) {
            Event.Field q = c.queue;
            return q != null && e.has(q) ? e.getLong(q) : -1;
        }

        private static long messageKey(long queue, long id) {
            return Math.max(queue, 0) * 0x100000001B3L ^ id;
        }

        private void send(int trace, int core, int task, Compiled c, Event e, long t) {
            long queue = queue(c, e);
            long id = e.getLong(c.id);
            TaskState ts = taskStates.get(task);
            int row = model.messages.send(t, core, task, ts.depth > 0 ? ts.func(ts.depth - 1) : -1, queue, id);
            pendingMessages.put(messageKey(queue, id), row);
            taskStates.get(task).lastBlockedRow = -1;
        }

        private void receive(int trace, int core, int task, Compiled c, Event e, long t) {
            long queue = queue(c, e);
            long id = e.getLong(c.id);
            long key = messageKey(queue, id);
            int row = pendingMessages.get(key);
            TaskState s = taskStates.get(task);
            int call = s.depth > 0 ? s.func(s.depth - 1) : -1;
            if (row == LongIntMap.ABSENT) {
                model.messages.receiveOnly(t, core, task, call, queue, id);
            } else {
                model.messages.received(row, t, core, task, call);
                pendingMessages.remove(key);
            }
            if (s.lastBlockedRow >= 0 && queue >= 0) {
                // the first thing the task did once switched back in: it was blocked on this queue
                model.taskStates.subject(s.lastBlockedRow, (int) queue);
            }
            s.lastBlockedRow = -1;
        }

        /** What is still open at the end of a trace ends at its last event, marked. */
        private void finish() {
            model.traceFirst = first.clone();
            model.traceLast = last.clone();
            model.traceLongestGap = gap.clone();
            for (int core = 0; core < coreStates.size(); core++) {
                CoreState cs = coreStates.get(core);
                int trace = model.cores.get(core).trace();
                if (cs.task >= 0 && last[trace] > cs.since) {
                    model.runs.add(cs.since, last[trace], core, cs.task, runState(cs.task), 0,
                        StateModel.END_UNKNOWN | (epoch[trace] != cs.epoch ? StateModel.EVENTS_LOST : 0), 0);
                }
                while (cs.irqDepth > 0) {
                    closeIrq(trace, core, cs, last[trace], StateModel.END_UNKNOWN);
                }
            }
            for (int task = 0; task < taskStates.size(); task++) {
                TaskState s = taskStates.get(task);
                int trace = model.tasks.get(task).trace();
                while (s.depth > 0) {
                    pop(trace, task, s, last[trace], StateModel.END_UNKNOWN);
                }
                if (s.outSince >= 0 && last[trace] > s.outSince) {
                    model.taskStates.add(s.outSince, last[trace], task, s.outState == StateModel.BLOCKED ? s.waitQueue : -1,
                        s.outState, 0, StateModel.END_UNKNOWN, 0);
                }
            }
        }
    }
}
