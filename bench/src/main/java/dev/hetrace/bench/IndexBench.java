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
 * JVM to one CPU): the steps of the build, each timed on the same traces in the same run, and the
 * whole build (state model, statistics, every table) against the state model alone.
 *
 * <p>Run: {@code bench/index.sh} (or {@code java -cp hetrace-bench.jar dev.hetrace.bench.IndexBench ROUNDS TRACE...}).
 */
public final class IndexBench {
    private IndexBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        List<Path> traces = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            traces.add(Path.of(args[i]));
        }
        Path work = Files.createTempDirectory("hetrace-index-bench");
        StateBuilder.Input in = StateBuilder.synchronize(traces, w -> { });
        StateModel model = StateBuilder.build(in, w -> { });
        List<String> names = model.traceNames();
        long events = model.events();
        System.out.printf(Locale.ROOT, "%d traces, %,d events; %d rounds, medians%n", traces.size(), events, rounds);

        String[] labels = {"decode only (reader: time, name)", "decode + fields as JSON (no DuckDB)",
            "state model + statistics (decode included)", "state + statistics + events' narrow rows (one pass, no DuckDB)",
            "events' Parquet file alone (rows kept by the pass)",
            "intervals', calls' and messages' Parquet files alone",
            "state + statistics + whole index (TraceIndex.build, synchronized input)",
            "fields of the first 10,000 events through the events view (per 10,000)"};
        long[][] times = new long[labels.length][rounds];
        Path whole = work.resolve("whole.index");
        for (int r = 0; r < rounds; r++) {
            int k = 0;
            times[k++][r] = time(() -> decode(in, names, false));
            times[k++][r] = time(() -> decode(in, names, true));
            times[k++][r] = time(() -> {
                StateModel m = StateBuilder.build(in, w -> { });
                Statistics.of(m);
                return m.events();
            });
            IndexTables.StateWithEvents[] made = new IndexTables.StateWithEvents[1];
            times[k++][r] = time(() -> {
                made[0] = IndexTables.stateWithEvents(in, null);
                Statistics.of(made[0].model());
                return made[0].model().events();
            });
            times[k++][r] = time(() -> {
                Path f = work.resolve("events.parquet");
                try {
                    return IndexTables.writeEvents(f, made[0]);
                } finally {
                    Files.deleteIfExists(f);
                }
            });
            times[k++][r] = time(() -> {
                try {
                    IndexTables.writeModelTables(work, made[0].model());
                    return made[0].model().runs().size();
                } finally {
                    for (String t : List.of("intervals", "calls", "messages")) {
                        Files.deleteIfExists(work.resolve(t + ".parquet"));
                    }
                }
            });
            made[0] = null;
            times[k++][r] = time(() -> {
                TraceIndex.deleteTree(whole);
                return TraceIndex.build(whole, in, null, Map.of(), w -> { }, 1);
            });
            times[k++][r] = time(() -> {
                try (java.sql.Connection c = TraceIndex.connect(whole)) {
                    try (Statement s = c.createStatement()) {
                        s.execute("SET threads = 1");
                    }
                    try (Statement s = c.createStatement();
                         var rs = s.executeQuery("SELECT sum(length(fields::varchar)) FROM (SELECT fields FROM events LIMIT 10000)")) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
            });
            TraceIndex.deleteTree(whole);
            System.err.printf(Locale.ROOT, "round %d done%n", r + 1);
        }
        System.out.printf("%n| step | median CPU s | events/s of CPU |%n|---|---:|---:|%n");
        for (int k = 0; k < labels.length; k++) {
            long[] t = times[k].clone();
            Arrays.sort(t);
            double s = t[rounds / 2] / 1e9;
            System.out.printf(Locale.ROOT, "| %s | %.3f | %s |%n", labels[k], s,
                k == labels.length - 1 ? String.format(Locale.ROOT, "%.1f µs per event", s / 10_000 * 1e6)
                    : String.format(Locale.ROOT, "%.2f M", events / s / 1e6));
        }
        TraceIndex.deleteTree(work);
    }

    @FunctionalInterface
    private interface Step {
        long run() throws Exception;
    }

    private static long sink;

    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

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
            try (CtfReader r = CtfReader.open(List.of(in.traces().get(i)), w -> { })) {
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
