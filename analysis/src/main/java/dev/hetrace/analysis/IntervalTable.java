package dev.hetrace.analysis;

/**
 * Intervals as columns: start and end (ns on the reference clock), the owner (a core or a task),
 * the subject (the task, function or interrupt), a state, a depth, flags
 * ({@link StateModel#START_UNKNOWN}...) and, for calls, the self time.
 */
public final class IntervalTable {
    private final LongColumn start = new LongColumn();
    private final LongColumn end = new LongColumn();
    private final IntColumn owner = new IntColumn();
    private final IntColumn subject = new IntColumn();
    private final IntColumn state = new IntColumn();
    private final IntColumn depth = new IntColumn();
    private final IntColumn flags = new IntColumn();
    private final LongColumn self = new LongColumn();

    int add(long start, long end, int owner, int subject, int state, int depth, int flags, long self) {
        this.start.add(start);
        this.end.add(end);
        this.owner.add(owner);
        this.subject.add(subject);
        this.state.add(state);
        this.depth.add(depth);
        this.flags.add(flags);
        this.self.add(self);
        return this.start.size() - 1;
    }

    public int size() {
        return start.size();
    }

    public long start(int i) {
        return start.get(i);
    }

    public long end(int i) {
        return end.get(i);
    }

    public long duration(int i) {
        return end.get(i) - start.get(i);
    }

    public int owner(int i) {
        return owner.get(i);
    }

    public int subject(int i) {
        return subject.get(i);
    }

    void subject(int i, int value) {
        subject.set(i, value);
    }

    public int state(int i) {
        return state.get(i);
    }

    public int depth(int i) {
        return depth.get(i);
    }

    public int flags(int i) {
        return flags.get(i);
    }

    public long self(int i) {
        return self.get(i);
    }
}
