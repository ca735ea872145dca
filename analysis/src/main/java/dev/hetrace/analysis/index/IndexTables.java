package dev.hetrace.analysis.index;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
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
 * the state model, the statistics, the synchronization report and one more read of every event.
 * The large tables (events, intervals, calls, messages) go in a chunk of vectors at a time
 * ({@link ChunkedRows}), twice as fast as DuckDB's row appender (BENCHMARKS.md, "Analysis
 * index"); the small ones through the appender.
 */
public final class IndexTables {
    /** The tables, in the order they are documented. */
    public static final List<String> NAMES = List.of("events", "intervals", "calls", "messages", "sync_pairs", "stats",
        "traces", "cores", "tasks");

    /** The tables; the ENUM types of names are made per index ({@link #create}). */
    static final String SCHEMA = """
        CREATE TABLE events (trace trace_name, stream BIGINT, time_ns BIGINT, name event_name, core core_name, fields JSON);
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

    /**
     * For the benchmark: creates the tables with the names of the input (its events' ENUM as the
     * index makes it), empty.
     */
    public static void createFor(DuckDBConnection c, StateBuilder.Input input, Mapping mapping, StateModel model)
            throws SQLException, IOException, MetadataException, StreamDecodingException {
        try (EventRows rows = new EventRows(input, mapping, model, n -> { })) {
            create(c, model.traceNames(), rows.eventNames, rows.coreNames(), List.of(), List.of());
        }
    }

    /** For the benchmark: the events' ingest alone, into the tables {@link #createFor} made; the rows appended. */
    public static long appendEvents(DuckDBConnection c, StateBuilder.Input input, Mapping mapping, StateModel model)
            throws Exception {
        try (EventRows rows = new EventRows(input, mapping, model, n -> { })) {
            rows.insertInto(c, "events");
            return rows.total;
        }
    }

    /** Creates the tables in {@code c} and fills them. {@code progress} is told the events indexed so far, now and then. */
    static void fill(DuckDBConnection c, StateBuilder.Input input, Mapping mapping, StateModel model, LongConsumer progress)
            throws Exception {
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
        long[] counts;
        try (EventRows rows = new EventRows(input, mapping, model, progress)) {
            create(c, model.traceNames(), rows.eventNames, rows.coreNames(), Arrays.asList(taskNames), Arrays.asList(functions));
            rows.insertInto(c, "events");
            counts = rows.counts;
            for (int i = 0; i < spans.length; i++) {
                spans[i] = new long[] {rows.first[i], rows.last[i]};
            }
        }
        new IntervalRows(model, taskNames, functions).insertInto(c, "intervals");
        new CallRows(model, taskNames, functions).insertInto(c, "calls");
        new MessageRows(model, taskNames).insertInto(c, "messages");
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
     * Every event of every trace, read once more, trace after trace in each one's time order
     * (the merge across traces is left to queries: {@code ORDER BY time_ns}). Per event: the
     * JSON of its fields written into a reused buffer (and copied out: the one allocation per
     * event), its name and core as bytes made once per event class and core.
     */
    private static final class EventRows extends ChunkedRows implements AutoCloseable {
        final StateBuilder.Input input;
        final LongConsumer progress;
        final CtfReader[] readers;
        final String[] coreFields;
        final String[] traceNames;
        final Set<String> eventNames = new LinkedHashSet<>();
        final Set<String> knownCores = new LinkedHashSet<>();
        final TextSink sink = new TextSink(null);
        final JsonText json = new JsonText(sink);
        final Map<EventPlan, byte[]> names = new IdentityHashMap<>();
        final Map<String, byte[]> cores = new HashMap<>();
        final long[] counts;
        final long[] first;
        final long[] last;
        long total;
        int at;
        // per trace, while it is read
        byte[] trace;
        byte[] core;
        long lastCpu;
        EventPlan lastPlan;
        byte[] name;

        EventRows(StateBuilder.Input input, Mapping given, StateModel model, LongConsumer progress)
                throws IOException, MetadataException, StreamDecodingException {
            super(List.of(new Column("trace", TEXT), new Column("stream", LONG), new Column("time_ns", LONG),
                new Column("name", TEXT), new Column("core", TEXT), new Column("fields", TEXT)));
            this.input = input;
            this.progress = progress;
            int n = input.traces().size();
            readers = new CtfReader[n];
            coreFields = new String[n];
            traceNames = model.traceNames().toArray(String[]::new);
            counts = new long[n];
            first = new long[n];
            last = new long[n];
            Arrays.fill(first, Long.MAX_VALUE);
            Arrays.fill(last, Long.MIN_VALUE);
            model.cores().forEach(c -> knownCores.add(c.name()));
            knownCores.addAll(model.traceNames());
            try {
                for (int i = 0; i < n; i++) {
                    readers[i] = CtfReader.open(List.of(input.traces().get(i)), w -> { });
                    Set<String> events = StateBuilder.eventNames(readers[i].traces());
                    eventNames.addAll(events);
                    Mapping m = given != null ? given.restrictedTo(events) : Mapping.detect(events);
                    coreFields[i] = m == null ? null : m.core();
                }
            } catch (IOException | MetadataException | StreamDecodingException | RuntimeException e) {
                close();
                throw e;
            }
            startTrace();
        }

        Set<String> coreNames() {
            return knownCores;
        }

        private void startTrace() {
            if (at < readers.length) {
                trace = utf8(traceNames[at]);
                core = trace;
                lastCpu = Long.MIN_VALUE;
                lastPlan = null;
            }
        }

        @Override
        int fill(DuckDBDataChunkWriter out, int capacity) throws Exception {
            DuckDBWritableVector stream = out.vector(1);
            DuckDBWritableVector time = out.vector(2);
            int row = 0;
            while (row < capacity && at < readers.length) {
                CtfReader r = readers[at];
                if (!r.next()) {
                    r.close();
                    readers[at] = null;
                    at++;
                    startTrace();
                    continue;
                }
                EventCursor cursor = r.cursor();
                EventPlan plan = cursor.decoder().event();
                if (plan != lastPlan) {
                    lastPlan = plan;
                    name = names.computeIfAbsent(plan, p -> utf8(p.cls.name() == null ? "" : p.cls.name()));
                }
                String coreField = coreFields[at];
                if (coreField != null) {
                    Event e = r.event();
                    long cpu = e.has(coreField) ? e.getLong(coreField) : -1;
                    if (cpu != lastCpu) {
                        lastCpu = cpu;
                        // named as the state model names its cores; one it does not know (no event of it mapped) is NULL
                        String c = traceNames[at] + (cpu < 0 ? "" : "/cpu" + cpu);
                        core = knownCores.contains(c) ? cores.computeIfAbsent(c, IndexTables::utf8) : null;
                    }
                }
                string(0, row, trace);
                stream.setLong(row, cursor.trace().streamId(cursor.stream()));
                if (cursor.hasTime()) {
                    long t = input.maps().get(at).apply(cursor.timeNanos());
                    first[at] = Math.min(first[at], t);
                    last[at] = Math.max(last[at], t);
                    time.setLong(row, t);
                } else {
                    time.setNull(row);
                }
                string(3, row, name);
                string(4, row, core);
                sink.clear();
                json.fields(cursor.decoder());
                string(5, row, Arrays.copyOf(sink.buffer(), sink.length()));
                counts[at]++;
                row++;
                if ((++total & 0xFFFF) == 0) {
                    progress.accept(total);
                }
            }
            return row;
        }

        @Override
        public void close() {
            for (int i = 0; i < readers.length; i++) {
                if (readers[i] != null) {
                    readers[i].close();
                    readers[i] = null;
                }
            }
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
            taskTraces = new byte[tasks.length][];
            for (int k = 0; k < tasks.length; k++) {
                taskTraces[k] = utf8(m.traceNames().get(m.tasks().get(k).trace()));
            }
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
            taskTraces = new byte[tasks.length][];
            for (int k = 0; k < tasks.length; k++) {
                taskTraces[k] = utf8(m.traceNames().get(m.tasks().get(k).trace()));
            }
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
