package dev.hetrace.analysis;

/**
 * Messages as columns: the send (time, core, task) linked to the receive (time, core, task) by
 * queue and message id. A side never seen is −1 with the flag {@link StateModel#START_UNKNOWN}
 * (no send) or {@link StateModel#END_UNKNOWN} (no receive).
 */
public final class MessageTable {
    private final LongColumn sendTime = new LongColumn();
    private final IntColumn sendCore = new IntColumn();
    private final IntColumn sendTask = new IntColumn();
    private final LongColumn receiveTime = new LongColumn();
    private final IntColumn receiveCore = new IntColumn();
    private final IntColumn receiveTask = new IntColumn();
    private final LongColumn queue = new LongColumn();
    private final LongColumn id = new LongColumn();
    private final IntColumn flags = new IntColumn();
    private final IntColumn sendCall = new IntColumn();
    private final IntColumn receiveCall = new IntColumn();

    int send(long time, int core, int task, int call, long queue, long id) {
        int row = add(time, core, task, -1, -1, -1, queue, id, StateModel.END_UNKNOWN);
        sendCall.add(call);
        receiveCall.add(-1);
        return row;
    }

    void received(int row, long time, int core, int task, int call) {
        receiveTime.set(row, time);
        receiveCore.set(row, core);
        receiveTask.set(row, task);
        receiveCall.set(row, call);
        flags.set(row, flags.get(row) & ~StateModel.END_UNKNOWN);
    }

    int receiveOnly(long time, int core, int task, int call, long queue, long id) {
        int row = add(-1, -1, -1, time, core, task, queue, id, StateModel.START_UNKNOWN);
        sendCall.add(-1);
        receiveCall.add(call);
        return row;
    }

    private int add(long st, int sc, int sk, long rt, int rc, int rk, long q, long i, int f) {
        sendTime.add(st);
        sendCore.add(sc);
        sendTask.add(sk);
        receiveTime.add(rt);
        receiveCore.add(rc);
        receiveTask.add(rk);
        queue.add(q);
        id.add(i);
        flags.add(f);
        return flags.size() - 1;
    }

    public int size() {
        return flags.size();
    }

    public long sendTime(int i) {
        return sendTime.get(i);
    }

    public int sendCore(int i) {
        return sendCore.get(i);
    }

    public int sendTask(int i) {
        return sendTask.get(i);
    }

    public long receiveTime(int i) {
        return receiveTime.get(i);
    }

    public int receiveCore(int i) {
        return receiveCore.get(i);
    }

    public int receiveTask(int i) {
        return receiveTask.get(i);
    }

    public long queue(int i) {
        return queue.get(i);
    }

    public long id(int i) {
        return id.get(i);
    }

    /** The function (a name id of {@link StateModel#name}) the sender was in when it sent, or −1 outside any call. */
    public int sendCall(int i) {
        return sendCall.get(i);
    }

    /** The function the receiver was in when it took the message, or −1. */
    public int receiveCall(int i) {
        return receiveCall.get(i);
    }

    public int flags(int i) {
        return flags.get(i);
    }
}
