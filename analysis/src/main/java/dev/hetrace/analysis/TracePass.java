package dev.hetrace.analysis;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldTypeException;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.PiecewiseMap;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The pass over one trace, on its own thread when traces are read in parallel: its cores,
 * tasks and names numbered locally, its rows appended at the times of the events that close
 * them, its message events kept for linking across traces ({@link PassCombiner}).
 *
 * <p>One class though long: it is the per-event hot path, and every step of an event (its rule,
 * its core, task and names, the row it closes) reads and writes this pass's fields directly.
 * Split across objects, each event would go through more references and calls.
 */
final class TracePass {
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
    /**
     * The map of the trace's clock to the reference clock, through which every time the reader
     * gives is put on the reference clock as it is read; null when it is the identity.
     */
    final PiecewiseMap.Walker map;
    /** The same map, for the loss windows (null: the identity). */
    final PiecewiseMap.Walker lossMap;
    /** The time ranges of the losses the reader told, begin and end one after the other, on the reference clock. */
    final LongColumn lossWindows = new LongColumn();

    final Mapping mapping;
    final Map<String, CompiledRule> compiled = new HashMap<>();
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

    /** Counter series this pass made (their core and task numbered locally), by local number. */
    final List<StateModel.Counter> counters = new ArrayList<>();
    /** Counter samples, as {@link StateModel#samples}'s rows: time; local series; value (a double's bits). */
    final LongRows samples = new LongRows(3);
    /** Local series by source (a rule's index, or {@link #PERF} plus a perf field's) and owner. */
    final LongIntMap seriesByKey = new LongIntMap();
    /** The lost events' series of each stream (trace index, stream), made at a stream's first loss. */
    final Map<Long, Integer> lostSeries = new HashMap<>();
    /**
     * The hardware counters the stream event contexts carry (LTTng's {@code add-context -t perf:cpu:cycles}
     * adds {@code _perf_cpu_cycles}): handles, whether per CPU (else per thread), series names and units.
     */
    final Event.Field[] perf;

    final boolean[] perfPerCpu;
    final String[] perfNames;
    final String[] perfUnits;
    /** The mapping's task fields, for the per-thread counters of events no rule reads. */
    final Event.Field contextTaskId;

    final Event.Field contextTaskName;
    /** The source of a perf field's series in {@link #seriesByKey}: above any rule's index. */
    static final int PERF = 1 << 20;

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

    StateBuilder.EventListener listener;
    /** The binaries the trace's processes loaded, as LTTng-UST's state dump and dlopen events say. */
    final List<StateModel.Binary> binaries = new ArrayList<>();
    /** The fields of those events. */
    final Event.Field dumpBase = Event.field("baddr");

    final Event.Field dumpSize = Event.field("memsz");
    final Event.Field dumpPath = Event.field("path");
    final Event.Field dumpPic = Event.field("is_pic");
    final Event.Field dumpBuildId = Event.field("build_id");
    final Event.Field dumpProcess = Event.field("vpid");
    /** The time of the event before the longest silence. */
    long gapFrom;
    /** Set when another trace's pass failed: this one stops early. */
    volatile boolean cancelled;
    /** No rule applies to the trace's events: each stream is a core of point events. */
    final boolean eventsOnly;
    /** The host the trace was recorded on (its metadata's {@code hostname}), or null. */
    final String host;
    /** Where the trace's core sits on the board ({@link StateModel#tracePlace}). */
    final List<String> place;
    /** In an events-only pass, the key ({@link #coreByCpu}) of the last event's stream, and its stream. */
    long streamKey = -1;

    CtfTrace streamTrace;
    int streamIndex = -1;

    TracePass(int trace, Path path, String name, CtfReader reader, PiecewiseMap map, Mapping given) {
        this.trace = trace;
        this.reader = reader;
        boolean identity = map.linear() && map.overall().equals(ClockTransform.IDENTITY);
        this.map = identity ? null : map.walker();
        this.lossMap = identity ? null : map.walker();
        traceName = name;
        Set<String> events = StateBuilder.eventNames(reader.traces());
        Set<String> contexts = StateBuilder.contextFieldNames(reader.traces());
        Mapping m = given != null
                ? given.restrictedTo(events).withThreadContext(contexts)
                : Mapping.detect(events, contexts);
        eventsOnly = m == null || m.rules().isEmpty();
        if (eventsOnly) {
            m = new Mapping(StateBuilder.EVENTS_ONLY, List.of(), null, null, null, null, null, List.of());
        }
        mapping = m;
        linux = m.states() == Mapping.States.LINUX ? LinuxTaskStates.of(reader.traces()) : null;
        host = reader.traces().isEmpty()
                        || !(reader.traces().getFirst().metadata().env().get("hostname") instanceof String h)
                ? null
                : h;
        place = place(reader.traces());
        idlePerCore = m.core() != null && m.idleId() != null;
        markCpu = m.core() == null ? null : Event.field(m.core());
        idleName = m.idleName() == null ? null : Pattern.compile(m.idleName());
        contextTaskId = m.taskId() == null ? null : Event.field(m.taskId());
        contextTaskName = m.taskName() == null ? null : Event.field(m.taskName());
        List<String> perfFields = perfContextFields(reader.traces());
        perf = new Event.Field[perfFields.size()];
        perfPerCpu = new boolean[perf.length];
        perfNames = new String[perf.length];
        perfUnits = new String[perf.length];
        for (int k = 0; k < perf.length; k++) {
            String f = perfFields.get(k); // perf_cpu_cycles
            perf[k] = Event.field("stream_context." + f);
            String rest = f.substring("perf_".length());
            int cut = rest.indexOf('_');
            perfPerCpu[k] = rest.startsWith("cpu_");
            perfUnits[k] = rest.substring(cut + 1);
            perfNames[k] = "perf:" + rest.substring(0, cut) + ":" + perfUnits[k];
        }
        List<Mapping.Rule> list = m.rules();
        for (int k = 0; k < list.size(); k++) {
            CompiledRule c = new CompiledRule(list.get(k), k, m);
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
                lossWindows.add(lossMap == null ? d.beginNanos() : lossMap.apply(d.beginNanos()));
                lossWindows.add(lossMap == null ? d.endNanos() : lossMap.apply(d.endNanos()));
            }
            if (d.kind() == Discarded.Kind.EVENTS && d.countKnown()) {
                // signed: a counter that went back (packets closed out of order) counts back
                discarded += d.count();
                lost(d, t, stream);
            }
        });
    }

    /** The place the first of {@code traces} that has any {@link StateModel#PLACE_KEYS} environment entry gives. */
    static List<String> place(List<CtfTrace> traces) {
        for (CtfTrace t : traces) {
            var env = t.metadata().env();
            List<String> out = new ArrayList<>();
            for (String key : StateModel.PLACE_KEYS) {
                Object v = env.get(key);
                if (v != null && !String.valueOf(v).isBlank()) {
                    out.add(String.valueOf(v).strip());
                }
            }
            if (!out.isEmpty()) {
                return List.copyOf(out);
            }
        }
        return List.of();
    }

    /**
     * The names of the perf counters in the stream event contexts of the trace's streams (as
     * babeltrace2 names them: {@code perf_cpu_cycles}, {@code perf_thread_instructions}).
     */
    static List<String> perfContextFields(List<CtfTrace> traces) {
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        for (CtfTrace t : traces) {
            for (var s : t.metadata().streams().values()) {
                if (s.eventContext() == null) {
                    continue;
                }
                for (var f : s.eventContext().members()) {
                    String n = f.name().startsWith("_") ? f.name().substring(1) : f.name();
                    if ((n.startsWith("perf_cpu_") || n.startsWith("perf_thread_"))
                            && n.length() > n.indexOf('_', 5) + 1) {
                        out.add(n);
                    }
                }
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * Events a stream lost, as a sample of its lost events' series: the count its packet told, at
     * the end of that packet (the loss happened between the previous packet's end and it), or at
     * the latest event when the packets have no times.
     */
    private void lost(Discarded d, CtfTrace t, int stream) {
        long key = ((long) reader.traces().indexOf(t) << 32) | stream;
        Integer series = lostSeries.get(key);
        if (series == null) {
            int streams = 0;
            for (CtfTrace x : reader.traces()) {
                streams += x.streamCount();
            }
            String name = streams > 1
                    ? "lost events (" + Path.of(t.streamPath(stream)).getFileName() + ")"
                    : "lost events";
            series = counters.size();
            counters.add(new StateModel.Counter(name, "events", StateModel.COUNTER_LOST, trace, -1, -1));
            lostSeries.put(key, series);
        }
        long at = d.hasTimeRange() ? (lossMap == null ? d.endNanos() : lossMap.apply(d.endNanos())) : last;
        sample(at, series, d.count());
    }

    private void sample(long time, int series, double value) {
        int o = samples.append();
        MemorySegment m = samples.lastChunk();
        m.setAtIndex(LongRows.L, o, time);
        m.setAtIndex(LongRows.L, o + 1, series);
        m.setAtIndex(LongRows.L, o + 2, Double.doubleToRawLongBits(value));
    }

    /** The local series of {@code source} for {@code owner} (a core, or a task when {@code perTask}), made when new. */
    private int series(int source, int owner, boolean perTask, String name, String unit, int kind) {
        long key = ((long) source << 32) | (owner & 0xFFFFFFFFL);
        int k = seriesByKey.get(key);
        if (k == LongIntMap.ABSENT) {
            k = counters.size();
            counters.add(new StateModel.Counter(name, unit, kind, trace, perTask ? -1 : owner, perTask ? owner : -1));
            seriesByKey.put(key, k);
        }
        return k;
    }

    /**
     * The perf counters the event's context carries, each a sample of the series of its CPU or
     * of its thread (the one the event names, else the one running on its CPU: before a switch
     * applies, the task leaving, whose counter the switch event read).
     */
    private void perfSamples(Event e, long t) {
        int core = -1;
        int task = -2;
        for (int k = 0; k < perf.length; k++) {
            Event.Field f = perf[k];
            if (!e.has(f)) {
                continue;
            }
            if (core < 0) {
                core = eventCore(e);
            }
            int owner;
            if (perfPerCpu[k]) {
                owner = core;
            } else {
                if (task == -2) {
                    task = contextTask(core, e);
                }
                owner = task;
            }
            if (owner < 0) {
                continue;
            }
            long v = e.getLong(f); // an unsigned 64-bit count
            double value = v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
            sample(
                    t,
                    series(PERF + k, owner, !perfPerCpu[k], perfNames[k], perfUnits[k], StateModel.COUNTER_TOTAL),
                    value);
        }
    }

    /** The core of an event whatever its rule: its stream's in an events-only pass, else the mapping's core field's. */
    private int eventCore(Event e) {
        if (eventsOnly) {
            return coreByCpu.get(streamCore());
        }
        if (markCpu != null && e.has(markCpu)) {
            return coreOf(e.getLong(markCpu));
        }
        if (traceCore < 0) {
            traceCore = coreOf(-1);
        }
        return traceCore;
    }

    /** The task the event's context names (made when new), else the one running on {@code core}, else −1. */
    private int contextTask(int core, Event e) {
        if (contextTaskId != null && e.has(contextTaskId)) {
            long id = e.getLong(contextTaskId);
            int k = taskById.get(id);
            if (k == LongIntMap.ABSENT) {
                String name = contextTaskName != null && e.has(contextTaskName) ? e.getString(contextTaskName) : "task";
                k = newTask(name, id);
                taskById.put(id, k);
            }
            return k;
        }
        return coreStates.get(core).task;
    }

    /** A counter rule's event: its field's value, a sample of its core's or task's series. */
    private void counter(int core, CompiledRule c, Event e, long t) {
        int owner = c.perTask ? task(core, c, e) : core;
        int k = series(c.index, owner, c.perTask, c.counterName, c.counterUnit, c.counterKind);
        sample(t, k, e.getDouble(c.value));
    }

    static String abridged(Set<String> events) {
        List<String> l = new ArrayList<>(events);
        return l.size() <= 8
                ? String.join(", ", l)
                : String.join(", ", l.subList(0, 8)) + ", ... " + l.size() + " in all";
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
     * What the pass needs of an event class: its rule (or {@link CompiledRule#NONE}) and its
     * name's number as a point event (−1 until it is one).
     */
    static final class PerClass {
        final CompiledRule rule;
        /** What the class says of the binaries loaded: {@link #LOADED}, {@link #BUILD_ID}, or 0 (nothing). */
        final int binaries;

        int markName = -1;

        PerClass(CompiledRule rule, int binaries) {
            this.rule = rule;
            this.binaries = binaries;
        }
    }

    /** A class whose events say a binary is loaded: LTTng-UST's state dump's {@code bin_info}, its {@code dlopen}. */
    static final int LOADED = 1;
    /** A class whose events give the build id of a binary loaded. */
    static final int BUILD_ID = 2;

    /** What the pass needs of the event's class (worked out once per class, {@link #byClass}). */
    private PerClass perClass(Event e) {
        CompiledRule c = compiled.get(e.name());
        int binaries = switch (e.name()) {
            case "lttng_ust_statedump:bin_info", "lttng_ust_dl:dlopen" -> LOADED;
            case "lttng_ust_statedump:build_id", "lttng_ust_dl:build_id" -> BUILD_ID;
            default -> 0;
        };
        return new PerClass(c == null ? CompiledRule.NONE : c, binaries);
    }

    /**
     * A binary loaded (its base, size, path, whether position-independent, in its process) or
     * its build id: kept for naming the functions traced by address ({@link BinarySymbols}).
     */
    private void binary(int kind, Event e) {
        if (!e.has(dumpBase)) {
            return;
        }
        long base = e.getLong(dumpBase);
        long process = e.has(dumpProcess) ? e.getLong(dumpProcess) : -1;
        if (kind == LOADED) {
            if (e.has(dumpSize) && e.has(dumpPath)) {
                boolean pic = !e.has(dumpPic) || e.getLong(dumpPic) != 0;
                binaries.add(new StateModel.Binary(
                        trace, process, base, e.getLong(dumpSize), e.getString(dumpPath), pic, null));
            }
            return;
        }
        if (!e.has(dumpBuildId)) {
            return;
        }
        int n = Math.min(e.length(dumpBuildId), 64);
        byte[] id = new byte[n];
        for (int i = 0; i < n; i++) {
            id[i] = (byte) e.getLong("build_id[" + i + "]");
        }
        String hex = HexFormat.of().formatHex(id); // as ElfFile.buildIdHex writes a file's
        // the build id follows its binary's bin_info: the latest loaded at that base in that process
        for (int k = binaries.size() - 1; k >= 0; k--) {
            StateModel.Binary b = binaries.get(k);
            if (b.base() == base && b.process() == process) {
                binaries.set(k, b.withBuildId(hex));
                break;
            }
        }
    }

    /** The reader's current event. */
    private void event(Event e) throws StreamDecodingException {
        events++;
        if (!e.hasTime()) {
            // an event of a stream without a clock has no place in time: counted, not placed
            untimed++;
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
        if (k.binaries != 0) {
            binary(k.binaries, e);
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
        CompiledRule c = k.rule;
        if (perf.length > 0) {
            now = t;
            perfSamples(e, t);
        }
        if (c != CompiledRule.NONE) {
            now = t;
            apply(c, e, t);
        }
        if (c == CompiledRule.NONE || c.does == Mapping.Action.WAIT) {
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

    private void apply(CompiledRule c, Event e, long t) {
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
            case TASK_INFO -> process(knownTask(e.getLong(c.id), e, c.name, false), c, e);
            case COUNTER -> counter(core, c, e, t);
        }
    }

    /** The task an event names by its {@code id} role, else the one running on its core. */
    private int subjectTask(int core, CompiledRule c, Event e) {
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
            tasks.set(task, new StateModel.Task(name, old.trace(), old.id(), old.idle(), old.process()));
            taskStates.get(task).nameHash = Event.stringHash(name);
        }
    }

    /**
     * A task is created by the one running on the event's core: always a new one, its id
     * naming it from now on, runnable until it first runs.
     */
    private void fork(int core, CompiledRule c, Event e, long t) {
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
        process(k, c, e);
        int o = forks.append();
        MemorySegment m = forks.lastChunk();
        m.setAtIndex(LongRows.L, o, t);
        m.setAtIndex(LongRows.L, o + 1, LongRows.pair(k, coreStates.get(core).task));
    }

    /**
     * Task {@code task} belongs to the process the rule's {@code process} field names (when the
     * event has it); the task with that process's id, when known, is the process's leader.
     */
    private void process(int task, CompiledRule c, Event e) {
        Event.Field f = c.process;
        if (f == null || !e.has(f)) {
            return;
        }
        long pid = e.getLong(f);
        taskStates.get(task).process = pid;
        int leader = taskById.get(pid);
        if (leader != LongIntMap.ABSENT && taskStates.get(leader).process < 0) {
            taskStates.get(leader).process = pid;
        }
    }

    /** A task is reaped: what it still had open ends, and its id is free for another task. */
    private void free(CompiledRule c, Event e, long t) {
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
    private void wake(int core, CompiledRule c, Event e, long t) {
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
        int row = taskStateRows.add(
                s.outSince,
                t,
                task,
                s.outState == StateModel.BLOCKED ? s.waitQueue : -1,
                s.outState,
                0,
                (epoch != s.outEpoch ? StateModel.EVENTS_LOST : 0),
                0);
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
        EventCursor c = reader.cursor();
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

    private int core(CompiledRule rule, Event e) {
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
    private int task(int core, CompiledRule rule, Event e) {
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

    private int function(CompiledRule c, Event e) {
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

    private void taskSwitch(int core, CompiledRule c, Event e, long t) {
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
            Event.Field pf = c.process;
            if (pf != null && ps.process < 0 && e.has(pf)) {
                // the event's process context is the task's that was running: the one leaving
                ps.process = e.getLong(pf);
            }
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

    private int switchedOutState(CompiledRule c, Event e) {
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
            calls.add(
                    first,
                    t,
                    task,
                    func,
                    0,
                    0,
                    StateModel.START_UNKNOWN | (s.depth > 0 || epoch != 0 ? StateModel.EVENTS_LOST : 0),
                    total - s.baseChild);
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
        calls.add(
                start,
                t,
                task,
                (int) f[o + TaskState.FUNC],
                0,
                d,
                flags | (epoch != f[o + TaskState.EPOCH] ? StateModel.EVENTS_LOST : 0),
                total - f[o + TaskState.CHILD]);
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
    private int irqName(CompiledRule c, Event e, long number) {
        LongIntMap known = irqNames.get(c.irqClass);
        int id = known.get(number);
        if (id == LongIntMap.ABSENT) {
            String label = c.label;
            String name = c.constantIrqName != null
                    ? c.constantIrqName
                    : c.name != null && e.has(c.name)
                            ? e.getString(c.name)
                            : c.numberedNames != null && number >= 0 && number < c.numberedNames.length
                                    ? c.numberedNames[(int) number]
                                    : null;
            id = nameId(
                    name == null
                            ? (label != null ? label : "irq") + " " + number
                            : label != null ? label + ":" + name : name);
            known.put(number, id);
        }
        return id;
    }

    private void irqEntry(int core, CompiledRule c, Event e, long t) {
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
    private void irqExit(int core, CompiledRule c, Event e, long t) {
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
            irqs.add(
                    first,
                    t,
                    core,
                    c.irqClass >= 0 ? irqName(c, e, number) : nameId("irq " + number),
                    0,
                    0,
                    StateModel.START_UNKNOWN,
                    0);
            return;
        }
        while (cs.irqDepth - 1 > at) {
            closeIrq(core, cs, t, StateModel.END_UNKNOWN);
        }
        closeIrq(core, cs, t, 0);
    }

    private void closeIrq(int core, CoreState cs, long t, int flags) {
        int d = --cs.irqDepth;
        irqs.add(
                cs.irqStarts[d],
                t,
                core,
                cs.irqs[d],
                0,
                d,
                flags | (epoch != cs.irqEpochs[d] ? StateModel.EVENTS_LOST : 0),
                0);
    }

    /** The queue field's value, or −1 without one: read once per message event. */
    private static long queue(CompiledRule c, Event e) {
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

    private void send(int core, int task, CompiledRule c, Event e, long t) {
        TaskState ts = taskStates.get(task);
        message(0, t, core, task, ts.depth > 0 ? ts.func(ts.depth - 1) : -1, queue(c, e), e.getLong(c.id));
        ts.lastBlockedRow = -1;
    }

    private void receive(int core, int task, CompiledRule c, Event e, long t) {
        long queue = queue(c, e);
        TaskState s = taskStates.get(task);
        message(1, t, core, task, s.depth > 0 ? s.func(s.depth - 1) : -1, queue, e.getLong(c.id));
        if (s.lastBlockedRow >= 0 && queue >= 0) {
            // the first thing the task did once switched back in: it was blocked on this queue
            taskStateRows.subject(s.lastBlockedRow, (int) queue);
        }
        s.lastBlockedRow = -1;
    }

    /** What is still open at the end of the trace ends at its last event, marked; each task with its process. */
    private void finish() {
        for (int k = 0; k < taskStates.size(); k++) {
            long p = taskStates.get(k).process;
            StateModel.Task t = tasks.get(k);
            if (p >= 0 && p != t.process()) {
                tasks.set(k, new StateModel.Task(t.name(), t.trace(), t.id(), t.idle(), p));
            }
        }
        for (int core = 0; core < coreStates.size(); core++) {
            CoreState cs = coreStates.get(core);
            if (cs.task >= 0 && last > cs.since) {
                runs.add(
                        cs.since,
                        last,
                        core,
                        cs.task,
                        runState(cs.task),
                        0,
                        StateModel.END_UNKNOWN | (epoch != cs.epoch ? StateModel.EVENTS_LOST : 0),
                        0);
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
                taskStateRows.add(
                        s.outSince,
                        last,
                        task,
                        s.outState == StateModel.BLOCKED ? s.waitQueue : -1,
                        s.outState,
                        0,
                        StateModel.END_UNKNOWN | (epoch != s.outEpoch ? StateModel.EVENTS_LOST : 0),
                        0);
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
        for (int k = 0; k < n; k++) {
            windows[k] = new long[] {lossWindows.get(2 * k), lossWindows.get(2 * k + 1)};
        }
        Arrays.sort(windows, (a, b) -> Long.compare(a[0], b[0]));
        // merged into disjoint windows
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
            begins[k] = merged.get(k)[0];
            ends[k] = merged.get(k)[1];
        }
        for (IntervalTable t : List.of(runs, taskStateRows, calls, irqs)) {
            t.flagOverlapping(begins, ends, StateModel.EVENTS_LOST);
        }
    }
}
