package dev.hetrace.analysis;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Messages: the send (time, core, task) linked to the receive (time, core, task) by queue and
 * message id, with the function each side was in. A side never seen is −1 with the flag
 * {@link StateModel#START_UNKNOWN} (no send) or {@link StateModel#END_UNKNOWN} (no receive).
 *
 * <p>Stored by rows ({@link LongRows}) of eight longs (core and task of a side share one, as do
 * the two calls).
 */
public final class MessageTable {
    private static final int W = 8;
    private static final int SEND_TIME = 0;
    private static final int SEND_WHO = 1;
    private static final int RECEIVE_TIME = 2;
    private static final int RECEIVE_WHO = 3;
    private static final int QUEUE = 4;
    private static final int ID = 5;
    private static final int FLAGS = 6;
    /** The send's call in the high half, the receive's in the low half. */
    private static final int CALLS = 7;

    private final LongRows rows = new LongRows(W);

    int send(long time, int core, int task, int call, long queue, long id) {
        return add(time, core, task, call, -1, -1, -1, -1, queue, id, StateModel.END_UNKNOWN);
    }

    void received(int row, long time, int core, int task, int call) {
        Objects.checkIndex(row, rows.size());
        MemorySegment c = rows.chunk(row);
        int o = rows.offset(row);
        c.setAtIndex(LongRows.L, o + RECEIVE_TIME, time);
        c.setAtIndex(LongRows.L, o + RECEIVE_WHO, LongRows.pair(core, task));
        c.setAtIndex(LongRows.L, o + CALLS, LongRows.pair(LongRows.high(c.getAtIndex(LongRows.L, o + CALLS)), call));
        c.setAtIndex(LongRows.L, o + FLAGS, c.getAtIndex(LongRows.L, o + FLAGS) & ~StateModel.END_UNKNOWN);
    }

    int receiveOnly(long time, int core, int task, int call, long queue, long id) {
        return add(-1, -1, -1, -1, time, core, task, call, queue, id, StateModel.START_UNKNOWN);
    }

    private int add(long st, int sc, int sk, int scall, long rt, int rc, int rk, int rcall, long q, long i, int f) {
        int o = rows.append();
        MemorySegment c = rows.lastChunk();
        c.setAtIndex(LongRows.L, o + SEND_TIME, st);
        c.setAtIndex(LongRows.L, o + SEND_WHO, LongRows.pair(sc, sk));
        c.setAtIndex(LongRows.L, o + RECEIVE_TIME, rt);
        c.setAtIndex(LongRows.L, o + RECEIVE_WHO, LongRows.pair(rc, rk));
        c.setAtIndex(LongRows.L, o + QUEUE, q);
        c.setAtIndex(LongRows.L, o + ID, i);
        c.setAtIndex(LongRows.L, o + FLAGS, f);
        c.setAtIndex(LongRows.L, o + CALLS, LongRows.pair(scall, rcall));
        return rows.size() - 1;
    }

    /** Reads rows {@code from} on into {@code block}, as {@link IntervalTable#read}; returns how many. */
    public int read(int from, int max, Block block) {
        return rows.read(from, max, block.raw);
    }

    /** Rows read at once ({@link #read}): row {@code j} of the block through the accessors. */
    public static final class Block {
        final long[] raw = new long[W * 1024];

        public long sendTime(int j) {
            return raw[j * W + SEND_TIME];
        }

        public int sendCore(int j) {
            return LongRows.high(raw[j * W + SEND_WHO]);
        }

        public int sendTask(int j) {
            return LongRows.low(raw[j * W + SEND_WHO]);
        }

        public long receiveTime(int j) {
            return raw[j * W + RECEIVE_TIME];
        }

        public int receiveCore(int j) {
            return LongRows.high(raw[j * W + RECEIVE_WHO]);
        }

        public int receiveTask(int j) {
            return LongRows.low(raw[j * W + RECEIVE_WHO]);
        }

        public long queue(int j) {
            return raw[j * W + QUEUE];
        }

        public long id(int j) {
            return raw[j * W + ID];
        }

        public int flags(int j) {
            return LongRows.low(raw[j * W + FLAGS]);
        }
    }

    private long slot(int i, int field) {
        return rows.get(i, field);
    }

    public int size() {
        return rows.size();
    }

    public long sendTime(int i) {
        return slot(i, SEND_TIME);
    }

    public int sendCore(int i) {
        return LongRows.high(slot(i, SEND_WHO));
    }

    public int sendTask(int i) {
        return LongRows.low(slot(i, SEND_WHO));
    }

    public long receiveTime(int i) {
        return slot(i, RECEIVE_TIME);
    }

    public int receiveCore(int i) {
        return LongRows.high(slot(i, RECEIVE_WHO));
    }

    public int receiveTask(int i) {
        return LongRows.low(slot(i, RECEIVE_WHO));
    }

    public long queue(int i) {
        return slot(i, QUEUE);
    }

    public long id(int i) {
        return slot(i, ID);
    }

    /** The function (a name id of {@link StateModel#name}) the sender was in when it sent, or −1 outside any call. */
    public int sendCall(int i) {
        return LongRows.high(slot(i, CALLS));
    }

    /** The function the receiver was in when it took the message, or −1. */
    public int receiveCall(int i) {
        return LongRows.low(slot(i, CALLS));
    }

    public int flags(int i) {
        return LongRows.low(slot(i, FLAGS));
    }
}
