package dev.hetrace.view;

import static dev.hetrace.view.PerfettoProto.*;

import com.google.protobuf.CodedOutputStream;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.StoredModel;
import dev.hetrace.sync.PiecewiseMap;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The synchronized timeline as a Perfetto trace (its protobuf format, which Perfetto UI and
 * trace processor read natively). Per board, a track; under it a track per trace; under that a
 * track per core (the tasks it ran) with its interrupts, its CPU load and, where the tracer lost
 * events, a counter saying when; a track per task (its calls, its sends and receives) with its
 * states under it; a counter track per counter series the traces carry, under its core, task or
 * trace. Messages are flows from the send to the receive, the sync handshake's too.
 *
 * <p>Written as it goes, packet after packet, straight to the output: names are interned once
 * per board (one packet sequence per board), and an event costs a few bytes and no allocation.
 * A slice's begin and end are written in two passes over each table, the ends in the tables'
 * order then the begins in reverse, so that among events of one track at the same time the
 * file has the ends first, inner before outer, then the begins, outer before inner: Perfetto
 * sorts the events by time, in file order where times are equal, and so nests them as hetrace
 * did. An interval of no duration is an instant.
 *
 * <p>Times are ns on the reference clock; with own clocks, each trace's on its own clock (a
 * clock id of the board's sequence), with clock snapshots close enough together that Perfetto's
 * conversion (from the last snapshot before a time, without interpolating) stays within the
 * accuracy of hetrace's synchronization.
 */
public final class PerfettoTrace {
    /**
     * A trace's clock: its map to the reference clock (null when not known: then no own clock),
     * hetrace's accuracy bound on it (−1: none known) and whether it is the reference itself.
     */
    public record Clock(PiecewiseMap toReference, long accuracyNanos, boolean reference) {}

    /** The sync handshake's messages: sender and receiver traces, each side's time on its own clock and on the reference clock. */
    public static final class SyncMessages {
        private static final int W = 6;
        private long[] rows = new long[W * 16];
        private int size;

        public void add(int sender, int receiver, long sendOwn, long receiveOwn, long sendRef, long receiveRef) {
            if (W * (size + 1) > rows.length) {
                rows = Arrays.copyOf(rows, rows.length * 2);
            }
            int o = W * size++;
            rows[o] = sender;
            rows[o + 1] = receiver;
            rows[o + 2] = sendOwn;
            rows[o + 3] = receiveOwn;
            rows[o + 4] = sendRef;
            rows[o + 5] = receiveRef;
        }

        public int size() {
            return size;
        }

        int sender(int i) {
            return (int) rows[W * i];
        }

        int receiver(int i) {
            return (int) rows[W * i + 1];
        }

        long sendOwn(int i) {
            return rows[W * i + 2];
        }

        long receiveOwn(int i) {
            return rows[W * i + 3];
        }

        long sendRef(int i) {
            return rows[W * i + 4];
        }

        long receiveRef(int i) {
            return rows[W * i + 5];
        }
    }

    /**
     * A board (a trace set): its name, its state model, its sync handshake's messages and its
     * traces' clocks (by trace, as the model numbers them; may be empty when nothing is known).
     */
    public record Board(String name, StateModel model, SyncMessages sync, List<Clock> clocks) {}

    /** What was written: bytes, packets, and of the events, slices, instants, flows, counter values, clock snapshots. */
    public record Summary(
            long bytes, long packets, long slices, long instants, long flows, long counterValues, long snapshots) {}

    /** The finest spacing of clock snapshots: past that, the rounding to ns is the larger error. */
    static final long MIN_SNAPSHOT_SPACING = 1_000;

    /** The conversion error aimed at for a trace whose accuracy hetrace does not bound. */
    static final long UNBOUNDED_TARGET = 1_000;

    /** CPU load is the busy share of windows of about this fraction of the board's span. */
    static final int LOAD_WINDOWS = 1000;

    // track kinds, in a track's uuid
    static final int ROOT = 1;
    static final int TRACE = 2;
    static final int CORE = 3;
    static final int IRQ = 4;
    static final int TASK = 5;
    static final int STATE = 6;
    static final int LOAD = 7;
    static final int LOST = 8;
    static final int EVENTS = 9;
    static final int SYNC = 10;
    static final int SERIES = 11;

    // debug annotation names, by iid
    static final List<String> ANNOTATIONS =
            List.of("start_unknown", "end_unknown", "events_lost", "queue", "message_id");
    private static final int A_START_UNKNOWN = 1;
    private static final int A_QUEUE = 4;
    private static final int A_MESSAGE_ID = 5;

    // names of the events that are not the model's, after its names
    static final List<String> FIXED =
            List.of("send", "receive", "send (never received)", "receive (send not seen)", "sync send", "sync receive");
    private static final int F_SEND = 0;
    private static final int F_RECEIVE = 1;
    private static final int F_SEND_ONLY = 2;
    private static final int F_RECEIVE_ONLY = 3;
    private static final int F_SYNC_SEND = 4;
    private static final int F_SYNC_RECEIVE = 5;

    private PerfettoTrace() {}

    /** A track's uuid: board, kind and index (a trace, core or task of the board). */
    static long uuid(int board, int kind, int index) {
        return ((long) (board + 1) << 48) | ((long) kind << 40) | (index & 0xFF_FFFF_FFFFL);
    }

    /**
     * Writes the boards to {@code out} (not closed), each trace on the reference clock of its
     * board, or with {@code ownClocks} on its own (each board's clocks must then have a map per trace).
     */
    public static Summary write(List<Board> boards, boolean ownClocks, OutputStream out) throws IOException {
        // protobuf counts the bytes it wrote in an int: a file past 2 GiB is counted here
        long[] bytes = {0};
        OutputStream counted = new FilterOutputStream(out) {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
                bytes[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                bytes[0] += len;
            }
        };
        Writer w = new Writer(counted, ownClocks);
        long offset = 0;
        for (Board b : boards) {
            offset = Math.max(offset, -w.earliest(b));
        }
        w.offset = offset;
        long flowBase = 0;
        for (int i = 0; i < boards.size(); i++) {
            flowBase = w.board(i, boards.get(i), flowBase);
        }
        w.out.flush();
        return new Summary(bytes[0], w.packets, w.slices, w.instants, w.flows, w.counters, w.snapshots);
    }

    private static final class Writer {
        final CodedOutputStream out;
        final boolean ownClocks;
        long offset;
        long packets;
        long slices;
        long instants;
        long flows;
        long counters;
        long snapshots;

        // the board being written
        int board;
        int seq;
        StateModel m;
        int[] coreTrace;
        int[] taskTrace;
        boolean[] idleTask;
        PiecewiseMap.Walker[] toOwn;
        int tasksBase;
        int statesBase;
        int runningBase;
        int marksBase;
        int fixedBase;
        /** The interned name of each name's position (functions from 1, then tasks, states...): equal names share one. */
        int[] iids;

        final IntervalTable.Block block = new IntervalTable.Block();
        final MessageTable.Block messages = new MessageTable.Block();

        Writer(OutputStream out, boolean ownClocks) {
            this.out = CodedOutputStream.newInstance(out, 1 << 16);
            this.ownClocks = ownClocks;
        }

        /** The earliest time written for the board, on any of its clocks: times below 0 shift the whole file. */
        long earliest(Board b) {
            long min = b.model().begin();
            if (ownClocks) {
                for (Clock c : b.clocks()) {
                    min = Math.min(
                            min, c.toReference().inverse().apply(b.model().begin()));
                }
            }
            return Math.min(min, 0);
        }

        long board(int index, Board b, long flowBase) throws IOException {
            board = index;
            seq = index + 1;
            m = b.model();
            int traces = m.traceNames().size();
            if (ownClocks) {
                if (b.clocks().size() != traces) {
                    throw new IllegalArgumentException("own clocks need every trace's map to the reference");
                }
                if (traces > LAST_OWN_CLOCK - FIRST_OWN_CLOCK + 1) {
                    throw new IOException(b.name() + ": " + traces + " traces, and a board's own clocks are "
                            + (LAST_OWN_CLOCK - FIRST_OWN_CLOCK + 1) + " at most (Perfetto's clock ids of a sequence)");
                }
                toOwn = new PiecewiseMap.Walker[traces];
                for (int t = 0; t < traces; t++) {
                    toOwn[t] = b.clocks().get(t).toReference().inverse().walker();
                }
            }
            coreTrace = new int[m.cores().size()];
            for (int c = 0; c < coreTrace.length; c++) {
                coreTrace[c] = m.cores().get(c).trace();
            }
            taskTrace = new int[m.tasks().size()];
            idleTask = new boolean[taskTrace.length];
            for (int k = 0; k < taskTrace.length; k++) {
                taskTrace[k] = m.tasks().get(k).trace();
                idleTask[k] = m.tasks().get(k).idle();
            }
            interned();
            tracks(b);
            if (ownClocks) {
                snapshots(b);
            }
            // the ends of every table first, then the begins: see the class comment
            for (int pass = 0; pass < 2; pass++) {
                boolean begins = pass == 1;
                intervals(m.runs(), StoredModel.RUNS, begins);
                intervals(m.taskStates(), StoredModel.TASK_STATES, begins);
                intervals(m.calls(), StoredModel.CALLS, begins);
                intervals(m.irqs(), StoredModel.IRQS, begins);
            }
            marks();
            long next = messages(flowBase);
            next = sync(b.sync(), next);
            load();
            lost();
            series();
            return next;
        }

        // ---- the sequence's interned names and the tracks

        private void interned() throws IOException {
            List<String> functions = StoredModel.names(m);
            List<String> events = StoredModel.eventNames(m);
            tasksBase = 1 + functions.size();
            statesBase = tasksBase + m.tasks().size();
            runningBase = statesBase + StateModel.STATES;
            marksBase = runningBase + m.cores().size();
            fixedBase = marksBase + events.size();
            List<String> all = new ArrayList<>(fixedBase + FIXED.size());
            all.addAll(functions);
            for (StateModel.Task t : m.tasks()) {
                all.add(t.name());
            }
            for (int s = 0; s < StateModel.STATES; s++) {
                all.add(StateModel.stateName(s));
            }
            for (StateModel.Core c : m.cores()) {
                all.add("running on " + c.name());
            }
            all.addAll(events);
            all.addAll(FIXED);
            iids = new int[all.size() + 1];
            Map<String, Integer> unique = new HashMap<>();
            List<String> interned = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                Integer iid = unique.get(all.get(i));
                if (iid == null) {
                    interned.add(all.get(i));
                    iid = interned.size();
                    unique.put(all.get(i), iid);
                }
                iids[i + 1] = iid;
            }
            boolean first = true;
            // a packet per thousand names: none grows large
            for (int from = 0; from < interned.size() || first; from += 1000) {
                Message data = new Message();
                if (first) {
                    for (int a = 0; a < ANNOTATIONS.size(); a++) {
                        data.message(
                                INTERNED_ANNOTATION_NAMES,
                                new Message()
                                        .varint(ANNOTATION_NAME_IID_FIELD, a + 1)
                                        .string(ANNOTATION_NAME_NAME, ANNOTATIONS.get(a)));
                    }
                }
                for (int i = from; i < Math.min(interned.size(), from + 1000); i++) {
                    data.message(
                            INTERNED_EVENT_NAMES,
                            new Message().varint(EVENT_NAME_IID_FIELD, i + 1).string(EVENT_NAME_NAME, interned.get(i)));
                }
                Message p = new Message()
                        .varint(PACKET_SEQUENCE_ID, seq)
                        .varint(
                                PACKET_SEQUENCE_FLAGS,
                                first ? INCREMENTAL_STATE_CLEARED.number() : NEEDS_INCREMENTAL_STATE.number())
                        .message(PACKET_INTERNED_DATA, data);
                packet(p);
                first = false;
            }
        }

        private void packet(Message p) throws IOException {
            byte[] b = p.toByteArray();
            out.writeUInt32NoTag(TRACE_PACKET.tag);
            out.writeUInt32NoTag(b.length);
            out.writeRawBytes(b);
            packets++;
        }

        private void track(long uuid, long parent, String name, String description, int rank, Message counter)
                throws IOException {
            Message t = new Message().varint(TRACK_UUID, uuid);
            if (parent != 0) {
                t.varint(TRACK_PARENT_UUID, parent);
            }
            t.string(TRACK_NAME, name);
            if (description != null) {
                t.string(TRACK_DESCRIPTION, description);
            }
            t.varint(TRACK_CHILD_ORDERING, ORDER_EXPLICIT.number());
            t.varint(TRACK_SIBLING_ORDER_RANK, rank);
            if (counter != null) {
                t.message(TRACK_COUNTER, counter);
            }
            packet(new Message().varint(PACKET_SEQUENCE_ID, seq).message(PACKET_TRACK_DESCRIPTOR, t));
        }

        private void tracks(Board b) throws IOException {
            int traces = m.traceNames().size();
            boolean[] hasIrqs = owners(m.irqs(), m.cores().size());
            boolean[] hasRuns = owners(m.runs(), m.cores().size());
            boolean[] lost = new boolean[m.cores().size()];
            for (int from = 0, n; (n = m.runs().read(from, 1024, block)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    if ((block.flags(j) & StateModel.EVENTS_LOST) != 0) {
                        lost[block.owner(j)] = true;
                    }
                }
            }
            boolean[] calls = owners(m.calls(), m.tasks().size());
            boolean[] states = owners(m.taskStates(), m.tasks().size());
            for (int from = 0, n; (n = m.runs().read(from, 1024, block)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    if (!idleTask[block.subject(j)]) {
                        states[block.subject(j)] = true;
                    }
                }
            }
            boolean[] messaging = new boolean[m.tasks().size()];
            for (int from = 0, n; (n = m.messages().read(from, 1024, messages)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    if (messages.sendTask(j) >= 0) {
                        messaging[messages.sendTask(j)] = true;
                    }
                    if (messages.receiveTask(j) >= 0) {
                        messaging[messages.receiveTask(j)] = true;
                    }
                }
            }
            boolean[] traceEvents = new boolean[traces];
            for (int i = 0; i < m.marks(); i++) {
                if (m.markCore(i) < 0) {
                    traceEvents[-1 - m.markCore(i)] = true;
                }
            }
            boolean[] syncs = new boolean[traces];
            for (int i = 0; i < b.sync().size(); i++) {
                syncs[b.sync().sender(i)] = true;
                syncs[b.sync().receiver(i)] = true;
            }
            long root = uuid(board, ROOT, 0);
            track(root, 0, b.name(), "hetrace: " + traces + (traces == 1 ? " trace" : " traces"), board, null);
            for (int t = 0; t < traces; t++) {
                long trace = uuid(board, TRACE, t);
                track(trace, root, m.traceNames().get(t), clockText(b, t), t, null);
                if (traceEvents[t]) {
                    track(uuid(board, EVENTS, t), trace, "events", "point events on no core", -2, null);
                }
                if (syncs[t]) {
                    track(
                            uuid(board, SYNC, t),
                            trace,
                            "sync",
                            "the sync handshake's messages: flows from each send to its receive",
                            -1,
                            null);
                }
            }
            for (int c = 0; c < m.cores().size(); c++) {
                long core = uuid(board, CORE, c);
                String name = m.cores().get(c).name();
                track(
                        core,
                        uuid(board, TRACE, coreTrace[c]),
                        name,
                        "the tasks " + name + " ran, and its point events",
                        c,
                        null);
                if (hasIrqs[c]) {
                    track(uuid(board, IRQ, c), core, name + " interrupts", null, 0, null);
                }
                if (hasRuns[c]) {
                    track(
                            uuid(board, LOAD, c),
                            core,
                            name + " load",
                            "the share of each window of " + window() + " ns that a task (not idle) ran, in %",
                            1,
                            new Message().string(COUNTER_UNIT_NAME, "%").string(COUNTER_Y_AXIS_SHARE_KEY, "load"));
                }
                if (lost[c]) {
                    track(
                            uuid(board, LOST, c),
                            core,
                            name + " events lost",
                            "1 while the tracer had lost events (what ran meanwhile is partly unseen)",
                            2,
                            new Message().varint(COUNTER_UNIT, UNIT_COUNT.number()));
                }
            }
            boolean[] tracked = new boolean[m.tasks().size()];
            for (int k = 0; k < m.tasks().size(); k++) {
                StateModel.Task task = m.tasks().get(k);
                if (!calls[k] && !states[k] && !messaging[k]) {
                    continue;
                }
                tracked[k] = true;
                long uuid = uuid(board, TASK, k);
                track(
                        uuid,
                        uuid(board, TRACE, taskTrace[k]),
                        task.name() + (task.id() >= 0 ? " [" + task.id() + "]" : ""),
                        "the task's calls, and the messages it sent and received",
                        1_000_000 + k,
                        null);
                if (states[k]) {
                    track(
                            uuid(board, STATE, k),
                            uuid,
                            "state",
                            "where the task ran, and why it did not when it did not",
                            0,
                            null);
                }
            }
            seriesTracks(tracked);
        }

        /**
         * A counter track per counter series the traces carry, under its task's track (a task without
         * one: its trace's, named after the task), its core's or its trace's.
         */
        private void seriesTracks(boolean[] tracked) throws IOException {
            List<StateModel.Counter> series = m.counters();
            for (int s = 0; s < series.size(); s++) {
                StateModel.Counter c = series.get(s);
                long parent;
                String name;
                if (c.task() >= 0 && tracked[c.task()]) {
                    parent = uuid(board, TASK, c.task());
                    name = c.name();
                } else if (c.task() >= 0) {
                    parent = uuid(board, TRACE, c.trace());
                    name = m.tasks().get(c.task()).name() + " " + c.name();
                } else if (c.core() >= 0) {
                    parent = uuid(board, CORE, c.core());
                    name = m.cores().get(c.core()).name() + " " + c.name();
                } else {
                    parent = uuid(board, TRACE, c.trace());
                    name = c.name();
                }
                String description = switch (c.kind()) {
                    case StateModel.COUNTER_TOTAL ->
                        "the rate of the running total " + c.name() + " from each sample to the next, per second";
                    case StateModel.COUNTER_LOST ->
                        "the events the stream lost so far, as its packets told them (each step: a packet that"
                                + " counted more)";
                    default -> c.name() + " as the trace sampled it, held until the next sample";
                };
                String unit = c.kind() == StateModel.COUNTER_TOTAL ? c.unit() + "/s" : c.unit();
                Message counter = c.kind() == StateModel.COUNTER_LOST
                        ? new Message().varint(COUNTER_UNIT, UNIT_COUNT.number())
                        : unit.isEmpty() ? new Message() : new Message().string(COUNTER_UNIT_NAME, unit);
                track(uuid(board, SERIES, s), parent, name, description, 3 + s, counter);
            }
        }

        private boolean[] owners(IntervalTable t, int n) {
            boolean[] has = new boolean[n];
            for (int from = 0, k; (k = t.read(from, 1024, block)) > 0; from += k) {
                for (int j = 0; j < k; j++) {
                    has[block.owner(j)] = true;
                }
            }
            return has;
        }

        private String clockText(Board b, int t) {
            Clock c = t < b.clocks().size() ? b.clocks().get(t) : null;
            String bound = c == null || c.accuracyNanos() < 0
                    ? "no accuracy bound known"
                    : "hetrace's accuracy bound: " + c.accuracyNanos() + " ns";
            if (c != null && c.reference()) {
                return "the reference clock" + (ownClocks ? " (its own clock, id " + (FIRST_OWN_CLOCK + t) + ")" : "");
            }
            if (!ownClocks) {
                return "on the reference clock through hetrace's synchronization; " + bound;
            }
            return String.format(
                    Locale.ROOT,
                    "its own clock (id %d), converted by Perfetto from clock snapshots every %d ns at most:"
                            + " within %d ns of hetrace's synchronization; %s",
                    FIRST_OWN_CLOCK + t,
                    new Snapshots(t, c, 0, 0).maxSpacing(),
                    new Snapshots(t, c, 0, 0).maxError(),
                    bound);
        }

        // ---- times and events

        /** The time to write for {@code ref} (ns on the reference clock) of trace {@code trace}. */
        private long ts(int trace, long ref) {
            return (ownClocks ? toOwn[trace].apply(ref) : ref) + offset;
        }

        /**
         * One TrackEvent packet at {@code ts} (as written: {@link #ts}), on trace {@code trace}'s
         * clock, its size computed first so that nothing is buffered: {@code name}
         * 0 for none; {@code flowOut}/{@code flowIn} 0 for none; {@code flags} of the model as
         * annotations; {@code queue}/{@code id} as annotations when {@code ids}; a counter's value
         * when {@code counter}.
         */
        private void event(
                int trace,
                long ts,
                int type,
                long track,
                long name,
                long flowOut,
                long flowIn,
                int flags,
                boolean ids,
                long queue,
                long id,
                boolean counter,
                double value)
                throws IOException {
            int e = EVENT_TYPE.tagSize + 1 + EVENT_TRACK_UUID.tagSize + CodedOutputStream.computeUInt64SizeNoTag(track);
            if (name != 0) {
                e += EVENT_NAME_IID.tagSize + CodedOutputStream.computeUInt64SizeNoTag(name);
            }
            if (flowOut != 0) {
                e += EVENT_FLOW_IDS.tagSize + 8;
            }
            if (flowIn != 0) {
                e += EVENT_TERMINATING_FLOW_IDS.tagSize + 8;
            }
            if (counter) {
                e += EVENT_DOUBLE_COUNTER_VALUE.tagSize + 8;
            }
            int flag = ANNOTATION_NAME_IID.tagSize + 1 + ANNOTATION_BOOL.tagSize + 1;
            e += Integer.bitCount(flags & 7) * (EVENT_DEBUG_ANNOTATIONS.tagSize + 1 + flag);
            int q = 0;
            int i = 0;
            if (ids) {
                q = ANNOTATION_NAME_IID.tagSize
                        + 1
                        + ANNOTATION_INT.tagSize
                        + CodedOutputStream.computeInt64SizeNoTag(queue);
                i = ANNOTATION_NAME_IID.tagSize
                        + 1
                        + ANNOTATION_INT.tagSize
                        + CodedOutputStream.computeInt64SizeNoTag(id);
                e += 2 * (EVENT_DEBUG_ANNOTATIONS.tagSize + 1) + q + i;
            }
            int clock = FIRST_OWN_CLOCK + trace;
            int p = PACKET_TIMESTAMP.tagSize
                    + CodedOutputStream.computeUInt64SizeNoTag(ts)
                    + PACKET_TRACK_EVENT.tagSize
                    + CodedOutputStream.computeUInt32SizeNoTag(e)
                    + e
                    + PACKET_SEQUENCE_ID.tagSize
                    + CodedOutputStream.computeUInt32SizeNoTag(seq)
                    + PACKET_SEQUENCE_FLAGS.tagSize
                    + 1;
            if (ownClocks) {
                p += PACKET_CLOCK_ID.tagSize + CodedOutputStream.computeUInt32SizeNoTag(clock);
            }
            out.writeUInt32NoTag(TRACE_PACKET.tag);
            out.writeUInt32NoTag(p);
            out.writeUInt32NoTag(PACKET_TIMESTAMP.tag);
            out.writeUInt64NoTag(ts);
            if (ownClocks) {
                out.writeUInt32NoTag(PACKET_CLOCK_ID.tag);
                out.writeUInt32NoTag(clock);
            }
            out.writeUInt32NoTag(PACKET_TRACK_EVENT.tag);
            out.writeUInt32NoTag(e);
            out.writeUInt32NoTag(EVENT_TYPE.tag);
            out.writeUInt32NoTag(type);
            out.writeUInt32NoTag(EVENT_TRACK_UUID.tag);
            out.writeUInt64NoTag(track);
            if (name != 0) {
                out.writeUInt32NoTag(EVENT_NAME_IID.tag);
                out.writeUInt64NoTag(name);
            }
            if (flowOut != 0) {
                out.writeUInt32NoTag(EVENT_FLOW_IDS.tag);
                out.writeFixed64NoTag(flowOut);
            }
            if (flowIn != 0) {
                out.writeUInt32NoTag(EVENT_TERMINATING_FLOW_IDS.tag);
                out.writeFixed64NoTag(flowIn);
            }
            if (counter) {
                out.writeUInt32NoTag(EVENT_DOUBLE_COUNTER_VALUE.tag);
                out.writeDoubleNoTag(value);
            }
            for (int bit = 0; bit < 3; bit++) {
                if ((flags & (1 << bit)) != 0) {
                    out.writeUInt32NoTag(EVENT_DEBUG_ANNOTATIONS.tag);
                    out.writeUInt32NoTag(flag);
                    out.writeUInt32NoTag(ANNOTATION_NAME_IID.tag);
                    out.writeUInt32NoTag(A_START_UNKNOWN + bit);
                    out.writeUInt32NoTag(ANNOTATION_BOOL.tag);
                    out.writeUInt32NoTag(1);
                }
            }
            if (ids) {
                annotation(A_QUEUE, queue, q);
                annotation(A_MESSAGE_ID, id, i);
            }
            out.writeUInt32NoTag(PACKET_SEQUENCE_ID.tag);
            out.writeUInt32NoTag(seq);
            out.writeUInt32NoTag(PACKET_SEQUENCE_FLAGS.tag);
            out.writeUInt32NoTag(NEEDS_INCREMENTAL_STATE.number());
            packets++;
        }

        private void annotation(int name, long value, int size) throws IOException {
            out.writeUInt32NoTag(EVENT_DEBUG_ANNOTATIONS.tag);
            out.writeUInt32NoTag(size);
            out.writeUInt32NoTag(ANNOTATION_NAME_IID.tag);
            out.writeUInt32NoTag(name);
            out.writeUInt32NoTag(ANNOTATION_INT.tag);
            out.writeInt64NoTag(value);
        }

        private void begin(int trace, long time, long track, long name, int flags) throws IOException {
            event(trace, ts(trace, time), SLICE_BEGIN.number(), track, name, 0, 0, flags, false, 0, 0, false, 0);
            slices++;
        }

        private void end(int trace, long time, long track) throws IOException {
            event(trace, ts(trace, time), SLICE_END.number(), track, 0, 0, 0, 0, false, 0, 0, false, 0);
        }

        private void instant(int trace, long time, long track, long name, int flags) throws IOException {
            event(trace, ts(trace, time), INSTANT.number(), track, name, 0, 0, flags, false, 0, 0, false, 0);
            instants++;
        }

        private void counter(int trace, long time, long track, double value) throws IOException {
            event(trace, ts(trace, time), COUNTER.number(), track, 0, 0, 0, 0, false, 0, 0, true, value);
            counters++;
        }

        // ---- the model's tables

        /**
         * The ends of {@code t}'s intervals in the table's order, or their begins (and the
         * intervals of no duration, as instants) in reverse order.
         */
        private void intervals(IntervalTable t, int table, boolean begins) throws IOException {
            int n = t.size();
            if (!begins) {
                for (int from = 0, k; (k = t.read(from, 1024, block)) > 0; from += k) {
                    for (int j = 0; j < k; j++) {
                        row(table, j, false);
                    }
                }
                return;
            }
            for (int pos = n; pos > 0; ) {
                int from = Math.max(0, pos - 1024);
                int got;
                while ((got = t.read(from, pos - from, block)) < pos - from) {
                    from += got; // the rows crossed a chunk of the table: its end part first
                }
                for (int j = got - 1; j >= 0; j--) {
                    row(table, j, true);
                }
                pos = from;
            }
        }

        /** Row {@code j} of the block: its end, or its begin (an instant when it has no duration). */
        private void row(int table, int j, boolean begins) throws IOException {
            long start = block.start(j);
            long end = block.end(j);
            int owner = block.owner(j);
            int subject = block.subject(j);
            int flags = block.flags(j);
            switch (table) {
                case StoredModel.RUNS -> {
                    int trace = coreTrace[owner];
                    if (block.state(j) != StateModel.IDLE) {
                        slice(trace, start, end, uuid(board, CORE, owner), iids[tasksBase + subject], flags, begins);
                    }
                    if (!idleTask[subject]) {
                        slice(trace, start, end, uuid(board, STATE, subject), iids[runningBase + owner], flags, begins);
                    }
                }
                case StoredModel.TASK_STATES ->
                    slice(
                            taskTrace[owner],
                            start,
                            end,
                            uuid(board, STATE, owner),
                            iids[statesBase + block.state(j)],
                            flags,
                            begins);
                case StoredModel.CALLS ->
                    slice(taskTrace[owner], start, end, uuid(board, TASK, owner), iids[1 + subject], flags, begins);
                default ->
                    slice(coreTrace[owner], start, end, uuid(board, IRQ, owner), iids[1 + subject], flags, begins);
            }
        }

        private void slice(int trace, long start, long end, long track, long name, int flags, boolean begins)
                throws IOException {
            if (start == end) {
                if (begins) {
                    instant(trace, start, track, name, flags);
                }
            } else if (begins) {
                begin(trace, start, track, name, flags);
            } else {
                end(trace, end, track);
            }
        }

        private void marks() throws IOException {
            for (int i = 0; i < m.marks(); i++) {
                int core = m.markCore(i);
                long name = iids[marksBase + StoredModel.markNameId(m, i)];
                if (core >= 0) {
                    instant(coreTrace[core], m.markTime(i), uuid(board, CORE, core), name, 0);
                } else {
                    instant(-1 - core, m.markTime(i), uuid(board, EVENTS, -1 - core), name, 0);
                }
            }
        }

        /** The track of a message's side: its task's, else its core's (0: neither known). */
        private long sideTrack(int task, int core) {
            return task >= 0 ? uuid(board, TASK, task) : core >= 0 ? uuid(board, CORE, core) : 0;
        }

        private int sideTrace(int task, int core) {
            return task >= 0 ? taskTrace[task] : coreTrace[core];
        }

        private long messages(long flowBase) throws IOException {
            long id = flowBase;
            for (int from = 0, n; (n = m.messages().read(from, 1024, messages)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    long send = sideTrack(messages.sendTask(j), messages.sendCore(j));
                    long receive = sideTrack(messages.receiveTask(j), messages.receiveCore(j));
                    long flow = send != 0 && receive != 0 ? ++id : 0;
                    if (send != 0) {
                        messageEnd(j, true, send, receive != 0 ? F_SEND : F_SEND_ONLY, flow, 0);
                    }
                    if (receive != 0) {
                        messageEnd(j, false, receive, send != 0 ? F_RECEIVE : F_RECEIVE_ONLY, 0, flow);
                    }
                    if (flow != 0) {
                        flows++;
                    }
                }
            }
            return id;
        }

        /** One end of message {@code j} of the block read: an instant on its track, the flow leaving or ending there. */
        private void messageEnd(int j, boolean sending, long track, int name, long flowOut, long flowIn)
                throws IOException {
            int task = sending ? messages.sendTask(j) : messages.receiveTask(j);
            int core = sending ? messages.sendCore(j) : messages.receiveCore(j);
            int trace = sideTrace(task, core);
            event(
                    trace,
                    ts(trace, sending ? messages.sendTime(j) : messages.receiveTime(j)),
                    INSTANT.number(),
                    track,
                    iids[fixedBase + name],
                    flowOut,
                    flowIn,
                    0,
                    true,
                    messages.queue(j),
                    messages.id(j),
                    false,
                    0);
            instants++;
        }

        private long sync(SyncMessages s, long flowBase) throws IOException {
            long id = flowBase;
            for (int i = 0; i < s.size(); i++) {
                long flow = ++id;
                int from = s.sender(i);
                int to = s.receiver(i);
                syncSide(from, s.sendRef(i), s.sendOwn(i), iids[fixedBase + F_SYNC_SEND], flow, 0);
                syncSide(to, s.receiveRef(i), s.receiveOwn(i), iids[fixedBase + F_SYNC_RECEIVE], 0, flow);
                flows++;
            }
            return id;
        }

        /** A side of a sync message: with own clocks, its time as its trace read it (the synchronization's own input). */
        private void syncSide(int trace, long ref, long own, long name, long flowOut, long flowIn) throws IOException {
            long ts = (ownClocks ? own : ref) + offset;
            event(
                    trace,
                    ts,
                    INSTANT.number(),
                    uuid(board, SYNC, trace),
                    name,
                    flowOut,
                    flowIn,
                    0,
                    false,
                    0,
                    0,
                    false,
                    0);
            instants++;
        }

        // ---- counters

        /** The load windows' length: about 1/{@link #LOAD_WINDOWS} of the board's span, a round number of ns. */
        private long window() {
            long span = Math.max(1, m.end() - m.begin());
            long raw = Math.max(1_000, span / LOAD_WINDOWS);
            long step = 1;
            while (step * 10 <= raw) {
                step *= 10;
            }
            for (long f : new long[] {1, 2, 5, 10}) {
                if (f * step >= raw) {
                    return f * step;
                }
            }
            return 10 * step;
        }

        private void load() throws IOException {
            int cores = m.cores().size();
            if (cores == 0 || m.runs().size() == 0) {
                return;
            }
            long w = window();
            long begin = m.begin();
            int windows = (int) ((m.end() - begin) / w) + 1;
            long[] busy = new long[cores * windows];
            boolean[] has = new boolean[cores];
            for (int from = 0, n; (n = m.runs().read(from, 1024, block)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    has[block.owner(j)] = true;
                    if (block.state(j) == StateModel.IDLE) {
                        continue;
                    }
                    long s = block.start(j) - begin;
                    long e = block.end(j) - begin;
                    int base = block.owner(j) * windows;
                    for (long k = s / w; k <= (e - 1) / w && k < windows && e > s; k++) {
                        long ws = k * w;
                        busy[base + (int) k] += Math.min(e, ws + w) - Math.max(s, ws);
                    }
                }
            }
            for (int c = 0; c < cores; c++) {
                if (!has[c]) {
                    continue;
                }
                long track = uuid(board, LOAD, c);
                for (int k = 0; k < windows; k++) {
                    long ws = k * w;
                    long len = Math.min(w, m.end() - begin - ws);
                    double v = len <= 0 ? 0 : 100.0 * busy[c * windows + k] / len;
                    counter(coreTrace[c], begin + ws, track, v);
                }
            }
        }

        private void lost() throws IOException {
            for (int from = 0, n; (n = m.runs().read(from, 1024, block)) > 0; from += n) {
                for (int j = 0; j < n; j++) {
                    if ((block.flags(j) & StateModel.EVENTS_LOST) != 0) {
                        int c = block.owner(j);
                        long track = uuid(board, LOST, c);
                        counter(coreTrace[c], block.start(j), track, 1);
                        counter(coreTrace[c], block.end(j), track, 0);
                    }
                }
            }
        }

        /**
         * The counter series' samples: a value as sampled; a running total's rate from each sample to
         * the next (written at the first, from the two); a stream's lost events summed so far.
         */
        private void series() throws IOException {
            int n = m.counters().size();
            if (n == 0) {
                return;
            }
            int[] kind = new int[n];
            int[] trace = new int[n];
            for (int s = 0; s < n; s++) {
                kind[s] = m.counters().get(s).kind();
                trace[s] = m.counters().get(s).trace();
            }
            long[] prevTime = new long[n];
            double[] prev = new double[n];
            boolean[] started = new boolean[n];
            for (int i = 0; i < m.samples(); i++) {
                int s = m.sampleSeries(i);
                long t = m.sampleTime(i);
                double v = m.sampleValue(i);
                long track = uuid(board, SERIES, s);
                switch (kind[s]) {
                    case StateModel.COUNTER_TOTAL -> {
                        if (started[s] && t > prevTime[s]) {
                            counter(trace[s], prevTime[s], track, (v - prev[s]) * 1e9 / (t - prevTime[s]));
                        }
                        if (!started[s] || t > prevTime[s]) {
                            prevTime[s] = t;
                        }
                        prev[s] = v;
                        started[s] = true;
                    }
                    case StateModel.COUNTER_LOST -> {
                        prev[s] += v;
                        counter(trace[s], t, track, prev[s]);
                    }
                    default -> counter(trace[s], t, track, v);
                }
            }
        }

        // ---- own clocks

        /** The clock snapshots of every trace of the board, merged in the order of their reference times. */
        private void snapshots(Board b) throws IOException {
            int traces = m.traceNames().size();
            Snapshots[] each = new Snapshots[traces];
            for (int t = 0; t < traces; t++) {
                each[t] = new Snapshots(t, b.clocks().get(t), m.begin(), m.end());
            }
            boolean first = true;
            while (true) {
                int next = -1;
                for (int t = 0; t < traces; t++) {
                    if (each[t].more() && (next < 0 || each[t].ref() < each[next].ref())) {
                        next = t;
                    }
                }
                if (next < 0) {
                    return;
                }
                Snapshots s = each[next];
                Message snapshot = new Message()
                        .message(
                                SNAPSHOT_CLOCKS,
                                new Message()
                                        .varint(CLOCK_ID, BOOTTIME.number())
                                        .varint(CLOCK_TIMESTAMP, s.ref() + offset))
                        .message(
                                SNAPSHOT_CLOCKS,
                                new Message()
                                        .varint(CLOCK_ID, FIRST_OWN_CLOCK + next)
                                        .varint(CLOCK_TIMESTAMP, s.own() + offset));
                if (first) {
                    snapshot.varint(SNAPSHOT_PRIMARY_CLOCK, BOOTTIME.number());
                    first = false;
                }
                packet(new Message().varint(PACKET_SEQUENCE_ID, seq).message(PACKET_CLOCK_SNAPSHOT, snapshot));
                snapshots++;
                s.advance();
            }
        }
    }

    /**
     * A trace's clock snapshots: own time and reference time, from the own time of the board's
     * first event to past its last; one at each knot of a piecewise map, and between them as
     * often as the piece's drift needs for the conversion from the last snapshot (as if the
     * clocks ran at the same rate) to stay within the target: the accuracy bound.
     */
    static final class Snapshots {
        private final PiecewiseMap map;
        private final long[] knots;
        private final long target;
        private final long last;
        private long own;
        private boolean done;

        Snapshots(int trace, Clock c, long beginRef, long endRef) {
            map = c.toReference();
            knots = map.linear() ? new long[0] : map.knots();
            target = c.accuracyNanos() > 0 ? c.accuracyNanos() : UNBOUNDED_TARGET;
            PiecewiseMap back = map.inverse();
            own = back.apply(beginRef);
            last = back.apply(endRef);
        }

        boolean more() {
            return !done;
        }

        long own() {
            return own;
        }

        long ref() {
            return map.apply(own);
        }

        void advance() {
            long next = own + spacing(drift(own));
            for (long k : knots) {
                if (k > own && k < next) {
                    next = k;
                    break;
                }
            }
            // none is needed past the last event: the one before it converts it
            done = next > last;
            own = next;
        }

        /** |slope − 1| of the piece at own time {@code t}. */
        double drift(long t) {
            if (map.linear()) {
                return Math.abs(map.overall().slopeMinusOne());
            }
            int j = 0;
            while (j + 2 < knots.length && t >= knots[j + 1]) {
                j++;
            }
            long[] values = map.values();
            return Math.abs((double) (values[j + 1] - values[j]) / (knots[j + 1] - knots[j]) - 1);
        }

        long spacing(double drift) {
            if (drift * Long.MAX_VALUE / 4 < target) {
                return Long.MAX_VALUE / 4;
            }
            return Math.max(MIN_SNAPSHOT_SPACING, (long) Math.floor(target / drift));
        }

        /** The largest spacing any piece gets. */
        long maxSpacing() {
            return spacing(maxDrift());
        }

        /** The largest conversion error between snapshots, ns. */
        long maxError() {
            return (long) Math.ceil(spacing(maxDrift()) * maxDrift());
        }

        private double maxDrift() {
            double d = map.linear() ? Math.abs(map.overall().slopeMinusOne()) : 0;
            for (int j = 0; j + 1 < knots.length; j++) {
                d = Math.max(d, drift(knots[j]));
            }
            return d;
        }
    }
}
