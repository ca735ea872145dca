package dev.hetrace.analysis.index;

import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.StoredModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The state model as the index keeps it, so that an analysis of a trace set with an index reads
 * the index, not the traces, and gets the model back equal to the one the store was written from,
 * value for value. The model's large tables are kept once, in the index's own files: its runs,
 * task states and interrupts are the rows of {@code intervals.parquet}, its calls those of
 * {@code calls.parquet}, which hold, besides the columns the views show, each row's owner and
 * subject as the model numbers them ({@link ParquetTables#OWNER}); the state, depth and flags
 * are those the views show, and only a call has self time (the state pass gives the others none,
 * and an interrupt or a call state 0). What those tables do not hold is in Parquet
 * files of its own ({@link #FILES}): the traces, cores, tasks, names and totals, the messages
 * and the point events (marks, wake-ups, forks), by number.
 */
public final class ModelStore {
    /** The model's files in an index's folder, each {@code NAME.parquet}. */
    static final List<String> FILES = List.of(
            "model_traces",
            "model_cores",
            "model_tasks",
            "model_names",
            "model_totals",
            "model_messages",
            "model_points",
            "model_counters",
            CounterTable.NAME);

    /** The point tables of {@code model_points}. */
    private static final int MARK = 0;

    private static final int WAKEUP = 1;
    private static final int FORK = 2;

    /** The model's interval table of each {@link IndexTables#KINDS kind} of the intervals file. */
    private static final int[] KIND_TABLES = {StoredModel.RUNS, StoredModel.TASK_STATES, StoredModel.IRQS};

    /** Between the parts of a trace's place in {@code model_traces}: a character no name holds. */
    private static final String PLACE_SEPARATOR = "\u001f";

    private static final String OWNER = ParquetTables.OWNER;
    private static final String SUBJECT = ParquetTables.SUBJECT;

    /** The lists of {@code model_names}. */
    private static final int FUNCTION = 0;

    private static final int EVENT = 1;

    private ModelStore() {}

    /** Writes {@code m} into the index folder {@code dir}. */
    static void write(Path dir, StateModel m, Consumer<String> notes) throws Exception {
        int traces = m.traceNames().size();
        Names traceNames = new Names(m.traceNames());
        Names mappings = new Names(m.mappingNames());
        List<String> placeList = new ArrayList<>();
        for (int t = 0; t < traces; t++) {
            placeList.add(String.join(PLACE_SEPARATOR, m.tracePlace(t)));
        }
        Names places = new Names(placeList);
        write(
                dir,
                "model_traces",
                "model's traces",
                traces,
                List.of(
                        traceNames.column("name"),
                        mappings.column("mapping"),
                        ParquetFile.Column.longs("first_ns", false),
                        ParquetFile.Column.longs("last_ns", false),
                        ParquetFile.Column.longs("longest_gap_ns", false),
                        ParquetFile.Column.bools("os_threads"),
                        places.column("place")),
                (g, from, n) -> {
                    for (int j = 0; j < n; j++) {
                        int t = from + j;
                        g.ints[0][j] = traceNames.index(t);
                        g.ints[1][j] = mappings.index(t);
                        g.longs[2][j] = m.traceBegin(t);
                        g.longs[3][j] = m.traceEnd(t);
                        g.longs[4][j] = m.traceLongestGap(t);
                        g.ints[5][j] = m.osThreads(t) ? 1 : 0;
                        g.ints[6][j] = places.index(t);
                    }
                },
                notes);
        Names cores = new Names(m.cores().stream().map(StateModel.Core::name).toList());
        write(
                dir,
                "model_cores",
                "model's cores",
                m.cores().size(),
                List.of(cores.column("name"), ParquetFile.Column.ints("trace", false)),
                (g, from, n) -> {
                    for (int j = 0; j < n; j++) {
                        g.ints[0][j] = cores.index(from + j);
                        g.longs[1][j] = m.cores().get(from + j).trace();
                    }
                },
                notes);
        Names tasks = new Names(m.tasks().stream().map(StateModel.Task::name).toList());
        write(
                dir,
                "model_tasks",
                "model's tasks",
                m.tasks().size(),
                List.of(
                        tasks.column("name"),
                        ParquetFile.Column.ints("trace", false),
                        ParquetFile.Column.longs("id", false),
                        ParquetFile.Column.bools("idle"),
                        ParquetFile.Column.longs("process", false)),
                (g, from, n) -> {
                    for (int j = 0; j < n; j++) {
                        StateModel.Task t = m.tasks().get(from + j);
                        g.ints[0][j] = tasks.index(from + j);
                        g.longs[1][j] = t.trace();
                        g.longs[2][j] = t.id();
                        g.ints[3][j] = t.idle() ? 1 : 0;
                        g.longs[4][j] = t.process();
                    }
                },
                notes);
        List<String> functions = StoredModel.names(m);
        List<String> events = StoredModel.eventNames(m);
        List<String> all = new ArrayList<>(functions);
        all.addAll(events);
        Names names = new Names(all);
        write(
                dir,
                "model_names",
                "model's names",
                all.size(),
                List.of(ParquetFile.Column.ints("list", false), names.column("name")),
                (g, from, n) -> {
                    for (int j = 0; j < n; j++) {
                        g.longs[0][j] = from + j < functions.size() ? FUNCTION : EVENT;
                        g.ints[1][j] = names.index(from + j);
                    }
                },
                notes);
        write(
                dir,
                "model_totals",
                "model's totals",
                1,
                List.of(
                        ParquetFile.Column.longs("begin_ns", false),
                        ParquetFile.Column.longs("end_ns", false),
                        ParquetFile.Column.longs("events", false),
                        ParquetFile.Column.longs("untimed", false),
                        ParquetFile.Column.longs("discarded", false)),
                (g, from, n) -> {
                    g.longs[0][0] = m.begin();
                    g.longs[1][0] = m.end();
                    g.longs[2][0] = m.events();
                    g.longs[3][0] = m.untimed();
                    g.longs[4][0] = m.discarded();
                },
                notes);
        ParquetFile.write(
                dir.resolve("model_messages.parquet"),
                List.of(
                        ParquetFile.Column.longs("send_ns", false),
                        ParquetFile.Column.ints("send_core", false),
                        ParquetFile.Column.ints("send_task", false),
                        ParquetFile.Column.ints("send_call", false),
                        ParquetFile.Column.longs("receive_ns", false),
                        ParquetFile.Column.ints("receive_core", false),
                        ParquetFile.Column.ints("receive_task", false),
                        ParquetFile.Column.ints("receive_call", false),
                        ParquetFile.Column.longs("queue", false),
                        ParquetFile.Column.longs("id", false),
                        ParquetFile.Column.ints("flags", false)),
                new MessageRows(m.messages()),
                "model's messages",
                m.messages().size(),
                notes);
        ParquetFile.write(
                dir.resolve("model_points.parquet"),
                List.of(
                        ParquetFile.Column.ints("kind", false),
                        ParquetFile.Column.longs("time_ns", false),
                        ParquetFile.Column.ints("a", false),
                        ParquetFile.Column.ints("b", false),
                        ParquetFile.Column.ints("c", false),
                        ParquetFile.Column.ints("d", false)),
                new PointRows(m),
                "model's point events",
                (long) m.marks() + m.wakeups() + m.forks(),
                notes);
        CounterTable.write(dir, m);
    }

    /** Rows {@code from} to {@code from + n − 1} of a small table into rows 0 on of {@code g}. */
    private interface Small {
        void fill(ParquetFile.Group g, int from, int n);
    }

    private static void write(
            Path dir,
            String table,
            String what,
            int rows,
            List<ParquetFile.Column> columns,
            Small fill,
            Consumer<String> notes)
            throws Exception {
        int[] next = {0};
        ParquetFile.write(
                dir.resolve(table + ".parquet"),
                columns,
                (g, capacity) -> {
                    int n = Math.min(capacity, rows - next[0]);
                    fill.fill(g, next[0], n);
                    next[0] += n;
                    return n;
                },
                what,
                rows,
                notes);
    }

    /** Strings as a NAME column stores them: each distinct one once, every row an index into them. */
    private static final class Names {
        final List<String> distinct = new ArrayList<>();
        final int[] index;

        Names(List<String> values) {
            Map<String, Integer> ids = new LinkedHashMap<>();
            index = new int[values.size()];
            for (int k = 0; k < index.length; k++) {
                index[k] = ids.computeIfAbsent(values.get(k), v -> {
                    distinct.add(v);
                    return distinct.size() - 1;
                });
            }
        }

        ParquetFile.Column column(String name) {
            return ParquetFile.Column.names(name, false, distinct);
        }

        int index(int row) {
            return index[row];
        }
    }

    private static final class MessageRows implements ParquetFile.Rows {
        final MessageTable t;
        int i;

        MessageRows(MessageTable t) {
            this.t = t;
        }

        @Override
        public int fill(ParquetFile.Group g, int capacity) {
            int n = Math.min(capacity, t.size() - i);
            for (int r = 0; r < n; r++, i++) {
                g.longs[0][r] = t.sendTime(i);
                g.longs[1][r] = t.sendCore(i);
                g.longs[2][r] = t.sendTask(i);
                g.longs[3][r] = t.sendCall(i);
                g.longs[4][r] = t.receiveTime(i);
                g.longs[5][r] = t.receiveCore(i);
                g.longs[6][r] = t.receiveTask(i);
                g.longs[7][r] = t.receiveCall(i);
                g.longs[8][r] = t.queue(i);
                g.longs[9][r] = t.id(i);
                g.longs[10][r] = t.flags(i);
            }
            return n;
        }
    }

    /** The marks, then the wake-ups, then the forks: kind, time and up to four ids. */
    private static final class PointRows implements ParquetFile.Rows {
        final StateModel m;
        int kind = MARK;
        int i;

        PointRows(StateModel m) {
            this.m = m;
        }

        @Override
        public int fill(ParquetFile.Group g, int capacity) {
            int row = 0;
            while (row < capacity && kind <= FORK) {
                int size = switch (kind) {
                    case MARK -> m.marks();
                    case WAKEUP -> m.wakeups();
                    default -> m.forks();
                };
                int n = Math.min(capacity - row, size - i);
                if (n <= 0) {
                    kind++;
                    i = 0;
                    continue;
                }
                java.util.Arrays.fill(g.longs[0], row, row + n, kind);
                for (int j = 0; j < n; j++, i++) {
                    int r = row + j;
                    switch (kind) {
                        case MARK -> {
                            g.longs[1][r] = m.markTime(i);
                            g.longs[2][r] = m.markCore(i);
                            g.longs[3][r] = StoredModel.markNameId(m, i);
                            g.longs[4][r] = 0;
                            g.longs[5][r] = 0;
                        }
                        case WAKEUP -> {
                            g.longs[1][r] = m.wakeupTime(i);
                            g.longs[2][r] = m.wakeupTask(i);
                            g.longs[3][r] = m.wakerTask(i);
                            g.longs[4][r] = m.wakerCore(i);
                            g.longs[5][r] = m.wakerIrq(i);
                        }
                        default -> {
                            g.longs[1][r] = m.forkTime(i);
                            g.longs[2][r] = m.forkTask(i);
                            g.longs[3][r] = m.forkParent(i);
                            g.longs[4][r] = 0;
                            g.longs[5][r] = 0;
                        }
                    }
                }
                row += n;
            }
            return row;
        }
    }

    /** Whether the index folder {@code dir} holds the model's files. */
    static boolean present(Path dir) {
        for (String f : FILES) {
            if (!Files.isRegularFile(dir.resolve(f + ".parquet"))) {
                return false;
            }
        }
        return true;
    }

    /** The state model kept in the index folder {@code dir}, as it was written. */
    public static StateModel read(Path dir) throws IOException {
        DuckDbLibrary.require();
        StoredModel out = new StoredModel();
        java.util.Properties streamed = new java.util.Properties();
        // rows handed over as DuckDB reads them, not all gathered first: the reading and the copying overlap
        streamed.setProperty("jdbc_stream_results", "true");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:", streamed);
                Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery(select(
                    dir, "model_traces", "name, mapping, first_ns, last_ns, longest_gap_ns, os_threads, place"))) {
                while (r.next()) {
                    out.trace(
                            r.getString(1), r.getString(2), r.getLong(3), r.getLong(4), r.getLong(5), r.getBoolean(6));
                    String place = r.getString(7);
                    out.place(place.isEmpty() ? List.of() : List.of(place.split(PLACE_SEPARATOR, -1)));
                }
            }
            try (ResultSet r = s.executeQuery(select(dir, "model_cores", "name, trace"))) {
                while (r.next()) {
                    out.core(r.getString(1), r.getInt(2));
                }
            }
            try (ResultSet r = s.executeQuery(select(dir, "model_tasks", "name, trace, id, idle, process"))) {
                while (r.next()) {
                    out.task(r.getString(1), r.getInt(2), r.getLong(3), r.getBoolean(4), r.getLong(5));
                }
            }
            try (ResultSet r = s.executeQuery(select(dir, "model_names", "list, name"))) {
                while (r.next()) {
                    if (r.getInt(1) == FUNCTION) {
                        out.name(r.getString(2));
                    } else {
                        out.eventName(r.getString(2));
                    }
                }
            }
            try (ResultSet r =
                    s.executeQuery(select(dir, "model_totals", "begin_ns, end_ns, events, untimed, discarded"))) {
                if (!r.next()) {
                    throw new IOException(dir.resolve("model_totals.parquet") + ": no row");
                }
                out.totals(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5));
            }
            // the interval tables from the index's own: runs, task states and interrupts from the intervals file,
            // calls from the calls file, owner and subject by the model's numbers (columns the views do not show);
            // owner and subject in one value, state, flags and depth in another, as the model packs them (a
            // negative owner or subject as well: multiplied, not shifted): fewer values to fetch one by one
            s.execute(IndexTables.enumType("interval_kind", IndexTables.KINDS)
                    + IndexTables.enumType("state_name", IndexTables.STATES));
            String who = OWNER + "::BIGINT * 4294967296 + (" + SUBJECT + "::BIGINT & 4294967295)";
            String flags = "(start_unknown::BIGINT + 2 * end_unknown::BIGINT + 4 * events_lost::BIGINT) * 4294967296";
            try (ResultSet r = s.executeQuery("SELECT enum_code(kind::interval_kind), start_ns, end_ns, " + who
                    + ", coalesce(enum_code(state::state_name), 0)::BIGINT * 1099511627776 + " + flags
                    + " + (depth::BIGINT & 4294967295) FROM " + IndexTables.parquet(dir, "intervals"))) {
                while (r.next()) {
                    long owner = r.getLong(4);
                    long packed = r.getLong(5);
                    // the runs, task states and interrupts have no self time: the calls alone do
                    out.interval(
                            KIND_TABLES[r.getInt(1)],
                            r.getLong(2),
                            r.getLong(3),
                            (int) (owner >>> 32),
                            (int) owner,
                            (int) (packed >> 40),
                            (int) packed,
                            (int) (packed >>> 32) & 0xFF,
                            0);
                }
            }
            // the calls have no state
            try (ResultSet r = s.executeQuery("SELECT start_ns, end_ns, " + who + ", " + flags
                    + " + (depth::BIGINT & 4294967295), self_ns FROM " + IndexTables.parquet(dir, "calls"))) {
                while (r.next()) {
                    long owner = r.getLong(3);
                    long packed = r.getLong(4);
                    out.interval(
                            StoredModel.CALLS,
                            r.getLong(1),
                            r.getLong(2),
                            (int) (owner >>> 32),
                            (int) owner,
                            0,
                            (int) packed,
                            (int) (packed >>> 32) & 0xFF,
                            r.getLong(5));
                }
            }
            try (ResultSet r = s.executeQuery(select(
                    dir,
                    "model_messages",
                    "send_ns, send_core, send_task, send_call, "
                            + "receive_ns, receive_core, receive_task, receive_call, queue, id, flags"))) {
                while (r.next()) {
                    out.message(
                            r.getLong(1),
                            r.getInt(2),
                            r.getInt(3),
                            r.getInt(4),
                            r.getLong(5),
                            r.getInt(6),
                            r.getInt(7),
                            r.getInt(8),
                            r.getLong(9),
                            r.getLong(10),
                            r.getInt(11));
                }
            }
            try (ResultSet r = s.executeQuery(select(dir, "model_points", "kind, time_ns, a, b, c, d"))) {
                while (r.next()) {
                    switch (r.getInt(1)) {
                        case MARK -> out.mark(r.getLong(2), r.getInt(3), r.getInt(4));
                        case WAKEUP -> out.wakeup(r.getLong(2), r.getInt(3), r.getInt(4), r.getInt(5), r.getInt(6));
                        case FORK -> out.fork(r.getLong(2), r.getInt(3), r.getInt(4));
                        default ->
                            throw new IOException(
                                    dir.resolve("model_points.parquet") + ": no point kind " + r.getInt(1));
                    }
                }
            }
            CounterTable.read(s, dir, out);
        } catch (SQLException e) {
            throw new IOException(dir + ": cannot read the state model: " + TraceIndex.firstLine(e.getMessage()), e);
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw new IOException(dir + ": the state model kept there is damaged: " + e.getMessage(), e);
        }
        return out.model();
    }

    /** The columns of a model file, in the order they were written. */
    private static String select(Path dir, String table, String columns) {
        return "SELECT " + columns + " FROM " + IndexTables.parquet(dir, table);
    }
}
