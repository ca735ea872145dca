package dev.hetrace.analysis;

/**
 * Intervals: start and end (ns on the reference clock), the owner (a core or a task), the
 * subject (the task, function or interrupt), a state, a depth, flags
 * ({@link StateModel#START_UNKNOWN}...) and, for calls, the self time.
 *
 * <p>Stored by rows ({@link LongRows}), six longs each (owner and subject share one, state and
 * depth another).
 */
public final class IntervalTable {
    private static final int W = 6;

    private final LongRows rows = new LongRows(W);

    int add(long start, long end, int owner, int subject, int state, int depth, int flags, long self) {
        int o = rows.append();
        long[] c = rows.lastChunk();
        c[o] = start;
        c[o + 1] = end;
        c[o + 2] = ((long) owner << 32) | (subject & 0xFFFFFFFFL);
        c[o + 3] = ((long) state << 32) | (depth & 0xFFFFFFFFL);
        c[o + 4] = flags;
        c[o + 5] = self;
        return rows.size() - 1;
    }

    private long slot(int i, int field) {
        return rows.get(i, field);
    }

    public int size() {
        return rows.size();
    }

    public long start(int i) {
        return slot(i, 0);
    }

    public long end(int i) {
        return slot(i, 1);
    }

    public long duration(int i) {
        return end(i) - start(i);
    }

    public int owner(int i) {
        return (int) (slot(i, 2) >>> 32);
    }

    public int subject(int i) {
        return (int) slot(i, 2);
    }

    void subject(int i, int value) {
        rows.set(i, 2, (slot(i, 2) & 0xFFFFFFFF00000000L) | (value & 0xFFFFFFFFL));
    }

    public int state(int i) {
        return (int) (slot(i, 3) >>> 32);
    }

    public int depth(int i) {
        return (int) slot(i, 3);
    }

    public int flags(int i) {
        return (int) slot(i, 4);
    }

    public long self(int i) {
        return slot(i, 5);
    }
}
