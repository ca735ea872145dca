package dev.hetrace.sim;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.List;

/** Reading simulated traces back in tests: events by name, and function calls from entry/exit pairs. */
final class SimTraces {
    private SimTraces() {}

    /** One event as read: name, reported time, and the first string or number that names it. */
    record Read(String name, long timeNanos, String func) {}

    static List<Read> read(Path trace) throws Exception {
        List<Read> out = new ArrayList<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                String func = e.has("func") ? e.getString("func") : null;
                out.add(new Read(e.name(), e.timeNanos(), func));
            }
        }
        return out;
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
