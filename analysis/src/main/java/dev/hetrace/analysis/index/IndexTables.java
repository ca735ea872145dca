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
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The index's tables (their schema is documented in docs/analysis.md, "SQL tables"), filled from
 * the state model, the statistics, the synchronization report and one more read of every event.
 * Every table is filled through DuckDB's appender, the fastest way in (see BENCHMARKS.md).
 */
public final class IndexTables {
    /** The tables, in the order they are documented. */
    public static final List<String> NAMES = List.of("events", "intervals", "calls", "messages", "sync_pairs", "stats",
        "traces", "cores", "tasks");

    static final String SCHEMA = """
        CREATE TABLE events (trace VARCHAR, stream BIGINT, time_ns BIGINT, name VARCHAR, core VARCHAR, fields JSON);
        CREATE TABLE intervals (kind VARCHAR, start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, trace VARCHAR,
            core VARCHAR, task VARCHAR, irq VARCHAR, state VARCHAR, queue BIGINT, depth INTEGER,
            start_unknown BOOLEAN, end_unknown BOOLEAN, events_lost BOOLEAN);
        CREATE TABLE calls (start_ns BIGINT, end_ns BIGINT, duration_ns BIGINT, self_ns BIGINT, trace VARCHAR,
            task VARCHAR, function VARCHAR, depth INTEGER, start_unknown BOOLEAN, end_unknown BOOLEAN, events_lost BOOLEAN);
        CREATE TABLE messages (queue BIGINT, id BIGINT, send_ns BIGINT, send_core VARCHAR, send_task VARCHAR,
            receive_ns BIGINT, receive_core VARCHAR, receive_task VARCHAR, latency_ns BIGINT,
            start_unknown BOOLEAN, end_unknown BOOLEAN);
        CREATE TABLE sync_pairs (reference VARCHAR, other VARCHAR, quality VARCHAR, to_other BIGINT, to_reference BIGINT,
            accuracy_ns BIGINT, slope DOUBLE, offset_ns DOUBLE);
        CREATE TABLE stats (context VARCHAR, name VARCHAR, total_ns BIGINT, percent DOUBLE, count BIGINT, min_ns BIGINT,
            max_ns BIGINT, avg_ns DOUBLE, interval_min_ns BIGINT, interval_max_ns BIGINT, interval_avg_ns DOUBLE, self_ns BIGINT);
        CREATE TABLE traces (trace VARCHAR, path VARCHAR, mapping VARCHAR, events BIGINT, first_ns BIGINT, last_ns BIGINT,
            reference BOOLEAN, sync_quality VARCHAR, sync_via VARCHAR, accuracy_ns BIGINT);
        CREATE TABLE cores (core VARCHAR, trace VARCHAR);
        CREATE TABLE tasks (task VARCHAR, trace VARCHAR, name VARCHAR, tid BIGINT, idle BOOLEAN);
        """;

    private IndexTables() {}

    /** Creates the tables in {@code c} and fills them. {@code progress} is told the events indexed so far, now and then. */
    static void fill(DuckDBConnection c, StateBuilder.Input input, Mapping mapping, StateModel model, LongConsumer progress)
            throws SQLException, IOException, MetadataException, StreamDecodingException {
        try (Statement s = c.createStatement()) {
            s.execute(SCHEMA);
        }
        boolean several = model.traceNames().size() > 1;
        String[] taskNames = new String[model.tasks().size()];
        for (int k = 0; k < taskNames.length; k++) {
            taskNames[k] = Statistics.taskName(model, k, several);
        }
        long[][] spans = new long[model.traceNames().size()][];
        long[] counts = new long[spans.length];
        try (DuckDBAppender a = c.createAppender("events")) {
            EventRows rows = new EventRows(a, progress);
            for (int i = 0; i < spans.length; i++) {
                counts[i] = rows.trace(input, i, mapping, model.traceNames().get(i));
                spans[i] = new long[] {rows.first, rows.last};
            }
        }
        intervals(c, model, taskNames);
        calls(c, model, taskNames);
        messages(c, model, taskNames);
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

    /**
     * Appends every event of trace {@code i}, read once more, in its own time order: the merge
     * across traces is left to queries ({@code ORDER BY time_ns}). Per event: the JSON of its
     * fields written into a reused buffer, its name and core as bytes made once per event class
     * and core.
     */
    private static final class EventRows {
        final DuckDBAppender a;
        final LongConsumer progress;
        final TextSink sink = new TextSink(null);
        final JsonText json = new JsonText(sink);
        final Map<EventPlan, byte[]> names = new IdentityHashMap<>();
        long total;
        long first;
        long last;

        EventRows(DuckDBAppender a, LongConsumer progress) {
            this.a = a;
            this.progress = progress;
        }

        long trace(StateBuilder.Input input, int i, Mapping given, String traceName)
                throws IOException, MetadataException, StreamDecodingException, SQLException {
            byte[] trace = traceName.getBytes(StandardCharsets.UTF_8);
            PiecewiseMap map = input.maps().get(i);
            first = Long.MAX_VALUE;
            last = Long.MIN_VALUE;
            long count = 0;
            try (CtfReader r = CtfReader.open(List.of(input.traces().get(i)), w -> { })) {
                Mapping m = given != null ? given.restrictedTo(StateBuilder.eventNames(r.traces()))
                    : Mapping.detect(StateBuilder.eventNames(r.traces()));
                String coreField = m == null ? null : m.core();
                // the core of an event: its trace, or a CPU of it (named as the state model names them)
                Map<Long, byte[]> cores = new HashMap<>();
                long lastCpu = Long.MIN_VALUE;
                byte[] core = trace;
                EventCursor cursor = r.cursor();
                Event e = r.event();
                EventPlan lastPlan = null;
                byte[] name = null;
                while (r.next()) {
                    EventPlan plan = cursor.decoder().event();
                    if (plan != lastPlan) {
                        lastPlan = plan;
                        name = names.computeIfAbsent(plan, p -> (p.cls.name() == null ? "" : p.cls.name())
                            .getBytes(StandardCharsets.UTF_8));
                    }
                    if (coreField != null) {
                        long cpu = e.has(coreField) ? e.getLong(coreField) : -1;
                        if (cpu != lastCpu) {
                            lastCpu = cpu;
                            core = cores.computeIfAbsent(cpu, k -> (traceName + (k < 0 ? "" : "/cpu" + k))
                                .getBytes(StandardCharsets.UTF_8));
                        }
                    }
                    a.beginRow().append(trace).append(cursor.trace().streamId(cursor.stream()));
                    if (cursor.hasTime()) {
                        long t = map.apply(cursor.timeNanos());
                        first = Math.min(first, t);
                        last = Math.max(last, t);
                        a.append(t);
                    } else {
                        a.appendNull();
                    }
                    sink.clear();
                    json.fields(cursor.decoder());
                    a.append(name).append(core).append(Arrays.copyOf(sink.buffer(), sink.length())).endRow();
                    count++;
                    if ((++total & 0xFFFF) == 0) {
                        progress.accept(total);
                    }
                }
            }
            return count;
        }
    }

    private static void intervals(DuckDBConnection c, StateModel m, String[] taskNames) throws SQLException {
        try (DuckDBAppender a = c.createAppender("intervals")) {
            IntervalTable runs = m.runs();
            for (int i = 0; i < runs.size(); i++) {
                StateModel.Core core = m.cores().get(runs.owner(i));
                interval(a, "run", runs, i).append(m.traceNames().get(core.trace())).append(core.name())
                    .append(taskNames[runs.subject(i)]).appendNull().append(StateModel.stateName(runs.state(i))).appendNull()
                    .append(runs.depth(i));
                flags(a, runs.flags(i), true).endRow();
            }
            IntervalTable states = m.taskStates();
            for (int i = 0; i < states.size(); i++) {
                int task = states.owner(i);
                interval(a, "task_state", states, i).append(m.traceNames().get(m.tasks().get(task).trace())).appendNull()
                    .append(taskNames[task]).appendNull().append(StateModel.stateName(states.state(i)));
                nullable(a, states.subject(i), states.subject(i) >= 0).append(states.depth(i));
                flags(a, states.flags(i), true).endRow();
            }
            IntervalTable irqs = m.irqs();
            for (int i = 0; i < irqs.size(); i++) {
                StateModel.Core core = m.cores().get(irqs.owner(i));
                interval(a, "irq", irqs, i).append(m.traceNames().get(core.trace())).append(core.name()).appendNull()
                    .append(m.name(irqs.subject(i))).appendNull().appendNull().append(irqs.depth(i));
                flags(a, irqs.flags(i), true).endRow();
            }
        }
    }

    private static DuckDBAppender interval(DuckDBAppender a, String kind, IntervalTable t, int i) throws SQLException {
        return a.beginRow().append(kind).append(t.start(i)).append(t.end(i)).append(t.duration(i));
    }

    private static DuckDBAppender flags(DuckDBAppender a, int flags, boolean lost) throws SQLException {
        a.append((flags & StateModel.START_UNKNOWN) != 0).append((flags & StateModel.END_UNKNOWN) != 0);
        return lost ? a.append((flags & StateModel.EVENTS_LOST) != 0) : a;
    }

    private static DuckDBAppender nullable(DuckDBAppender a, long v, boolean present) throws SQLException {
        return present ? a.append(v) : a.appendNull();
    }

    private static void calls(DuckDBConnection c, StateModel m, String[] taskNames) throws SQLException {
        try (DuckDBAppender a = c.createAppender("calls")) {
            IntervalTable calls = m.calls();
            String[] names = new String[0];
            for (int i = 0; i < calls.size(); i++) {
                int task = calls.owner(i);
                int f = calls.subject(i);
                if (f >= names.length) {
                    names = Arrays.copyOf(names, Math.max(f + 1, names.length * 2));
                }
                if (names[f] == null) {
                    names[f] = m.name(f);
                }
                a.beginRow().append(calls.start(i)).append(calls.end(i)).append(calls.duration(i)).append(calls.self(i))
                    .append(m.traceNames().get(m.tasks().get(task).trace())).append(taskNames[task]).append(names[f])
                    .append(calls.depth(i));
                flags(a, calls.flags(i), true).endRow();
            }
        }
    }

    private static void messages(DuckDBConnection c, StateModel m, String[] taskNames) throws SQLException {
        try (DuckDBAppender a = c.createAppender("messages")) {
            MessageTable t = m.messages();
            for (int i = 0; i < t.size(); i++) {
                boolean sent = t.sendCore(i) >= 0;
                boolean received = t.receiveCore(i) >= 0;
                a.beginRow();
                nullable(a, t.queue(i), t.queue(i) >= 0).append(t.id(i));
                nullable(a, t.sendTime(i), sent);
                name(a, sent ? m.cores().get(t.sendCore(i)).name() : null);
                name(a, sent ? taskNames[t.sendTask(i)] : null);
                nullable(a, t.receiveTime(i), received);
                name(a, received ? m.cores().get(t.receiveCore(i)).name() : null);
                name(a, received ? taskNames[t.receiveTask(i)] : null);
                nullable(a, t.receiveTime(i) - t.sendTime(i), sent && received);
                flags(a, t.flags(i), false).endRow();
            }
        }
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
                    a.append(p.result().transform().slope().doubleValue())
                        .append(p.result().transform().offsetNanos().doubleValue()).endRow();
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
