package dev.hetrace.analysis;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A rough measure, not a test: events per second and bytes allocated per event of the state
 * builder (decoding included) and of the statistics, on traces given as arguments.
 * Run: java -cp ... dev.hetrace.analysis.StateBench TRACE...
 */
public final class StateBench {
    private StateBench() {}

    public static void main(String[] args) throws Exception {
        List<Path> traces = new ArrayList<>();
        for (String a : args) {
            traces.add(Path.of(a));
        }
        StateBuilder.Input in = StateBuilder.synchronize(traces, w -> { });
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        for (int round = 0; round < 4; round++) {
            // the reader alone, for comparison: every event decoded, its name and time read
            long a0 = mx.getThreadAllocatedBytes(tid);
            long t0 = System.nanoTime();
            long n = 0;
            long sum = 0;
            for (Path p : traces) {
                try (dev.hetrace.ctf.api.CtfReader r = dev.hetrace.ctf.api.CtfReader.open(p)) {
                    while (r.next()) {
                        n++;
                        sum += r.event().timeNanos() + r.event().name().length();
                    }
                }
            }
            long t1 = System.nanoTime();
            System.out.printf("reader alone: %d events, %.2f M events/s, %.1f bytes/event (%d)%n", n, n / ((t1 - t0) / 1e3),
                (double) (mx.getThreadAllocatedBytes(tid) - a0) / n, sum & 1);
        }
        for (int round = 0; round < 8; round++) {
            long a0 = mx.getThreadAllocatedBytes(tid);
            long t0 = System.nanoTime();
            StateModel m = StateBuilder.build(in, w -> { });
            long t1 = System.nanoTime();
            long a1 = mx.getThreadAllocatedBytes(tid);
            Statistics.Table table = Statistics.of(m);
            long t2 = System.nanoTime();
            System.out.printf("round %d: %d events, state %.2f M events/s, %.1f bytes/event; %d intervals; stats %.1f ms (%d rows)%n",
                round, m.events(), m.events() / ((t1 - t0) / 1e3), (double) (a1 - a0) / m.events(),
                m.runs().size() + m.calls().size() + m.irqs().size() + m.taskStates().size(), (t2 - t1) / 1e6,
                table.rows().size());
        }
    }
}
