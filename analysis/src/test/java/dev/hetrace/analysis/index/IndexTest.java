package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index's tables hold what the state model, the statistics, the synchronization and a
 * direct read of the events say; the cache is reused while the traces are unchanged.
 */
class IndexTest {
    @TempDir
    Path dir;

    private static long one(Connection c, String sql) throws Exception {
        try (PreparedStatement s = c.prepareStatement(sql);
                ResultSet r = s.executeQuery()) {
            assertThat(r.next()).as(sql).isTrue();
            return r.getLong(1);
        }
    }

    private static List<String> strings(Connection c, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql);
                ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    /** Per event name, the events of the trace read directly. */
    private static Map<String, Long> directCounts(Path trace) throws Exception {
        Map<String, Long> out = new HashMap<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                out.merge(r.event().name(), 1L, Long::sum);
            }
        }
        return out;
    }

    private static List<Path> board(Simulation.Result r) {
        List<Path> traces = new ArrayList<>();
        traces.add(r.master());
        traces.addAll(r.slaves());
        return traces;
    }

    @Test
    void aSimulatedBoardsTablesAreItsStateModelStatisticsSyncAndEvents() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(4).withSlaves(3), dir.resolve("board"));
        List<Path> traces = board(r);
        Map<String, String> symbols = new HashMap<>();
        r.truth().symbols().forEach((name, addr) -> symbols.put("0x" + Long.toHexString(addr), name));
        List<String> notes = new ArrayList<>();
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), traces, null, symbols, notes::add);
        assertThat(index.built()).isTrue();
        assertThat(notes.getFirst()).startsWith("indexing 4 traces");

        StateBuilder.Input in = StateBuilder.synchronize(traces, w -> {});
        StateModel m = StateBuilder.build(in, StateBuilder.Options.of(w -> {}));
        m.symbolize(symbols);
        try (Connection c = index.connect()) {
            assertThat(one(c, "select count(*) from events")).isEqualTo(m.events());
            for (int i = 0; i < traces.size(); i++) {
                String trace = m.traceNames().get(i);
                Map<String, Long> direct = directCounts(traces.get(i));
                for (var en : direct.entrySet()) {
                    assertThat(one(
                                    c,
                                    "select count(*) from events where trace = '" + trace + "' and name = '"
                                            + en.getKey() + "'"))
                            .as("%s %s", trace, en.getKey())
                            .isEqualTo(en.getValue());
                }
                assertThat(one(c, "select events from traces where trace = '" + trace + "'"))
                        .isEqualTo(direct.values().stream()
                                .mapToLong(Long::longValue)
                                .sum());
            }
            assertThat(one(c, "select count(*) from intervals where kind = 'run'"))
                    .isEqualTo(m.runs().size());
            assertThat(one(c, "select count(*) from intervals where kind = 'task_state'"))
                    .isEqualTo(m.taskStates().size());
            assertThat(one(c, "select count(*) from intervals where kind = 'irq'"))
                    .isEqualTo(m.irqs().size());
            assertThat(one(c, "select count(*) from calls"))
                    .isEqualTo(m.calls().size())
                    .isPositive();
            assertThat(one(c, "select count(*) from messages"))
                    .isEqualTo(m.messages().size())
                    .isPositive();
            long self = 0;
            for (int i = 0; i < m.calls().size(); i++) {
                self += m.calls().self(i);
            }
            assertThat(one(c, "select sum(self_ns) from calls")).isEqualTo(self);
            assertThat(strings(c, "select distinct function from calls")).contains("process_image", "sobel_filter");
            // the run time of each task, summed in SQL, is the statistics' total for it
            Statistics.Table stats = Statistics.of(m);
            assertThat(one(c, "select count(*) from stats"))
                    .isEqualTo(stats.rows().size());
            for (Statistics.Row row : stats.rows(Statistics.Context.TASK)) {
                long sql = one(
                        c,
                        "select sum(duration_ns) from intervals where kind = 'run' and state = 'running' and task = '"
                                + row.name() + "'");
                assertThat(sql).as(row.name()).isEqualTo(row.totalNanos());
                assertThat(one(c, "select total_ns from stats where context = 'task' and name = '" + row.name() + "'"))
                        .isEqualTo(row.totalNanos());
            }
            // every message is linked on the reference clock: received after it was sent, within the sync accuracy
            assertThat(one(c, "select count(*) from messages where latency_ns < -1000"))
                    .isZero();
            // the synchronization: each slave is related to the master by its matches
            assertThat(one(c, "select count(*) from sync_pairs"))
                    .isEqualTo(in.sync().pairs().size())
                    .isPositive();
            assertThat(one(c, "select count(*) from sync_pairs where to_other + to_reference = 0"))
                    .isZero();
            assertThat(strings(c, "select quality from sync_pairs")).containsOnly("accurate");
            // the matched messages one by one: the hulls' points, each side mapped as the traces are
            long matched = in.sync().matches().size();
            assertThat(one(c, "select count(*) from sync_messages"))
                    .isEqualTo(matched)
                    .isPositive()
                    .isEqualTo(one(c, "select sum(to_other + to_reference) from sync_pairs"));
            assertThat(one(c, "select count(*) from sync_messages where sender = receiver or rule <> 'hetrace-sync'"))
                    .isZero();
            assertThat(one(c, "select count(*) from sync_messages where send_ref_ns is null or receive_ref_ns is null"))
                    .isZero();
            for (int i = 0; i < traces.size(); i++) {
                String trace = m.traceNames().get(i);
                long send = one(c, "select min(send_ns) from sync_messages where sender = '" + trace + "'");
                assertThat(one(c, "select min(send_ref_ns) from sync_messages where sender = '" + trace + "'"))
                        .as(trace)
                        .isEqualTo(in.maps().get(i).apply(send));
                assertThat(one(c, "select count(*) from sync_messages where receiver = '" + trace + "'"))
                        .as(trace)
                        .isPositive();
            }
            // the transforms keep every message causal: received after it was sent, to the rounding of the maps
            assertThat(one(c, "select min(latency_ns) from sync_messages")).isGreaterThanOrEqualTo(-1);
            // each slave's transform, as the table gives it, maps its clock as the synchronization does
            for (int i = 1; i < traces.size(); i++) {
                long raw;
                try (CtfReader reader = CtfReader.open(traces.get(i))) {
                    reader.next();
                    raw = reader.event().timeNanos();
                }
                long viaTable = one(
                        c,
                        "select pivot_ref_ns + round((" + raw + " - pivot_ns) * slope)::bigint from sync_pairs "
                                + "where reference = 'master' and other = '"
                                + m.traceNames().get(i) + "'");
                assertThat(viaTable).isCloseTo(in.maps().get(i).apply(raw), within(2L));
            }
            // event times are on the reference clock: each trace's span is the model's
            assertThat(one(c, "select min(time_ns) from events")).isEqualTo(m.begin());
            assertThat(one(c, "select max(time_ns) from events")).isEqualTo(m.end());
            assertThat(one(c, "select count(*) from tasks")).isEqualTo(m.tasks().size());
            assertThat(one(c, "select count(*) from cores")).isEqualTo(m.cores().size());
        }
    }

    @Test
    void anEventsFieldsAreItsDecodedFieldsAsJson() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(5).withSlaves(1), dir.resolve("board"));
        Path slave = r.slaves().getFirst();
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(slave), null, Map.of(), n -> {});
        List<String> direct = new ArrayList<>();
        try (CtfReader reader = CtfReader.open(slave)) {
            while (reader.next()) {
                Event e = reader.event();
                if (e.name().equals("task_switch")) {
                    direct.add(e.timeNanos() + " " + e.getString("next_task") + " " + e.getLong("next_prio"));
                }
            }
        }
        try (Connection c = index.connect()) {
            List<String> sql = strings(
                    c,
                    "select time_ns || ' ' || (fields->>'$.payload.next_task') || ' ' || "
                            + "(fields->>'$.payload.next_prio') from events where name = 'task_switch' order by time_ns, stream");
            assertThat(sql).isEqualTo(direct);
        }
    }

    /** An event as a direct read gives it: its time, name and the line {@code hetrace print --format json} writes. */
    private record Direct(long time, String name, String json) {}

    /** Every event of {@code trace} read directly, by its position (stream file, packet, offset in the packet). */
    private static Map<List<Long>, Direct> directByPosition(Path trace) throws Exception {
        Map<List<Long>, Direct> out = new HashMap<>();
        TextSink sink = new TextSink(null);
        JsonText json = new JsonText(sink);
        try (CtfReader r = CtfReader.open(trace)) {
            EventPosition.Tracker where = new EventPosition.Tracker(r.traces());
            while (r.next()) {
                where.update(r.cursor());
                sink.clear();
                json.print(r.cursor());
                Direct d = new Direct(
                        r.event().timeNanos(),
                        r.event().name(),
                        new String(sink.buffer(), 0, sink.length(), StandardCharsets.UTF_8));
                assertThat(out.put(List.of((long) where.streamFile(), where.packetOffset(), where.eventOffset()), d))
                        .as("one event per position")
                        .isNull();
            }
        }
        return out;
    }

    /**
     * Every row of a one-trace index: its position leads, by a direct read and by
     * {@link EventPosition#decode}, to the event of the same time (by the direct read) and name,
     * and its fields are that event's scopes as {@code hetrace print --format json} writes them
     * (the packet context left out). Returns the streams and packets the rows span.
     */
    private static long[] checkPositionsAndFields(Path trace, TraceIndex index) throws Exception {
        Map<List<Long>, Direct> direct = directByPosition(trace);
        Set<Long> streams = new HashSet<>();
        Set<List<Long>> packets = new HashSet<>();
        long rows = 0;
        try (Connection c = index.connect();
                PreparedStatement s =
                        c.prepareStatement("select e.time_ns, e.name::varchar, e.fields::varchar, r.stream_file, "
                                + "r.packet, r.event_offset from events e positional join read_parquet('"
                                + index.folder().resolve("events.parquet") + "') r");
                ResultSet rs = s.executeQuery();
                CtfReader again = CtfReader.open(trace)) {
            EventPosition position = new EventPosition(again.traces());
            while (rs.next()) {
                rows++;
                List<Long> at = List.of(rs.getLong(4), rs.getLong(5), rs.getLong(6));
                Direct d = direct.get(at);
                assertThat(d).as("event at " + at).isNotNull();
                assertThat(rs.getLong(1)).isEqualTo(d.time());
                assertThat(rs.getString(2)).isEqualTo(d.name());
                // {"stream_context":...,"payload":...} is how the printed line ends
                assertThat(d.json()).endsWith(rs.getString(3).substring(1) + "\n");
                StreamDecoder decoded = position.decode((int) rs.getLong(4), rs.getLong(5), rs.getLong(6));
                assertThat(decoded).isNotNull();
                assertThat(decoded.event().cls.name()).isEqualTo(d.name());
                streams.add(rs.getLong(4));
                packets.add(at.subList(0, 2));
            }
        }
        assertThat(rows).isEqualTo(direct.size());
        return new long[] {streams.size(), packets.size()};
    }

    @Test
    void anEventsPositionFindsItAgainAndItsFieldsAreThoseHetracePrintShows() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(6).withSlaves(1), dir.resolve("board"));
        long morePackets = 0; // packets beyond the first of each stream file, over the board
        for (Path trace : board(r)) {
            TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(trace), null, Map.of(), n -> {});
            long[] spans = checkPositionsAndFields(trace, index);
            morePackets += spans[1] - spans[0];
        }
        assertThat(morePackets).as("events in later packets of a file").isPositive();
        Path trace = Required.corpus("babeltrace", "succeed", "lttng-tracefile-rotation");
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(trace), null, Map.of(), n -> {});
        long[] spans = checkPositionsAndFields(trace, index);
        assertThat(spans[0]).as("stream files").isGreaterThan(1);
        assertThat(spans[1]).as("packets").isGreaterThan(1);
    }

    @Test
    void eventsOfAnySizeInLargePacketsAreFoundAgainByTheirPositions() throws Exception {
        // the index keeps each event's distance from the one before in 16 bits: events of more
        // than 8 KiB, between small ones, in 1 MiB packets of two streams
        Path trace = dir.resolve("sizes");
        try (CtfWriter w = CtfWriter.create(trace, """
            /* CTF 1.8 */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
            trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t stream_id; }; };
            clock { name = c; freq = 1000000000; offset_s = 1700000000; };
            typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk64;
            typealias integer { size = 16; align = 1; signed = false; map = clock.c.value; } := clk16;
            stream {
                id = 0;
                packet.context := struct { clk64 timestamp_begin; clk64 timestamp_end; uint64_t content_size;
                    uint64_t packet_size; uint32_t cpu_id; };
                event.header := struct { uint32_t id; clk16 timestamp; };
            };
            event { name = tick; id = 0; stream_id = 0; fields := struct { uint32_t n; string msg; }; };
            """)) {
            Random random = new Random(5);
            for (int cpu = 0; cpu < 2; cpu++) {
                var s = w.stream(0, cpu, "stream_" + cpu).packetSize(1 << 20);
                s.packetContext("cpu_id", (long) cpu);
                long t = 1000;
                for (int n = 0; n < 3000; n++) {
                    t += random.nextInt(60_000);
                    int size = random.nextInt(10) == 0 ? 8190 + random.nextInt(40_000) : random.nextInt(40);
                    s.event(0, t, Map.of("n", (long) n, "msg", "x".repeat(size)));
                }
            }
        }
        Path mapping = Files.writeString(
                dir.resolve("tick.yaml"),
                "name: tick\ncore: packet_context.cpu_id\nevents:\n  - {event: tick, does: enter, func: =tick}\n");
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(trace), mapping, Map.of(), n -> {});
        long[] spans = checkPositionsAndFields(trace, index);
        assertThat(spans[0]).as("streams").isEqualTo(2);
        assertThat(spans[1]).as("packets").isGreaterThan(4);
    }

    @Test
    void theIndexFolderHoldsTheLargeTablesAsParquetFilesThatHetraceMakesViewsOf() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(1), dir.resolve("board"));
        Path slave = r.slaves().getFirst();
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(slave), null, Map.of(), n -> {});
        try (Stream<Path> s = Files.list(index.folder())) {
            assertThat(s.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            TraceIndex.TABLES,
                            "events.parquet",
                            "intervals.parquet",
                            "calls.parquet",
                            "messages.parquet",
                            "wakeups.parquet",
                            "sync_messages.parquet",
                            MarkTable.FILE,
                            "model_traces.parquet",
                            "model_cores.parquet",
                            "model_tasks.parquet",
                            "model_names.parquet",
                            "model_totals.parquet",
                            "model_messages.parquet",
                            "model_points.parquet",
                            "model_counters.parquet",
                            CounterTable.FILE,
                            Checksums.FILE);
        }
        // the Parquet files are plain ones: DuckDB alone reads them, names as text
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
            assertThat(strings(
                            c,
                            "select column_name from (describe select * from read_parquet('"
                                    + index.folder().resolve("events.parquet") + "'))"))
                    .containsExactly(
                            "trace",
                            "stream",
                            "time_ns",
                            "name",
                            "core",
                            "trace_index",
                            "stream_file",
                            "packet",
                            "event_offset");
            assertThat(strings(
                            c,
                            "select distinct name from read_parquet('"
                                    + index.folder().resolve("events.parquet") + "') where name = 'task_switch'"))
                    .containsExactly("task_switch");
        }
        // two connections at once in one process (the function registered twice on one database)
        try (Connection c = index.connect();
                Connection d = index.connect()) {
            assertThat(one(c, "select count(*) from events"))
                    .isEqualTo(one(
                            c,
                            "select count(*) from read_parquet('"
                                    + index.folder().resolve("events.parquet") + "')"));
            assertThat(strings(d, "select fields::varchar from events where name = 'task_switch' limit 1")
                            .getFirst())
                    .contains("\"payload\":{");
            assertThat(one(c, "select count(*) from events where fields is null"))
                    .isZero();
            // names are the index's ENUMs: they sort in the order they were made
            assertThat(strings(
                            c,
                            "select typeof(kind) || ' ' || typeof(core) || ' ' || typeof(task) from intervals limit 1"))
                    .containsExactly(
                            "ENUM('run', 'task_state', 'irq') ENUM('dsp0') ENUM('alloc_server', 'idle', 'sobel')");
        }
    }

    @Test
    void anLttngKernelTracesEventsAndRunsAreThoseOfTheTraceOnItsCpus() throws Exception {
        Path trace = Required.corpus("babeltrace", "succeed", "lttng-tracefile-rotation");
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(trace), null, Map.of(), n -> {});
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        Map<Long, Long> switchesPerCpu = new HashMap<>();
        long nextTids = 0;
        Map<String, long[]> times = new HashMap<>(); // per name: the sums of the times' remainders and quotients
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                long[] sums = times.computeIfAbsent(r.event().name(), k -> new long[2]);
                sums[0] += r.event().timeNanos() % 1_000_000_007L;
                sums[1] += r.event().timeNanos() / 1_000_000L;
                if (r.event().name().equals("sched_switch")) {
                    switchesPerCpu.merge(r.event().getLong("cpu_id"), 1L, Long::sum);
                    nextTids += r.event().getLong("next_tid");
                }
            }
        }
        try (Connection c = index.connect()) {
            assertThat(one(c, "select count(*) from events")).isEqualTo(m.events());
            for (var en : switchesPerCpu.entrySet()) {
                assertThat(one(
                                c,
                                "select count(*) from events where name = 'sched_switch' and core = "
                                        + "'lttng-tracefile-rotation/cpu" + en.getKey() + "'"))
                        .isEqualTo(en.getValue());
            }
            // every event's time, as the reader gives it (the events' rows keep differences of times)
            for (var en : times.entrySet()) {
                assertThat(one(c, "select sum(time_ns % 1000000007) from events where name = '" + en.getKey() + "'"))
                        .as(en.getKey())
                        .isEqualTo(en.getValue()[0]);
                assertThat(one(c, "select sum(time_ns // 1000000) from events where name = '" + en.getKey() + "'"))
                        .as(en.getKey())
                        .isEqualTo(en.getValue()[1]);
            }
            // the payload, as JSON: the switched-to threads' ids
            assertThat(
                            one(
                                    c,
                                    "select sum((fields->>'$.payload.next_tid')::bigint) from events where name = 'sched_switch'"))
                    .isEqualTo(nextTids);
            assertThat(one(c, "select count(*) from events where (fields->'$.packet_context') is not null"))
                    .isZero();
            IntervalTable runs = m.runs();
            long total = 0;
            for (int i = 0; i < runs.size(); i++) {
                total += runs.duration(i);
            }
            assertThat(one(c, "select sum(duration_ns) from intervals where kind = 'run'"))
                    .isEqualTo(total);
            // the wake-ups, with their wakers: a task or the interrupt then in progress
            long byIrq = 0;
            long timeSum = 0;
            for (int i = 0; i < m.wakeups(); i++) {
                byIrq += m.wakerIrq(i) >= 0 ? 1 : 0;
                timeSum += m.wakeupTime(i) % 1_000_000_007L;
            }
            assertThat(m.wakeups()).isPositive();
            assertThat(one(c, "select count(*) from wakeups")).isEqualTo(m.wakeups());
            assertThat(one(c, "select count(*) from wakeups where irq is not null"))
                    .isEqualTo(byIrq);
            assertThat(one(c, "select sum(time_ns % 1000000007) from wakeups")).isEqualTo(timeSum);
            assertThat(one(c, "select count(*) from wakeups w join tasks t on t.task = w.task::varchar where t.idle"))
                    .isZero();
            assertThat(one(c, "select count(*) from sync_pairs")).isZero();
            assertThat(one(c, "select count(*) from sync_messages")).isZero();
            assertThat(strings(c, "select mapping from traces")).containsExactly("lttng-kernel");
        }
    }

    @Test
    void eventsOfAStreamWithoutAClockHaveNoTime() throws Exception {
        Path trace = Required.corpus("babeltrace", "succeed", "no-packet-context");
        Path mapping = Files.writeString(
                dir.resolve("ev.yaml"), "name: ev\nevents:\n  - {event: ev, does: enter, func: =ev}\n");
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), List.of(trace), mapping, Map.of(), n -> {});
        long events = 0;
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                assertThat(r.event().hasTime()).isFalse();
                events++;
            }
        }
        try (Connection c = index.connect()) {
            assertThat(one(c, "select count(*) from events")).isEqualTo(events).isPositive();
            assertThat(one(c, "select count(*) from events where time_ns is null and name = 'ev'"))
                    .isEqualTo(events);
        }
    }

    @Test
    void theIndexIsReusedWhileTheTracesAreUnchangedAndRebuiltWhenOneChanges() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(1), dir.resolve("board"));
        Path slave = r.slaves().getFirst();
        Path cache = dir.resolve("cache");
        List<String> notes = new ArrayList<>();
        // an index of hetrace's earlier format (one DuckDB file named by its key): never read again, removed
        Path earlier = Files.createDirectories(cache).resolve("0123456789abcdef0123456789abcdef.duckdb");
        Files.write(earlier, new byte[] {1});
        TraceIndex first = TraceIndex.open(cache, List.of(slave), null, Map.of(), notes::add);
        assertThat(first.built()).isTrue();
        assertThat(earlier).doesNotExist();
        assertThat(notes).endsWith("removed an index in hetrace's earlier format: " + earlier);
        FileTime built = Files.getLastModifiedTime(first.folder().resolve(TraceIndex.TABLES));
        notes.clear();
        TraceIndex again = TraceIndex.open(cache, List.of(slave), null, Map.of(), notes::add);
        assertThat(again.built()).isFalse();
        assertThat(again.folder()).isEqualTo(first.folder());
        assertThat(Files.getLastModifiedTime(again.folder().resolve(TraceIndex.TABLES)))
                .isEqualTo(built);
        assertThat(notes).isEmpty();

        // a stream file rewritten (here: its time changed) makes another index
        Path stream;
        try (Stream<Path> s = Files.list(slave)) {
            stream = s.filter(p -> !p.getFileName().toString().equals("metadata") && Files.isRegularFile(p))
                    .findFirst()
                    .orElseThrow();
        }
        Files.setLastModifiedTime(
                stream, FileTime.fromMillis(Files.getLastModifiedTime(stream).toMillis() + 5000));
        TraceIndex rebuilt = TraceIndex.open(cache, List.of(slave), null, Map.of(), notes::add);
        assertThat(rebuilt.built()).isTrue();
        assertThat(rebuilt.folder()).isNotEqualTo(first.folder());
        // the earlier state's index is removed, and nothing half-built is left behind
        assertThat(notes).hasSize(2);
        assertThat(notes.get(1)).isEqualTo("removed the index of an earlier state of these traces: " + first.folder());
        try (Stream<Path> s = Files.list(cache)) {
            assertThat(s.toList()).containsExactly(rebuilt.folder());
        }
    }

    @Test
    void aLeftoverPartialBuildIsNeverTakenForTheIndex() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(1), dir.resolve("board"));
        Path slave = r.slaves().getFirst();
        Path cache = dir.resolve("cache");
        Files.createDirectories(cache);
        String name =
                TraceIndex.pathsKey(List.of(slave)) + "-" + TraceIndex.key(List.of(slave), null, Map.of()) + ".index";
        // what a killed build leaves: its temporary folder, never the index's name
        Path leftover = Files.createDirectories(cache.resolve(name + ".tmp-1-1"));
        Files.write(leftover.resolve(TraceIndex.TABLES), new byte[] {1, 2, 3});
        TraceIndex index = TraceIndex.open(cache, List.of(slave), null, Map.of(), n -> {});
        assertThat(index.built()).isTrue();
        assertThat(index.folder().getFileName().toString()).isEqualTo(name);
        // a file of the index removed by hand: said, and the index built again
        Files.delete(index.folder().resolve("calls.parquet"));
        List<String> notes = new ArrayList<>();
        TraceIndex again = TraceIndex.open(cache, List.of(slave), null, Map.of(), notes::add);
        assertThat(again.built()).isTrue();
        assertThat(notes.getFirst())
                .isEqualTo("the index in " + index.folder() + " lacks some of its files: building it again");
        assertThat(again.folder().resolve("calls.parquet")).isRegularFile();
        try (Connection c = index.connect()) {
            assertThat(one(c, "select count(*) from events")).isPositive();
        }
    }
}
