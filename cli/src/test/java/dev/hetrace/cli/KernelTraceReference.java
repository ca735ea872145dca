package dev.hetrace.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a Linux kernel trace (lttng-modules, or perf converted to CTF) says about its CPUs, threads,
 * interrupts and system calls, computed from babeltrace2's text alone, apart from hetrace's state
 * model, so that each checks the other. It is kept short and literal on purpose: every figure is one
 * loop over the events, read the way the tracer wrote them.
 */
final class KernelTraceReference {
    private KernelTraceReference() {}

    /** One event of babeltrace2's text: its time (ns from the clock's origin), name and top-level fields of every scope. */
    record Line(long ns, String name, Map<String, String> fields) {
        long number(String field) {
            return Long.decode(fields.get(field));
        }

        String first(String... names) {
            for (String n : names) {
                if (fields.containsKey(n)) {
                    return n;
                }
            }
            return null;
        }

        int cpu() {
            return (int) number(first("cpu_id", "perf_cpu"));
        }
    }

    /** Why a thread left its CPU, from {@code prev_state}. */
    enum SwitchOut {
        PREEMPTED,
        BLOCKED,
        DEAD
    }

    /** A thread's switch-outs by kind. */
    record SwitchOuts(int preempted, int blocked, int dead) {
        SwitchOuts plus(SwitchOut kind) {
            return new SwitchOuts(
                    preempted + (kind == SwitchOut.PREEMPTED ? 1 : 0),
                    blocked + (kind == SwitchOut.BLOCKED ? 1 : 0),
                    dead + (kind == SwitchOut.DEAD ? 1 : 0));
        }
    }

    /**
     * How {@code prev_state} tells a switched-out task's state. A preempted task is reported runnable:
     * 0, or with the "max" bit ({@code preemptedBit}); a dead one with one of {@code deadBits}; any other
     * value is a wait (interruptible, uninterruptible, stopped, parked...). {@code highest} bounds the
     * values the encoding can produce, to catch a trace read with the wrong one.
     */
    record PrevStateEncoding(String name, long preemptedBit, long deadBits, long highest) {
        /** Kernels 4.14 on, as their tracepoint reports it: one bit per state, TASK_REPORT_MAX (0x100) when preempted; EXIT_DEAD, EXIT_ZOMBIE dead. */
        static final PrevStateEncoding REPORT = new PrevStateEncoding("TASK_REPORT (4.14+)", 0x100, 0x10 | 0x20, 0x100);

        /**
         * The raw {@code task_struct.state} with TASK_STATE_MAX when preempted, as lttng-modules (before 2.11) and
         * kernels before 4.14 report it; the bits moved over the versions (include/linux/sched.h): TASK_DEAD is 64
         * until 4.14 and 128 from then on (64 became TASK_PARKED), and TASK_STATE_MAX grew with each new state.
         */
        static PrevStateEncoding raw(KernelVersion v) {
            long max = v.atLeast(4, 8, 0) ? 0x1000 : v.atLeast(4, 2, 0) ? 0x800 : v.atLeast(3, 9, 0) ? 0x400 : 0x200;
            long taskDead = v.atLeast(4, 14, 0) ? 0x80 : 0x40;
            return new PrevStateEncoding("raw state, TASK_STATE_MAX " + max, max, 0x10 | 0x20 | taskDead, 2 * max - 1);
        }

        /** The encoding of a trace, from its metadata's environment: the kernel's release and the tracer. */
        static PrevStateEncoding of(Map<String, String> env) {
            KernelVersion kernel = KernelVersion.parse(env.getOrDefault("kernel_release", env.get("release")));
            if (!kernel.atLeast(4, 14, 0)) {
                return raw(kernel);
            }
            // lttng-modules keeps its own copy of the tracepoint: 2.10 still wrote p->state and TASK_STATE_MAX on 4.14+
            // kernels (the corpus's lttng-tracefile-rotation: 4096 when preempted, 128 after sched_process_exit)
            boolean lttng = "lttng-modules".equals(env.get("tracer_name"));
            boolean lttngRaw = lttng
                    && (Integer.parseInt(env.get("tracer_major")) * 100 + Integer.parseInt(env.get("tracer_minor")))
                            < 211;
            return lttngRaw ? raw(kernel) : REPORT;
        }

        SwitchOut of(long state) {
            if (state < 0 || state > highest || (this == REPORT && Long.bitCount(state) > 1)) {
                throw new IllegalStateException("prev_state " + state + " cannot be read as " + name);
            }
            if (state == 0 || (state & preemptedBit) != 0) {
                return SwitchOut.PREEMPTED;
            }
            return (state & deadBits) != 0 ? SwitchOut.DEAD : SwitchOut.BLOCKED;
        }
    }

    /** A kernel release's version numbers ("4.4.3-1-ARCH" is 4.4.3). */
    record KernelVersion(int major, int minor, int patch) {
        static KernelVersion parse(String release) {
            Matcher m = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?").matcher(release == null ? "" : release);
            if (!m.lookingAt()) {
                throw new IllegalArgumentException("no kernel version in '" + release + "'");
            }
            return new KernelVersion(
                    Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)),
                    m.group(3) == null ? 0 : Integer.parseInt(m.group(3)));
        }

        boolean atLeast(int ma, int mi, int pa) {
            return major != ma ? major > ma : minor != mi ? minor > mi : patch >= pa;
        }
    }

    /**
     * The figures: per CPU, the time a thread other than the CPU's idle task (tid 0) ran and the time the idle
     * task ran; per thread (tid 0 left out: it is each CPU's own), its run time over every CPU and its
     * switch-outs; per CPU, the entries of each interrupt (by number) and softirq (by vector); the entries of
     * each system call, in all and per thread (-1: on a CPU whose running thread the trace never shows).
     */
    record Figures(
            long firstNs,
            long lastNs,
            Map<Integer, Long> busyNs,
            Map<Integer, Long> idleNs,
            Map<Integer, Long> runNs,
            Map<Integer, SwitchOuts> switchOuts,
            Map<Integer, Map<Long, Long>> irqs,
            Map<Long, String> irqNames,
            Map<Integer, Map<Long, Long>> softirqs,
            Map<String, Long> syscalls,
            Map<Integer, Map<String, Long>> syscallsPerThread) {}

    /** A trace's metadata as babeltrace2 prints it: the environment and the event names. */
    record Metadata(Path dir, Map<String, String> env, Set<String> events) {
        boolean kernel() {
            return "kernel".equals(env.get("domain"));
        }
    }

    /** The figures of the kernel trace(s) under {@code trace}, from {@code babeltrace2 --clock-seconds}. */
    static Figures of(Path trace) throws IOException, InterruptedException {
        List<Metadata> kernels =
                metadata(trace).stream().filter(Metadata::kernel).toList();
        if (kernels.stream().map(m -> PrevStateEncoding.of(m.env())).distinct().count() != 1) {
            throw new IllegalArgumentException(
                    trace + ": expected kernel traces of one kernel and tracer, found " + kernels.size());
        }
        // every event bounds the span; only those the figures use are read whole
        long[] span = {Long.MAX_VALUE, Long.MIN_VALUE};
        List<Line> used = new ArrayList<>();
        babeltrace2(
                trace,
                line -> {
                    long ns = time(line);
                    span[0] = Math.min(span[0], ns);
                    span[1] = Math.max(span[1], ns);
                    if (used(name(line))) {
                        used.add(parse(line));
                    }
                },
                "--clock-seconds",
                "--no-delta");
        return of(
                used, span[0], span[1], PrevStateEncoding.of(kernels.getFirst().env()));
    }

    /** The figures of these events (in babeltrace2's order: by time, a CPU's events in their stream's order). */
    static Figures of(List<Line> events, PrevStateEncoding encoding) {
        return of(
                events.stream().filter(e -> used(e.name())).toList(),
                events.stream().mapToLong(Line::ns).min().orElse(0),
                events.stream().mapToLong(Line::ns).max().orElse(0),
                encoding);
    }

    private static boolean used(String event) {
        return switchEvent(event) || irqEntry(event) || softirqEntry(event) || syscallEntry(event) != null;
    }

    /** The figures of the events they use, in a trace whose first and last events are at {@code first} and {@code last}. */
    private static Figures of(List<Line> events, long first, long last, PrevStateEncoding encoding) {
        // each CPU's switches; before the first, its prev_tid was running since the trace's first event
        Map<Integer, List<Line>> switches = new TreeMap<>();
        for (Line e : events) {
            if (switchEvent(e.name())) {
                switches.computeIfAbsent(e.cpu(), c -> new ArrayList<>()).add(e);
            }
        }
        Map<Integer, Long> busy = new TreeMap<>();
        Map<Integer, Long> idle = new TreeMap<>();
        Map<Integer, Long> run = new TreeMap<>();
        Map<Integer, SwitchOuts> outs = new TreeMap<>();
        Map<Integer, Integer> running = new HashMap<>();
        for (var cpu : switches.entrySet()) {
            List<Line> s = cpu.getValue();
            int c = cpu.getKey();
            running.put(c, prevTid(s.getFirst()));
            for (int i = 0; i <= s.size(); i++) {
                int tid = i == 0 ? prevTid(s.getFirst()) : nextTid(s.get(i - 1));
                long from = i == 0 ? first : s.get(i - 1).ns();
                long to = i == s.size() ? last : s.get(i).ns();
                (tid == 0 ? idle : busy).merge(c, to - from, Long::sum);
                if (tid != 0) {
                    run.merge(tid, to - from, Long::sum);
                }
            }
            busy.putIfAbsent(c, 0L);
            idle.putIfAbsent(c, 0L);
            for (Line e : s) {
                if (prevTid(e) != 0) {
                    SwitchOut kind = encoding.of(e.number("prev_state"));
                    outs.merge(prevTid(e), new SwitchOuts(0, 0, 0).plus(kind), (a, b) -> a.plus(kind));
                }
            }
        }

        Map<Integer, Map<Long, Long>> irqs = new TreeMap<>();
        Map<Long, String> irqNames = new TreeMap<>();
        Map<Integer, Map<Long, Long>> softirqs = new TreeMap<>();
        Map<String, Long> syscalls = new TreeMap<>();
        Map<Integer, Map<String, Long>> perThread = new TreeMap<>();
        for (Line e : events) {
            String n = e.name();
            if (switchEvent(n)) {
                running.put(e.cpu(), nextTid(e));
            } else if (irqEntry(n)) {
                irqs.computeIfAbsent(e.cpu(), c -> new TreeMap<>()).merge(e.number("irq"), 1L, Long::sum);
                irqNames.putIfAbsent(e.number("irq"), e.fields().get("name"));
            } else if (softirqEntry(n)) {
                softirqs.computeIfAbsent(e.cpu(), c -> new TreeMap<>()).merge(e.number("vec"), 1L, Long::sum);
            } else {
                syscalls.merge(syscallEntry(n), 1L, Long::sum);
                perThread
                        .computeIfAbsent(running.getOrDefault(e.cpu(), -1), t -> new TreeMap<>())
                        .merge(syscallEntry(n), 1L, Long::sum);
            }
        }
        return new Figures(first, last, busy, idle, run, outs, irqs, irqNames, softirqs, syscalls, perThread);
    }

    private static boolean switchEvent(String event) {
        return event.equals("sched_switch") || event.equals("sched:sched_switch");
    }

    private static boolean irqEntry(String event) {
        return event.equals("irq_handler_entry") || event.equals("irq:irq_handler_entry");
    }

    /** A softirq's entry: lttng-modules' {@code irq_softirq_entry} ({@code softirq_entry} in older ones); perf's {@code irq:softirq_entry}. */
    private static boolean softirqEntry(String event) {
        return event.equals("irq_softirq_entry") || event.equals("softirq_entry") || event.equals("irq:softirq_entry");
    }

    private static int prevTid(Line e) {
        return (int) e.number(e.first("prev_tid", "prev_pid"));
    }

    private static int nextTid(Line e) {
        return (int) e.number(e.first("next_tid", "next_pid"));
    }

    /**
     * The system call an event enters, or null: lttng-modules' {@code syscall_entry_X} and
     * {@code compat_syscall_entry_X}, before 2.7 {@code sys_X}; perf's {@code syscalls:sys_enter_X}.
     */
    static String syscallEntry(String event) {
        for (String prefix : List.of("syscall_entry_", "compat_syscall_entry_", "syscalls:sys_enter_", "sys_")) {
            if (event.startsWith(prefix)) {
                return event.substring(prefix.length());
            }
        }
        return null;
    }

    /** The metadata of every trace under {@code trace} (a trace folder, or a folder of traces). */
    static List<Metadata> metadata(Path trace) throws IOException, InterruptedException {
        List<Path> dirs;
        try (Stream<Path> files = Files.walk(trace)) {
            dirs = files.filter(p -> p.getFileName().toString().equals("metadata") && Files.isRegularFile(p))
                    .map(Path::getParent)
                    .sorted()
                    .toList();
        }
        List<Metadata> all = new ArrayList<>();
        for (Path dir : dirs) {
            Map<String, String> env = new HashMap<>();
            Set<String> events = new LinkedHashSet<>();
            String block = "";
            List<String> text = new ArrayList<>();
            babeltrace2(dir, text::add, "--output-format=ctf-metadata");
            for (String line : text) {
                String l = line.strip();
                if (l.endsWith("{") && !line.startsWith("\t")) {
                    block = l;
                }
                Matcher m = Pattern.compile("(\\w+) = \"?(.*?)\"?;").matcher(l);
                if (block.startsWith("env") && m.matches()) {
                    env.put(m.group(1), m.group(2));
                } else if (block.startsWith("event")
                        && m.matches()
                        && m.group(1).equals("name")
                        && !line.startsWith("\t\t")) {
                    events.add(m.group(2));
                }
            }
            all.add(new Metadata(dir, env, events));
        }
        return all;
    }

    /** Gives each line babeltrace2 prints for {@code trace} with these options; its error in the exception when it fails. */
    static void babeltrace2(Path trace, Consumer<String> lines, String... options)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("babeltrace2"));
        command.addAll(List.of(options));
        command.add(trace.toString());
        Path err = Files.createTempFile("babeltrace2", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            try (BufferedReader out = p.inputReader(StandardCharsets.UTF_8)) {
                out.lines().forEach(lines);
            }
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + Files.readString(err));
            }
        } finally {
            Files.delete(err);
        }
    }

    /** The time of a line of {@code babeltrace2 --clock-seconds}: {@code [SECONDS.NANOS]}, exactly, in ns. */
    static long time(String line) {
        return new BigDecimal(line.substring(1, line.indexOf(']')))
                .movePointRight(9)
                .longValueExact();
    }

    /** The event name of a line: the last word before the first {@code ": {"} (or the final colon). */
    static String name(String line) {
        int close = line.indexOf(']');
        int fields = line.indexOf(": {", close);
        String header = (fields < 0
                        ? line.substring(close + 2).strip().replaceFirst(":$", "")
                        : line.substring(close + 2, fields))
                .strip();
        return header.substring(header.lastIndexOf(' ') + 1);
    }

    /**
     * One line of {@code babeltrace2 --clock-seconds --no-delta}:
     * {@code [SECONDS.NANOS] [HOST] NAME: { field = value, ... }, { ... }}. Nested structures ({@code { }}) and
     * arrays ({@code [ [0] = 1 ]}) are skipped; an enumeration keeps its integer ({@code ( "LABEL" : container = 4 )} is 4).
     */
    static Line parse(String line) {
        Map<String, String> values = new HashMap<>();
        int fields = line.indexOf(": {", line.indexOf(']'));
        int i = fields + 2;
        while (fields >= 0 && i < line.length() && line.charAt(i) == '{') {
            i = members(line, i + 1, values);
            i = line.startsWith(", {", i) ? i + 2 : line.length();
        }
        return new Line(time(line), name(line), values);
    }

    /** Reads {@code key = value} pairs up to the closing brace; returns the index after it. */
    private static int members(String s, int i, Map<String, String> out) {
        while (true) {
            while (s.charAt(i) == ' ' || s.charAt(i) == ',') {
                i++;
            }
            if (s.charAt(i) == '}') {
                return i + 1;
            }
            int eq = s.indexOf(" = ", i);
            String key = s.substring(i, eq);
            i = eq + 3;
            int end = skipValue(s, i);
            String value = s.substring(i, end).strip();
            if (value.startsWith("\"")) {
                out.put(key, value.substring(1, value.length() - 1));
            } else if (value.startsWith("(")) {
                out.put(key, value.substring(value.lastIndexOf("container = ") + 12, value.length() - 2));
            } else if (!value.startsWith("{") && !value.startsWith("[")) {
                out.put(key, value);
            }
            i = end;
        }
    }

    /** The index after the value starting at {@code i}: a string, a braced or parenthesized group, or a bare token. */
    private static int skipValue(String s, int i) {
        int depth = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '"') {
                i++;
                while (s.charAt(i) != '"') {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
            } else if (c == '{' || c == '(' || c == '[') {
                depth++;
            } else if (c == '}' || c == ')' || c == ']') {
                if (depth == 0) {
                    return i;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                return i;
            }
            i++;
            if (depth == 0 && "\"})]".indexOf(s.charAt(i - 1)) >= 0) {
                return i;
            }
        }
        return i;
    }
}
