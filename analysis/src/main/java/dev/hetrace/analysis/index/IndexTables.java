package dev.hetrace.analysis.index;

import dev.hetrace.analysis.ClassCache;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.LongIntMap;
import dev.hetrace.analysis.LongRows;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.Parallel;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.sync.Synchronizer;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The index's tables (their schema is documented in docs/analysis.md, "SQL tables"), filled from
 * the state model, the statistics, the synchronization report and the events' narrow rows kept by
 * the state pass ({@link EventLog}). The large tables (events, intervals, calls, messages) are
 * Parquet files beside the DuckDB file ({@link ParquetFile}: storing them into DuckDB's own tables
 * cost several times the state pass, BENCHMARKS.md, "Analysis index"), read through views that
 * {@link #attach} makes; the small ones and the ENUM types of names are in the DuckDB file.
 */
public final class IndexTables {
    /** The tables, in the order they are documented. */
    public static final List<String> NAMES = List.of("events", "intervals", "calls", "messages", "wakeups", "sync_pairs",
        "sync_messages", "stats", "traces", "cores", "tasks");

    /** The tables kept as Parquet files, each {@code NAME.parquet} in the index's folder. */
    static final List<String> PARQUET = List.of("events", "intervals", "calls", "messages", "wakeups", "sync_messages");

    /** The small tables, in the DuckDB file; the ENUM types of names are made per index ({@link #create}). */
    static final String SCHEMA = """
        CREATE TABLE sync_pairs (reference VARCHAR, other VARCHAR, quality VARCHAR, to_other BIGINT, to_reference BIGINT,
            accuracy_ns BIGINT, slope DOUBLE, drift_ppm DOUBLE, pivot_ns BIGINT, pivot_ref_ns BIGINT);
        CREATE TABLE stats (context VARCHAR, name VARCHAR, total_ns BIGINT, percent DOUBLE, count BIGINT, min_ns BIGINT,
            max_ns BIGINT, avg_ns DOUBLE, interval_min_ns BIGINT, interval_max_ns BIGINT, interval_avg_ns DOUBLE, self_ns BIGINT);
        CREATE TABLE traces (trace VARCHAR, path VARCHAR, mapping VARCHAR, events BIGINT, first_ns BIGINT, last_ns BIGINT,
            reference BOOLEAN, sync_quality VARCHAR, sync_via VARCHAR, accuracy_ns BIGINT);
        CREATE TABLE cores (core VARCHAR, trace VARCHAR);
        CREATE TABLE tasks (task VARCHAR, trace VARCHAR, name VARCHAR, tid BIGINT, idle BOOLEAN);
        """;

    /**
     * The views over the Parquet files (but {@code events}: {@link EventFields}), their names as
     * the ENUMs of the index; durations and latencies are computed, not stored.
     */
    private static final Map<String, String> VIEWS = Map.of(
        "intervals", "kind::interval_kind AS kind, start_ns, end_ns, end_ns - start_ns AS duration_ns, trace::trace_name AS trace, "
            + "core::core_name AS core, task::task_name AS task, irq::function_name AS irq, state::state_name AS state, "
            + "queue, depth, start_unknown, end_unknown, events_lost",
        "calls", "start_ns, end_ns, end_ns - start_ns AS duration_ns, self_ns, trace::trace_name AS trace, task::task_name AS task, "
            + "function::function_name AS function, depth, start_unknown, end_unknown, events_lost",
        "messages", "queue, id, send_ns, send_core::core_name AS send_core, send_task::task_name AS send_task, receive_ns, "
            + "receive_core::core_name AS receive_core, receive_task::task_name AS receive_task, receive_ns - send_ns AS latency_ns, start_unknown, "
            + "end_unknown",
        "sync_messages", "rule, sender::trace_name AS sender, receiver::trace_name AS receiver, send_ns, receive_ns, "
            + "send_ref_ns, receive_ref_ns, receive_ref_ns - send_ref_ns AS latency_ns",
        "wakeups", "time_ns, task::task_name AS task, waker::task_name AS waker, core::core_name AS core, "
            + "irq::function_name AS irq");

    private static final List<String> KINDS = List.of("run", "task_state", "irq");
    private static final List<String> STATES = java.util.stream.IntStream.range(0, StateModel.STATES)
        .mapToObj(StateModel::stateName).toList();

    private IndexTables() {}

    /**
     * Creates the ENUM types and the (empty) small tables in {@code c}, names as ENUMs of the
     * values given: stored as small numbers, shown and compared as text.
     */
    static void create(DuckDBConnection c, Collection<String> traces, Collection<String> events, Collection<String> cores,
                       Collection<String> tasks, Collection<String> functions) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(enumType("trace_name", traces) + enumType("event_name", events) + enumType("core_name", cores)
                + enumType("task_name", tasks) + enumType("function_name", functions)
                + enumType("interval_kind", KINDS) + enumType("state_name", STATES) + SCHEMA);
        }
    }

    /**
     * Makes the large tables views of their Parquet files in {@code dir} on a connection to the
     * index's DuckDB file (temporary views: the folder may be moved), {@code events} with the
     * fields decoded from the traces at {@code paths} (the traces table's, in order).
     */
    static void attach(Connection c, Path dir, List<String> paths) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (var v : VIEWS.entrySet()) {
                s.execute("CREATE OR REPLACE TEMP VIEW " + v.getKey() + " AS SELECT " + v.getValue() + " FROM "
                    + parquet(dir, v.getKey()));
            }
        }
        EventFields.attach(c, parquet(dir, "events"), paths);
    }

    /** {@code read_parquet} of a table's file, for SQL. */
    static String parquet(Path dir, String table) {
        return "read_parquet('" + dir.resolve(table + ".parquet").toAbsolutePath().toString().replace("'", "''") + "')";
    }

    private static String enumType(String name, Collection<String> values) {
        if (values.isEmpty()) {
            // DuckDB fails to cast even NULL to an ENUM of no value: a column that is all NULL is text
            return "CREATE TYPE " + name + " AS VARCHAR;\n";
        }
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
        EventLog log = eventLog(StateBuilder.traceNames(input.traces()), n -> { });
        StateModel m = StateBuilder.build(input, StateBuilder.Options.of(w -> { }).withMapping(mapping).withListener(log));
        return new StateWithEvents(m, log);
    }

    /** For the benchmark: the events' Parquet file alone, from a log {@link #stateWithEvents} made. */
    public static long writeEvents(Path file, StateWithEvents made) throws Exception {
        EventLog l = made.events();
        List<String> cores = coreNames(made.model());
        return ParquetFile.write(file, l.columns(cores), l.rows(cores), "events", l.total(), n -> { });
    }

    /** For the benchmark: the intervals', calls' and messages' Parquet files alone, into {@code dir}, one after the other. */
    public static void writeModelTables(Path dir, StateModel model) throws Exception {
        Parallel.run(modelTables(dir, model, taskNames(model), functionNames(model), n -> { }), 1, () -> { });
    }

    /** Writing the intervals', calls' and messages' Parquet files into {@code dir}, names as the ENUMs give them. */
    private static List<Parallel.Work> modelTables(Path dir, StateModel model, List<String> tasks, List<String> functions,
                                                   java.util.function.Consumer<String> notes) {
        return List.of(
            () -> ParquetFile.write(dir.resolve("intervals.parquet"), IntervalRows.columns(model, tasks, functions),
                new IntervalRows(model), "intervals",
                (long) model.runs().size() + model.taskStates().size() + model.irqs().size(), notes),
            () -> ParquetFile.write(dir.resolve("calls.parquet"), CallRows.columns(model, tasks, functions),
                new CallRows(model), "calls", model.calls().size(), notes),
            () -> ParquetFile.write(dir.resolve("messages.parquet"), MessageRows.columns(model, tasks),
                new MessageRows(model), "messages", model.messages().size(), notes),
            () -> ParquetFile.write(dir.resolve("wakeups.parquet"), WakeupRows.columns(model, tasks, functions),
                new WakeupRows(model), "wake-ups", model.wakeups(), notes));
    }

    /** The tasks as the tables name them (with their trace when there are several). */
    private static List<String> taskNames(StateModel model) {
        String[] names = new String[model.tasks().size()];
        for (int k = 0; k < names.length; k++) {
            names[k] = Statistics.taskName(model, k, model.traceNames().size() > 1);
        }
        return Arrays.asList(names);
    }

    /** The function and interrupt names the intervals use (ids from 0 up). */
    private static List<String> functionNames(StateModel model) {
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
        return Arrays.asList(functions);
    }

    private static List<String> coreNames(StateModel model) {
        Set<String> known = new LinkedHashSet<>();
        model.cores().forEach(c -> known.add(c.name()));
        known.addAll(model.traceNames());
        return new ArrayList<>(known);
    }

    /**
     * Creates the tables: the small ones in {@code c}, the large ones as Parquet files in
     * {@code dir} (on up to {@code threads} threads at once, 0: as many as there are cores), the
     * events from the log the state pass filled.
     */
    static void fill(Path dir, DuckDBConnection c, StateBuilder.Input input, StateModel model, EventLog log,
                     java.util.function.Consumer<String> notes, int threads) throws Exception {
        List<String> tasks = taskNames(model);
        List<String> functionList = functionNames(model);
        List<String> cores = coreNames(model);
        create(c, model.traceNames(), log.eventNames, cores, tasks, functionList);
        long[][] spans = new long[model.traceNames().size()][];
        long[] counts = new long[spans.length];
        for (int i = 0; i < spans.length; i++) {
            counts[i] = log.count(i);
            spans[i] = log.span(i);
        }
        List<Parallel.Work> writes = new ArrayList<>();
        writes.add(() -> ParquetFile.write(dir.resolve("events.parquet"), log.columns(cores), log.rows(cores), "events",
            log.total(), notes));
        writes.addAll(modelTables(dir, model, tasks, functionList, notes));
        writes.add(() -> ParquetFile.write(dir.resolve("sync_messages.parquet"), SyncMessageRows.columns(input, model),
            new SyncMessageRows(input), "sync messages", input.sync() == null ? 0 : input.sync().matches().size(), notes));
        Parallel.run(writes, threads > 0 ? threads : Runtime.getRuntime().availableProcessors(), () -> { });
        sync(c, input, model, spans, counts);
        stats(c, model);
        try (DuckDBAppender a = c.createAppender("cores")) {
            for (StateModel.Core core : model.cores()) {
                a.beginRow().append(core.name()).append(model.traceNames().get(core.trace())).endRow();
            }
        }
        try (DuckDBAppender a = c.createAppender("tasks")) {
            for (int k = 0; k < tasks.size(); k++) {
                StateModel.Task t = model.tasks().get(k);
                a.beginRow().append(tasks.get(k)).append(model.traceNames().get(t.trace())).append(t.name());
                nullable(a, t.id(), t.id() >= 0);
                a.append(t.idle()).endRow();
            }
        }
    }

    /** Per task, its trace's number. */
    private static int[] taskTraces(StateModel m) {
        int[] out = new int[m.tasks().size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = m.tasks().get(k).trace();
        }
        return out;
    }

    /** Per core, its trace's number. */
    private static int[] coreTraces(StateModel m) {
        int[] out = new int[m.cores().size()];
        for (int k = 0; k < out.length; k++) {
            out[k] = m.cores().get(k).trace();
        }
        return out;
    }

    /** The model's cores' names, by core number. */
    private static List<String> modelCores(StateModel m) {
        List<String> out = new ArrayList<>();
        m.cores().forEach(c -> out.add(c.name()));
        return out;
    }

    /**
     * The narrow row of every event, taken from the state pass as it reads them (each trace's
     * in its own log, filled by the thread that reads the trace): small numbers only (the trace,
     * event name and core as their ENUM's ordinals, the event's position to decode it again),
     * kept in chunks of native memory (the positions per run of events in one packet, and per
     * event its distance from the one before) until the pass is over and the core names known.
     * The {@code events} view adds the names and the fields ({@link EventFields}).
     */
    public static final class EventLog implements StateBuilder.EventListener {
        /**
         * An event's row ({@link TraceLog}), one long: the time since the trace's last timed
         * event (32 bits), the name's id and the core's (16 bits each); {@link #OTHER} in the
         * time's place when the event is told in full in the trace's other rows (no time, a
         * difference or id that does not fit).
         */
        private static final long OTHER = 0xFFFFFFFFL;
        private static final int EXCEPTION_TIME = 0;
        private static final int EXCEPTION_IDS = 1;
        /** The fields of a run's row ({@link TraceLog}). */
        private static final int RUN_FIRST_FILE = 0;
        private static final int RUN_STREAM = 1;
        private static final int RUN_PACKET = 2;
        private static final int RUN_OFFSET = 3;
        /** The largest distance in bits from an event to the next in its run ({@link TraceLog#distances}); past it, a run ends. */
        private static final long MAX_DISTANCE = 0xFFFF;
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
            return logs[i] == null ? 0 : logs[i].rows.size();
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

        /**
         * One trace's rows, written by the one thread that reads the trace: per event its time,
         * name and core; its position (stream, stream file, packet, offset in the packet) kept
         * per run of events that follow each other in one packet, as they mostly do, and for the
         * events after a run's first their distance from the event before (2 bytes each, where
         * an offset would take 4 or 8).
         */
        final class TraceLog {
            final Event.Field coreField;
            final EventPosition.Tracker where;
            /** The name id of each event class met. */
            final ClassCache<Integer> classNames = new ClassCache<>(e -> nameId(e.name()));
            /** CPUs met (−1: none), numbered in order of appearance. */
            final LongIntMap coreIds = new LongIntMap();
            final List<Long> cpus = new ArrayList<>();
            /** Per event, its row ({@link #OTHER}); 8 bytes, where the whole time and ids took 16. */
            final LongRows rows = new LongRows(1);
            /**
             * The events told in full, in order ({@link #EXCEPTION_TIME}, {@link #EXCEPTION_IDS}):
             * the time (Long.MIN_VALUE: none), the name's id and the core's.
             */
            final LongRows others = new LongRows(2);
            /** The time of the last timed event, from which the next one's is told. */
            long previous;
            /**
             * Per run ({@link #RUN_FIRST_FILE}...): its first event and the stream file, the
             * stream's id, the packet's offset in bytes, the first event's offset in the packet
             * in bits.
             */
            final LongRows runs = new LongRows(4);
            /**
             * Per event, four to a long from the low bits up, its offset less the offset of the
             * event before it in its run, in bits (0 for a run's first): events of up to 8 KiB
             * follow each other in a run; a larger one begins a run. A long is written once its
             * four are known, the last by {@link #flushDistances}.
             */
            final LongRows distances = new LongRows(1);
            /** The distances of the events since the last long of {@code distances}, fewer than four. */
            long pendingDistances;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            /** The CPU of the last event, and its number; an event of a trace without a core field has CPU −1, number 0. */
            long lastCpu = Long.MIN_VALUE;
            int lastCore;
            /** The current run's stream file and packet, and the offset of its last event in the packet. */
            int runFile = -1;
            long runPacket = -1;
            long runLast;

            TraceLog(Event.Field coreField, EventPosition.Tracker where) {
                this.coreField = coreField;
                this.where = where;
                if (coreField == null) {
                    core(-1);
                }
            }

            void event(CtfReader reader, long t) {
                Event e = reader.event();
                EventCursor cursor = reader.cursor();
                int name = classNames.of(e);
                if (coreField != null) {
                    long cpu = e.has(coreField) ? e.getLong(coreField) : -1;
                    if (cpu != lastCpu) {
                        core(cpu);
                    }
                }
                boolean follows = where.update(cursor);
                long at = where.eventOffset();
                long distance = at - runLast;
                // a stream parked and resumed goes on in its packet: the same run
                if (distance > MAX_DISTANCE
                        || !follows && (distance <= 0 || where.streamFile() != runFile || where.packetOffset() != runPacket)) {
                    run(cursor.trace().streamId(cursor.stream()), at);
                    distance = 0;
                }
                runLast = at;
                long since = OTHER;
                long time = Long.MIN_VALUE;
                if (cursor.hasTime()) {
                    first = Math.min(first, t);
                    last = Math.max(last, t);
                    time = t;
                    since = t - previous;
                    previous = t;
                }
                int o = rows.append();
                int k = o & 3;
                pendingDistances = k == 0 ? distance : pendingDistances | distance << (k << 4);
                if (k == 3) {
                    int d = distances.append();
                    distances.lastChunk().setAtIndex(LongRows.L, d, pendingDistances);
                }
                if (since >= 0 && since < OTHER && (name | lastCore) < 0x10000) {
                    rows.lastChunk().setAtIndex(LongRows.L, o, since << 32 | (long) name << 16 | lastCore);
                } else {
                    rows.lastChunk().setAtIndex(LongRows.L, o, OTHER << 32);
                    int x = others.append();
                    MemorySegment c = others.lastChunk();
                    c.setAtIndex(LongRows.L, x + EXCEPTION_TIME, time);
                    c.setAtIndex(LongRows.L, x + EXCEPTION_IDS, LongRows.pair(name, lastCore));
                }
                if ((rows.size() & 0xFFFF) == 0) {
                    progress.accept(read.addAndGet(0x10000));
                }
            }

            /** The core of the events from here on is CPU {@code cpu} (−1: none). */
            private void core(long cpu) {
                lastCpu = cpu;
                int id = coreIds.get(cpu);
                if (id == LongIntMap.ABSENT) {
                    id = cpus.size();
                    coreIds.put(cpu, id);
                    cpus.add(cpu);
                }
                lastCore = id;
            }

            /** A run of events in one packet begins with this one, {@code at} bits into its packet. */
            private void run(long streamId, long at) {
                runFile = where.streamFile();
                runPacket = where.packetOffset();
                int o = runs.append();
                MemorySegment c = runs.lastChunk();
                c.setAtIndex(LongRows.L, o + RUN_FIRST_FILE, LongRows.pair(rows.size(), runFile));
                c.setAtIndex(LongRows.L, o + RUN_STREAM, streamId);
                c.setAtIndex(LongRows.L, o + RUN_PACKET, runPacket);
                c.setAtIndex(LongRows.L, o + RUN_OFFSET, at);
            }

            /** Writes the distances of the last events, fewer than four, once the pass is over. */
            void flushDistances() {
                if ((long) distances.size() * 4 < rows.size()) {
                    int d = distances.append();
                    distances.lastChunk().setAtIndex(LongRows.L, d, pendingDistances);
                }
            }

            /** The first event of run {@code r}, or the count of events past the last run. */
            int runFirst(int r) {
                return r < runs.size() ? LongRows.high(runs.get(r, RUN_FIRST_FILE)) : rows.size();
            }
        }

        /** The events' columns, the cores named as {@code coreNames} (the ENUM's values). */
        List<ParquetFile.Column> columns(List<String> coreNames) {
            return List.of(ParquetFile.Column.names("trace", false, Arrays.asList(traceNames)),
                ParquetFile.Column.longs("stream", false), ParquetFile.Column.longs("time_ns", true),
                ParquetFile.Column.names("name", false, new ArrayList<>(eventNames)),
                ParquetFile.Column.names("core", true, coreNames), ParquetFile.Column.ints("trace_index", false),
                ParquetFile.Column.ints("stream_file", false), ParquetFile.Column.longs("packet", false),
                ParquetFile.Column.longs("event_offset", false));
        }

        /** The rows, trace by trace, the cores numbered as {@code coreNames}: a core not in it is NULL. */
        ParquetFile.Rows rows(List<String> coreNames) {
            for (TraceLog l : logs) {
                if (l != null) {
                    l.flushDistances();
                }
            }
            Map<String, Integer> byName = new HashMap<>();
            for (String c : coreNames) {
                byName.putIfAbsent(c, byName.size());
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
            return new ParquetFile.Rows() {
                final long[] block = new long[1024];
                /** The distances of the events of {@code block}, four to a long. */
                final long[] distance = new long[block.length / 4 + 1];
                int trace;
                int next;
                int run;
                /** The current trace's next row told in full, and the time its next event's is told from. */
                int other;
                long previous;
                /** The offset of the event before {@code next} in its packet. */
                long offset;

                @Override
                public int fill(ParquetFile.Group out, int capacity) {
                    int row = 0;
                    while (row < capacity && trace < logs.length) {
                        TraceLog l = logs[trace];
                        if (l == null || next >= l.rows.size()) {
                            trace++;
                            next = 0;
                            run = 0;
                            other = 0;
                            previous = 0;
                            continue;
                        }
                        int from = row;
                        while (row < capacity && next < l.rows.size()) {
                            // rows within one run, read a block at a time
                            while (l.runFirst(run + 1) <= next) {
                                run++;
                            }
                            int n = l.rows.read(next, Math.min(capacity - row, l.runFirst(run + 1) - next), block);
                            positions(out, l, row, n);
                            events(out, l, core[trace], row, n);
                            row += n;
                            next += n;
                        }
                        Arrays.fill(out.ints[0], from, row, trace);
                        Arrays.fill(out.longs[5], from, row, trace);
                    }
                    return row;
                }

                // each step a method of its own: small loops, each quick for the JIT to compile

                /** Rows {@code row} on: the positions of the {@code n} events from {@code next} on, all in run {@code run}. */
                private void positions(ParquetFile.Group out, TraceLog l, int row, int n) {
                    long firstFile = l.runs.get(run, RUN_FIRST_FILE);
                    Arrays.fill(out.longs[1], row, row + n, l.runs.get(run, RUN_STREAM));
                    Arrays.fill(out.longs[7], row, row + n, l.runs.get(run, RUN_PACKET));
                    Arrays.fill(out.longs[6], row, row + n, LongRows.low(firstFile));
                    // each offset the one before plus its distance (0 for the run's first)
                    int d0 = next >>> 2;
                    l.distances.read(d0, ((next + n - 1) >>> 2) - d0 + 1, distance);
                    long at = next == LongRows.high(firstFile) ? l.runs.get(run, RUN_OFFSET) : offset;
                    long[] vOffset = out.longs[8];
                    for (int j = 0; j < n; j++) {
                        int e = next + j;
                        at += (distance[(e >>> 2) - d0] >>> ((e & 3) << 4)) & MAX_DISTANCE;
                        vOffset[row + j] = at;
                    }
                    offset = at;
                }

                /** Rows {@code row} on: the times, names and cores of the {@code n} events of {@code block}. */
                private void events(ParquetFile.Group out, TraceLog l, int[] cores, int row, int n) {
                    long[] vTime = out.longs[2];
                    int[] vName = out.ints[3];
                    int[] vCore = out.ints[4];
                    for (int j = 0; j < n; j++) {
                        int r = row + j;
                        long v = block[j];
                        long time;
                        int name;
                        int core;
                        if (v >>> 32 != OTHER) {
                            time = previous + (v >>> 32);
                            previous = time;
                            name = (int) (v >>> 16) & 0xFFFF;
                            core = (int) v & 0xFFFF;
                        } else {
                            time = l.others.get(other, EXCEPTION_TIME);
                            long ids = l.others.get(other, EXCEPTION_IDS);
                            other++;
                            name = LongRows.high(ids);
                            core = LongRows.low(ids);
                            if (time != Long.MIN_VALUE) {
                                previous = time;
                            }
                        }
                        if (time == Long.MIN_VALUE) {
                            out.setNull(2, r);
                        }
                        vTime[r] = time;
                        vName[r] = name;
                        int cr = cores[core];
                        if (cr < 0) {
                            out.setNull(4, r);
                        }
                        vCore[r] = cr;
                    }
                }
            };
        }
    }

    /** The runs, task states and interrupts, in that order. */
    private static final class IntervalRows implements ParquetFile.Rows {
        final IntervalTable[] tables;
        final int[] coreTrace;
        final int[] taskTrace;
        final IntervalTable.Block block = new IntervalTable.Block();
        final Part[] parts = {new Runs(), new TaskStates(), new Irqs()};
        int table;
        int i;

        IntervalRows(StateModel m) {
            tables = new IntervalTable[] {m.runs(), m.taskStates(), m.irqs()};
            coreTrace = coreTraces(m);
            taskTrace = taskTraces(m);
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks, List<String> functions) {
            return List.of(ParquetFile.Column.names("kind", false, KINDS), ParquetFile.Column.longs("start_ns", false),
                ParquetFile.Column.longs("end_ns", false),
                ParquetFile.Column.names("trace", false, m.traceNames()), ParquetFile.Column.names("core", true, modelCores(m)),
                ParquetFile.Column.names("task", true, tasks), ParquetFile.Column.names("irq", true, functions),
                ParquetFile.Column.names("state", true, STATES), ParquetFile.Column.longs("queue", true),
                ParquetFile.Column.ints("depth", false), ParquetFile.Column.bools("start_unknown"),
                ParquetFile.Column.bools("end_unknown"), ParquetFile.Column.bools("events_lost"));
        }

        @Override
        public int fill(ParquetFile.Group out, int capacity) {
            int row = 0;
            while (row < capacity && table < tables.length) {
                IntervalTable t = tables[table];
                if (i >= t.size()) {
                    table++;
                    i = 0;
                    continue;
                }
                int n = t.read(i, capacity - row, block);
                parts[table].block(out, row, n);
                row += n;
                i += n;
            }
            return row;
        }

        /**
         * One of the three tables' columns from the block, column by column (small loops, each
         * quick for the JIT to compile). Each table has a class of its own so that the JIT
         * compiles each one's loops once: one method for the three was compiled again at each
         * table it met.
         */
        private abstract class Part {
            abstract void block(ParquetFile.Group out, int row, int n);

            /** The kind, times, trace (of the owner, through {@code ownerTrace}), depth and flags. */
            final void common(ParquetFile.Group out, int row, int n, int[] ownerTrace) {
                Arrays.fill(out.ints[0], row, row + n, table);
                long[] start = out.longs[1];
                long[] end = out.longs[2];
                long[] depth = out.longs[9];
                for (int j = 0; j < n; j++) {
                    start[row + j] = block.start(j);
                    end[row + j] = block.end(j);
                    depth[row + j] = block.depth(j);
                }
                int[] trace = out.ints[3];
                for (int j = 0; j < n; j++) {
                    trace[row + j] = ownerTrace[block.owner(j)];
                }
                flags(out, 10, row, n, block);
            }
        }

        /** Per core, the task and its state. */
        private final class Runs extends Part {
            @Override
            void block(ParquetFile.Group out, int row, int n) {
                common(out, row, n, coreTrace);
                int[] core = out.ints[4];
                int[] task = out.ints[5];
                int[] state = out.ints[7];
                for (int j = 0; j < n; j++) {
                    core[row + j] = block.owner(j);
                    task[row + j] = block.subject(j);
                    state[row + j] = block.state(j);
                }
                out.setNulls(6, row, row + n);
                out.setNulls(8, row, row + n);
            }
        }

        /** Per task, its state and the queue it was blocked on. */
        private final class TaskStates extends Part {
            @Override
            void block(ParquetFile.Group out, int row, int n) {
                common(out, row, n, taskTrace);
                int[] task = out.ints[5];
                int[] state = out.ints[7];
                long[] queue = out.longs[8];
                for (int j = 0; j < n; j++) {
                    task[row + j] = block.owner(j);
                    state[row + j] = block.state(j);
                    int q = block.subject(j);
                    queue[row + j] = q;
                    if (q < 0) {
                        out.setNull(8, row + j);
                    }
                }
                out.setNulls(4, row, row + n);
                out.setNulls(6, row, row + n);
            }
        }

        /** Per core, the interrupt. */
        private final class Irqs extends Part {
            @Override
            void block(ParquetFile.Group out, int row, int n) {
                common(out, row, n, coreTrace);
                int[] core = out.ints[4];
                int[] irq = out.ints[6];
                for (int j = 0; j < n; j++) {
                    core[row + j] = block.owner(j);
                    irq[row + j] = block.subject(j);
                }
                out.setNulls(5, row, row + n);
                out.setNulls(7, row, row + n);
                out.setNulls(8, row, row + n);
            }
        }
    }

    /** A message's send or receive (time, core, task from {@code column} on): NULL when the side was never seen (core −1). */
    private static void side(ParquetFile.Group out, int column, int row, long time, int core, int task) {
        if (core >= 0) {
            out.setLong(column, row, time);
            out.setInt(column + 1, row, core);
            out.setInt(column + 2, row, task);
        } else {
            out.setNull(column, row);
            out.setNull(column + 1, row);
            out.setNull(column + 2, row);
        }
    }

    /** The three flags of rows 0 to n − 1 of {@code block} into rows {@code row} on of columns {@code column} on. */
    private static void flags(ParquetFile.Group out, int column, int row, int n, IntervalTable.Block block) {
        int[] startUnknown = out.ints[column];
        int[] endUnknown = out.ints[column + 1];
        int[] lost = out.ints[column + 2];
        for (int j = 0; j < n; j++) {
            int f = block.flags(j);
            startUnknown[row + j] = (f & StateModel.START_UNKNOWN) != 0 ? 1 : 0;
            endUnknown[row + j] = (f & StateModel.END_UNKNOWN) != 0 ? 1 : 0;
            lost[row + j] = (f & StateModel.EVENTS_LOST) != 0 ? 1 : 0;
        }
    }

    /** A message's two flags (no send seen, no receive seen) into columns {@code column} and the next. */
    private static void messageFlags(ParquetFile.Group out, int column, int row, int flags) {
        out.setBool(column, row, (flags & StateModel.START_UNKNOWN) != 0);
        out.setBool(column + 1, row, (flags & StateModel.END_UNKNOWN) != 0);
    }

    private static final class CallRows implements ParquetFile.Rows {
        final IntervalTable calls;
        final int[] taskTrace;
        final IntervalTable.Block block = new IntervalTable.Block();
        int i;

        CallRows(StateModel m) {
            calls = m.calls();
            taskTrace = taskTraces(m);
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks, List<String> functions) {
            return List.of(ParquetFile.Column.longs("start_ns", false), ParquetFile.Column.longs("end_ns", false),
                ParquetFile.Column.longs("self_ns", false),
                ParquetFile.Column.names("trace", false, m.traceNames()), ParquetFile.Column.names("task", false, tasks),
                ParquetFile.Column.names("function", false, functions), ParquetFile.Column.ints("depth", false),
                ParquetFile.Column.bools("start_unknown"), ParquetFile.Column.bools("end_unknown"),
                ParquetFile.Column.bools("events_lost"));
        }

        @Override
        public int fill(ParquetFile.Group out, int capacity) {
            int row = 0;
            while (row < capacity) {
                int n = calls.read(i, capacity - row, block);
                if (n == 0) {
                    break;
                }
                // column by column: small loops, each quick for the JIT to compile
                long[] start = out.longs[0];
                long[] end = out.longs[1];
                long[] self = out.longs[2];
                int[] trace = out.ints[3];
                int[] task = out.ints[4];
                int[] function = out.ints[5];
                long[] depth = out.longs[6];
                for (int j = 0; j < n; j++) {
                    start[row + j] = block.start(j);
                    end[row + j] = block.end(j);
                    self[row + j] = block.self(j);
                }
                for (int j = 0; j < n; j++) {
                    int owner = block.owner(j);
                    task[row + j] = owner;
                    trace[row + j] = taskTrace[owner];
                    function[row + j] = block.subject(j);
                    depth[row + j] = block.depth(j);
                }
                flags(out, 7, row, n, block);
                row += n;
                i += n;
            }
            return row;
        }
    }

    private static final class MessageRows implements ParquetFile.Rows {
        final MessageTable t;
        final MessageTable.Block block = new MessageTable.Block();
        int i;

        MessageRows(StateModel m) {
            t = m.messages();
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks) {
            List<String> cores = modelCores(m);
            return List.of(ParquetFile.Column.longs("queue", true), ParquetFile.Column.longs("id", false),
                ParquetFile.Column.longs("send_ns", true), ParquetFile.Column.names("send_core", true, cores),
                ParquetFile.Column.names("send_task", true, tasks), ParquetFile.Column.longs("receive_ns", true),
                ParquetFile.Column.names("receive_core", true, cores), ParquetFile.Column.names("receive_task", true, tasks),
                ParquetFile.Column.bools("start_unknown"),
                ParquetFile.Column.bools("end_unknown"));
        }

        @Override
        public int fill(ParquetFile.Group out, int capacity) {
            int row = 0;
            while (row < capacity) {
                int n = t.read(i, capacity - row, block);
                if (n == 0) {
                    break;
                }
                for (int j = 0; j < n; j++, row++) {
                    if (block.queue(j) >= 0) {
                        out.setLong(0, row, block.queue(j));
                    } else {
                        out.setNull(0, row);
                    }
                    out.setLong(1, row, block.id(j));
                    side(out, 2, row, block.sendTime(j), block.sendCore(j), block.sendTask(j));
                    side(out, 5, row, block.receiveTime(j), block.receiveCore(j), block.receiveTask(j));
                    messageFlags(out, 8, row, block.flags(j));
                }
                i += n;
            }
            return row;
        }
    }

    /** The wake-ups: the task made runnable, and the task or interrupt that woke it on which core. */
    private static final class WakeupRows implements ParquetFile.Rows {
        final StateModel m;
        int i;

        WakeupRows(StateModel m) {
            this.m = m;
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks, List<String> functions) {
            return List.of(ParquetFile.Column.longs("time_ns", false), ParquetFile.Column.names("task", false, tasks),
                ParquetFile.Column.names("waker", true, tasks), ParquetFile.Column.names("core", true, modelCores(m)),
                ParquetFile.Column.names("irq", true, functions));
        }

        @Override
        public int fill(ParquetFile.Group out, int capacity) {
            int n = Math.min(capacity, m.wakeups() - i);
            for (int row = 0; row < n; row++, i++) {
                out.setLong(0, row, m.wakeupTime(i));
                out.setInt(1, row, m.wakeupTask(i));
                nameOrNull(out, 2, row, m.wakerTask(i));
                nameOrNull(out, 3, row, m.wakerCore(i));
                nameOrNull(out, 4, row, m.wakerIrq(i));
            }
            return n;
        }

        private static void nameOrNull(ParquetFile.Group out, int column, int row, int id) {
            if (id >= 0) {
                out.setInt(column, row, id);
            } else {
                out.setNull(column, row);
            }
        }
    }

    /**
     * The messages the synchronization matched ({@link Synchronizer.Matches}): each side's time
     * on its own clock and on the reference clock (NULL for a trace left on its own clock).
     */
    private static final class SyncMessageRows implements ParquetFile.Rows {
        final Synchronizer.Matches matches;
        final dev.hetrace.sync.PiecewiseMap.Walker[] walkers;
        final boolean[] connected;
        int i;

        SyncMessageRows(StateBuilder.Input input) {
            Synchronizer.Report r = input.sync();
            matches = r == null ? null : r.matches();
            int n = input.traces().size();
            walkers = new dev.hetrace.sync.PiecewiseMap.Walker[n];
            connected = new boolean[n];
            for (int t = 0; t < n; t++) {
                walkers[t] = input.maps().get(t).walker();
                connected[t] = r == null || r.traces().get(t).connected();
            }
        }

        static List<ParquetFile.Column> columns(StateBuilder.Input input, StateModel m) {
            List<String> rules = new ArrayList<>();
            if (input.sync() != null) {
                input.sync().rules().forEach(s -> rules.add(s.rule().name()));
            }
            return List.of(ParquetFile.Column.names("rule", false, rules),
                ParquetFile.Column.names("sender", false, m.traceNames()),
                ParquetFile.Column.names("receiver", false, m.traceNames()), ParquetFile.Column.longs("send_ns", false),
                ParquetFile.Column.longs("receive_ns", false), ParquetFile.Column.longs("send_ref_ns", true),
                ParquetFile.Column.longs("receive_ref_ns", true));
        }

        @Override
        public int fill(ParquetFile.Group out, int capacity) {
            int n = matches == null ? 0 : Math.min(capacity, matches.size() - i);
            for (int row = 0; row < n; row++, i++) {
                int from = matches.from(i);
                int to = matches.to(i);
                long send = matches.send(i);
                long receive = matches.receive(i);
                out.setInt(0, row, matches.rule(i));
                out.setInt(1, row, from);
                out.setInt(2, row, to);
                out.setLong(3, row, send);
                out.setLong(4, row, receive);
                if (connected[from]) {
                    out.setLong(5, row, walkers[from].apply(send));
                } else {
                    out.setNull(5, row);
                }
                if (connected[to]) {
                    out.setLong(6, row, walkers[to].apply(receive));
                } else {
                    out.setNull(6, row);
                }
            }
            return n;
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
