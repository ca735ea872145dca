package dev.hetrace.sim;

import dev.hetrace.ctf.text.JsonText;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What really happened on a simulated board, to check analyses against: every core's true
 * clock, the faults injected (cores and times), and the true intervals of the tasks and of
 * their functions, in true time and as each core's trace reports them. Written as
 * {@code ground-truth.json} beside the traces.
 */
public final class GroundTruth {
    /** A core: its name in the traces, its id in the sync events, and its clock. */
    public record CoreTruth(String name, int id, String kind, ClockModel clock) {}

    /** A message queue: the id the msgq events carry, the core that reads it, and what it is for. */
    public record QueueTruth(int id, String core, String name) {}

    /** An injected fault: what, on which cores, from when (true ns). */
    public record FaultTruth(String kind, List<String> cores, long atNanos, String description) {}

    /**
     * An interval on a core: a task running ({@code kind} "run", {@code name} the task) or a
     * function call from entry to exit, preemptions included ({@code kind} "function").
     * Times are true ns and the ns the core's trace reports.
     */
    public record Interval(
            String core,
            String task,
            String kind,
            String name,
            long startNanos,
            long endNanos,
            long startTraceNanos,
            long endTraceNanos) {
        public long durationNanos() {
            return endNanos - startNanos;
        }
    }

    private final long seed;
    private final String scenario;
    private final long durationNanos;
    private final List<CoreTruth> cores = new ArrayList<>();
    private final List<FaultTruth> faults = new ArrayList<>();
    private final List<Interval> intervals = new ArrayList<>();
    private final List<QueueTruth> queues = new ArrayList<>();
    private final Map<String, Long> symbols;
    private final List<long[]> discarded = new ArrayList<>();

    GroundTruth(long seed, String scenario, long durationNanos, Map<String, Long> symbols) {
        this.seed = seed;
        this.scenario = scenario;
        this.durationNanos = durationNanos;
        this.symbols = symbols;
    }

    public List<CoreTruth> cores() {
        return Collections.unmodifiableList(cores);
    }

    public CoreTruth core(String name) {
        return cores.stream()
                .filter(c -> c.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no core " + name));
    }

    public List<FaultTruth> faults() {
        return Collections.unmodifiableList(faults);
    }

    public List<Interval> intervals() {
        return Collections.unmodifiableList(intervals);
    }

    /** The function calls named {@code func} on core {@code core}, in order. */
    public List<Interval> calls(String core, String func) {
        return intervals.stream()
                .filter(i -> i.kind().equals("function")
                        && i.core().equals(core)
                        && i.name().equals(func))
                .toList();
    }

    /** Function addresses of the master's trace (its func_entry/func_exit carry addresses). */
    public Map<String, Long> symbols() {
        return symbols;
    }

    /** The symbol table as {@code StateModel.symbolize} takes it: {@code 0x} and lowercase hex address to name. */
    public Map<String, String> symbolNames() {
        Map<String, String> out = new HashMap<>();
        symbols.forEach((name, addr) -> out.put("0x" + Long.toHexString(addr), name));
        return out;
    }

    /**
     * Events slave {@code coreId}'s tracer dropped because its buffer was full, as its packets'
     * {@code events_discarded} count them.
     */
    public long discarded(int coreId) {
        return discarded.stream()
                .filter(d -> d[0] == coreId)
                .mapToLong(d -> d[1])
                .sum();
    }

    /** Events dropped after the core's last packet, which no packet counts. */
    public long lostAtEnd(int coreId) {
        return discarded.stream()
                .filter(d -> d[0] == coreId)
                .mapToLong(d -> d[2])
                .sum();
    }

    public long durationNanos() {
        return durationNanos;
    }

    void core(CoreTruth c) {
        cores.add(c);
    }

    public List<QueueTruth> queues() {
        return Collections.unmodifiableList(queues);
    }

    void queue(QueueTruth q) {
        queues.add(q);
    }

    void fault(FaultTruth f) {
        faults.add(f);
    }

    void discarded(int coreId, long counted, long lostAtEnd) {
        discarded.add(new long[] {coreId, counted, lostAtEnd});
    }

    void run(Core core, String task, long start, long end) {
        if (end > start) {
            intervals.add(interval(core, task, "run", task, start, end));
        }
    }

    void function(Core core, String task, String func, long start, long end) {
        intervals.add(interval(core, task, "function", func, start, end));
    }

    /** An interval whose trace times the caller computed (a core whose trace reports times its own way). */
    void interval(Interval i) {
        intervals.add(i);
    }

    private static Interval interval(Core core, String task, String kind, String name, long start, long end) {
        return new Interval(
                core.name, task, kind, name, start, end, core.clock.traceNanos(start), core.clock.traceNanos(end));
    }

    /** Writes the truth as JSON (numbers exact: drift as a decimal ppm, times in integer ns). */
    void write(Path file) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("{\n  \"scenario\": " + str(scenario) + ",\n  \"seed\": " + seed + ",\n  \"duration_ns\": "
                    + durationNanos + ",\n");
            w.write(
                    "  \"time\": \"true ns from the start of the run; *_trace_ns: what a reader reports for that instant"
                            + " on the core's trace\",\n");
            w.write(
                    "  \"clock\": \"cycles(t) = origin_cycles + t * frequency_hz / 1e9 * (1 + drift_ppm / 1e6),"
                            + " then from drift_jump.at_ns at drift_jump.drift_ppm; a 32-bit counter is extended by the tracer\",\n");
            w.write("  \"cores\": [\n");
            for (int i = 0; i < cores.size(); i++) {
                CoreTruth c = cores.get(i);
                ClockModel k = c.clock();
                w.write("    {\"name\": " + str(c.name()) + ", \"id\": " + c.id() + ", \"kind\": " + str(c.kind())
                        + ", \"frequency_hz\": " + k.frequencyHz() + ", \"offset_s\": " + k.offsetSeconds()
                        + ", \"origin_cycles\": " + k.originCycles() + ", \"drift_ppm\": " + num(k.driftPpm())
                        + ", \"wraps32\": " + k.wraps32() + ", \"jitter_cycles\": " + k.jitterCycles()
                        + ", \"drift_jump\": "
                        + (k.jumps()
                                ? "{\"at_ns\": " + k.jumpAtNanos() + ", \"drift_ppm\": " + num(k.jumpDriftPpm()) + "}"
                                : "null")
                        + ", \"events_discarded\": " + discarded(c.id()) + ", \"events_lost_after_last_packet\": "
                        + lostAtEnd(c.id()) + "}" + (i + 1 < cores.size() ? "," : "") + "\n");
            }
            w.write("  ],\n  \"faults\": [\n");
            for (int i = 0; i < faults.size(); i++) {
                FaultTruth f = faults.get(i);
                w.write("    {\"kind\": " + str(f.kind()) + ", \"cores\": ["
                        + String.join(
                                ", ", f.cores().stream().map(GroundTruth::str).toList()) + "], \"at_ns\": "
                        + f.atNanos() + ", \"description\": "
                        + str(f.description()) + "}" + (i + 1 < faults.size() ? "," : "") + "\n");
            }
            w.write("  ],\n  \"queues\": [\n");
            for (int i = 0; i < queues.size(); i++) {
                QueueTruth q = queues.get(i);
                w.write("    {\"id\": " + q.id() + ", \"core\": " + str(q.core()) + ", \"name\": " + str(q.name()) + "}"
                        + (i + 1 < queues.size() ? "," : "") + "\n");
            }
            w.write("  ],\n  \"symbols\": {");
            int n = 0;
            for (Map.Entry<String, Long> s : symbols.entrySet()) {
                w.write((n++ > 0 ? ", " : "") + str(s.getKey()) + ": " + str("0x" + Long.toHexString(s.getValue())));
            }
            w.write("},\n  \"intervals\": [\n");
            for (int i = 0; i < intervals.size(); i++) {
                Interval v = intervals.get(i);
                w.write("    {\"core\": " + str(v.core()) + ", \"task\": " + str(v.task()) + ", \"kind\": "
                        + str(v.kind())
                        + ", \"name\": " + str(v.name()) + ", \"start_ns\": " + v.startNanos() + ", \"end_ns\": "
                        + v.endNanos() + ", \"start_trace_ns\": " + v.startTraceNanos() + ", \"end_trace_ns\": "
                        + v.endTraceNanos() + "}" + (i + 1 < intervals.size() ? "," : "") + "\n");
            }
            w.write("  ]\n}\n");
        }
    }

    private static String num(double d) {
        return String.format(Locale.ROOT, "%.6f", d);
    }

    private static String str(String s) {
        return JsonText.quote(s);
    }
}
