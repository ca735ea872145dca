package dev.hetrace.analysis.index;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The writers of the index's large tables from the state model and the synchronization: each
 * table's columns and its rows as {@link ParquetFile} takes them, a block of rows at a time.
 */
final class ParquetTables {
    /**
     * The columns of {@code intervals.parquet} and {@code calls.parquet} that the views do not
     * show: each row's owner and subject as the state model numbers them (a run's core and task,
     * a task state's task and queue, an interrupt's core and function, a call's task and
     * function), from which {@link ModelStore} reads the model's interval tables back.
     */
    static final String OWNER = "owner";

    static final String SUBJECT = "subject";

    private ParquetTables() {}

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

    /** The runs, task states and interrupts, in that order. */
    static final class IntervalRows implements ParquetFile.Rows {
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
            return List.of(
                    ParquetFile.Column.names("kind", false, IndexTables.KINDS),
                    ParquetFile.Column.longs("start_ns", false),
                    ParquetFile.Column.longs("end_ns", false),
                    ParquetFile.Column.names("trace", false, m.traceNames()),
                    ParquetFile.Column.names("core", true, modelCores(m)),
                    ParquetFile.Column.names("task", true, tasks),
                    ParquetFile.Column.names("irq", true, functions),
                    ParquetFile.Column.names("state", true, IndexTables.STATES),
                    ParquetFile.Column.longs("queue", true),
                    ParquetFile.Column.ints("depth", false),
                    ParquetFile.Column.bools("start_unknown"),
                    ParquetFile.Column.bools("end_unknown"),
                    ParquetFile.Column.bools("events_lost"),
                    ParquetFile.Column.ints(OWNER, false),
                    ParquetFile.Column.ints(SUBJECT, false));
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

            /** The kind, times, trace (of the owner, through {@code ownerTrace}), depth, flags, owner and subject. */
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
                long[] owner = out.longs[13];
                long[] subject = out.longs[14];
                for (int j = 0; j < n; j++) {
                    int o = block.owner(j);
                    trace[row + j] = ownerTrace[o];
                    owner[row + j] = o;
                    subject[row + j] = block.subject(j);
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

    static final class CallRows implements ParquetFile.Rows {
        final IntervalTable calls;
        final int[] taskTrace;
        final IntervalTable.Block block = new IntervalTable.Block();
        int i;

        CallRows(StateModel m) {
            calls = m.calls();
            taskTrace = taskTraces(m);
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks, List<String> functions) {
            return List.of(
                    ParquetFile.Column.longs("start_ns", false),
                    ParquetFile.Column.longs("end_ns", false),
                    ParquetFile.Column.longs("self_ns", false),
                    ParquetFile.Column.names("trace", false, m.traceNames()),
                    ParquetFile.Column.names("task", false, tasks),
                    ParquetFile.Column.names("function", false, functions),
                    ParquetFile.Column.ints("depth", false),
                    ParquetFile.Column.bools("start_unknown"),
                    ParquetFile.Column.bools("end_unknown"),
                    ParquetFile.Column.bools("events_lost"),
                    ParquetFile.Column.ints(OWNER, false),
                    ParquetFile.Column.ints(SUBJECT, false));
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
                long[] ownerId = out.longs[10];
                long[] subjectId = out.longs[11];
                for (int j = 0; j < n; j++) {
                    start[row + j] = block.start(j);
                    end[row + j] = block.end(j);
                    self[row + j] = block.self(j);
                }
                for (int j = 0; j < n; j++) {
                    int owner = block.owner(j);
                    int subject = block.subject(j);
                    task[row + j] = owner;
                    trace[row + j] = taskTrace[owner];
                    function[row + j] = subject;
                    depth[row + j] = block.depth(j);
                    ownerId[row + j] = owner;
                    subjectId[row + j] = subject;
                }
                flags(out, 7, row, n, block);
                row += n;
                i += n;
            }
            return row;
        }
    }

    static final class MessageRows implements ParquetFile.Rows {
        final MessageTable t;
        final MessageTable.Block block = new MessageTable.Block();
        int i;

        MessageRows(StateModel m) {
            t = m.messages();
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks) {
            List<String> cores = modelCores(m);
            return List.of(
                    ParquetFile.Column.longs("queue", true),
                    ParquetFile.Column.longs("id", false),
                    ParquetFile.Column.longs("send_ns", true),
                    ParquetFile.Column.names("send_core", true, cores),
                    ParquetFile.Column.names("send_task", true, tasks),
                    ParquetFile.Column.longs("receive_ns", true),
                    ParquetFile.Column.names("receive_core", true, cores),
                    ParquetFile.Column.names("receive_task", true, tasks),
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
    static final class WakeupRows implements ParquetFile.Rows {
        final StateModel m;
        int i;

        WakeupRows(StateModel m) {
            this.m = m;
        }

        static List<ParquetFile.Column> columns(StateModel m, List<String> tasks, List<String> functions) {
            return List.of(
                    ParquetFile.Column.longs("time_ns", false),
                    ParquetFile.Column.names("task", false, tasks),
                    ParquetFile.Column.names("waker", true, tasks),
                    ParquetFile.Column.names("core", true, modelCores(m)),
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
    static final class SyncMessageRows implements ParquetFile.Rows {
        final Synchronizer.Matches matches;
        final PiecewiseMap.Walker[] walkers;
        final boolean[] connected;
        int i;

        SyncMessageRows(StateBuilder.Input input) {
            Synchronizer.Report r = input.sync();
            matches = r == null ? null : r.matches();
            int n = input.traces().size();
            walkers = new PiecewiseMap.Walker[n];
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
            return List.of(
                    ParquetFile.Column.names("rule", false, rules),
                    ParquetFile.Column.names("sender", false, m.traceNames()),
                    ParquetFile.Column.names("receiver", false, m.traceNames()),
                    ParquetFile.Column.longs("send_ns", false),
                    ParquetFile.Column.longs("receive_ns", false),
                    ParquetFile.Column.longs("send_ref_ns", true),
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
}
