package dev.hetrace.view;

import dev.hetrace.analysis.StateModel;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * What the viewer shows, laid out for drawing: rows in a hierarchy (board, trace, core, its
 * interrupts and tasks, each task's calls by depth), each row's intervals sorted by start (with
 * a running maximum of their ends, so that the intervals under any time range are found by two
 * binary searches), a {@link RowSummary} for the rows too dense to draw interval by interval,
 * and the messages between cores sorted by send time. Built from a state model once; a view
 * request ({@link ViewQuery}) then reads only what its pixels need.
 */
public final class Timeline {
    /**
     * What a row shows. BOARD, TRACE and GROUP rows are groups: they show the aggregate of their cores (a GROUP: many
     * cores of one type, or a cluster of them).
     */
    public enum Kind {
        BOARD,
        TRACE,
        CORE,
        IRQ,
        TASK,
        CALLS,
        GROUP,
        /** A kernel trace's threads together, or its short-lived ones gathered in one row ({@link KernelRows}). */
        PROCESS,
        /**
         * A value over time drawn as a line: a CPU's load, an interrupt line's rate, a counter the traces carry
         * ({@link Counters}).
         */
        COUNTER
    }

    /**
     * A row: its place in the hierarchy (parent row, −1 for the board; level 0 for the board),
     * the core it belongs to (−1 for the board and traces), its task (−1 unless TASK or CALLS),
     * the call depth of a CALLS row; what a COUNTER row measures ({@link Counters#LOAD}, {@link Counters#RATE}...).
     * A COUNTER row of a counter series the traces carry ({@link Counters#sampled}) has as task the label of its
     * unit, and as core its owner's (−1: its trace's).
     */
    public record Row(int id, Kind kind, String name, int parent, int level, int core, int task, int depth) {}

    /** Rows with more intervals than this get a summary; the others are aggregated from their intervals when needed. */
    static final int SUMMARY_MIN = 1024;

    /** Columns are read in the machine's byte order, whatever their alignment (a kept file's are 8-aligned). */
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** The state model it was built from; null for a timeline read from a kept file ({@link TimelineFile}). */
    final StateModel model;

    long begin;
    long end;
    long events;
    List<String> traceNames;
    List<String> coreNames;
    List<String> taskNames;
    final List<Row> rows = new ArrayList<>();
    final Labels labels = new Labels();
    /** Per core, its row. */
    int[] coreRow;
    /** Per BOARD, TRACE or GROUP row, the CORE rows it aggregates (empty for others). */
    int[][] members;
    /** Per row, whether it has children. */
    boolean[] group;

    /*
     * The intervals, as columns (heap arrays when built here, a mapped file when kept): row r's in
     * [offset[r], offset[r + 1]), sorted by start, with the running maximum of their ends; each
     * one's label, state (a StateModel state), flags (StateModel's START_UNKNOWN...) and extra: a
     * call's self time, a task run's core (on a task or short-lived row), a task state's queue
     * (−1: none), on a core row the busy time of the row's runs before it (a CPU's load over any
     * range is then two binary searches: {@link Counters}), else 0.
     */
    int[] offset;
    MemorySegment start;
    MemorySegment end_;
    MemorySegment maxEnd;
    MemorySegment label;
    MemorySegment state;
    MemorySegment flags;
    MemorySegment extra;
    RowSummary[] summaries;

    // point events per row, by time: row r's in [markOff[r], markOff[r + 1]); whether each is the sync handshake's
    int[] markOff;
    MemorySegment markTime;
    MemorySegment markLabel;
    MemorySegment markSync;

    // messages with both sides known, sorted by send time: the model's message number, both ends (core, task, time),
    // queue, id
    MemorySegment msgRow;
    MemorySegment msgSend;
    MemorySegment msgReceive;
    /** The latest receive time of the messages up to each: those before the first at or past t are all received before t. */
    MemorySegment msgMaxReceive;

    MemorySegment msgSendCore;
    MemorySegment msgReceiveCore;
    MemorySegment msgSendTask;
    MemorySegment msgReceiveTask;
    MemorySegment msgQueue;
    MemorySegment msgId;

    Timeline(StateModel m) {
        model = m;
    }

    /** The state model it was built from; null when read from a kept file. */
    public StateModel model() {
        return model;
    }

    /** The events the traces hold. */
    public long events() {
        return events;
    }

    public List<String> traceNames() {
        return traceNames;
    }

    public String coreName(int core) {
        return coreNames.get(core);
    }

    public int cores() {
        return coreNames.size();
    }

    /** The core so named, or −1. */
    public int core(String name) {
        return coreNames.indexOf(name);
    }

    public String taskName(int task) {
        return taskNames.get(task);
    }

    /** The intervals of all rows. */
    public int intervals() {
        return offset[rows.size()];
    }

    /**
     * The intervals a search steps through: all but the samples of the counter series, whose rows
     * the layout puts last (a sample's label is its unit: searching "cycles" finds no sample).
     */
    int searchedIntervals() {
        int r = rows.size();
        while (r > 0
                && rows.get(r - 1).kind() == Kind.COUNTER
                && Counters.sampled(rows.get(r - 1).depth())) {
            r--;
        }
        return offset[r];
    }

    long startOf(int i) {
        return start.getAtIndex(LONG, i);
    }

    long endOf(int i) {
        return end_.getAtIndex(LONG, i);
    }

    long maxEndOf(int i) {
        return maxEnd.getAtIndex(LONG, i);
    }

    int labelOf(int i) {
        return label.getAtIndex(INT, i);
    }

    byte stateOf(int i) {
        return state.get(ValueLayout.JAVA_BYTE, i);
    }

    byte flagsOf(int i) {
        return flags.get(ValueLayout.JAVA_BYTE, i);
    }

    long extraOf(int i) {
        return extra.getAtIndex(LONG, i);
    }

    long markTime(int k) {
        return markTime.getAtIndex(LONG, k);
    }

    int markLabel(int k) {
        return markLabel.getAtIndex(INT, k);
    }

    boolean markSync(int k) {
        return markSync.get(ValueLayout.JAVA_BYTE, k) != 0;
    }

    /** The messages with both sides known. */
    int messages() {
        return (int) (msgSend.byteSize() / Long.BYTES);
    }

    int msgRow(int k) {
        return msgRow.getAtIndex(INT, k);
    }

    long msgSend(int k) {
        return msgSend.getAtIndex(LONG, k);
    }

    long msgReceive(int k) {
        return msgReceive.getAtIndex(LONG, k);
    }

    int msgSendCore(int k) {
        return msgSendCore.getAtIndex(INT, k);
    }

    int msgReceiveCore(int k) {
        return msgReceiveCore.getAtIndex(INT, k);
    }

    int msgSendTask(int k) {
        return msgSendTask.getAtIndex(INT, k);
    }

    int msgReceiveTask(int k) {
        return msgReceiveTask.getAtIndex(INT, k);
    }

    long msgQueue(int k) {
        return msgQueue.getAtIndex(LONG, k);
    }

    long msgId(int k) {
        return msgId.getAtIndex(LONG, k);
    }

    public List<Row> rows() {
        return rows;
    }

    public Labels labels() {
        return labels;
    }

    /** The first and last event times, ns on the reference clock. */
    public long begin() {
        return begin;
    }

    public long end() {
        return end;
    }

    /** The row of core {@code core}. */
    public int coreRow(int core) {
        return coreRow[core];
    }

    /** How many intervals row {@code r} has. */
    public int size(int r) {
        return offset[r + 1] - offset[r];
    }

    /** Builds the rows, their intervals and their summaries from {@code m} ({@link TimelineBuilder}). */
    public static Timeline of(StateModel m) {
        return TimelineBuilder.build(m, BoardLayout.NONE);
    }

    /** As {@link #of(StateModel)}, the cores that {@code board} places in its groups, whatever their traces say. */
    public static Timeline of(StateModel m, BoardLayout board) {
        return TimelineBuilder.build(m, board);
    }

    /** What follows from the rows: each core's row, which rows are groups, the cores of each group. */
    void derive() {
        coreRow = new int[coreNames.size()];
        group = new boolean[rows.size()];
        members = new int[rows.size()][];
        List<List<Integer>> by = new ArrayList<>();
        for (Row r : rows) {
            by.add(new ArrayList<>());
            if (r.parent() >= 0) {
                group[r.parent()] = true;
            }
            if (r.kind() == Kind.CORE) {
                coreRow[r.core()] = r.id();
                for (int p = r.parent(); p >= 0; p = rows.get(p).parent()) {
                    by.get(p).add(r.id());
                }
            }
        }
        for (Row r : rows) {
            members[r.id()] =
                    by.get(r.id()).stream().mapToInt(Integer::intValue).toArray();
        }
    }

    /** Per row, {@link #lost()}: counted when the timeline is built, kept in its file. */
    int[] lost;

    /**
     * Per row, how many intervals that lost events it holds with the rows under it (a group's: its cores'
     * together); counted once from the flags, when the timeline is built.
     */
    synchronized int[] lost() {
        if (lost == null) {
            int[] n = new int[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                for (int i = offset[r]; i < offset[r + 1]; i++) {
                    if ((flagsOf(i) & StateModel.EVENTS_LOST) != 0) {
                        n[r]++;
                    }
                }
            }
            // rows come after their parent: from the last up, each adds to its parent
            for (int r = rows.size() - 1; r > 0; r--) {
                n[rows.get(r).parent()] += n[r];
            }
            lost = n;
        }
        return lost;
    }

    /** The position of row {@code r}'s first point event at or after {@code t}. */
    int firstMarkFrom(int r, long t) {
        return firstAtLeast(markTime, markOff[r], markOff[r + 1], t);
    }

    /** The first interval of row {@code r} that may end after {@code t} (all before it end at or before t). */
    int firstEndingAfter(int r, long t) {
        return t == Long.MAX_VALUE ? offset[r + 1] : firstAtLeast(maxEnd, offset[r], offset[r + 1], t + 1);
    }

    /** The first interval of row {@code r} that starts at or after {@code t}. */
    int firstStartingFrom(int r, long t) {
        return firstAtLeast(start, offset[r], offset[r + 1], t);
    }

    /**
     * The first message that may matter from {@code t} on: every one before it was sent and
     * received before {@code t}. {@code from}: {@link #firstMessageFrom}{@code (t)}, the bound.
     */
    int firstMessageAfter(long t, int from) {
        return firstAtLeast(msgMaxReceive, 0, from, t);
    }

    /** The first message sent at or after {@code t}. */
    int firstMessageFrom(long t) {
        return firstAtLeast(msgSend, 0, messages(), t);
    }

    /** The first position in [lo, hi) of the ascending long column {@code col} whose value is at least {@code t} (hi if none). */
    private static int firstAtLeast(MemorySegment col, int lo, int hi, long t) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (col.getAtIndex(LONG, mid) >= t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The row of interval position {@code i}. */
    int rowOf(int i) {
        int lo = 0;
        int hi = rows.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (offset[mid] <= i) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
