package dev.hetrace.bench;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.index.IndexTables;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import dev.hetrace.sync.PiecewiseMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The analysis index's build, measured on one core (DuckDB with one thread; the script pins the
 * JVM to one CPU): the steps of the build, each timed on the same traces, and the whole build
 * (state model, statistics, every table) against the state model alone.
 *
 * <p>Each step runs in a JVM of its own ({@code STEP} given), as a build runs in a process that
 * does only that: in one JVM, the steps' code paths share the JIT's profiles (the same reader,
 * tables and writers called from different places), and a step measured after the others ran
 * 15 to 25 % slower than in a process of its own. Without {@code STEP}, every step in turn in
 * this JVM, as before 2026-11-27.
 *
 * <p>Run: {@code bench/index.sh} (or {@code java -cp hetrace-bench.jar dev.hetrace.bench.IndexBench [--step K] ROUNDS TRACE...}).
 */
public final class IndexBench {
    private IndexBench() {}

    /** Rounds not counted (when there are more): the JIT compiles the build's code during the first two. */
    private static final int WARM_UP = 2;

    /** The steps, by number. */
    static final String[] LABELS = {
        "decode only (reader: time, name)",
        "decode + fields as JSON (no DuckDB)",
        "state model + statistics (decode included)",
        "state + statistics + events' narrow rows (one pass, no DuckDB)",
        "events' Parquet file alone (rows kept by the pass)",
        "intervals', calls' and messages' Parquet files alone",
        "state + statistics + whole index (TraceIndex.build, synchronized input)",
        "fields of the first 10,000 events through the events view (per 10,000)"
    };

    public static void main(String[] args) throws Exception {
        int a = 0;
        int only = -1;
        if (args[a].equals("--step")) {
            only = Integer.parseInt(args[a + 1]);
            a += 2;
        }
        int rounds = Integer.parseInt(args[a++]);
        List<Path> traces = new ArrayList<>();
        for (int i = a; i < args.length; i++) {
            traces.add(Path.of(args[i]));
        }
        Path work = Files.createTempDirectory("hetrace-index-bench");
        StateBuilder.Input in = StateBuilder.synchronize(traces, w -> {});
        List<String> names = new ArrayList<>();
        for (Path p : traces) {
            names.add(p.toAbsolutePath().normalize().getFileName().toString());
        }
        long events;
        long counted = -1;
        long[][] times = new long[LABELS.length][rounds];
        Path whole = work.resolve("whole.index");
        IndexTables.StateWithEvents[] made = new IndexTables.StateWithEvents[1];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < LABELS.length; k++) {
                if (only >= 0 && k != only) {
                    continue;
                }
                // what a step reads that an earlier step makes, made untimed
                if ((k == 4 || k == 5) && made[0] == null) {
                    made[0] = IndexTables.stateWithEvents(in, null);
                }
                if (k == 7 && !Files.exists(whole)) {
                    TraceIndex.build(whole, in, null, Map.of(), w -> {}, 1);
                }
                // what a step writes is deleted untimed: the kernel's work of dropping the files is not the build's
                try (var written = Files.newDirectoryStream(work, "*.parquet")) {
                    for (Path f : written) {
                        Files.delete(f);
                    }
                }
                if (k == 6) {
                    TraceIndex.deleteTree(whole);
                }
                long before = sink;
                times[k][r] = switch (k) {
                    case 0 -> time(() -> decode(in, names, false));
                    case 1 -> time(() -> decode(in, names, true));
                    case 2 ->
                        time(() -> {
                            StateModel m = StateBuilder.build(in, StateBuilder.Options.of(w -> {}));
                            Statistics.of(m);
                            return m.events();
                        });
                    case 3 ->
                        time(() -> {
                            made[0] = null;
                            made[0] = IndexTables.stateWithEvents(in, null);
                            Statistics.of(made[0].model());
                            return made[0].model().events();
                        });
                    case 4 -> time(() -> IndexTables.writeEvents(work.resolve("events.parquet"), made[0]));
                    case 5 ->
                        time(() -> {
                            IndexTables.writeModelTables(work, made[0].model());
                            return made[0].model().runs().size();
                        });
                    case 6 -> time(() -> TraceIndex.build(whole, in, null, Map.of(), w -> {}, 1));
                    default ->
                        time(() -> {
                            try (java.sql.Connection c = TraceIndex.connect(whole)) {
                                try (Statement s = c.createStatement()) {
                                    s.execute("SET threads = 1");
                                }
                                try (Statement s = c.createStatement();
                                        var rs = s.executeQuery(
                                                "SELECT sum(length(fields::varchar)) FROM (SELECT fields FROM events LIMIT 10000)")) {
                                    rs.next();
                                    return rs.getLong(1);
                                }
                            }
                        });
                };
                if (counted < 0 && (k == 4 || k == 5)) {
                    counted = made[0].model().events();
                } else if (counted < 0 && (k == 2 || k == 3 || k == 6)) {
                    counted = sink - before; // these steps return the model's count of events
                }
                if (k == 5 && only < 0) {
                    made[0] = null; // the next round's state pass makes it again
                }
            }
            System.err.printf(Locale.ROOT, "round %d done%n", r + 1);
        }
        // known from a step that made the model; else (decoding or reading steps only) counted by a read
        events = counted >= 0 ? counted : eachEvent(in, names, (cursor, map) -> 0);
        System.out.printf(
                Locale.ROOT,
                "%d traces, %,d events; %d rounds, medians of rounds %d to %d%n",
                traces.size(),
                events,
                rounds,
                WARM_UP < rounds ? WARM_UP + 1 : 1,
                rounds);
        System.out.printf("%n| step | median CPU s | events/s of CPU |%n|---|---:|---:|%n");
        for (int k = 0; k < LABELS.length; k++) {
            if (only >= 0 && k != only) {
                continue;
            }
            // the first rounds warm the JIT up: the median of the others
            long[] t = Arrays.copyOfRange(times[k], WARM_UP < rounds ? WARM_UP : 0, rounds);
            Arrays.sort(t);
            double s = t[t.length / 2] / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.3f | %s |%n",
                    LABELS[k],
                    s,
                    k == LABELS.length - 1
                            ? String.format(Locale.ROOT, "%.1f µs per event", s / 10_000 * 1e6)
                            : s == 0
                                    ? "(under the clock's 10 ms)"
                                    : String.format(Locale.ROOT, "%.2f M", events / s / 1e6));
        }
        TraceIndex.deleteTree(work);
    }

    @FunctionalInterface
    private interface Step {
        long run() throws Exception;
    }

    private static long sink;

    private static final com.sun.management.OperatingSystemMXBean OS = (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /**
     * The CPU time the process spent on the step (every thread: the JVM's compiler and
     * collector, DuckDB's): on a shared machine, what the step costs whatever else runs.
     */
    private static long time(Step s) throws Exception {
        // what the steps before left (garbage on the heap, native memory of dropped tables, freed
        // only when a collection finds it unreachable) is collected first, untimed: each step
        // starts as it would in a process of its own
        System.gc();
        Thread.sleep(500);
        long t0 = OS.getProcessCpuTime();
        sink += s.run();
        return OS.getProcessCpuTime() - t0;
    }

    /** Every event read, its time mapped, and optionally its fields written as JSON into a buffer. */
    private static long decode(StateBuilder.Input in, List<String> names, boolean json) throws Exception {
        return eachEvent(in, names, (cursor, map) -> {
            long t = map.apply(cursor.timeNanos());
            if (json) {
                SINK.clear();
                JSON.fields(cursor.decoder());
                t += SINK.length();
            }
            return t + cursor.decoder().event().cls.id();
        });
    }

    private static final TextSink SINK = new TextSink(null);
    private static final JsonText JSON = new JsonText(SINK);

    @FunctionalInterface
    private interface PerEvent {
        long accept(EventCursor cursor, PiecewiseMap map) throws Exception;
    }

    private static long eachEvent(StateBuilder.Input in, List<String> names, PerEvent f) throws Exception {
        long n = 0;
        long sum = 0;
        for (int i = 0; i < names.size(); i++) {
            PiecewiseMap map = in.maps().get(i);
            try (CtfReader r = CtfReader.open(List.of(in.traces().get(i)), w -> {})) {
                EventCursor cursor = r.cursor();
                while (r.next()) {
                    sum += f.accept(cursor, map);
                    n++;
                }
            }
        }
        return n + (sum & 1);
    }
}
