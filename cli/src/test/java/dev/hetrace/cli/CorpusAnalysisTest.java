package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.cli.KernelTraceReference.Figures;
import dev.hetrace.cli.KernelTraceReference.SwitchOuts;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every analysis command, as a user types it, on every real trace of the corpus and every trace of
 * babeltrace's {@code succeed} suite: no internal error, and each kernel trace's figures (CPU, thread,
 * interrupt and system call) equal to those {@link KernelTraceReference} computes from babeltrace2's
 * text. One index and timeline cache serves all the commands of a trace.
 */
class CorpusAnalysisTest {
    @TempDir
    static Path dir;

    /** The traces: every folder under {@code real/} and {@code babeltrace/succeed/}. */
    private static List<Path> traces() throws IOException {
        List<Path> traces = new ArrayList<>();
        for (String suite : List.of("real", "babeltrace/succeed")) {
            try (Stream<Path> s = Files.list(Corpus.trace(suite))) {
                s.filter(Files::isDirectory).sorted().forEach(traces::add);
            }
        }
        return traces;
    }

    private static String name(Path trace) {
        return trace.getParent().getFileName() + "/" + trace.getFileName();
    }

    private static String cache() {
        return dir.resolve("cache").toString();
    }

    // --- no internal error anywhere ---

    @TestFactory
    Stream<DynamicContainer> everyAnalysisRunsOnEveryTraceWithoutAnInternalError() throws IOException {
        List<DynamicContainer> all = new ArrayList<>();
        for (Path trace : traces()) {
            String t = trace.toString();
            String report = dir.resolve(name(trace).replace('/', '-') + ".html").toString();
            Map<String, Supplier<Cli.Run>> commands = new LinkedHashMap<>();
            commands.put("stats", () -> Cli.run("stats", t));
            commands.put("diagnose", () -> Cli.run("diagnose", t));
            commands.put("waits", () -> Cli.run("waits", t));
            commands.put(
                    "query over every table, events' fields too",
                    () -> Cli.run(
                            "query",
                            "--cache",
                            cache(),
                            t,
                            "select"
                                    + " (select count(*) from events) as events, (select count(*) from intervals) as intervals,"
                                    + " (select count(*) from calls) as calls, (select count(*) from messages) as messages,"
                                    + " (select count(*) from sync_pairs) as sync_pairs, (select count(*) from sync_messages) as sync_messages,"
                                    + " (select count(*) from stats) as stats, (select count(*) from traces) as traces,"
                                    + " (select count(*) from cores) as cores, (select count(*) from tasks) as tasks,"
                                    + " (select string_agg(fields::varchar, ' ') from (select fields from events order by time_ns limit 20)) as fields"));
            commands.put("report", () -> Cli.run("report", "-o", report, t));
            commands.put("view's data over HTTP", () -> Cli.run("view", "--cache", cache(), "--bench", "3", t));
            all.add(DynamicContainer.dynamicContainer(
                    name(trace),
                    commands.entrySet().stream()
                            .map(c -> DynamicTest.dynamicTest(
                                    c.getKey(),
                                    () -> analysed(
                                            trace, c.getKey(), c.getValue().get())))));
        }
        return all.stream();
    }

    /**
     * The command worked: exit status 0, or, for a trace without a timed event (nothing to place on a time
     * line), a refusal in one line (after the progress and warnings); never an internal error or a stack trace.
     */
    private static void analysed(Path trace, String command, Cli.Run r) throws Exception {
        String what = name(trace) + ": " + command;
        assertThat(r.err())
                .as(what + ": stderr")
                .doesNotContain("internal error")
                .doesNotContain("\tat ")
                .doesNotContain("Exception");
        if (r.status() == 1 && !timed(trace)) {
            assertThat(r.err().strip().lines().toList().getLast())
                    .as(what + ": a refusal in one line")
                    .startsWith("hetrace: ")
                    .doesNotStartWith("hetrace: warning: ");
        } else {
            assertThat(r.status())
                    .as(what + ": exit status; stderr: " + r.err())
                    .isZero();
        }
    }

    /** Whether any event of the trace has a time. */
    private static boolean timed(Path trace) throws Exception {
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                if (r.event().hasTime()) {
                    return true;
                }
            }
        }
        return false;
    }

    // --- the kernel traces' figures against babeltrace2's text ---

    @TestFactory
    Stream<DynamicContainer> kernelTracesGiveTheFiguresOfTheirBabeltrace2Text() throws Exception {
        requireBabeltrace2();
        List<DynamicContainer> all = new ArrayList<>();
        // each kernel trace on its own: a folder that holds others beside it (multi-domains) is
        // several traces to hetrace, put on the first one's clock, and babeltrace2 does not do that
        List<Path> kernelTraces = new ArrayList<>();
        for (Path folder : traces()) {
            KernelTraceReference.metadata(folder).stream()
                    .filter(KernelTraceReference.Metadata::kernel)
                    .map(KernelTraceReference.Metadata::dir)
                    .forEach(kernelTraces::add);
        }
        for (Path trace : kernelTraces) {
            List<KernelTraceReference.Metadata> kernels = KernelTraceReference.metadata(trace);
            Set<String> syscallNames = new TreeSet<>();
            kernels.forEach(m -> m.events().stream()
                    .map(KernelTraceReference::syscallEntry)
                    .filter(s -> s != null)
                    .forEach(syscallNames::add));
            Lazy<Figures> ref = new Lazy<>(() -> KernelTraceReference.of(trace));
            Lazy<HetraceFigures> het = new Lazy<>(() -> HetraceFigures.of(trace, syscallNames));
            all.add(DynamicContainer.dynamicContainer(
                    name(trace),
                    Stream.of(
                            DynamicTest.dynamicTest(
                                    "first and last event",
                                    () -> same(
                                            name(trace) + ": first and last event",
                                            Map.of(
                                                    "first_ns",
                                                    ref.get().firstNs(),
                                                    "last_ns",
                                                    ref.get().lastNs()),
                                            Map.of("first_ns", het.get().firstNs, "last_ns", het.get().lastNs))),
                            DynamicTest.dynamicTest(
                                    "per CPU busy time",
                                    () -> same(
                                            name(trace) + ": busy ns per CPU",
                                            ref.get().busyNs(),
                                            het.get().busyNs)),
                            DynamicTest.dynamicTest(
                                    "per CPU idle time",
                                    () -> same(
                                            name(trace) + ": idle ns per CPU",
                                            ref.get().idleNs(),
                                            het.get().idleNs)),
                            DynamicTest.dynamicTest(
                                    "per thread run time",
                                    () -> same(
                                            name(trace) + ": run ns per tid",
                                            ref.get().runNs(),
                                            het.get().runNs)),
                            DynamicTest.dynamicTest(
                                    "per thread preemptions",
                                    () -> same(
                                            name(trace) + ": preempted switch-outs per tid",
                                            count(ref.get().switchOuts(), SwitchOuts::preempted),
                                            het.get().preempted)),
                            DynamicTest.dynamicTest(
                                    "per thread blocked switch-outs",
                                    () -> same(
                                            name(trace) + ": blocked switch-outs per tid",
                                            count(ref.get().switchOuts(), SwitchOuts::blocked),
                                            het.get().blocked)),
                            DynamicTest.dynamicTest("interrupts and softirqs per CPU", () -> {
                                Compared c = het.get().interrupts(ref.get());
                                same(name(trace) + ": interrupt entries per CPU", c.reference(), c.hetrace());
                            }),
                            DynamicTest.dynamicTest(
                                    "system calls",
                                    () -> same(
                                            name(trace) + ": entries per system call",
                                            ref.get().syscalls(),
                                            het.get().syscalls)),
                            DynamicTest.dynamicTest(
                                    "system calls per thread",
                                    () -> same(
                                            name(trace) + ": entries per tid and system call",
                                            perThread(ref.get().syscallsPerThread()),
                                            het.get().syscallsPerThread)))));
        }
        assertThat(all).as("kernel traces in the corpus").isNotEmpty();
        return all.stream();
    }

    /** babeltrace2 (.ci/run installs it): see {@link Required#missing}. */
    private static void requireBabeltrace2() throws InterruptedException {
        boolean works;
        try {
            Process p = new ProcessBuilder("babeltrace2", "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            works = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            works = false;
        }
        if (!works) {
            String why =
                    "the kernel figures are checked against babeltrace2's text: apt-get install babeltrace2 (.ci/run does)";
            Required.missing(why);
        }
    }

    /** Equal maps, absent keys counting as 0; else every difference, one per line. */
    private static <K> void same(String what, Map<K, Long> reference, Map<K, Long> hetrace) {
        Set<K> keys = new TreeSet<>(reference.keySet());
        keys.addAll(hetrace.keySet());
        List<String> differences = new ArrayList<>();
        for (K k : keys) {
            long r = reference.getOrDefault(k, 0L);
            long h = hetrace.getOrDefault(k, 0L);
            if (r != h) {
                differences.add("  " + k + ": babeltrace2 " + r + ", hetrace " + h + " (" + (h - r > 0 ? "+" : "")
                        + (h - r) + ")");
            }
        }
        if (!differences.isEmpty()) {
            fail(what + ": " + differences.size() + " of " + keys.size() + " differ\n"
                    + String.join("\n", differences.subList(0, Math.min(40, differences.size())))
                    + (differences.size() > 40 ? "\n  ..." : ""));
        }
    }

    private static Map<Integer, Long> count(Map<Integer, SwitchOuts> outs, Function<SwitchOuts, Integer> kind) {
        Map<Integer, Long> m = new TreeMap<>();
        outs.forEach((tid, o) -> m.put(tid, (long) kind.apply(o)));
        return m;
    }

    private static Map<String, Long> perThread(Map<Integer, Map<String, Long>> m) {
        Map<String, Long> flat = new TreeMap<>();
        m.forEach((tid, calls) -> calls.forEach((call, n) -> flat.put(String.format("tid %7d %s", tid, call), n)));
        return flat;
    }

    /** The reference's entries keyed as {@code cpuN irq 26} and {@code cpuN softirq 1}. */
    private static Map<String, Long> referenceInterrupts(Figures f) {
        Map<String, Long> m = new TreeMap<>();
        f.irqs().forEach((cpu, irqs) -> irqs.forEach((irq, n) -> m.put(interrupt(cpu, "irq", irq), n)));
        f.softirqs().forEach((cpu, vecs) -> vecs.forEach((vec, n) -> m.put(interrupt(cpu, "softirq", vec), n)));
        return m;
    }

    private static String interrupt(int cpu, String kind, long number) {
        return String.format("cpu%-3d %s %d", cpu, kind, number);
    }

    /** An interrupt's entries on a CPU, as hetrace names the interrupt. */
    private record IrqRow(int cpu, String irq, long entries) {}

    /** One figure's values, from babeltrace2's text and from hetrace. */
    private record Compared(Map<String, Long> reference, Map<String, Long> hetrace) {}

    /** The softirq vectors' names (the kernel's softirq_to_name), by vector; BLOCK_IOPOLL was renamed IRQ_POLL. */
    private static final List<String> SOFTIRQS =
            List.of("HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU");

    /** The figures hetrace gives through {@code hetrace query} over its SQL tables. */
    private static final class HetraceFigures {
        long firstNs;
        long lastNs;
        final Map<Integer, Long> busyNs = new TreeMap<>();
        final Map<Integer, Long> idleNs = new TreeMap<>();
        final Map<Integer, Long> runNs = new TreeMap<>();
        final Map<Integer, Long> preempted = new TreeMap<>();
        final Map<Integer, Long> blocked = new TreeMap<>();
        final List<IrqRow> irqRows = new ArrayList<>();
        final Map<String, Long> syscalls = new TreeMap<>();
        final Map<String, Long> syscallsPerThread = new TreeMap<>();

        /**
         * One statement (each {@code hetrace query} opens the index anew), a figure per row: {@code (figure, a, b, n)}.
         * tid 0 is each CPU's idle task, whose time is the CPU's idle time; a task without a tid is -1. A switch-out
         * is the task state that starts where one of the task's runs ends.
         */
        private static final String FIGURES = """
            select 'first' as figure, null as a, null as b, min(first_ns) as n from traces
            union all select 'last', null, null, max(last_ns) from traces
            union all select context, name, null, total_ns from stats where context in ('core', 'idle')
            union all select 'run', coalesce(t.tid, -1)::varchar, null, sum(i.duration_ns) from intervals i
              join tasks t on t.task = i.task where i.kind = 'run' and coalesce(t.tid, -1) <> 0 group by all
            union all select 'switch-out', coalesce(t.tid, -1)::varchar, s.state::varchar, count(*) from intervals s
              join tasks t on t.task = s.task where s.kind = 'task_state' and coalesce(t.tid, -1) <> 0
              and exists (select 1 from intervals r where r.kind = 'run' and r.task = s.task and r.end_ns = s.start_ns) group by all
            union all select 'irq', core::varchar, irq::varchar, count(*) from intervals
              where kind = 'irq' and not start_unknown group by all
            union all select 'call', coalesce(t.tid, -1)::varchar, c.function::varchar, count(*) from calls c
              join tasks t on t.task = c.task where not c.start_unknown group by all
            """;

        private HetraceFigures(Path trace, Set<String> syscallNames) throws IOException {
            for (var row : query(trace, FIGURES)) {
                String a = (String) row.get("a");
                String b = (String) row.get("b");
                long n = number(row, "n");
                switch ((String) row.get("figure")) {
                    case "first" -> firstNs = n;
                    case "last" -> lastNs = n;
                    case "core" -> busyNs.merge(cpu(a), n, Long::sum);
                    case "idle" -> idleNs.merge(cpu(a), n, Long::sum);
                    case "run" -> runNs.put(Integer.valueOf(a), n);
                    case "switch-out" -> {
                        if (b.equals("preempted") || b.equals("blocked")) {
                            (b.equals("preempted") ? preempted : blocked).put(Integer.valueOf(a), n);
                        }
                    }
                    case "irq" -> irqRows.add(new IrqRow(cpu(a), b, n));
                    case "call" -> {
                        if (syscallNames.contains(b)) {
                            syscalls.merge(b, n, Long::sum);
                            syscallsPerThread.merge(String.format("tid %7d %s", Integer.valueOf(a), b), n, Long::sum);
                        }
                    }
                    default -> throw new IllegalStateException("unknown figure " + row);
                }
            }
        }

        static HetraceFigures of(Path trace, Set<String> syscallNames) throws IOException {
            return new HetraceFigures(trace, syscallNames);
        }

        /**
         * hetrace's interrupt entries beside the reference's, keyed alike. hetrace names an interrupt (the
         * {@code irq} column); a name is read back as the interrupts it stands for: a softirq by its vector (its
         * number or its name), a hard interrupt by its handler's name or its number. A name that stands for
         * several numbers (handlers of one name) is compared with the sum of their entries.
         */
        Compared interrupts(Figures ref) {
            Map<String, Long> reference = referenceInterrupts(ref);
            Map<String, Long> hetrace = new TreeMap<>();
            for (IrqRow row : irqRows) {
                int cpu = row.cpu();
                String label = row.irq();
                List<String> keys = interruptKeys(cpu, label, ref);
                long n = row.entries();
                if (keys.isEmpty()) {
                    hetrace.merge(
                            String.format("cpu%-3d '%s' (no such interrupt in babeltrace2's text)", cpu, label),
                            n,
                            Long::sum);
                } else if (keys.size() == 1) {
                    hetrace.merge(keys.getFirst(), n, Long::sum);
                } else {
                    String key = String.format("cpu%-3d '%s' = %s", cpu, label, keys);
                    hetrace.merge(key, n, Long::sum);
                    reference.merge(
                            key,
                            keys.stream()
                                    .mapToLong(k -> reference.getOrDefault(k, 0L))
                                    .sum(),
                            Long::sum);
                    keys.forEach(reference::remove);
                }
            }
            return new Compared(reference, hetrace);
        }

        private static List<String> interruptKeys(int cpu, String label, Figures ref) {
            Matcher number = Pattern.compile("\\b(\\d+)\\b").matcher(label);
            Long first = number.find() ? Long.valueOf(number.group(1)) : null;
            if (label.toLowerCase(Locale.ROOT).contains("softirq")
                    || SOFTIRQS.stream().anyMatch(label::contains)) {
                long vec = first != null
                        ? first
                        : SOFTIRQS.indexOf(SOFTIRQS.stream()
                                .filter(label::contains)
                                .findFirst()
                                .orElseThrow());
                return List.of(interrupt(cpu, "softirq", vec));
            }
            Set<Long> named = new LinkedHashSet<>();
            ref.irqNames().forEach((irq, name) -> {
                if (name != null
                        && !name.isEmpty()
                        && label.contains(name)
                        && (label.equals(name) || Long.valueOf(irq).equals(first))) {
                    named.add(irq);
                }
            });
            if (named.isEmpty() && first != null && label.matches("(?i).*\\birq\\s*" + first + "\\b.*")) {
                named.add(first);
            }
            return named.stream().map(irq -> interrupt(cpu, "irq", irq)).toList();
        }
    }

    /** hetrace's core {@code trace/cpuN} is CPU N (-1: a core that is not a CPU). */
    private static int cpu(String core) {
        Matcher m = Pattern.compile("cpu(\\d+)$").matcher(core);
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    private static long number(Map<String, Object> row, String column) {
        return ((Number) row.get(column)).longValue();
    }

    private static List<Map<String, Object>> query(Path trace, String sql) throws IOException {
        Cli.Run r = Cli.run("query", "--cache", cache(), "--format", "json", trace.toString(), sql);
        if (r.status() != 0) {
            fail("hetrace query " + name(trace) + " failed (" + r.status() + "): "
                    + r.err().strip());
        }
        return new ObjectMapper().readValue(r.out(), new TypeReference<>() {});
    }

    /** A value computed once, when first asked for, by whichever dynamic test needs it first; its failure, each time. */
    private static final class Lazy<T> {
        private final Computation<T> computation;
        private T value;
        private Throwable failure;

        Lazy(Computation<T> computation) {
            this.computation = computation;
        }

        T get() throws Exception {
            if (value == null && failure == null) {
                try {
                    value = computation.compute();
                } catch (Exception | AssertionError e) {
                    failure = e;
                }
            }
            if (failure instanceof AssertionError e) {
                throw e;
            } else if (failure != null) {
                throw (Exception) failure;
            }
            return value;
        }
    }

    private interface Computation<T> {
        T compute() throws Exception;
    }
}
