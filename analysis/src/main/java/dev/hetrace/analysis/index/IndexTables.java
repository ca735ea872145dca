package dev.hetrace.analysis.index;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.LongIntMap;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.sync.Synchronizer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDataChunkWriter;
import org.duckdb.DuckDBWritableVector;

/**
 * The index's tables (their schema is documented in docs/analysis.md, "SQL tables"), filled from
 * the state model, the statistics, the synchronization report and the events' narrow rows kept by
 * the state pass ({@link EventLog}). The large tables (events_raw, intervals, calls, messages)
 * go in a chunk of vectors at a time ({@link ChunkedRows}), twice as fast as DuckDB's row
 * appender (BENCHMARKS.md, "Analysis index"); the small ones through the appender.
 */
public final class IndexTables {
    /** The tables, in the order they are documented ({@code events}: the view {@link TraceIndex#connect()} makes). */
    public static final List<String> NAMES = List.of("events", "intervals", "calls", "messages", "sync_pairs", "stats",
        "traces", "cores", "tasks");

    /** The tables; the ENUM types of names are made per index ({@link #create}). */
    static final String SCHEMA = """
        CREATE TABLE events_raw (trace INTEGER, stream BIGINT, time_ns BIGINT, name INTEGER, core INTEGER,
            stream_file INTEGER, packet BIGINT, event_index INTEGER);
        CREATE TABLE intervals (kind interval_kind, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, trace trace_name,
            core core_name, task task_name, irq function_name, state state_name, queue BIGINT, depth INTEGER,
            start_unknown BOOLEAN, end_unknown BOOLEAN, events_lost BOOLEAN);
        CREATE TABLE calls (start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, self_ns BIGINT, trace trace_name,
            task task_name, function function_name, depth INTEGER, start_unknown BOOLEAN, end_unknown BOOLEAN,
            events_lost BOOLEAN);
        CREATE TABLE messages (queue BIGINT, id BIGINT, send_ns BIGINT, send_core core_name, send_task task_name,
            receive_ns BIGINT, receive_core core_name, receive_task task_name, latency_ns BIGINT,
            start_unknown BOOLEAN, end_unknown BOOLEAN);
        CREATE TABLE sync_pairs (reference VARCHAR, other VARCHAR, quality VARCHAR, to_other BIGINT, to_reference BIGINT,
            accuracy_ns BIGINT, slope DOUBLE, drift_ppm DOUBLE, pivot_ns BIGINT, pivot_ref_ns BIGINT);
        CREATE TABLE stats (context VARCHAR, name VARCHAR, total_ns BIGINT, percent DOUBLE, count BIGINT, min_ns BIGINT,
            max_ns BIGINT, avg_ns DOUBLE, interval_min_ns BIGINT, interval_max_ns BIGINT, interval_avg_ns DOUBLE, self_ns BIGINT);
        CREATE TABLE traces (trace VARCHAR, path VARCHAR, mapping VARCHAR, events BIGINT, first_ns BIGINT, last_ns BIGINT,
            reference BOOLEAN, sync_quality VARCHAR, sync_via VARCHAR, accuracy_ns BIGINT);
        CREATE TABLE cores (core VARCHAR, trace VARCHAR);
        CREATE TABLE tasks (task VARCHAR, trace VARCHAR, name VARCHAR, tid BIGINT, idle BOOLEAN);
        """;

    private static final DuckDBColumnType TEXT = DuckDBColumnType.VARCHAR;
    private static final DuckDBColumnType LONG = DuckDBColumnType.BIGINT;
    private static final DuckDBColumnType INT = DuckDBColumnType.INTEGER;
    private static final DuckDBColumnType BOOL = DuckDBColumnType.BOOLEAN;

    private IndexTables() {}

    /**
     * Creates the (empty) tables in {@code c}, names as ENUMs of the values given: stored as
     * small numbers, shown and compared as text.
     */
    static void create(DuckDBConnection c, Collection<String> traces, Collection<String> events, Collection<String> cores,
                       Collection<String> tasks, Collection<String> functions) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(enumType("trace_name", traces) + enumType("event_name", events) + enumType("core_name", cores)
                + enumType("task_name", tasks) + enumType("function_name", functions)
                + enumType("interval_kind", List.of("run", "task_state", "irq"))
                + enumType("state_name", List.of(StateModel.stateName(0), StateModel.stateName(1), StateModel.stateName(2),
                    StateModel.stateName(3), StateModel.stateName(4)))
                + SCHEMA);
        }
    }

    private static String enumType(String name, Collection<String> values) {
        StringBuilder sb = new StringBuilder("CREATE TYPE ").append(name).append(" AS ENUM (");
        String sep = "";
        for (String v : new LinkedHashSet<>(values)) {
            sb.append(sep).append('\'').append(v.replace("'", "''")).append('\'');
            sep = ", ";
        }
        return sb.append(");\n").toString();
    }

    /** The narrow events' log to give the state pass ({@link StateBuilder.EventListener}) while it builds {@code model}. */
    static EventLog eventLog(List<String> traceNames, LongConsumer progress) {
        return new EventLog(traceNames.size(), traceNames, progress);
    }

    /** A state model and the narrow rows of the events its pass read. */
    public record StateWithEvents(StateModel model, EventLog events) {}

    /** For the benchmark: the state model built with the events' log. */
    public static StateWithEvents stateWithEvents(StateBuilder.Input input, Mapping mapping) throws Exception {
        List<String> names = new ArrayList<>();
        for (var p : input.traces()) {
            names.add(p.toAbsolutePath().normalize().getFileName().toString());
        }
        EventLog log = eventLog(names, n -> { });
        StateModel m = StateBuilder.build(input, mapping, Long.MIN_VALUE, w -> { }, log);
        return new StateWithEvents(m, log);
    }

    /** For the benchmark: the narrow events table alone, from a log {@link #stateWithEvents} made, into a new database. */
    public static long insertEvents(DuckDBConnection c, StateWithEvents made) throws Exception {
        StateModel model = made.model();
        EventLog l = made.events();
        create(c, model.traceNames(), l.eventNames, coreNames(model), List.of(), List.of());
        l.rows(coreNames(model)).insertInto(c, "events_raw");
        return l.total();
    }

    private static List<String> coreNames(StateModel model) {
        Set<String> known = new LinkedHashSet<>();
        model.cores().forEach(c -> known.add(c.name()));
        known.addAll(model.traceNames());
        return new ArrayList<>(known);
    }

    /** Creates the tables in {@code c} and fills them, the events from the log the state pass filled. */
    static void fill(DuckDBConnection c, StateBuilder.Input input, StateModel model, EventLog log,
                     java.util.function.Consumer<String> notes) throws Exception {
        boolean several = model.traceNames().size() > 1;
        String[] taskNames = new String[model.tasks().size()];
        for (int k = 0; k < taskNames.length; k++) {
            taskNames[k] = Statistics.taskName(model, k, several);
        }
        // the function and interrupt names the intervals use (ids from 0 up)
        int named = 0;
        for (int i = 0; i < model.calls().size(); i++) {
            named = Math.max(named, model.calls().subject(i) + 1);
        }
        for (int i = 0; i < model.irqs().size(); i++) {
            named = Math.max(named, model.irqs().subject(i) + 1);
        }
        String[] functions = new String[named];
        for (int k = 0; k < functions.length; k++) {
            functions[k] = model.name(k);
        }
        long[][] spans = new long[model.traceNames().size()][];
        List<String> cores = coreNames(model);
        create(c, model.traceNames(), log.eventNames, cores, Arrays.asList(taskNames), Arrays.asList(functions));
        log.rows(cores).insertInto(c, "events_raw", "events", log.total(), notes);
        long[] counts = new long[spans.length];
        for (int i = 0; i < spans.length; i++) {
            counts[i] = log.count(i);
            spans[i] = log.span(i);
        }
        new IntervalRows(model, taskNames, functions).insertInto(c, "intervals", "intervals",
            (long) model.runs().size() + model.taskStates().size() + model.irqs().size(), notes);
        new CallRows(model, taskNames, functions).insertInto(c, "calls", "calls", model.calls().size(), notes);
        new MessageRows(model, taskNames).insertInto(c, "messages", "messages", model.messages().size(), notes);
        sync(c, input, model, spans, counts);
        stats(c, model);
        try (DuckDBAppender a = c.createAppender("cores")) {
            for (StateModel.Core core : model.cores()) {
                a.beginRow().append(core.name()).append(model.traceNames().get(core.trace())).endRow();
            }
        }
        try (DuckDBAppender a = c.createAppender("tasks")) {
            for (int k = 0; k < taskNames.length; k++) {
                StateModel.Task t = model.tasks().get(k);
                a.beginRow().append(taskNames[k]).append(model.traceNames().get(t.trace())).append(t.name());
                nullable(a, t.id(), t.id() >= 0);
                a.append(t.idle()).endRow();
            }
        }
    }

    /** Per task, its trace's name in UTF-8. */
    private static byte[][] taskTraces(StateModel m) {
        byte[][] out = new byte[m.tasks().size()][];
        for (int k = 0; k < out.length; k++) {
            out[k] = utf8(m.traceNames().get(m.tasks().get(k).trace()));
        }
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Interned UTF-8 bytes of names, so that a row's strings are references to arrays made once. */
    private static byte[][] utf8(String[] names) {
        byte[][] out = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            out[i] = utf8(names[i]);
        }
        return out;
    }

    /**
     * The narrow row of every event, taken from the state pass as it reads them (each trace's
     * in its own log, filled by the thread that reads the trace): small numbers only (the trace,
     * event name and core as their ENUM's ordinals, the event's position to decode it again),
     * kept in chunks of columns until the pass is over and the core names known. The
     * {@code events} view adds the names and the fields ({@link EventFields}).
     */
    public static final class EventLog implements StateBuilder.EventListener {
        private static final int CHUNK = 1 << 13;
        final String[] traceNames;
        /** The event names of every trace's metadata (filled before the pass), the ENUM's values. */
        final Set<String> eventNames = new LinkedHashSet<>();
        final Map<String, Integer> nameIds = new HashMap<>();
        final TraceLog[] logs;
        final LongConsumer progress;
        final java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();

        EventLog(int traces, List<String> traceNames, LongConsumer progress) {
            this.traceNames = traceNames.toArray(String[]::new);
            this.progress = progress;
            logs = new TraceLog[traces];
        }

        @Override
        public void opened(int i, CtfReader r, Mapping m) {
            for (String e : StateBuilder.eventNames(r.traces())) {
                if (eventNames.add(e)) {
                    nameIds.put(e, nameIds.size());
                }
            }
            logs[i] = new TraceLog(m.core() == null ? null : Event.field(m.core()), new EventPosition.Tracker(r.traces()));
        }

        @Override
        public void event(int trace, CtfReader reader, long t) {
            logs[trace].event(reader, t);
        }

        @Override
        public void retime(int trace, dev.hetrace.sync.PiecewiseMap map) {
            logs[trace].retime(map);
        }

        /** An event name's id: the metadata's names are known before the pass; another (a class without a name) is added. */
        synchronized int nameId(String name) {
            Integer id = nameIds.get(name);
            if (id == null) {
                id = nameIds.size();
                nameIds.put(name, id);
                eventNames.add(name);
            }
            return id;
        }

        /** Events of trace {@code i} read (once the pass is over). */
        long count(int i) {
            return logs[i] == null ? 0 : logs[i].count;
        }

        /** The first and last times of trace {@code i}'s timed events (MAX_VALUE, MIN_VALUE: none). */
        long[] span(int i) {
            return logs[i] == null ? new long[] {Long.MAX_VALUE, Long.MIN_VALUE} : new long[] {logs[i].first, logs[i].last};
        }

        /** Events of every trace read. */
        long total() {
            long n = 0;
            for (int i = 0; i < logs.length; i++) {
                n += count(i);
            }
            return n;
        }

        /** One trace's rows, written by the one thread that reads the trace. */
        final class TraceLog {
            final Event.Field coreField;
            final EventPosition.Tracker where;
            final Map<EventClass, Integer> classIds = new IdentityHashMap<>();
            /** CPUs met (−1: none), numbered in order of appearance. */
            final LongIntMap coreIds = new LongIntMap();
            final List<Long> cpus = new ArrayList<>();
            final List<long[]> times = new ArrayList<>();
            final List<long[]> streams = new ArrayList<>();
            final List<long[]> packets = new ArrayList<>();
            final List<int[]> ints = new ArrayList<>(); // per row: name, core, stream file, index
            long count;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            EventClass lastClass;
            int lastName;
            long lastCpu = Long.MIN_VALUE;
            int lastCore;
            long[] time;
            long[] stream;
            long[] packet;
            int[] row4;
            int at = CHUNK;

            /** The times to the reference clock (they were the trace's own). */
            void retime(dev.hetrace.sync.PiecewiseMap map) {
                dev.hetrace.sync.PiecewiseMap.Walker w = map.walker();
                long left = count;
                for (long[] chunk : times) {
                    int n = (int) Math.min(left, CHUNK);
                    for (int k = 0; k < n; k++) {
                        if (chunk[k] != Long.MIN_VALUE) {
                            chunk[k] = w.apply(chunk[k]);
                        }
                    }
                    left -= n;
                }
                if (first <= last) {
                    first = w.apply(first);
                    last = w.apply(last);
                }
            }

            TraceLog(Event.Field coreField, EventPosition.Tracker where) {
                this.coreField = coreField;
                this.where = where;
            }

            void event(CtfReader reader, long t) {
                if (at == CHUNK) {
                    time = new long[CHUNK];
                    stream = new long[CHUNK];
                    packet = new long[CHUNK];
                    row4 = new int[4 * CHUNK];
                    times.add(time);
                    streams.add(stream);
                    packets.add(packet);
                    ints.add(row4);
                    at = 0;
                }
                Event e = reader.event();
                EventCursor cursor = reader.cursor();
                EventClass cls = e.eventClass();
                if (cls != lastClass) {
                    lastClass = cls;
                    Integer id = classIds.get(cls);
                    if (id == null) {
                        id = nameId(cls.name() == null ? "" : cls.name());
                        classIds.put(cls, id);
                    }
                    lastName = id;
                }
                long cpu = coreField != null && e.has(coreField) ? e.getLong(coreField) : -1;
                if (cpu != lastCpu) {
                    lastCpu = cpu;
                    int id = coreIds.get(cpu);
                    if (id == LongIntMap.ABSENT) {
                        id = cpus.size();
                        coreIds.put(cpu, id);
                        cpus.add(cpu);
                    }
                    lastCore = id;
                }
                where.update(cursor);
                if (cursor.hasTime()) {
                    first = Math.min(first, t);
                    last = Math.max(last, t);
                    time[at] = t;
                } else {
                    time[at] = Long.MIN_VALUE;
                }
                stream[at] = cursor.trace().streamId(cursor.stream());
                packet[at] = where.packetOffset();
                int o = 4 * at;
                row4[o] = lastName;
                row4[o + 1] = lastCore;
                row4[o + 2] = where.streamFile();
                row4[o + 3] = where.index();
                at++;
                if ((++count & 0xFFFF) == 0) {
                    progress.accept(read.addAndGet(0x10000));
                }
            }
        }

        /** The rows, trace by trace, the cores numbered as {@code coreNames} (the ENUM's values): a core not in it is NULL. */
        ChunkedRows rows(List<String> coreNames) {
            Map<String, Integer> byName = new HashMap<>();
            for (String c : coreNames) {
                byName.putIfAbsent(c, byName.size());
            }
            Map<String, Integer> traceOrdinals = new HashMap<>();
            int[] traceOrdinal = new int[traceNames.length];
            for (int t = 0; t < traceNames.length; t++) {
                traceOrdinal[t] = traceOrdinals.computeIfAbsent(traceNames[t], x -> traceOrdinals.size());
            }
            int[][] core = new int[logs.length][];
            for (int t = 0; t < logs.length; t++) {
                List<Long> cpus = logs[t] == null ? List.of() : logs[t].cpus;
                core[t] = new int[cpus.size()];
                for (int k = 0; k < cpus.size(); k++) {
                    long cpu = cpus.get(k);
                    // named as the state model names its cores; one it does not know (no event of it mapped) is NULL
                    core[t][k] = byName.getOrDefault(traceNames[t] + (cpu < 0 ? "" : "/cpu" + cpu), -1);
                }
            }
            return new ChunkedRows(List.of(new ChunkedRows.Column("trace", INT), new ChunkedRows.Column("stream", LONG),
                    new ChunkedRows.Column("time_ns", LONG), new ChunkedRows.Column("name", INT), new ChunkedRows.Column("core", INT),
                    new ChunkedRows.Column("stream_file", INT), new ChunkedRows.Column("packet", LONG),
                    new ChunkedRows.Column("event_index", INT))) {
                int trace;
                long next;

                @Override
                int fill(DuckDBDataChunkWriter out, int capacity) {
                    DuckDBWritableVector vTrace = out.vector(0);
                    DuckDBWritableVector vStream = out.vector(1);
                    DuckDBWritableVector vTime = out.vector(2);
                    DuckDBWritableVector vName = out.vector(3);
                    DuckDBWritableVector vCore = out.vector(4);
                    DuckDBWritableVector vFile = out.vector(5);
                    DuckDBWritableVector vPacket = out.vector(6);
                    DuckDBWritableVector vIndex = out.vector(7);
                    int row = 0;
                    while (row < capacity && trace < logs.length) {
                        TraceLog l = logs[trace];
                        if (l == null || next >= l.count) {
                            trace++;
                            next = 0;
                            continue;
                        }
                        int[] cores = core[trace];
                        for (; row < capacity && next < l.count; row++, next++) {
                            int c = (int) (next / CHUNK);
                            int k = (int) (next % CHUNK);
                            long[] tm = l.times.get(c);
                            int[] r4 = l.ints.get(c);
                            int o = 4 * k;
                            vTrace.setInt(row, traceOrdinal[trace]);
                            vStream.setLong(row, l.streams.get(c)[k]);
                            if (tm[k] == Long.MIN_VALUE) {
                                vTime.setNull(row);
                            } else {
                                vTime.setLong(row, tm[k]);
                            }
                            vName.setInt(row, r4[o]);
                            int cr = cores[r4[o + 1]];
                            if (cr < 0) {
                                vCore.setNull(row);
                            } else {
                                vCore.setInt(row, cr);
                            }
                            vFile.setInt(row, r4[o + 2]);
                            vPacket.setLong(row, l.packets.get(c)[k]);
                            vIndex.setInt(row, r4[o + 3]);
                        }
                    }
                    return row;
                }
            };
        }
    }

    /** The runs, task states and interrupts, in that order. */
    private static final class IntervalRows extends ChunkedRows {
        private static final byte[][] KINDS = {utf8("run"), utf8("task_state"), utf8("irq")};
        private static final byte[][] STATES = utf8(new String[] {StateModel.stateName(0), StateModel.stateName(1),
            StateModel.stateName(2), StateModel.stateName(3), StateModel.stateName(4)});
        final StateModel m;
        final IntervalTable[] tables;
        final byte[][] tasks;
        final byte[][] functions;
        final byte[][] cores;
        final byte[][] coreTraces;
        final byte[][] taskTraces;
        int table;
        int i;

        IntervalRows(StateModel m, String[] taskNames, String[] functionNames) {
            super(List.of(new Column("kind", TEXT), new Column("start_ns", LONG), new Column("end_ns", LONG),
                new Column("duration_ns", LONG), new Column("trace", TEXT), new Column("core", TEXT), new Column("task", TEXT),
                new Column("irq", TEXT), new Column("state", TEXT), new Column("queue", LONG), new Column("depth", INT),
                new Column("start_unknown", BOOL), new Column("end_unknown", BOOL), new Column("events_lost", BOOL)));
            this.m = m;
            tables = new IntervalTable[] {m.runs(), m.taskStates(), m.irqs()};
            tasks = utf8(taskNames);
            functions = utf8(functionNames);
            cores = new byte[m.cores().size()][];
            coreTraces = new byte[cores.length][];
            for (int k = 0; k < cores.length; k++) {
                cores[k] = utf8(m.cores().get(k).name());
                coreTraces[k] = utf8(m.traceNames().get(m.cores().get(k).trace()));
            }
            taskTraces = taskTraces(m);
        }

        @Override
        int fill(DuckDBDataChunkWriter out, int capacity) {
            int row = 0;
            while (row < capacity && table < tables.length) {
                IntervalTable t = tables[table];
                if (i >= t.size()) {
                    table++;
                    i = 0;
                    continue;
                }
                string(0, row, KINDS[table]);
                out.vector(1).setLong(row, t.start(i));
                out.vector(2).setLong(row, t.end(i));
                out.vector(3).setLong(row, t.duration(i));
                int owner = t.owner(i);
                int subject = t.subject(i);
                switch (table) {
                    case 0 -> { // runs: per core, the task
                        string(4, row, coreTraces[owner]);
                        string(5, row, cores[owner]);
                        string(6, row, tasks[subject]);
                        string(7, row, null);
                        out.vector(9).setNull(row);
                    }
                    case 1 -> { // task states: per task, the queue it was blocked on
                        string(4, row, taskTraces[owner]);
                        string(5, row, null);
                        string(6, row, tasks[owner]);
                        string(7, row, null);
                        if (subject >= 0) {
                            out.vector(9).setLong(row, subject);
                        } else {
                            out.vector(9).setNull(row);
                        }
                    }
                    default -> { // interrupts: per core
                        string(4, row, coreTraces[owner]);
                        string(5, row, cores[owner]);
                        string(6, row, null);
                        string(7, row, functions[subject]);
                        out.vector(9).setNull(row);
                    }
                }
                string(8, row, table == 2 ? null : STATES[t.state(i)]);
                out.vector(10).setInt(row, t.depth(i));
                flags(out, 11, row, t.flags(i), true);
                i++;
                row++;
            }
            return row;
        }
    }

    private static void flags(DuckDBDataChunkWriter out, int column, int row, int flags, boolean lost) {
        out.vector(column).setBoolean(row, (flags & StateModel.START_UNKNOWN) != 0);
        out.vector(column + 1).setBoolean(row, (flags & StateModel.END_UNKNOWN) != 0);
        if (lost) {
            out.vector(column + 2).setBoolean(row, (flags & StateModel.EVENTS_LOST) != 0);
        }
    }

    private static final class CallRows extends ChunkedRows {
        final IntervalTable calls;
        final byte[][] tasks;
        final byte[][] functions;
        final byte[][] taskTraces;
        int i;

        CallRows(StateModel m, String[] taskNames, String[] functionNames) {
            super(List.of(new Column("start_ns", LONG), new Column("end_ns", LONG), new Column("duration_ns", LONG),
                new Column("self_ns", LONG), new Column("trace", TEXT), new Column("task", TEXT),
                new Column("function", TEXT), new Column("depth", INT), new Column("start_unknown", BOOL),
                new Column("end_unknown", BOOL), new Column("events_lost", BOOL)));
            calls = m.calls();
            tasks = utf8(taskNames);
            functions = utf8(functionNames);
            taskTraces = taskTraces(m);
        }

        @Override
        int fill(DuckDBDataChunkWriter out, int capacity) {
            int row = 0;
            for (; row < capacity && i < calls.size(); row++, i++) {
                out.vector(0).setLong(row, calls.start(i));
                out.vector(1).setLong(row, calls.end(i));
                out.vector(2).setLong(row, calls.duration(i));
                out.vector(3).setLong(row, calls.self(i));
                int task = calls.owner(i);
                string(4, row, taskTraces[task]);
                string(5, row, tasks[task]);
                string(6, row, functions[calls.subject(i)]);
                out.vector(7).setInt(row, calls.depth(i));
                flags(out, 8, row, calls.flags(i), true);
            }
            return row;
        }
    }

    private static final class MessageRows extends ChunkedRows {
        final MessageTable t;
        final byte[][] tasks;
        final byte[][] cores;
        int i;

        MessageRows(StateModel m, String[] taskNames) {
            super(List.of(new Column("queue", LONG), new Column("id", LONG), new Column("send_ns", LONG),
                new Column("send_core", TEXT), new Column("send_task", TEXT), new Column("receive_ns", LONG),
                new Column("receive_core", TEXT), new Column("receive_task", TEXT), new Column("latency_ns", LONG),
                new Column("start_unknown", BOOL), new Column("end_unknown", BOOL)));
            t = m.messages();
            tasks = utf8(taskNames);
            cores = new byte[m.cores().size()][];
            for (int k = 0; k < cores.length; k++) {
                cores[k] = utf8(m.cores().get(k).name());
            }
        }

        @Override
        int fill(DuckDBDataChunkWriter out, int capacity) {
            int row = 0;
            for (; row < capacity && i < t.size(); row++, i++) {
                boolean sent = t.sendCore(i) >= 0;
                boolean received = t.receiveCore(i) >= 0;
                if (t.queue(i) >= 0) {
                    out.vector(0).setLong(row, t.queue(i));
                } else {
                    out.vector(0).setNull(row);
                }
                out.vector(1).setLong(row, t.id(i));
                if (sent) {
                    out.vector(2).setLong(row, t.sendTime(i));
                } else {
                    out.vector(2).setNull(row);
                }
                string(3, row, sent ? cores[t.sendCore(i)] : null);
                string(4, row, sent ? tasks[t.sendTask(i)] : null);
                if (received) {
                    out.vector(5).setLong(row, t.receiveTime(i));
                } else {
                    out.vector(5).setNull(row);
                }
                string(6, row, received ? cores[t.receiveCore(i)] : null);
                string(7, row, received ? tasks[t.receiveTask(i)] : null);
                if (sent && received) {
                    out.vector(8).setLong(row, t.receiveTime(i) - t.sendTime(i));
                } else {
                    out.vector(8).setNull(row);
                }
                flags(out, 9, row, t.flags(i), false);
            }
            return row;
        }
    }

    private static DuckDBAppender nullable(DuckDBAppender a, long v, boolean present) throws SQLException {
        return present ? a.append(v) : a.appendNull();
    }

    private static void name(DuckDBAppender a, String s) throws SQLException {
        if (s == null) {
            a.appendNull();
        } else {
            a.append(s);
        }
    }

    private static void sync(DuckDBConnection c, StateBuilder.Input input, StateModel m, long[][] spans, long[] counts)
            throws SQLException {
        Synchronizer.Report r = input.sync();
        List<String> names = m.traceNames();
        try (DuckDBAppender a = c.createAppender("sync_pairs")) {
            if (r != null) {
                for (Synchronizer.PairSync p : r.pairs()) {
                    a.beginRow().append(names.get(p.reference())).append(names.get(p.other()))
                        .append(p.result().quality().label()).append(p.result().toOther()).append(p.result().toReference());
                    nullable(a, p.result().accuracyNanos().orElse(0L), p.result().accuracyNanos().isPresent());
                    // exact, unlike an offset at t = 0 in a double: t_ref = pivot_ref_ns + (t - pivot_ns) * slope
                    dev.hetrace.sync.ClockTransform t = p.result().transform();
                    a.append(1 + t.slopeMinusOne()).append(t.slopeMinusOne() * 1e6).append(t.pivot()).append(t.pivotRef())
                        .endRow();
                }
            }
        }
        try (DuckDBAppender a = c.createAppender("traces")) {
            for (int i = 0; i < names.size(); i++) {
                boolean timed = spans[i][0] <= spans[i][1];
                a.beginRow().append(names.get(i)).append(input.traces().get(i).toAbsolutePath().normalize().toString())
                    .append(m.mappingNames().get(i)).append(counts[i]);
                nullable(a, spans[i][0], timed);
                nullable(a, spans[i][1], timed);
                if (r == null) {
                    a.append(true).appendNull().appendNull().appendNull();
                } else {
                    Synchronizer.TraceSync t = r.traces().get(i);
                    a.append(i == r.reference()).append(t.quality().label());
                    name(a, t.connected() ? names.get(t.via()) : null);
                    nullable(a, t.accuracyNanos().orElse(0L), t.accuracyNanos().isPresent());
                }
                a.endRow();
            }
        }
    }

    private static void stats(DuckDBConnection c, StateModel m) throws SQLException {
        try (DuckDBAppender a = c.createAppender("stats")) {
            if (m.begin() > m.end()) {
                return; // no timed event: no range
            }
            for (Statistics.Row r : Statistics.of(m).rows()) {
                boolean intervals = r.count() > 1;
                a.beginRow().append(r.context().label).append(r.name()).append(r.totalNanos()).append(r.percent())
                    .append(r.count()).append(r.minNanos()).append(r.maxNanos()).append(r.avgNanos());
                nullable(a, r.minIntervalNanos(), intervals);
                nullable(a, r.maxIntervalNanos(), intervals);
                if (intervals) {
                    a.append(r.avgIntervalNanos());
                } else {
                    a.appendNull();
                }
                a.append(r.selfNanos()).endRow();
            }
        }
    }
}
