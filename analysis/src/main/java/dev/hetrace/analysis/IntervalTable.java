package dev.hetrace.analysis;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Intervals: start and end (ns on the reference clock), the owner (a core or a task), the
 * subject (the task, function or interrupt), a state, a depth, flags
 * ({@link StateModel#START_UNKNOWN}...) and, for calls, the self time.
 *
 * <p>Stored by rows ({@link LongRows}), five longs each (owner and subject share one; state,
 * flags and depth another: the state in the top 24 bits, the flags in the next 8, the depth in
 * the low 32), so that a table of millions of intervals touches as little new memory as it can.
 */
public final class IntervalTable {
    private static final int W = 5;
    // the fields of a row: owner and subject share one (high, low halves); state, flags and depth another
    private static final int START = 0;
    private static final int END = 1;
    private static final int WHO = 2;
    private static final int STATE_FLAGS_DEPTH = 3;
    private static final int SELF = 4;

    private final LongRows rows;

    int add(long start, long end, int owner, int subject, int state, int depth, int flags, long self) {
        long packed = stateFlagsDepth(state, flags, depth); // checked before the row is added
        int o = rows.append();
        MemorySegment c = rows.lastChunk();
        c.setAtIndex(LongRows.L, o, start);
        c.setAtIndex(LongRows.L, o + 1, end);
        c.setAtIndex(LongRows.L, o + 2, LongRows.pair(owner, subject));
        c.setAtIndex(LongRows.L, o + 3, packed);
        c.setAtIndex(LongRows.L, o + 4, self);
        return rows.size() - 1;
    }

    private static long stateFlagsDepth(int state, int flags, int depth) {
        if ((flags & ~0xFF) != 0 || state != (state << 8) >> 8) {
            throw new IllegalArgumentException(
                    "an interval's flags take 8 bits, its state 24: " + flags + ", " + state);
        }
        return ((long) state << 40) | ((long) flags << 32) | (depth & 0xFFFFFFFFL);
    }

    private static int state(long v) {
        return (int) (v >> 40);
    }

    private static int flags(long v) {
        return (int) (v >>> 32) & 0xFF;
    }

    private IntervalTable(int rows) {
        this.rows = new LongRows(W, rows);
    }

    IntervalTable() {
        this.rows = new LongRows(W);
    }

    /**
     * The rows of {@code parts} one after the other, each part's owners and subjects renumbered
     * through its {@code owners} and {@code subjects} (null: kept; a negative subject is kept),
     * its times as they are (the passes made them on the reference clock). Each part is copied
     * by one of the {@code copies} added (several may run at once on different threads), except
     * a lone part already numbered as the model (one trace): that one is returned as it is,
     * shared, not copied.
     */
    static IntervalTable concat(IntervalTable[] parts, int[][] owners, int[][] subjects, List<Runnable> copies) {
        if (parts.length == 1
                && identity(owners == null ? null : owners[0])
                && identity(subjects == null ? null : subjects[0])) {
            return parts[0];
        }
        int total = 0;
        for (IntervalTable p : parts) {
            total = Math.addExact(total, p.size());
        }
        IntervalTable out = new IntervalTable(total);
        int at = 0;
        for (int k = 0; k < parts.length; k++) {
            IntervalTable part = parts[k];
            int from = at;
            int[] o = owners == null ? null : owners[k];
            int[] s = subjects == null ? null : subjects[k];
            if (part.size() > 0) {
                copies.add(() -> out.copy(from, part, o, s));
            }
            at += part.size();
        }
        return out;
    }

    private static boolean identity(int[] ids) {
        if (ids != null) {
            for (int k = 0; k < ids.length; k++) {
                if (ids[k] != k) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Copies every row of {@code from} to rows {@code at} on, renumbered; drops {@code from}'s
     * storage as it goes. Rows are copied a run at a time, each run within one chunk of either
     * table, so that the loop over a run reads and writes two segments it holds.
     */
    private void copy(int at, IntervalTable from, int[] owners, int[] subjects) {
        int n = from.size();
        for (int i = 0; i < n; ) {
            int run = Math.min(n - i, Math.min(from.rows.rowsInChunkFrom(i), rows.rowsInChunkFrom(at)));
            MemorySegment s = from.rows.chunk(i);
            MemorySegment c = rows.chunkToWrite(at);
            copyRun(s, from.rows.offset(i), c, rows.offset(at), run, owners, subjects);
            i += run;
            at += run;
            from.rows.releaseBefore(i);
        }
    }

    /** Copies {@code run} rows from {@code s} at long {@code so} to {@code c} at {@code o}, renumbered. */
    private static void copyRun(
            MemorySegment s, int so, MemorySegment c, int o, int run, int[] owners, int[] subjects) {
        MemorySegment.copy(s, LongRows.L, (long) so * Long.BYTES, c, LongRows.L, (long) o * Long.BYTES, (long) run * W);
        if (owners == null && subjects == null) {
            return;
        }
        for (int j = 0, w = o + WHO; j < run; j++, w += W) {
            long os = c.getAtIndex(LongRows.L, w);
            int owner = LongRows.high(os);
            int subject = LongRows.low(os);
            if (owners != null) {
                owner = owners[owner];
            }
            if (subjects != null && subject >= 0) {
                subject = subjects[subject];
            }
            c.setAtIndex(LongRows.L, w, LongRows.pair(owner, subject));
        }
    }

    /**
     * Reads rows {@code from} on into {@code block} (up to {@code max}; fewer where the storage's
     * chunk ends): a pass over a whole table reads its rows a block at a time, each row's fields
     * from {@code block}'s accessors. Returns how many rows (0 past the last).
     */
    public int read(int from, int max, Block block) {
        return rows.read(from, max, block.raw);
    }

    /** Rows read at once ({@link #read}): row {@code j} of the block through the accessors. */
    public static final class Block {
        final long[] raw = new long[W * 1024];

        public long start(int j) {
            return raw[j * W + START];
        }

        public long end(int j) {
            return raw[j * W + END];
        }

        public int owner(int j) {
            return LongRows.high(raw[j * W + WHO]);
        }

        public int subject(int j) {
            return LongRows.low(raw[j * W + WHO]);
        }

        public int state(int j) {
            return IntervalTable.state(raw[j * W + STATE_FLAGS_DEPTH]);
        }

        public int depth(int j) {
            return LongRows.low(raw[j * W + STATE_FLAGS_DEPTH]);
        }

        public int flags(int j) {
            return IntervalTable.flags(raw[j * W + STATE_FLAGS_DEPTH]);
        }

        public long self(int j) {
            return raw[j * W + SELF];
        }
    }

    private long slot(int i, int field) {
        return rows.get(i, field);
    }

    public int size() {
        return rows.size();
    }

    public long start(int i) {
        return slot(i, START);
    }

    public long end(int i) {
        return slot(i, END);
    }

    public long duration(int i) {
        return end(i) - start(i);
    }

    public int owner(int i) {
        return LongRows.high(slot(i, WHO));
    }

    public int subject(int i) {
        return LongRows.low(slot(i, WHO));
    }

    void subject(int i, int value) {
        rows.set(i, WHO, LongRows.pair(owner(i), value));
    }

    public int state(int i) {
        return state(slot(i, STATE_FLAGS_DEPTH));
    }

    public int depth(int i) {
        return LongRows.low(slot(i, STATE_FLAGS_DEPTH));
    }

    public int flags(int i) {
        return flags(slot(i, STATE_FLAGS_DEPTH));
    }

    public long self(int i) {
        return slot(i, SELF);
    }

    /**
     * Adds {@code flag} to every row that overlaps one of the windows {@code [begins[k], ends[k]]}
     * (disjoint, in order).
     */
    void flagOverlapping(long[] begins, long[] ends, int flag) {
        for (int i = 0; i < size(); i++) {
            long s = start(i);
            long e = end(i);
            // the last window that begins before the row's end (or at it, for an instant)
            int lo = 0;
            int hi = begins.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (begins[mid] < e || begins[mid] == e && s == e) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (lo > 0 && (ends[lo - 1] > s || ends[lo - 1] == s && s == e)) {
                long v = slot(i, STATE_FLAGS_DEPTH);
                rows.set(i, STATE_FLAGS_DEPTH, v | ((long) flag << 32));
            }
        }
    }
}
