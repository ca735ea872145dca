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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Builds the {@link StateModel} in one pass over the events of one or several traces, merged in
 * the order of their times on the reference clock. Per event: a map lookup by event name, field
 * reads by path (read in place), and appends to primitive columns. Names are read only when new:
 * known ones are recognized by their id (task ids, addresses, interrupt numbers) or by a 64-bit
 * hash of their bytes (task and function names), so that the pass allocates nothing per event
 * beyond the columns' growth.
 */
public final class StateBuilder {
    /** The traces of an input, synchronized when there are several, with the report (null for one trace). */
    public record Input(List<Path> traces, List<PiecewiseMap> maps, Synchronizer.Report sync) {}

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

    /** A rule compiled for one trace: its action and field paths, with what was learnt of their types. */
    private static final class Compiled {
        final Mapping.Action does;
        final Mapping.Rule rule;
        final int index;
        /** The function name id when the rule names it with =TEXT, else −1. */
        int constantName = -1;
        /** Whether the function or task-name field is a string (decided at the first event). */
        Boolean stringField;

        // the field roles, looked up once rather than per event
        final String next;
        final String nextId;
        final String prev;
        final String prevId;
        final String prevState;
        final String prevPrio;
        final String nextPrio;
        final String func;
        final String irq;
        final String name;
        final String label;
        final String queue;
        final String id;

        Compiled(Mapping.Rule rule, int index) {
            this.rule = rule;
            this.does = rule.does();
            this.index = index;
            next = rule.field("next");
            nextId = rule.field("next-id");
            prev = rule.field("prev");
            prevId = rule.field("prev-id");
            prevState = rule.field("prev-state");
            prevPrio = rule.field("prev-prio");
            nextPrio = rule.field("next-prio");
            func = rule.field("func");
            irq = rule.field("irq");
            name = rule.field("name");
            label = rule.field("label");
            queue = rule.field("queue");
            id = rule.field("id");
        }
    }

    /** A task's call stack and switched-out state. */
    private static final class TaskState {
        int[] funcs = new int[16];
        long[] starts = new long[16];
        long[] child = new long[16];
        long[] epochs = new long[16];
        int depth;
        /** Time covered by completed calls at the bottom of the stack since the trace began (for calls begun before it). */
        long baseChild;
        long outSince = -1;
        int outState;
        long outEpoch;
        int lastBlockedRow = -1;

        void push(int func, long start, long epoch) {
            if (depth == funcs.length) {
                funcs = Arrays.copyOf(funcs, depth * 2);
                starts = Arrays.copyOf(starts, depth * 2);
                child = Arrays.copyOf(child, depth * 2);
                epochs = Arrays.copyOf(epochs, depth * 2);
            }
            funcs[depth] = func;
            starts[depth] = start;
            child[depth] = 0;
            epochs[depth] = epoch;
            depth++;
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
        final PiecewiseMap[] maps;
        final Mapping[] mappings;
        final StateModel model = new StateModel();
        final List<Map<String, Compiled>> compiled = new ArrayList<>();
        final long[] first;
        final long[] last;
        final long[] gap;
        final long[] epoch;
        final Pattern[] idleNames;
        // per trace: cores by CPU, tasks by id and by name, names by number
        final LongIntMap[] coreByCpu;
        final LongIntMap[] taskById;
        final List<Map<String, Integer>> taskByName = new ArrayList<>();
        final LongIntMap[] nameByNumber;
        final LongIntMap[] taskByHash;
        final LongIntMap nameByHash = new LongIntMap();
        final Map<String, Integer> nameIds = new HashMap<>();
        final List<TaskState> taskStates = new ArrayList<>();
        final List<CoreState> coreStates = new ArrayList<>();
        final LongIntMap pendingMessages = new LongIntMap();

        Pass(CtfReader[] readers, Input input, Mapping given) {
            this.readers = readers;
            int n = readers.length;
            maps = input.maps().toArray(PiecewiseMap[]::new);
            mappings = new Mapping[n];
            first = new long[n];
            last = new long[n];
            gap = new long[n];
            epoch = new long[n];
            idleNames = new Pattern[n];
            coreByCpu = new LongIntMap[n];
            taskById = new LongIntMap[n];
            nameByNumber = new LongIntMap[n];
            taskByHash = new LongIntMap[n];
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
                    Compiled c = new Compiled(list.get(k), k);
                    String func = c.func;
                    if (func != null && func.startsWith("=")) {
                        c.constantName = nameId(func.substring(1));
                    }
                    rules.put(c.rule.event(), c);
                }
                compiled.add(rules);
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
            IndexHeap heap = new IndexHeap(n, (x, y) -> keys[x] < keys[y] || (keys[x] == keys[y] && x < y));
            for (int i = 0; i < n; i++) {
                if (advance(i)) {
                    keys[i] = time(i);
                    heap.push(i);
                }
            }
            while (heap.size() > 0) {
                int i = heap.peek();
                long t = keys[i];
                Event e = readers[i].event();
                model.events++;
                if (!e.hasTime()) {
                    // an event of a stream without a clock has no place in time: counted, not placed
                    model.untimed++;
                } else {
                    if (first[i] == Long.MIN_VALUE) {
                        first[i] = t;
                    } else if (t - last[i] > gap[i]) {
                        gap[i] = t - last[i];
                    }
                    last[i] = Math.max(last[i], t);
                    model.begin = Math.min(model.begin, t);
                    model.end = Math.max(model.end, t);
                    Compiled c = compiled.get(i).get(e.name());
                    if (c != null) {
                        apply(i, c, e, t);
                    }
                }
                if (advance(i)) {
                    keys[i] = time(i);
                    heap.topChanged();
                } else {
                    heap.pop();
                }
            }
            finish();
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
            Mapping m = mappings[trace];
            int core = core(trace, e, m);
            switch (c.does) {
                case SWITCH -> taskSwitch(trace, core, c, e, t);
                case ENTER -> enter(trace, task(trace, core, e, m), function(trace, c, e), t);
                case EXIT -> exit(trace, task(trace, core, e, m), function(trace, c, e), t);
                case IRQ_ENTRY -> irqEntry(trace, core, c, e, t);
                case IRQ_EXIT -> irqExit(trace, core, c, e, t);
                case SEND -> send(trace, core, task(trace, core, e, m), c, e, t);
                case RECEIVE -> receive(trace, core, task(trace, core, e, m), c, e, t);
            }
        }

        private int core(int trace, Event e, Mapping m) {
            long cpu = m.core() != null && e.has(m.core()) ? e.getLong(m.core()) : -1;
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
        private int task(int trace, int core, Event e, Mapping m) {
            if (m.taskId() != null && e.has(m.taskId())) {
                long id = e.getLong(m.taskId());
                int k = taskById[trace].get(id);
                if (k == LongIntMap.ABSENT) {
                    String name = m.taskName() != null && e.has(m.taskName()) ? e.getString(m.taskName()) : "task";
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

        private int switchedTask(int trace, Event e, String nameRole, String idRole) {
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
            String path = c.func;
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
                int row = model.taskStates.add(ns.outSince, t, next, -1, ns.outState, 0,
                    epoch[trace] != ns.outEpoch ? StateModel.EVENTS_LOST : 0, 0);
                if (ns.outState == StateModel.BLOCKED) {
                    ns.lastBlockedRow = row;
                }
                ns.outSince = -1;
            }
            cs.task = next;
            cs.since = t;
            cs.epoch = epoch[trace];
        }

        private int runState(int task) {
            return model.tasks.get(task).idle() ? StateModel.IDLE : StateModel.RUNNING;
        }

        private static int switchedOutState(Compiled c, Event e) {
            String state = c.prevState;
            if (state != null && e.has(state)) {
                return e.getLong(state) == 0 ? StateModel.PREEMPTED : StateModel.BLOCKED;
            }
            String pp = c.prevPrio;
            String np = c.nextPrio;
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
            while (at >= 0 && s.funcs[at] != func) {
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
            long total = t - s.starts[d];
            model.calls.add(s.starts[d], t, task, s.funcs[d], 0, d,
                flags | (epoch[trace] != s.epochs[d] ? StateModel.EVENTS_LOST : 0), total - s.child[d]);
            if (d > 0) {
                s.child[d - 1] += total;
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
            String irqField = c.irq;
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
            String q = c.queue;
            return q != null && e.has(q) ? e.getLong(q) : -1;
        }

        private static long messageKey(long queue, long id) {
            return Math.max(queue, 0) * 0x100000001B3L ^ id;
        }

        private void send(int trace, int core, int task, Compiled c, Event e, long t) {
            long queue = queue(c, e);
            long id = e.getLong(c.id);
            TaskState ts = taskStates.get(task);
            int row = model.messages.send(t, core, task, ts.depth > 0 ? ts.funcs[ts.depth - 1] : -1, queue, id);
            pendingMessages.put(messageKey(queue, id), row);
            taskStates.get(task).lastBlockedRow = -1;
        }

        private void receive(int trace, int core, int task, Compiled c, Event e, long t) {
            long queue = queue(c, e);
            long id = e.getLong(c.id);
            long key = messageKey(queue, id);
            int row = pendingMessages.get(key);
            TaskState s = taskStates.get(task);
            int call = s.depth > 0 ? s.funcs[s.depth - 1] : -1;
            if (row == LongIntMap.ABSENT || row < 0) {
                model.messages.receiveOnly(t, core, task, call, queue, id);
            } else {
                model.messages.received(row, t, core, task, call);
                pendingMessages.put(key, -1);
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
                    model.taskStates.add(s.outSince, last[trace], task, -1, s.outState, 0, StateModel.END_UNKNOWN, 0);
                }
            }
        }
    }
}
