package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.StoredModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.view.PerfettoText.Msg;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Perfetto export of simulated boards, decoded by protoc against Perfetto's schema: the
 * tracks nest as the board, slices balance on each track and are hetrace's intervals, flows join
 * each send to its receive, counters are the model's, and with own clocks the snapshots keep
 * Perfetto's conversion within the synchronization's accuracy bound.
 */
class PerfettoTraceTest {
    @TempDir
    static Path dir;

    static StateModel model;
    static PerfettoTrace.Board board;
    static List<Msg> packets;

    @BeforeAll
    static void export() throws Exception {
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(3).withSlaves(3).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1))),
                dir.resolve("board"));
        StateBuilder.Input input = StateBuilder.synchronize(r.traces(), w -> {});
        model = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        board = board("board", input, model);
        packets = write(List.of(board), false, dir.resolve("board.pftrace"));
    }

    static PerfettoTrace.Board board(String name, StateBuilder.Input input, StateModel m) {
        List<PerfettoTrace.Clock> clocks = new ArrayList<>();
        for (int t = 0; t < input.traces().size(); t++) {
            Synchronizer.TraceSync s =
                    input.sync() == null ? null : input.sync().traces().get(t);
            clocks.add(new PerfettoTrace.Clock(
                    input.maps().get(t),
                    s == null ? -1 : s.accuracyNanos().orElse(-1L),
                    s == null || t == input.sync().reference()));
        }
        PerfettoTrace.SyncMessages sync = new PerfettoTrace.SyncMessages();
        if (input.sync() != null) {
            Synchronizer.Matches x = input.sync().matches();
            for (int i = 0; i < x.size(); i++) {
                sync.add(
                        x.from(i),
                        x.to(i),
                        x.send(i),
                        x.receive(i),
                        input.maps().get(x.from(i)).apply(x.send(i)),
                        input.maps().get(x.to(i)).apply(x.receive(i)));
            }
        }
        return new PerfettoTrace.Board(name, m, sync, clocks);
    }

    static List<Msg> write(List<PerfettoTrace.Board> boards, boolean own, Path file) throws Exception {
        PerfettoTrace.Summary s;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file))) {
            s = PerfettoTrace.write(boards, own, out);
            assertThat(s.slices()).isPositive();
        }
        assertThat(s.bytes()).isEqualTo(Files.size(file));
        return PerfettoText.decode(file);
    }

    // ---- the schema

    @Test
    void everyFieldNumberWireTypeAndEnumValueIsTheSchemas() throws Exception {
        String proto = Files.readString(PerfettoText.schema());
        for (PerfettoProto.Field f : PerfettoProto.FIELDS) {
            String body = body(proto, f.message);
            Matcher m = Pattern.compile("(?m)^\\s*(?:optional |repeated )?([\\w.]+)\\s+" + f.name + "\\s*=\\s*(\\d+)")
                    .matcher(topLevel(body));
            assertThat(m.find()).as(f.message + "." + f.name).isTrue();
            assertThat(Integer.parseInt(m.group(2)))
                    .as(f.message + "." + f.name)
                    .isEqualTo(f.number);
            assertThat(wireType(proto, m.group(1)))
                    .as(f.message + "." + f.name + " (" + m.group(1) + ")")
                    .isEqualTo(f.wire);
        }
        for (PerfettoProto.EnumValue v : PerfettoProto.ENUM_VALUES) {
            Matcher m = Pattern.compile("(?m)^\\s*" + v.name() + "\\s*=\\s*(\\d+)\\s*;")
                    .matcher(body(proto, v.enumName()));
            assertThat(m.find()).as(v.enumName() + "." + v.name()).isTrue();
            assertThat(Integer.parseInt(m.group(1)))
                    .as(v.enumName() + "." + v.name())
                    .isEqualTo(v.number());
        }
    }

    /** The body of message or enum {@code dotted} (e.g. ClockSnapshot.Clock). */
    private static String body(String text, String dotted) {
        String body = text;
        boolean top = true;
        for (String part : dotted.split("\\.")) {
            Matcher m = Pattern.compile((top ? "(?m)^" : "(?m)^\\s*") + "(?:message|enum) " + part + " \\{")
                    .matcher(body);
            assertThat(m.find()).as(dotted).isTrue();
            int depth = 1;
            int i = m.end();
            while (depth > 0) {
                char c = body.charAt(i++);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            body = body.substring(m.end(), i - 1);
            top = false;
        }
        return body.replaceAll("//[^\\n]*", "");
    }

    /** {@code body} without its nested messages and enums (a oneof's fields are the message's). */
    private static String topLevel(String body) {
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("(?m)^\\s*(?:message|enum) \\w+ \\{").matcher(body);
        int at = 0;
        while (m.find(at)) {
            out.append(body, at, m.start());
            int depth = 1;
            int i = m.end();
            while (depth > 0) {
                char c = body.charAt(i++);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            at = i;
        }
        return out.append(body.substring(at)).toString();
    }

    private static int wireType(String proto, String type) {
        return switch (type) {
            case "int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool" -> PerfettoProto.VARINT;
            case "fixed64", "sfixed64", "double" -> PerfettoProto.FIXED64;
            case "fixed32", "sfixed32", "float" -> 5;
            case "string", "bytes" -> PerfettoProto.LENGTH;
            default -> {
                String simple = type.substring(type.lastIndexOf('.') + 1);
                yield Pattern.compile("(?m)^\\s*enum " + simple + " \\{")
                                .matcher(proto)
                                .find()
                        ? PerfettoProto.VARINT
                        : PerfettoProto.LENGTH;
            }
        };
    }

    // ---- what the file holds

    /** Track descriptors by uuid. */
    static Map<Long, Msg> tracks(List<Msg> packets) {
        Map<Long, Msg> out = new HashMap<>();
        for (Msg p : packets) {
            Msg d = p.msg("track_descriptor");
            if (d != null) {
                assertThat(out.put(d.num("uuid"), d))
                        .as("one descriptor per track")
                        .isNull();
            }
        }
        return out;
    }

    /** The interned event names of sequence {@code seq}. */
    static Map<Long, String> names(List<Msg> packets, long seq) {
        Map<Long, String> out = new HashMap<>();
        for (Msg p : packets) {
            Msg d = p.msg("interned_data");
            if (d != null && p.num("trusted_packet_sequence_id") == seq) {
                for (Msg n : d.all("event_names")) {
                    out.put(n.num("iid"), n.str("name"));
                }
            }
        }
        return out;
    }

    @Test
    void theTracksNestAsTheBoardTracesCoresAndTasks() {
        Map<Long, Msg> tracks = tracks(packets);
        Msg root = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.ROOT, 0));
        assertThat(root.str("name")).isEqualTo("board");
        assertThat(root.has("parent_uuid")).isFalse();
        for (Msg t : tracks.values()) {
            if (t != root) {
                assertThat(tracks).as(t.str("name")).containsKey(t.num("parent_uuid"));
            }
        }
        for (int t = 0; t < model.traceNames().size(); t++) {
            Msg trace = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.TRACE, t));
            assertThat(trace.str("name")).isEqualTo(model.traceNames().get(t));
            assertThat(trace.num("parent_uuid")).isEqualTo(root.num("uuid"));
            assertThat(trace.str("description")).contains(t == 0 ? "the reference clock" : "accuracy bound");
        }
        for (int c = 0; c < model.cores().size(); c++) {
            Msg core = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.CORE, c));
            assertThat(core.str("name")).isEqualTo(model.cores().get(c).name());
            assertThat(tracks.get(core.num("parent_uuid")).str("name"))
                    .isEqualTo(model.traceNames().get(model.cores().get(c).trace()));
            Msg load = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.LOAD, c));
            assertThat(load != null).as("%s has a load track", core.str("name")).isEqualTo(ran(c));
            if (load == null) {
                continue;
            }
            assertThat(load.num("parent_uuid")).isEqualTo(core.num("uuid"));
            assertThat(load.msg("counter").str("unit_name")).isEqualTo("%");
        }
        int irqs = 0;
        for (int c = 0; c < model.cores().size(); c++) {
            Msg irq = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.IRQ, c));
            if (irq != null) {
                irqs++;
                assertThat(irq.num("parent_uuid")).isEqualTo(PerfettoTrace.uuid(0, PerfettoTrace.CORE, c));
                assertThat(irq.str("name")).isEqualTo(model.cores().get(c).name() + " interrupts");
            }
        }
        assertThat(irqs).as("cores with interrupts").isPositive();
        for (int k = 0; k < model.tasks().size(); k++) {
            Msg task = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.TASK, k));
            if (task != null) {
                assertThat(task.str("name")).startsWith(model.tasks().get(k).name());
                assertThat(tracks.get(task.num("parent_uuid")).str("name"))
                        .isEqualTo(model.traceNames().get(model.tasks().get(k).trace()));
            }
        }
        for (Msg p : packets) {
            if (p.has("track_event")) {
                assertThat(tracks).containsKey(p.msg("track_event").num("track_uuid"));
            }
        }
    }

    @Test
    void oneSequenceInternsTheNamesOnceWithItsStateCleared() {
        Msg first = packets.getFirst();
        assertThat(first.num("sequence_flags")).isEqualTo(1);
        assertThat(first.has("interned_data")).isTrue();
        Map<Long, String> names = names(packets, 1);
        assertThat(names.values()).doesNotHaveDuplicates();
        long events = 0;
        for (Msg p : packets) {
            assertThat(p.num("trusted_packet_sequence_id")).isEqualTo(1);
            Msg e = p.msg("track_event");
            if (e != null) {
                events++;
                assertThat(p.num("sequence_flags")).isEqualTo(2);
                assertThat(e.has("name")).as("names are interned").isFalse();
                if (e.has("name_iid")) {
                    assertThat(names).containsKey(e.num("name_iid"));
                }
            }
        }
        assertThat(events).isGreaterThan(model.calls().size());
    }

    /** A slice or instant as Perfetto reads it: the track, the name, begin and end (ns as written). */
    record Slice(long track, String name, long begin, long end) {}

    /** The slices of the file, as Perfetto nests them: events sorted by time, in file order where equal; each end closes the track's last open slice. */
    static List<Slice> slices(List<Msg> packets, Map<Long, String> names, Map<Long, TreeMap<Long, Long>> toReference) {
        record E(long ts, int order, Msg e) {}
        Map<Long, List<E>> byTrack = new HashMap<>();
        int order = 0;
        for (Msg p : packets) {
            Msg e = p.msg("track_event");
            if (e == null || e.str("type").equals("TYPE_COUNTER")) {
                continue;
            }
            long ts = p.num("timestamp");
            if (toReference != null) {
                ts = convert(toReference.get(p.num("timestamp_clock_id")), ts);
            }
            byTrack.computeIfAbsent(e.num("track_uuid"), k -> new ArrayList<>()).add(new E(ts, order++, e));
        }
        List<Slice> out = new ArrayList<>();
        for (Map.Entry<Long, List<E>> t : byTrack.entrySet()) {
            List<E> es = t.getValue();
            es.sort(Comparator.comparingLong(E::ts).thenComparingInt(E::order));
            ArrayDeque<E> open = new ArrayDeque<>();
            for (E x : es) {
                switch (x.e().str("type")) {
                    case "TYPE_SLICE_BEGIN" -> open.push(x);
                    case "TYPE_SLICE_END" -> {
                        assertThat(open)
                                .as("an end with a slice open on track %d", t.getKey())
                                .isNotEmpty();
                        E b = open.pop();
                        out.add(new Slice(t.getKey(), names.get(b.e().num("name_iid")), b.ts(), x.ts()));
                    }
                    case "TYPE_INSTANT" ->
                        out.add(new Slice(t.getKey(), names.get(x.e().num("name_iid")), x.ts(), x.ts()));
                    default -> throw new AssertionError(x.e().str("type"));
                }
            }
            assertThat(open).as("slices left open on track %d", t.getKey()).isEmpty();
        }
        return out;
    }

    /** Perfetto's conversion: from the last snapshot at or before {@code t} (the first one before them all), no interpolation. */
    static long convert(TreeMap<Long, Long> snapshots, long t) {
        Map.Entry<Long, Long> s = snapshots.floorEntry(t);
        if (s == null) {
            s = snapshots.firstEntry();
        }
        return s.getValue() + (t - s.getKey());
    }

    /** The model's intervals as the export should show them (times as written: + offset). */
    static List<Slice> expected(StateModel m, long offset) {
        List<Slice> out = new ArrayList<>();
        IntervalTable runs = m.runs();
        for (int i = 0; i < runs.size(); i++) {
            int core = runs.owner(i);
            int task = runs.subject(i);
            if (runs.state(i) != StateModel.IDLE) {
                out.add(slice(
                        PerfettoTrace.uuid(0, PerfettoTrace.CORE, core),
                        m.tasks().get(task).name(),
                        runs,
                        i,
                        offset));
            }
            if (!m.tasks().get(task).idle()) {
                out.add(slice(
                        PerfettoTrace.uuid(0, PerfettoTrace.STATE, task),
                        "running on " + m.cores().get(core).name(),
                        runs,
                        i,
                        offset));
            }
        }
        IntervalTable states = m.taskStates();
        for (int i = 0; i < states.size(); i++) {
            out.add(slice(
                    PerfettoTrace.uuid(0, PerfettoTrace.STATE, states.owner(i)),
                    StateModel.stateName(states.state(i)),
                    states,
                    i,
                    offset));
        }
        IntervalTable calls = m.calls();
        for (int i = 0; i < calls.size(); i++) {
            out.add(slice(
                    PerfettoTrace.uuid(0, PerfettoTrace.TASK, calls.owner(i)),
                    m.name(calls.subject(i)),
                    calls,
                    i,
                    offset));
        }
        IntervalTable irqs = m.irqs();
        for (int i = 0; i < irqs.size(); i++) {
            out.add(slice(
                    PerfettoTrace.uuid(0, PerfettoTrace.IRQ, irqs.owner(i)), m.name(irqs.subject(i)), irqs, i, offset));
        }
        return out;
    }

    private static Slice slice(long track, String name, IntervalTable t, int i, long offset) {
        return new Slice(track, name, t.start(i) + offset, t.end(i) + offset);
    }

    private static final Comparator<Slice> ORDER = Comparator.comparingLong(Slice::track)
            .thenComparingLong(Slice::begin)
            .thenComparingLong(Slice::end)
            .thenComparing(Slice::name);

    @Test
    void slicesBalanceOnEveryTrackAndAreTheModelsIntervalsNestedAsItNestsThem() {
        Map<Long, String> names = names(packets, 1);
        List<Slice> got = new ArrayList<>();
        for (Slice s : slices(packets, names, null)) {
            if (!PerfettoTrace.FIXED.contains(s.name())
                    && !StoredModel.eventNames(model).contains(s.name())) {
                got.add(s);
            }
        }
        List<Slice> want = expected(model, 0);
        got.sort(ORDER);
        want.sort(ORDER);
        assertThat(got).hasSize(want.size());
        assertThat(got).isEqualTo(want);
        // calls do nest: some begin where their caller begins, and come out inside it
        assertThat(model.calls().size()).isPositive();
    }

    @Test
    void everyMessageIsAFlowFromItsSendOnTheSendersTrackToItsReceiveOnTheReceivers() {
        Map<Long, Msg[]> flows = new HashMap<>();
        Map<Long, Long> time = new HashMap<>();
        for (Msg p : packets) {
            Msg e = p.msg("track_event");
            if (e == null) {
                continue;
            }
            for (String id : e.strs("flow_ids")) {
                flows.computeIfAbsent(Long.parseUnsignedLong(id), k -> new Msg[2])[0] = e;
                time.put(Long.parseUnsignedLong(id) * 2, p.num("timestamp"));
            }
            for (String id : e.strs("terminating_flow_ids")) {
                Msg[] f = flows.computeIfAbsent(Long.parseUnsignedLong(id), k -> new Msg[2]);
                assertThat(f[1]).as("one end per flow").isNull();
                f[1] = e;
                time.put(Long.parseUnsignedLong(id) * 2 + 1, p.num("timestamp"));
            }
        }
        MessageTable msg = model.messages();
        long id = 0;
        int both = 0;
        for (int i = 0; i < msg.size(); i++) {
            if ((msg.sendTask(i) < 0 && msg.sendCore(i) < 0) || (msg.receiveTask(i) < 0 && msg.receiveCore(i) < 0)) {
                continue;
            }
            id++;
            both++;
            Msg[] f = flows.get(id);
            assertThat(f[0].num("track_uuid")).isEqualTo(track(msg.sendTask(i), msg.sendCore(i)));
            assertThat(f[1].num("track_uuid")).isEqualTo(track(msg.receiveTask(i), msg.receiveCore(i)));
            assertThat(time.get(2 * id)).isEqualTo(msg.sendTime(i));
            assertThat(time.get(2 * id + 1)).isEqualTo(msg.receiveTime(i));
        }
        assertThat(both).as("messages with both sides").isPositive();
        // then the sync handshake's, trace to trace
        PerfettoTrace.SyncMessages sync = board.sync();
        assertThat(sync.size()).isPositive();
        for (int i = 0; i < sync.size(); i++) {
            Msg[] f = flows.get(id + 1 + i);
            assertThat(f[0].num("track_uuid")).isEqualTo(PerfettoTrace.uuid(0, PerfettoTrace.SYNC, sync.sender(i)));
            assertThat(f[1].num("track_uuid")).isEqualTo(PerfettoTrace.uuid(0, PerfettoTrace.SYNC, sync.receiver(i)));
            assertThat(time.get(2 * (id + 1 + i))).isEqualTo(sync.sendRef(i));
            assertThat(time.get(2 * (id + 1 + i) + 1)).isEqualTo(sync.receiveRef(i));
        }
        assertThat(flows).hasSize((int) id + sync.size());
        assertThat(flows.values())
                .allSatisfy(f -> assertThat(f[0])
                        .isNotNull()
                        .satisfies(x -> assertThat(f[1]).isNotNull()));
    }

    private static long track(int task, int core) {
        return task >= 0
                ? PerfettoTrace.uuid(0, PerfettoTrace.TASK, task)
                : PerfettoTrace.uuid(0, PerfettoTrace.CORE, core);
    }

    /** Whether core {@code c} ran tasks (the model has its runs). */
    private static boolean ran(int c) {
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.runs().owner(i) == c) {
                return true;
            }
        }
        return false;
    }

    @Test
    void eachCoresLoadIsTheShareOfEachWindowItsTasksRan() {
        int loads = 0;
        for (int c = 0; c < model.cores().size(); c++) {
            if (!ran(c)) {
                continue;
            }
            loads++;
            long track = PerfettoTrace.uuid(0, PerfettoTrace.LOAD, c);
            List<long[]> at = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            for (Msg p : packets) {
                Msg e = p.msg("track_event");
                if (e != null && e.num("track_uuid") == track) {
                    assertThat(e.str("type")).isEqualTo("TYPE_COUNTER");
                    at.add(new long[] {p.num("timestamp")});
                    values.add(Double.parseDouble(e.str("double_counter_value")));
                }
            }
            assertThat(at).as("load of %s", model.cores().get(c).name()).hasSizeGreaterThan(100);
            long w = at.get(1)[0] - at.get(0)[0];
            assertThat(at.getFirst()[0]).isEqualTo(model.begin());
            for (int k = 0; k + 1 < at.size(); k++) {
                long ws = at.get(k)[0];
                long busy = 0;
                IntervalTable runs = model.runs();
                for (int i = 0; i < runs.size(); i++) {
                    if (runs.owner(i) == c && runs.state(i) != StateModel.IDLE) {
                        busy += Math.max(0, Math.min(runs.end(i), ws + w) - Math.max(runs.start(i), ws));
                    }
                }
                assertThat(values.get(k))
                        .as("window %d of %s", k, model.cores().get(c).name())
                        .isCloseTo(100.0 * busy / w, org.assertj.core.data.Offset.offset(1e-9));
            }
            assertThat(values).allSatisfy(v -> assertThat(v).isBetween(0.0, 100.0));
        }
        assertThat(loads).isPositive();
    }

    // ---- own clocks

    @Test
    void ownClocksSnapshotsKeepPerfettosConversionWithinTheAccuracyBoundThroughADriftJump() throws Exception {
        Path jumping = dir.resolve("jumping");
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(5)
                        .withSlaves(3)
                        .withSyncPeriod(20_000_000)
                        .withDuration(3_000_000_000L)
                        .withFaults(List.of(new Fault.DriftJump(2, -1))),
                jumping);
        StateBuilder.Input input = StateBuilder.synchronize(
                r.traces(),
                new StateBuilder.Clocks(
                        new Synchronizer.Options(MatchRules.DEFAULT, ConvexHullSync.Method.BISECTOR, 0, 500_000_000L),
                        false),
                w -> {});
        StateModel m = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        PerfettoTrace.Board b = board("jumping", input, m);
        assertThat(input.maps().get(3).linear())
                .as("dsp2's map follows its jump in pieces")
                .isFalse();
        List<Msg> own = write(List.of(b), true, dir.resolve("own.pftrace"));

        // the snapshots, per own clock: own time -> reference time
        Map<Long, TreeMap<Long, Long>> snapshots = new HashMap<>();
        for (Msg p : own) {
            Msg s = p.msg("clock_snapshot");
            if (s != null) {
                List<Msg> clocks = s.all("clocks");
                assertThat(clocks).hasSize(2);
                assertThat(clocks.get(0).num("clock_id")).isEqualTo(6);
                long id = clocks.get(1).num("clock_id");
                assertThat(id).isBetween(64L, 127L);
                snapshots
                        .computeIfAbsent(id, k -> new TreeMap<>())
                        .put(clocks.get(1).num("timestamp"), clocks.get(0).num("timestamp"));
            }
        }
        assertThat(snapshots).hasSize(m.traceNames().size());
        for (int t = 0; t < m.traceNames().size(); t++) {
            TreeMap<Long, Long> s = snapshots.get(64L + t);
            long bound = b.clocks().get(t).accuracyNanos();
            if (t == 0) {
                assertThat(s).as("the reference: one snapshot").hasSize(1);
                continue;
            }
            assertThat(bound).as("%s's accuracy bound", m.traceNames().get(t)).isPositive();
            assertThat(s.size()).as("%s's snapshots", m.traceNames().get(t)).isGreaterThan(2);
            // between two snapshots, the conversion drifts by the clocks' difference in rate: at most the bound
            Map.Entry<Long, Long> prev = null;
            for (Map.Entry<Long, Long> e : s.entrySet()) {
                if (prev != null) {
                    long drift = Math.abs((e.getValue() - prev.getValue()) - (e.getKey() - prev.getKey()));
                    assertThat(drift)
                            .as("%s from %d to %d", m.traceNames().get(t), prev.getKey(), e.getKey())
                            .isLessThanOrEqualTo(bound + 1);
                }
                prev = e;
            }
            // and every event of the trace is on or after the first snapshot
            for (Msg p : own) {
                if (p.has("track_event") && p.num("timestamp_clock_id") == 64L + t) {
                    assertThat(p.num("timestamp")).isGreaterThanOrEqualTo(s.firstKey());
                }
            }
        }
        // the slices, converted as Perfetto converts them, are the model's within the bound
        long worst = 0;
        for (PerfettoTrace.Clock c : b.clocks()) {
            worst = Math.max(worst, c.accuracyNanos());
        }
        // (each begin on its own: where a clock runs slower than the reference, the conversion steps back by
        // up to the bound at each snapshot, and may so reverse a slice shorter than that)
        Map<Long, String> names = names(own, 1);
        List<Slice> got = new ArrayList<>();
        for (Msg p : own) {
            Msg e = p.msg("track_event");
            if (e != null && List.of("TYPE_SLICE_BEGIN", "TYPE_INSTANT").contains(e.str("type"))) {
                long t = convert(snapshots.get(p.num("timestamp_clock_id")), p.num("timestamp"));
                got.add(new Slice(e.num("track_uuid"), names.get(e.num("name_iid")), t, t));
            }
        }
        List<Slice> want = expected(m, 0);
        Map<String, List<Long>> gotBegins = begins(got);
        Map<String, List<Long>> wantBegins = begins(want);
        assertThat(gotBegins.keySet()).containsAll(wantBegins.keySet());
        for (Map.Entry<String, List<Long>> e : wantBegins.entrySet()) {
            List<Long> g = gotBegins.get(e.getKey());
            assertThat(g).as(e.getKey()).hasSize(e.getValue().size());
            for (int i = 0; i < g.size(); i++) {
                assertThat(Math.abs(g.get(i) - e.getValue().get(i)))
                        .as(e.getKey())
                        .isLessThanOrEqualTo(worst + 2);
            }
        }
    }

    /** Begin times per track and name, sorted. */
    private static Map<String, List<Long>> begins(List<Slice> slices) {
        Map<String, List<Long>> out = new HashMap<>();
        for (Slice s : slices) {
            out.computeIfAbsent(s.track() + "/" + s.name(), k -> new ArrayList<>())
                    .add(s.begin());
        }
        out.values().forEach(l -> l.sort(null));
        return out;
    }

    @Test
    void severalBoardsAreEachATopLevelTrackOnASequenceOfTheirOwn() throws Exception {
        List<Msg> two = write(
                List.of(board, new PerfettoTrace.Board("again", model, board.sync(), board.clocks())),
                false,
                dir.resolve("two.pftrace"));
        Map<Long, Msg> tracks = tracks(two);
        assertThat(tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.ROOT, 0)).str("name"))
                .isEqualTo("board");
        assertThat(tracks.get(PerfettoTrace.uuid(1, PerfettoTrace.ROOT, 0)).str("name"))
                .isEqualTo("again");
        assertThat(tracks.get(PerfettoTrace.uuid(1, PerfettoTrace.TRACE, 0)).num("parent_uuid"))
                .isEqualTo(PerfettoTrace.uuid(1, PerfettoTrace.ROOT, 0));
        long flows = two.stream()
                .filter(p -> p.has("track_event"))
                .mapToLong(p -> p.msg("track_event").strs("flow_ids").size())
                .sum();
        long once = packets.stream()
                .filter(p -> p.has("track_event"))
                .mapToLong(p -> p.msg("track_event").strs("flow_ids").size())
                .sum();
        assertThat(flows).isEqualTo(2 * once);
        assertThat(two.stream().map(p -> p.num("trusted_packet_sequence_id")).distinct())
                .containsExactlyInAnyOrder(1L, 2L);
        assertThat(names(two, 2)).isEqualTo(names(two, 1));
    }

    @Test
    void aCoreWhoseTracerLostEventsHasACounterThatIsOneWhileItsRunsLostSome() throws Exception {
        Simulation.Result r =
                Simulation.sobel(SimConfig.sobel(5).withBuffers(512, 2, 150_000_000), dir.resolve("lossy"));
        StateBuilder.Input input = StateBuilder.synchronize(List.of(r.slaves().get(0)), w -> {});
        StateModel m = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        List<Msg> lossy = write(List.of(board("lossy", input, m)), false, dir.resolve("lossy.pftrace"));
        long track = PerfettoTrace.uuid(0, PerfettoTrace.LOST, 0);
        assertThat(tracks(lossy).get(track).str("name"))
                .isEqualTo(m.cores().get(0).name() + " events lost");
        List<String> want = new ArrayList<>();
        IntervalTable runs = m.runs();
        for (int i = 0; i < runs.size(); i++) {
            if ((runs.flags(i) & StateModel.EVENTS_LOST) != 0) {
                want.add(runs.start(i) + "=1.0");
                want.add(runs.end(i) + "=0.0");
            }
        }
        List<String> got = new ArrayList<>();
        for (Msg p : lossy) {
            Msg e = p.msg("track_event");
            if (e != null && e.num("track_uuid") == track) {
                got.add(p.num("timestamp") + "=" + Double.parseDouble(e.str("double_counter_value")));
            }
        }
        assertThat(want).isNotEmpty();
        assertThat(got).isEqualTo(want);
        // and the runs that lost events say so
        long flagged = lossy.stream()
                .filter(p -> p.has("track_event"))
                .flatMap(p -> p.msg("track_event").all("debug_annotations").stream())
                .filter(a -> a.num("name_iid") == 3)
                .count();
        assertThat(flagged).isPositive();
    }

    /** The counter events of each track, as "time=value". */
    private static Map<Long, List<double[]>> counterEvents(List<Msg> packets) {
        Map<Long, List<double[]>> out = new HashMap<>();
        for (Msg p : packets) {
            Msg e = p.msg("track_event");
            if (e != null && e.has("double_counter_value")) {
                out.computeIfAbsent(e.num("track_uuid"), k -> new ArrayList<>())
                        .add(new double[] {p.num("timestamp"), Double.parseDouble(e.str("double_counter_value"))});
            }
        }
        return out;
    }

    private static void sameCounters(List<double[]> want, List<double[]> got, String what) {
        assertThat(got).as(what).hasSameSizeAs(want);
        for (int k = 0; k < want.size(); k++) {
            assertThat(got.get(k)[0]).as("%s: time of %d", what, k).isEqualTo(want.get(k)[0]);
            assertThat(got.get(k)[1])
                    .as("%s: value of %d", what, k)
                    .isCloseTo(want.get(k)[1], org.assertj.core.data.Offset.offset(Math.abs(want.get(k)[1]) * 1e-12));
        }
    }

    @Test
    void eachCounterSeriesIsACounterTrackUnderItsCoreOrTaskWithTheRatesOfItsRunningTotal() throws Exception {
        Path trace = dev.hetrace.ctf.testing.PerfCounterTrace.write(dir.resolve("perf"));
        StateBuilder.Input input = StateBuilder.synchronize(List.of(trace), w -> {});
        StateModel m = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        List<Msg> out = write(List.of(board("perf", input, m)), false, dir.resolve("perf.pftrace"));
        Map<Long, Msg> tracks = tracks(out);
        Map<Long, List<double[]>> events = counterEvents(out);
        assertThat(m.counters()).hasSize(2 + 4); // cycles of 2 CPUs, instructions of 4 threads (the idle one's too)
        for (int s = 0; s < m.counters().size(); s++) {
            StateModel.Counter c = m.counters().get(s);
            Msg t = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.SERIES, s));
            assertThat(t.msg("counter").str("unit_name")).isEqualTo(c.unit() + "/s");
            long parent = c.core() >= 0
                    ? PerfettoTrace.uuid(0, PerfettoTrace.CORE, c.core())
                    : tracks.containsKey(PerfettoTrace.uuid(0, PerfettoTrace.TASK, c.task()))
                            ? PerfettoTrace.uuid(0, PerfettoTrace.TASK, c.task())
                            : PerfettoTrace.uuid(0, PerfettoTrace.TRACE, c.trace());
            assertThat(t.num("parent_uuid")).as(t.str("name")).isEqualTo(parent);
            assertThat(t.str("name")).endsWith(c.name());
            assertThat(t.str("description")).contains("rate");
            // the rate from each sample to the next, at the first
            List<double[]> want = new ArrayList<>();
            long prevTime = 0;
            double prev = 0;
            boolean started = false;
            for (int i = 0; i < m.samples(); i++) {
                if (m.sampleSeries(i) != s) {
                    continue;
                }
                if (started && m.sampleTime(i) > prevTime) {
                    want.add(new double[] {prevTime, (m.sampleValue(i) - prev) * 1e9 / (m.sampleTime(i) - prevTime)});
                }
                prevTime = m.sampleTime(i);
                prev = m.sampleValue(i);
                started = true;
            }
            assertThat(want).as(t.str("name")).isNotEmpty();
            sameCounters(want, events.get(t.num("uuid")), t.str("name"));
        }
    }

    @Test
    void aStreamsLostEventsAreACounterOfTheEventsLostSoFar() throws Exception {
        Simulation.Result r =
                Simulation.sobel(SimConfig.sobel(5).withBuffers(512, 2, 150_000_000), dir.resolve("lossy-counts"));
        StateBuilder.Input input = StateBuilder.synchronize(List.of(r.slaves().get(0)), w -> {});
        StateModel m = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        List<Msg> out = write(List.of(board("lossy", input, m)), false, dir.resolve("lossy-counts.pftrace"));
        Map<Long, Msg> tracks = tracks(out);
        Map<Long, List<double[]>> events = counterEvents(out);
        long total = 0;
        int series = 0;
        for (int s = 0; s < m.counters().size(); s++) {
            StateModel.Counter c = m.counters().get(s);
            if (c.kind() != StateModel.COUNTER_LOST) {
                continue;
            }
            series++;
            Msg t = tracks.get(PerfettoTrace.uuid(0, PerfettoTrace.SERIES, s));
            assertThat(t.num("parent_uuid")).isEqualTo(PerfettoTrace.uuid(0, PerfettoTrace.TRACE, c.trace()));
            assertThat(t.str("description")).contains("lost so far");
            List<double[]> want = new ArrayList<>();
            double sum = 0;
            for (int i = 0; i < m.samples(); i++) {
                if (m.sampleSeries(i) == s) {
                    sum += m.sampleValue(i);
                    want.add(new double[] {m.sampleTime(i), sum});
                }
            }
            total += (long) sum;
            sameCounters(want, events.get(t.num("uuid")), t.str("name"));
        }
        assertThat(series).isPositive();
        assertThat(total)
                .as("the events lost, all told")
                .isEqualTo(m.discarded())
                .isPositive();
    }
}
