package dev.hetrace.sim;

import java.util.PriorityQueue;

/**
 * The discrete-event engine of the simulation, in true time (ns): actions run in the order of
 * their time, and actions due at the same time in the order they were scheduled, so that a
 * run depends on nothing but its inputs and its seed.
 */
final class EventLoop {
    private record Due(long time, long seq, Runnable action) implements Comparable<Due> {
        @Override
        public int compareTo(Due o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Due> queue = new PriorityQueue<>();
    private long now;
    private long seq;

    long now() {
        return now;
    }

    /** Runs {@code action} at true time {@code time} (not before now). */
    void at(long time, Runnable action) {
        if (time < now) {
            throw new IllegalArgumentException("cannot schedule at " + time + " ns, before now (" + now + " ns)");
        }
        queue.add(new Due(time, seq++, action));
    }

    void after(long delay, Runnable action) {
        at(now + delay, action);
    }

    /** Runs every action due up to {@code end} ns; later ones are left undone. */
    void runUntil(long end) {
        while (!queue.isEmpty() && queue.peek().time() <= end) {
            Due d = queue.poll();
            now = d.time();
            d.action().run();
        }
        now = Math.max(now, end);
    }
}
