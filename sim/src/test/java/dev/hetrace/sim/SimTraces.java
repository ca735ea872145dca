package dev.hetrace.sim;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** Reading simulated traces back in tests: events by name, and function calls from entry/exit pairs. */
final class SimTraces {
    private SimTraces() {}

    /** One event as read: name, reported time, the function (func_entry/exit) or the next task (task_switch), and the previous task. */
    record Read(String name, long timeNanos, String func, String next, String prev) {
        Read(String name, long timeNanos, String func) {
            this(name, timeNanos, func, null, null);
        }
    }

    static List<Read> read(Path trace) throws Exception {
        List<Read> out = new ArrayList<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                String func = e.has("func") ? e.getString("func") : null;
                String next = e.has("next_task") ? e.getString("next_task") : null;
                String prev = e.has("prev_task") ? e.getString("prev_task") : null;
                out.add(new Read(e.name(), e.timeNanos(), func, next, prev));
            }
        }
        return out;
    }

    /** The stretches each task ran, from the task switches: {task, start, end} in the trace's ns, idle left out. */
    static List<Object[]> runs(List<Read> events) {
        List<Object[]> runs = new ArrayList<>();
        String current = null;
        long since = 0;
        for (Read e : events) {
            if (e.name().equals("task_switch")) {
                if (current != null && !current.equals("idle") && e.timeNanos() > since) {
                    runs.add(new Object[] {current, since, e.timeNanos()});
                }
                current = e.next();
                since = e.timeNanos();
            }
        }
        return runs;
    }

    /** Durations, in the trace's ns, of the calls of {@code func} (entry to matching exit), in order. */
    static List<long[]> calls(List<Read> events, String func) {
        List<long[]> calls = new ArrayList<>();
        ArrayDeque<Long> open = new ArrayDeque<>();
        for (Read e : events) {
            if (func.equals(e.func())) {
                if (e.name().equals("func_entry")) {
                    open.push(e.timeNanos());
                } else if (e.name().equals("func_exit")) {
                    calls.add(new long[] {open.pop(), e.timeNanos()});
                }
            }
        }
        return calls;
    }
}
