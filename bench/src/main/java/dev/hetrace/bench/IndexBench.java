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
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The analysis index's build, measured on one core (DuckDB with one thread; the script pins the
 * JVM to one CPU): the ways to put the events into DuckDB, each timed on the same traces in the
 * same run, and the whole build (state model, statistics, every table) against the state model
 * alone.
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
            "events: table function, chunks of vectors (as the index)", "events: row appender (DuckDBAppender)",
            "events: TSV file + COPY FROM (read_csv)", "events: row appender, fields NULL",
            "state model + statistics (decode included)", "state + statistics + whole index (TraceIndex.build, synchronized input)"};
        long[][] times = new long[labels.length][rounds];
        for (int r = 0; r < rounds; r++) {
            int k = 0;
            times[k++][r] = time(() -> decode(in, names, false));
            times[k++][r] = time(() -> decode(in, names, true));
            times[k++][r] = time(() -> withDb(work, in, model, c -> IndexTables.appendEvents(c, in, null, model)));
            times[k++][r] = time(() -> withDb(work, in, model, c -> appender(c, in, names, true)));
            times[k++][r] = time(() -> withDb(work, in, model, c -> tsvCopy(c, in, names, work)));
            times[k++][r] = time(() -> withDb(work, in, model, c -> withoutFields(c, in, names)));
            times[k++][r] = time(() -> {
                StateModel m = StateBuilder.build(in, w -> { });
                Statistics.of(m);
                return m.events();
            });
            times[k++][r] = time(() -> {
                Path f = work.resolve("whole.duckdb");
                Files.deleteIfExists(f);
                long n = TraceIndex.build(f, in, null, Map.of(), w -> { }, 1);
                Files.deleteIfExists(f);
                return n;
            });
            System.err.printf(Locale.ROOT, "round %d done%n", r + 1);
        }
        System.out.printf("%n| step | median CPU s | events/s of CPU |%n|---|---:|---:|%n");
        for (int k = 0; k < labels.length; k++) {
            long[] t = times[k].clone();
            Arrays.sort(t);
            double s = t[rounds / 2] / 1e9;
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.2f M |%n", labels[k], s, events / s / 1e6);
        }
        try (var s = Files.list(work)) {
            for (Path p : s.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(work);
    }

    @FunctionalInterface
    private interface Step {
        long run() throws Exception;
    }

    @FunctionalInterface
    private interface DbStep {
        long run(DuckDBConnection c) throws Exception;
    }

    private static long sink;

    private static final com.sun.management.OperatingSystemMXBean OS =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    /**
     * The CPU time the process spent on the step (every thread: the JVM's compiler and
     * collector, DuckDB's): on a shared machine, what the step costs whatever else runs.
     */
    private static long time(Step s) throws Exception {
        long t0 = OS.getProcessCpuTime();
        sink += s.run();
        return OS.getProcessCpuTime() - t0;
    }

    private static long withDb(Path work, StateBuilder.Input in, StateModel model, DbStep step) throws Exception {
        Path f = work.resolve("events.duckdb");
        Files.deleteIfExists(f);
        try (DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + f)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET threads = 1");
            }
            IndexTables.createFor(c, in, null, model);
            long t0 = OS.getProcessCpuTime();
            long n = step.run(c);
            long t1 = OS.getProcessCpuTime();
            try (Statement s = c.createStatement()) {
                s.execute("CHECKPOINT");
            }
            long t2 = OS.getProcessCpuTime();
            System.err.printf(Locale.ROOT, "  ingest %.3f s, checkpoint %.3f s CPU%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9);
            return n;
        } finally {
            Files.deleteIfExists(f);
        }
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

    /** The same rows through DuckDB's row appender (the core column is the trace's: these traces have one core each). */
    private static long appender(DuckDBConnection c, StateBuilder.Input in, List<String> names, boolean fields) throws Exception {
        try (DuckDBAppender a = c.createAppender("events")) {
            TextSink json = new TextSink(null);
            JsonText text = new JsonText(json);
            return eachEvent(in, names, (cursor, map) -> {
                String trace = names.get(traceIndex(in, cursor));
                a.beginRow().append(trace).append(cursor.trace().streamId(cursor.stream()))
                    .append(map.apply(cursor.timeNanos())).append(cursor.decoder().event().cls.name()).append(trace);
                if (fields) {
                    json.clear();
                    text.fields(cursor.decoder());
                    a.append(Arrays.copyOf(json.buffer(), json.length()));
                } else {
                    a.appendNull();
                }
                a.endRow();
                return 0;
            });
        }
    }

    /** The table function's rows without the JSON: what the fields cost (a copy of the index's rows, fields dropped). */
    private static long withoutFields(DuckDBConnection c, StateBuilder.Input in, List<String> names) throws Exception {
        return appender(c, in, names, false);
    }

    private static int traceIndex(StateBuilder.Input in, EventCursor cursor) {
        Path dir = cursor.trace().directory().toAbsolutePath().normalize();
        for (int i = 0; i < in.traces().size(); i++) {
            if (in.traces().get(i).toAbsolutePath().normalize().equals(dir)) {
                return i;
            }
        }
        return 0;
    }

    /**
     * The other way in: the rows written by Java as tab-separated text (the JSON holds no tab
     * nor newline: JsonText escapes control characters), then loaded by DuckDB's CSV reader.
     */
    private static long tsvCopy(DuckDBConnection c, StateBuilder.Input in, List<String> names, Path work) throws Exception {
        Path f = work.resolve("events.tsv");
        long n;
        try (OutputStream out = Files.newOutputStream(f)) {
            TextSink tsv = new TextSink(out);
            JsonText json = new JsonText(tsv);
            n = eachEvent(in, names, (cursor, map) -> {
                String trace = cursor.trace().directory().getFileName().toString();
                tsv.put(trace).put('\t').putDecimal(cursor.trace().streamId(cursor.stream())).put('\t')
                    .putDecimal(map.apply(cursor.timeNanos())).put('\t').put(cursor.decoder().event().cls.name())
                    .put('\t').put(trace).put('\t');
                json.fields(cursor.decoder());
                tsv.put('\n');
                tsv.lineDone();
                return 0;
            });
            tsv.flush();
        }
        try (Statement s = c.createStatement()) {
            s.execute("COPY events FROM '" + f + "' (FORMAT csv, DELIMITER '\t', QUOTE '', ESCAPE '', HEADER false)");
        }
        Files.delete(f);
        return n;
    }
}
