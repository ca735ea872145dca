package dev.hetrace.analysis;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.testing.PerfCounterTrace;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.testing.TraceWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The counters the traces carry, as series of the state model: LTTng's perf contexts (a running
 * total per CPU or per thread in every event's stream event context), a mapping's counter rules,
 * and the events each stream lost, each sample checked against what babeltrace2 reads in the same
 * trace.
 */
class CounterSeriesTest {
    @TempDir
    Path dir;

    /** An event line of babeltrace2's text output: time, name, cpu_id, the perf counters, the payload. */
    record Line(long time, String name, int cpu, long cycles, long instructions, Map<String, Long> fields) {}

    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)\\.(\\d{9})\\] \\S+ (\\w+): \\{ cpu_id = (\\d+) \\},"
            + " \\{ perf_cpu_cycles = (\\d+), perf_thread_instructions = (\\d+) \\}, \\{ (.*) \\}$");
    private static final Pattern NUMBER_FIELD = Pattern.compile("(\\w+) = (-?\\d+)");

    /** What babeltrace2 prints of {@code trace} on standard output (and its warnings, {@code err[0]}). */
    static String babeltrace(Path trace, String[] err) throws IOException, InterruptedException {
        Path bt = LttngSessionDaemon.onPath("babeltrace2");
        if (bt == null) {
            Required.missing("babeltrace2 is not installed: the counters are not compared with what it reads");
        }
        Path out = Path.of(trace + ".bt.txt");
        Process p = new ProcessBuilder(bt.toString(), "--clock-seconds", "--no-delta", trace.toString())
                .redirectOutput(out.toFile())
                .start();
        String warnings = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("babeltrace2: %s", warnings).isZero();
        if (err != null) {
            err[0] = warnings;
        }
        return java.nio.file.Files.readString(out);
    }

    static List<Line> lines(String text) {
        List<Line> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            Matcher m = LINE.matcher(l);
            if (!m.matches()) {
                continue;
            }
            Map<String, Long> fields = new HashMap<>();
            Matcher f = NUMBER_FIELD.matcher(m.group(7));
            while (f.find()) {
                fields.put(f.group(1), Long.parseLong(f.group(2)));
            }
            out.add(new Line(
                    Long.parseLong(m.group(1)) * 1_000_000_000L + Long.parseLong(m.group(2)),
                    m.group(3),
                    Integer.parseInt(m.group(4)),
                    Long.parseUnsignedLong(m.group(5)),
                    Long.parseUnsignedLong(m.group(6)),
                    fields));
        }
        return out;
    }

    /** Each series' samples as (time, value) pairs, by a key of its owner. */
    private static Map<String, List<List<Long>>> samples(StateModel m, String series, boolean byTask) {
        Map<String, List<List<Long>>> out = new TreeMap<>();
        for (int i = 0; i < m.samples(); i++) {
            StateModel.Counter c = m.counters().get(m.sampleSeries(i));
            if (!c.name().equals(series)) {
                continue;
            }
            String key = byTask
                    ? "tid " + m.tasks().get(c.task()).id()
                    : m.cores().get(c.core()).name();
            double v = m.sampleValue(i);
            assertThat(v).as("a sample of a whole number").isEqualTo(Math.rint(v));
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(List.of(m.sampleTime(i), (long) v));
        }
        return out;
    }

    private static StateModel model(Path trace, Mapping mapping) throws Exception {
        return StateBuilder.build(
                StateBuilder.synchronize(List.of(trace), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(mapping));
    }

    @Test
    void perfContextsAreSeriesPerCpuAndPerThreadWithTheValuesBabeltrace2Reads() throws Exception {
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        List<Line> lines = lines(babeltrace(trace, null));
        assertThat(lines).hasSize(2 * PerfCounterTrace.EVENTS);
        StateModel m = model(trace, null);

        // per CPU: every event of the CPU, its cycle counter
        Map<String, List<List<Long>>> cpu = new TreeMap<>();
        // per thread: every event while the thread ran (a switch's is the thread leaving's), from the first switch on
        Map<String, List<List<Long>>> thread = new TreeMap<>();
        Map<Integer, Long> running = new HashMap<>();
        for (Line l : lines) {
            cpu.computeIfAbsent("kernel/cpu" + l.cpu(), k -> new ArrayList<>()).add(List.of(l.time(), l.cycles()));
            Long tid = running.get(l.cpu());
            if (tid != null) {
                thread.computeIfAbsent("tid " + tid, k -> new ArrayList<>()).add(List.of(l.time(), l.instructions()));
            }
            if (l.name().equals("sched_switch")) {
                running.put(l.cpu(), l.fields().get("next_tid"));
            }
        }
        assertThat(samples(m, "perf:cpu:cycles", false)).isEqualTo(cpu);
        assertThat(samples(m, "perf:thread:instructions", true)).isEqualTo(thread);
        assertThat(thread).containsKeys("tid 100", "tid 101", "tid 200");
        for (StateModel.Counter c : m.counters()) {
            assertThat(c.kind()).as(c.name()).isEqualTo(StateModel.COUNTER_TOTAL);
            assertThat(c.unit()).isEqualTo(c.name().endsWith("cycles") ? "cycles" : "instructions");
        }
    }

    @Test
    void aMappingsCounterRulesSampleAFieldPerTaskOrPerCoreAsAValueOrARunningTotal() throws Exception {
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        Mapping mapping = Mapping.parse("""
                name: kernel-with-app-counters
                core: packet_context.cpu_id
                idle: {id: 0}
                states: linux
                events:
                  - {event: sched_switch, does: switch, next: next_comm, next-id: next_tid, prev: prev_comm, prev-id: prev_tid, prev-state: prev_state}
                  - {event: app_queue, does: counter, value: depth, name: queue depth, unit: messages, per: task}
                  - {event: app_sent, does: counter, value: sent, name: bytes sent, unit: B, as: total}
                """, "app.yaml");
        List<Line> lines = lines(babeltrace(trace, null));
        StateModel m = model(trace, mapping);

        Map<String, List<List<Long>>> depth = new TreeMap<>();
        Map<String, List<List<Long>>> sent = new TreeMap<>();
        Map<Integer, Long> running = new HashMap<>();
        for (Line l : lines) {
            switch (l.name()) {
                case "sched_switch" -> running.put(l.cpu(), l.fields().get("next_tid"));
                // before the CPU's first switch, the task the trace does not name (no id)
                case "app_queue" ->
                    depth.computeIfAbsent("tid " + running.getOrDefault(l.cpu(), -1L), k -> new ArrayList<>())
                            .add(List.of(l.time(), l.fields().get("depth")));
                case "app_sent" ->
                    sent.computeIfAbsent("kernel/cpu" + l.cpu(), k -> new ArrayList<>())
                            .add(List.of(l.time(), l.fields().get("sent")));
                default -> throw new AssertionError(l);
            }
        }
        assertThat(depth).containsKeys("tid -1", "tid 100", "tid 101");
        assertThat(samples(m, "queue depth", true)).isEqualTo(depth);
        assertThat(samples(m, "bytes sent", false)).isEqualTo(sent);
        for (StateModel.Counter c : m.counters()) {
            if (c.name().equals("queue depth")) {
                assertThat(c)
                        .extracting(StateModel.Counter::unit, StateModel.Counter::kind, StateModel.Counter::core)
                        .containsExactly("messages", StateModel.COUNTER_VALUE, -1);
            } else if (c.name().equals("bytes sent")) {
                assertThat(c)
                        .extracting(StateModel.Counter::unit, StateModel.Counter::kind, StateModel.Counter::task)
                        .containsExactly("B", StateModel.COUNTER_TOTAL, -1);
            }
        }
    }

    @Test
    void aCounterRuleThatNamesNoKnownWayOfCountingIsRefusedWithItsLine() {
        assertThatThrownBy(() -> Mapping.parse("""
                        events:
                          - {event: a, does: counter, value: v}
                          - {event: b, does: counter, value: v, per: thread}
                        """, "bad.yaml"))
                .isInstanceOf(MappingException.class)
                .hasMessage("bad.yaml:3: b: per: expected core or task, got 'thread'");
        assertThatThrownBy(() -> Mapping.parse("events: [{event: a, does: counter, value: v, as: rate}]", "bad.yaml"))
                .hasMessage("bad.yaml:1: a: as: expected value or total, got 'rate'");
        assertThatThrownBy(() -> Mapping.parse("events: [{event: a, does: counter}]", "bad.yaml"))
                .hasMessage("bad.yaml:1: a: 'counter' needs the field role 'value'");
    }

    /**
     * A trace whose tracer lost events as the packet contexts' events_discarded say (a running count
     * per stream): chan_0 loses 5 then 2, chan_1 already counts 3 at its first packet (how many of them
     * the trace missed is unknown), then 6.
     */
    static Path lossy(Path dir) throws IOException {
        return new TraceWriter(dir)
                .stream("chan_0", 0)
                        .packet(100, 200, 0, 0, event(110, 1, "a"), event(150, 2, "b"))
                        .packet(300, 400, 1, 5, event(310, 3, "c"), event(390, 4, "d"))
                        .packet(500, 600, 2, 5, event(510, 5, "e"))
                        .packet(700, 800, 3, 7, event(710, 6, "f"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(120, 250, 0, 3, event(130, 10, "x"), event(240, 11, "y"))
                        .packet(350, 450, 1, 3, event(360, 12, "z"))
                        .packet(460, 470, 2, 9, event(465, 13, "w"))
                        .done()
                        .write();
    }

    @Test
    void eventsAStreamLostAreCountedAtThePacketThatToldThemAsBabeltrace2ReportsThem() throws Exception {
        Path trace = lossy(dir.resolve("lossy"));
        String[] warnings = new String[1];
        babeltrace(trace, warnings);
        // babeltrace2's warnings: how many, up to the end of the packet that told them, in which stream
        Matcher w = Pattern.compile("Tracer discarded (\\d+) events between \\[(\\d+)\\.(\\d{9})\\] and"
                        + " \\[(\\d+)\\.(\\d{9})\\] in trace .*? within stream \"[^\"]*/(\\w+)\"")
                .matcher(warnings[0].replace("\n", " "));
        Map<String, List<List<Long>>> told = new TreeMap<>();
        while (w.find()) {
            told.computeIfAbsent("lost events (" + w.group(6) + ")", k -> new ArrayList<>())
                    .add(List.of(
                            Long.parseLong(w.group(4)) * 1_000_000_000L + Long.parseLong(w.group(5)),
                            Long.parseUnsignedLong(w.group(1))));
        }
        assertThat(told).as("babeltrace2's warnings:%n%s", warnings[0]).hasSize(2);

        StateModel m = model(trace, null);
        Map<String, List<List<Long>>> counted = new TreeMap<>();
        long sum = 0;
        for (int i = 0; i < m.samples(); i++) {
            StateModel.Counter c = m.counters().get(m.sampleSeries(i));
            assertThat(c.kind()).isEqualTo(StateModel.COUNTER_LOST);
            assertThat(c.unit()).isEqualTo("events");
            assertThat(c.core()).isEqualTo(-1);
            assertThat(c.task()).isEqualTo(-1);
            counted.computeIfAbsent(c.name(), k -> new ArrayList<>())
                    .add(List.of(m.sampleTime(i), (long) m.sampleValue(i)));
            sum += (long) m.sampleValue(i);
        }
        assertThat(counted).isEqualTo(told);
        assertThat(counted.get("lost events (chan_0)"))
                .extracting(x -> x.get(1))
                .containsExactly(5L, 2L);
        // the 3 chan_1's first packet counts may have been lost before the trace began: no count (babeltrace2: "may
        // have")
        assertThat(sum).isEqualTo(m.discarded()).isEqualTo(5 + 2 + 6);
    }

    /** Heap bytes the calling thread allocates to build the model of {@code trace} on it. */
    private static long allocated(Path trace, Mapping mapping) throws Exception {
        var mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        StateBuilder.Input input = StateBuilder.synchronize(List.of(trace), w -> {});
        StateBuilder.Options options =
                StateBuilder.Options.of(w -> {}).withMapping(mapping).withThreads(1);
        StateBuilder.build(input, options); // warmed up
        long before = mx.getCurrentThreadAllocatedBytes();
        StateModel m = StateBuilder.build(input, options);
        long bytes = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(m.samples()).isPositive();
        return bytes;
    }

    @Test
    void theCountersAllocateNothingPerEvent() throws Exception {
        Mapping mapping = Mapping.parse("""
                core: packet_context.cpu_id
                idle: {id: 0}
                states: linux
                events:
                  - {event: sched_switch, does: switch, next: next_comm, next-id: next_tid, prev: prev_comm, prev-id: prev_tid, prev-state: prev_state}
                  - {event: app_queue, does: counter, value: depth, name: queue depth, per: task}
                  - {event: app_sent, does: counter, value: sent, name: bytes sent, as: total}
                """, "app.yaml");
        int small = 20_000;
        int large = 60_000;
        // packets of 64 KiB: what the reading allocates per packet is spread over a thousand events or more
        long a = allocated(PerfCounterTrace.write(dir.resolve("small"), small, 1 << 16), mapping);
        long b = allocated(PerfCounterTrace.write(dir.resolve("large"), large, 1 << 16), mapping);
        // every event samples two perf counters and most a rule's counter: an object per event would be 16 bytes at
        // least; what remains (under a byte an event) is per packet and per chunk of 2,048 samples
        double perEvent = (double) (b - a) / (2 * (large - small));
        assertThat(perEvent)
                .as("bytes allocated per event (%d then %d bytes)", a, b)
                .isLessThan(4.0);
    }
}
