package dev.hetrace.bench;

import com.sun.management.ThreadMXBean;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The state model's speed on one thread, against reading the same traces on the same thread in
 * the same run: per round, (1) every trace read with its own {@link CtfReader} (the sequential
 * cursor the state pass uses), each event's time taken; (2) {@link StateBuilder#build}; (3)
 * {@link Statistics#of}; (4) {@link StateBuilder#synchronizeAndBuild}, the synchronization and then
 * the state. Every step on one thread. Prints each round and the medians of the rounds after the warm-up
 * half, in wall time and in the thread's CPU time (less sensitive to other work on the
 * machine), with the bytes allocated per event.
 *
 * <pre>java -cp bench/target/hetrace-bench.jar dev.hetrace.bench.StateRate [--rounds N] TRACE...</pre>
 */
public final class StateRate {
    private StateRate() {}

    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Wall ns, CPU ns and bytes allocated by this thread. */
    private record Cost(long wall, long cpu, long bytes) {
        static Cost now() {
            long tid = Thread.currentThread().threadId();
            return new Cost(System.nanoTime(), MX.getCurrentThreadCpuTime(), MX.getThreadAllocatedBytes(tid));
        }

        Cost since(Cost start) {
            return new Cost(wall - start.wall, cpu - start.cpu, bytes - start.bytes);
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = 10;
        List<Path> traces = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rounds")) {
                rounds = Integer.parseInt(args[++i]);
            } else {
                traces.add(Path.of(args[i]));
            }
        }
        if (traces.isEmpty()) {
            System.err.println("usage: StateRate [--rounds N] TRACE...");
            System.exit(2);
        }
        Cost s0 = Cost.now();
        StateBuilder.Input in = StateBuilder.synchronize(traces, w -> {});
        Cost sync = Cost.now().since(s0);
        System.out.printf("synchronize: %.1f ms (thread CPU %.1f ms)%n", sync.wall / 1e6, sync.cpu / 1e6);
        List<Cost> reads = new ArrayList<>();
        List<Cost> states = new ArrayList<>();
        List<Cost> stats = new ArrayList<>();
        List<Cost> fused = new ArrayList<>();
        long events = 0;
        long intervals = 0;
        for (int round = 0; round < rounds; round++) {
            Cost a = Cost.now();
            long n = 0;
            long sum = 0;
            for (Path p : traces) {
                try (CtfReader r = CtfReader.open(List.of(p), w -> {})) {
                    Event e = r.event();
                    while (r.next()) {
                        n++;
                        sum += e.timeNanos();
                    }
                }
            }
            Cost read = Cost.now().since(a);
            Cost b = Cost.now();
            StateModel m =
                    StateBuilder.build(in, StateBuilder.Options.of(w -> {}).withThreads(1));
            Cost state = Cost.now().since(b);
            Cost c = Cost.now();
            Statistics.Table table = Statistics.of(m);
            Cost stat = Cost.now().since(c);
            long built = m.events();
            intervals = m.runs().size()
                    + m.calls().size()
                    + m.irqs().size()
                    + m.taskStates().size();
            m = null; // not kept while the next pass runs
            Cost f = Cost.now();
            StateModel once = traces.size() == 1
                    ? null
                    : StateBuilder.synchronizeAndBuild(
                                    traces,
                                    StateBuilder.Clocks.DEFAULT,
                                    StateBuilder.Options.of(w -> {}).withThreads(1))
                            .model();
            Cost oneReading = Cost.now().since(f);
            fused.add(oneReading);
            if (once != null && once.events() != built) {
                throw new IllegalStateException(
                        "the synchronizing pass read " + once.events() + " events, not " + built);
            }
            events = built;
            if (n != events) {
                throw new IllegalStateException("read " + n + " events, the state " + events);
            }
            reads.add(read);
            states.add(state);
            stats.add(stat);
            System.out.printf(
                    "round %d: read %.2f M ev/s (cpu %.2f), state %.2f M ev/s (cpu %.2f), %.1f B/ev,"
                            + " stats %.1f ms (%d rows), sync + state %.2f M ev/s (cpu %.2f)%s%n",
                    round,
                    rate(n, read.wall),
                    rate(n, read.cpu),
                    rate(events, state.wall),
                    rate(events, state.cpu),
                    (double) state.bytes / events,
                    stat.wall / 1e6,
                    table.rows().size(),
                    rate(events, oneReading.wall),
                    rate(events, oneReading.cpu),
                    (sum & 1) == 2 ? "" : "");
        }
        int from = rounds / 2;
        long readWall = median(reads.subList(from, rounds), Cost::wall);
        long readCpu = median(reads.subList(from, rounds), Cost::cpu);
        long stateWall = median(states.subList(from, rounds), Cost::wall);
        long stateCpu = median(states.subList(from, rounds), Cost::cpu);
        long statWall = median(stats.subList(from, rounds), Cost::wall);
        long bytes = median(states.subList(from, rounds), Cost::bytes);
        System.out.printf(
                "%n%d events, %d intervals, %d traces; medians of rounds %d-%d:%n",
                events, intervals, traces.size(), from, rounds - 1);
        System.out.printf(
                "read alone        %8.1f ms  %6.2f M ev/s  (thread CPU %6.2f M ev/s)%n",
                readWall / 1e6, rate(events, readWall), rate(events, readCpu));
        System.out.printf(
                "state model       %8.1f ms  %6.2f M ev/s  (thread CPU %6.2f M ev/s)  %.1f bytes/event%n",
                stateWall / 1e6, rate(events, stateWall), rate(events, stateCpu), (double) bytes / events);
        System.out.printf("statistics        %8.1f ms%n", statWall / 1e6);
        System.out.printf(
                "state+statistics  %8.1f ms  %6.2f M ev/s%n",
                (stateWall + statWall) / 1e6, rate(events, stateWall + statWall));
        System.out.printf(
                "state / read time %8.2f (CPU %.2f)%n", (double) stateWall / readWall, (double) stateCpu / readCpu);
        if (traces.size() > 1) {
            long fusedWall = median(fused.subList(from, rounds), Cost::wall);
            long fusedCpu = median(fused.subList(from, rounds), Cost::cpu);
            System.out.printf(
                    "synchronize + state (StateBuilder.synchronizeAndBuild, one thread)%n"
                            + "                  %8.1f ms  %6.2f M ev/s  (thread CPU %6.2f M ev/s)%n",
                    fusedWall / 1e6, rate(events, fusedWall), rate(events, fusedCpu));
            System.out.printf(
                    "synchronize, then state (two readings): synchronize %.1f ms + state %.1f ms%n",
                    sync.wall / 1e6, stateWall / 1e6);
        }
    }

    private static double rate(long events, long nanos) {
        return events / (nanos / 1e3);
    }

    private static long median(List<Cost> costs, java.util.function.ToLongFunction<Cost> f) {
        long[] v = costs.stream().mapToLong(f).toArray();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
