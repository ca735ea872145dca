package dev.hetrace.analysis.index;

import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.Parallel;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.stream.IntStream;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The index's tables (their schema is documented in docs/analysis.md, "SQL tables"), filled from
 * the state model, the statistics, the synchronization report and the events' narrow rows kept by
 * the state pass ({@link EventLog}). The large tables (events, intervals, calls, messages) are
 * Parquet files beside the DuckDB file ({@link ParquetFile}: storing them into DuckDB's own tables
 * cost several times the state pass, BENCHMARKS.md, "Analysis index"), read through views that
 * {@link #attach} makes; the small ones and the ENUM types of names are in the DuckDB file.
 * Here: the schema, and the filling in order; the tables are written by {@link ParquetTables}
 * (the large ones from the model) and {@link DuckDbTables} (the small ones).
 */
public final class IndexTables {
    /** The tables, in the order they are documented. */
    public static final List<String> NAMES = List.of(
            "events",
            "intervals",
            "calls",
            "messages",
            "wakeups",
            "sync_pairs",
            "sync_messages",
            "stats",
            "traces",
            "cores",
            "tasks",
            MarkTable.NAME,
            CounterTable.NAME,
            "diagnosis_findings",
            "diagnosis_outliers",
            "diagnosis_preempted_by",
            "diagnosis_silent",
            "diagnosis_stuck");

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
        CREATE TABLE tasks (task VARCHAR, trace VARCHAR, name VARCHAR, tid BIGINT, idle BOOLEAN, pid BIGINT, process VARCHAR);
        """;

    /**
     * The views over the Parquet files (but {@code events}: {@link EventFields}), their names as
     * the ENUMs of the index; durations and latencies are computed, not stored.
     */
    private static final Map<String, String> VIEWS = Map.of(
            "intervals",
                    "kind::interval_kind AS kind, start_ns, end_ns, end_ns - start_ns AS duration_ns, trace::trace_name AS trace, "
                            + "core::core_name AS core, task::task_name AS task, irq::function_name AS irq, state::state_name AS state, "
                            + "queue, depth, start_unknown, end_unknown, events_lost",
            "calls",
                    "start_ns, end_ns, end_ns - start_ns AS duration_ns, self_ns, trace::trace_name AS trace, task::task_name AS task, "
                            + "function::function_name AS function, depth, start_unknown, end_unknown, events_lost",
            "messages",
                    "queue, id, send_ns, send_core::core_name AS send_core, send_task::task_name AS send_task, receive_ns, "
                            + "receive_core::core_name AS receive_core, receive_task::task_name AS receive_task, receive_ns - send_ns AS latency_ns, start_unknown, "
                            + "end_unknown",
            "sync_messages",
                    "rule, sender::trace_name AS sender, receiver::trace_name AS receiver, send_ns, receive_ns, "
                            + "send_ref_ns, receive_ref_ns, receive_ref_ns - send_ref_ns AS latency_ns",
            "wakeups",
                    "time_ns, task::task_name AS task, waker::task_name AS waker, core::core_name AS core, "
                            + "irq::function_name AS irq");

    static final List<String> KINDS = List.of("run", "task_state", "irq");
    static final List<String> STATES = IntStream.range(0, StateModel.STATES)
            .mapToObj(StateModel::stateName)
            .toList();

    private IndexTables() {}

    /**
     * Creates the ENUM types and the (empty) small tables in {@code c}, in one statement; names as ENUMs of the values given: stored as
     * small numbers, shown and compared as text.
     */
    static void create(
            DuckDBConnection c,
            Collection<String> traces,
            Collection<String> events,
            Collection<String> cores,
            Collection<String> tasks,
            Collection<String> functions)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(enumType("trace_name", traces)
                    + enumType("event_name", events)
                    + enumType("core_name", cores)
                    + enumType("task_name", tasks)
                    + enumType("function_name", functions)
                    + enumType("interval_kind", KINDS)
                    + enumType("state_name", STATES)
                    + SCHEMA);
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
        return "read_parquet('"
                + dir.resolve(table + ".parquet").toAbsolutePath().toString().replace("'", "''") + "')";
    }

    static String enumType(String name, Collection<String> values) {
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
        EventLog log = eventLog(StateBuilder.traceNames(input.traces()), n -> {});
        StateModel m = StateBuilder.build(
                input, StateBuilder.Options.of(w -> {}).withMapping(mapping).withListener(log));
        return new StateWithEvents(m, log);
    }

    /** For the benchmark: the events' Parquet file alone, from a log {@link #stateWithEvents} made. */
    public static long writeEvents(Path file, StateWithEvents made) throws Exception {
        EventLog l = made.events();
        List<String> cores = coreNames(made.model());
        return ParquetFile.write(file, l.columns(cores), l.rows(cores), "events", l.total(), n -> {});
    }

    /** For the benchmark: the intervals', calls' and messages' Parquet files alone, into {@code dir}, one after the other. */
    public static void writeModelTables(Path dir, StateModel model) throws Exception {
        Parallel.run(modelTables(dir, model, taskNames(model), functionNames(model), n -> {}), 1, () -> {});
    }

    /** Writing the intervals', calls' and messages' Parquet files into {@code dir}, names as the ENUMs give them. */
    private static List<Parallel.Work> modelTables(
            Path dir, StateModel model, List<String> tasks, List<String> functions, Consumer<String> notes) {
        return List.of(
                () -> ParquetFile.write(
                        dir.resolve("intervals.parquet"),
                        ParquetTables.IntervalRows.columns(model, tasks, functions),
                        new ParquetTables.IntervalRows(model),
                        "intervals",
                        (long) model.runs().size()
                                + model.taskStates().size()
                                + model.irqs().size(),
                        notes),
                () -> ParquetFile.write(
                        dir.resolve("calls.parquet"),
                        ParquetTables.CallRows.columns(model, tasks, functions),
                        new ParquetTables.CallRows(model),
                        "calls",
                        model.calls().size(),
                        notes),
                () -> ParquetFile.write(
                        dir.resolve("messages.parquet"),
                        ParquetTables.MessageRows.columns(model, tasks),
                        new ParquetTables.MessageRows(model),
                        "messages",
                        model.messages().size(),
                        notes),
                () -> ParquetFile.write(
                        dir.resolve("wakeups.parquet"),
                        ParquetTables.WakeupRows.columns(model, tasks, functions),
                        new ParquetTables.WakeupRows(model),
                        "wake-ups",
                        model.wakeups(),
                        notes));
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
    static void fill(
            Path dir,
            DuckDBConnection c,
            StateBuilder.Input input,
            StateModel model,
            EventLog log,
            Consumer<String> notes,
            int threads)
            throws Exception {
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
        writes.add(() -> ParquetFile.write(
                dir.resolve("events.parquet"), log.columns(cores), log.rows(cores), "events", log.total(), notes));
        writes.addAll(modelTables(dir, model, tasks, functionList, notes));
        writes.add(() -> ParquetFile.write(
                dir.resolve("sync_messages.parquet"),
                ParquetTables.SyncMessageRows.columns(input, model),
                new ParquetTables.SyncMessageRows(input),
                "sync messages",
                input.sync() == null ? 0 : input.sync().matches().size(),
                notes));
        Parallel.run(writes, threads > 0 ? threads : Runtime.getRuntime().availableProcessors(), () -> {});
        DuckDbTables.sync(c, input, model, spans, counts);
        DuckDbTables.stats(c, model);
        try (DuckDBAppender a = c.createAppender("cores")) {
            for (StateModel.Core core : model.cores()) {
                a.beginRow()
                        .append(core.name())
                        .append(model.traceNames().get(core.trace()))
                        .endRow();
            }
        }
        int[] leaders = model.processLeaders();
        try (DuckDBAppender a = c.createAppender("tasks")) {
            for (int k = 0; k < tasks.size(); k++) {
                StateModel.Task t = model.tasks().get(k);
                a.beginRow()
                        .append(tasks.get(k))
                        .append(model.traceNames().get(t.trace()))
                        .append(t.name());
                DuckDbTables.nullable(a, t.id(), t.id() >= 0);
                a.append(t.idle());
                DuckDbTables.nullable(a, t.process(), t.process() >= 0);
                if (leaders[k] >= 0) {
                    a.append(model.tasks().get(leaders[k]).name());
                } else {
                    a.appendNull();
                }
                a.endRow();
            }
        }
    }
}
