package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.hetrace.analysis.LttngSessionDaemon.Channel;
import dev.hetrace.analysis.LttngSessionDaemon.Recording;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real LTTng-UST traces, recorded by a private session daemon from a program with known work
 * ({@code src/test/resources/ust/ust_workers.c}: worker threads calling nested functions, a
 * pipeline of threads passing messages through two queues), with the {@code vtid}, {@code vpid}
 * and {@code procname} contexts: the state model against what the program says it did. Times are
 * compared with the program's own CLOCK_MONOTONIC readings, which is LTTng-UST's clock.
 */
class LttngUstStateTest {
    private static final String PROGRAM = "ust_workers";
    private static final String CYG_PROFILE = "liblttng-ust-cyg-profile.so";

    @TempDir
    static Path dir;

    private static LttngSessionDaemon lttng;
    private static Path program;

    @BeforeAll
    static void buildTheProgramAndStartADaemon() throws Exception {
        LttngSessionDaemon.require();
        Path src = Files.createDirectories(dir.resolve("src"));
        for (String f : List.of("app_tp.h", "app_tp.c", "ust_workers.c", "ust-workers.yaml")) {
            try (InputStream in = LttngUstStateTest.class.getResourceAsStream("/ust/" + f)) {
                Files.copy(in, src.resolve(f));
            }
        }
        Path bin = Files.createDirectories(dir.resolve("bin"));
        // the probes built apart: -finstrument-functions would trace the provider's own functions
        gcc(
                src,
                List.of(
                        "-O2",
                        "-g",
                        "-Wall",
                        "-Wextra",
                        "-c",
                        "-I.",
                        "app_tp.c",
                        "-o",
                        bin.resolve("app_tp.o").toString()));
        program = bin.resolve(PROGRAM);
        gcc(
                src,
                List.of(
                        "-O2",
                        "-g",
                        "-Wall",
                        "-Wextra",
                        "-finstrument-functions",
                        "-I.",
                        "ust_workers.c",
                        bin.resolve("app_tp.o").toString(),
                        "-o",
                        program.toString(),
                        "-pthread",
                        "-llttng-ust",
                        "-ldl"));
        lttng = LttngSessionDaemon.start(dir.resolve("lttng"));
    }

    @AfterAll
    static void stopTheDaemon() {
        if (lttng != null) {
            lttng.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {CYG_PROFILE, "liblttng-ust-cyg-profile-fast.so"})
    void eachThreadIsATaskWhoseCallsAreTheFunctionsItCalled(String helper) throws Exception {
        String provider =
                helper.replace("liblttng-ust-", "lttng_ust_").replace(".so", "").replace('-', '_');
        Run run = run(helper.replace(".so", ""), Channel.AMPLE, helper, List.of(provider + ":*"), null);
        assertThat(run.model.discarded()).as("events discarded by the tracer").isZero();
        assertThat(run.model.events())
                .as("events: an entry and an exit per call")
                .isEqualTo(2L * run.did.calls.size());
        assertCallsAre(run, c -> true, f -> f);
        // the statistics' function rows are the sums over the threads
        Statistics.Table table = Statistics.of(run.model);
        Map<String, Long> perFunction = new TreeMap<>();
        run.did.calls.forEach(c -> perFunction.merge(c.function, 1L, Long::sum));
        perFunction.forEach(
                (f, n) -> assertThat(table.row(Statistics.Context.FUNCTION, f).count())
                        .as(f)
                        .isEqualTo(n));
    }

    /**
     * With LTTng-UST's state dump recorded (the binaries each process loaded, where, with their
     * build ids), the model names the functions itself, after the program's symbol table: the
     * names the program gives its own functions, for a position-independent build and one at
     * fixed addresses.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pie", "no-pie"})
    void theStateDumpNamesTheFunctionsAfterTheProgramsSymbols(String build) throws Exception {
        Path binary = program;
        if (build.equals("no-pie")) {
            binary = dir.resolve("bin").resolve(PROGRAM + "-no-pie");
            if (!Files.exists(binary)) {
                Path probes = dir.resolve("bin").resolve("app_tp-no-pie.o");
                gcc(
                        dir.resolve("src"),
                        List.of("-O2", "-g", "-fno-pie", "-c", "-I.", "app_tp.c", "-o", probes.toString()));
                gcc(
                        dir.resolve("src"),
                        List.of(
                                "-O2",
                                "-g",
                                "-no-pie",
                                "-fno-pie",
                                "-finstrument-functions",
                                "-I.",
                                "ust_workers.c",
                                probes.toString(),
                                "-o",
                                binary.toString(),
                                "-pthread",
                                "-llttng-ust",
                                "-ldl"));
            }
        }
        Run run = run(
                binary,
                false,
                "statedump-" + build,
                Channel.AMPLE,
                CYG_PROFILE,
                List.of("lttng_ust_cyg_profile:*", "lttng_ust_statedump:*"),
                null,
                List.of());
        StateModel m = run.model;
        Path real = binary.toRealPath();
        assertThat(m.binaries())
                .as("the binaries the state dump says were loaded")
                .filteredOn(b -> Path.of(b.path()).equals(real))
                .singleElement()
                .satisfies(b -> {
                    assertThat(b.pic()).as("position-independent").isEqualTo(build.equals("pie"));
                    assertThat(b.buildId()).as("build id").isNotNull();
                });
        List<String> warnings = new ArrayList<>();
        m.symbolize(Map.of(), warnings::add);
        assertThat(warnings).as("warnings").isEmpty();
        // every function the program called is named as the program names it, and nothing is left by address
        assertCallsAre(run, c -> true, f -> f);
        for (int i = 0; i < m.calls().size(); i++) {
            assertThat(m.name(m.calls().subject(i))).doesNotStartWith("0x");
        }
        assertThat(run.did.functions.values())
                .containsAll(run.did.calls.stream().map(c -> c.function).toList());
    }

    /**
     * The index keeps the names read from the program, and is built again when the program it
     * read them from changes: here replaced by another build (another build id), whose symbols
     * are then refused, said once, and the functions keep their addresses.
     */
    @Test
    void theIndexIsBuiltAgainWhenTheBinaryThatNamedItsFunctionsChanges() throws Exception {
        Path copy = dir.resolve("bin").resolve(PROGRAM + "-indexed");
        Files.copy(program, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Run run = run(
                copy,
                false,
                "statedump-index",
                Channel.AMPLE,
                CYG_PROFILE,
                List.of("lttng_ust_cyg_profile:*", "lttng_ust_statedump:*"),
                null,
                List.of());
        Path cache = dir.resolve("cache");
        List<String> notes = new ArrayList<>();
        TraceIndex index = TraceIndex.open(cache, List.of(run.trace), null, Map.of(), notes::add);
        assertThat(index.built()).isTrue();
        Set<String> named = functionNames(index.model());
        assertThat(named).as("names in the index").isNotEmpty().isSubsetOf(run.did.functions.values());
        index = TraceIndex.open(cache, List.of(run.trace), null, Map.of(), notes::add);
        assertThat(index.built()).as("reused while the program is unchanged").isFalse();
        assertThat(notes).noneMatch(n -> n.startsWith("warning"));
        // another build of the program where it was: another build id
        gcc(
                dir.resolve("src"),
                List.of(
                        "-O1",
                        "-finstrument-functions",
                        "-I.",
                        "ust_workers.c",
                        dir.resolve("bin").resolve("app_tp.o").toString(),
                        "-o",
                        copy.toString(),
                        "-pthread",
                        "-llttng-ust",
                        "-ldl"));
        notes.clear();
        index = TraceIndex.open(cache, List.of(run.trace), null, Map.of(), notes::add);
        assertThat(index.built()).as("built again").isTrue();
        assertThat(functionNames(index.model())).hasSameSizeAs(named).allMatch(n -> n.startsWith("0x"));
        Path real = copy.toRealPath();
        assertThat(notes).contains(real + ", which names the traces' functions, changed: building the index again");
        assertThat(notes.stream().filter(n -> n.startsWith("warning")).toList())
                .containsExactly("warning: " + real + ": not the binary traced (build id differs): its " + named.size()
                        + " functions keep their addresses");
    }

    private static Set<String> functionNames(StateModel m) {
        Set<String> out = new TreeSet<>();
        for (int i = 0; i < m.calls().size(); i++) {
            out.add(m.name(m.calls().subject(i)));
        }
        return out;
    }

    /**
     * A library loaded with dlopen() after the program started (so in no state dump at start) is
     * named after LTTng-UST's {@code lttng_ust_dl:dlopen} event and its build id, recorded with
     * liblttng-ust-dl.so preloaded: its functions as it names them, each called as often as the
     * program called it.
     */
    @Test
    void aLibraryLoadedLaterIsNamedAfterItsDlopenEvent() throws Exception {
        Path src = dir.resolve("src");
        for (String f : List.of("dl_plugin.c", "dl_main.c")) {
            try (InputStream in = LttngUstStateTest.class.getResourceAsStream("/ust/" + f)) {
                Files.copy(in, src.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path plugin = dir.resolve("bin").resolve("libplugin.so");
        Path main = dir.resolve("bin").resolve("dl_main");
        gcc(
                src,
                List.of(
                        "-O2",
                        "-g",
                        "-fPIC",
                        "-shared",
                        "-finstrument-functions",
                        "dl_plugin.c",
                        "-o",
                        plugin.toString()));
        gcc(src, List.of("-O2", "-g", "dl_main.c", "-o", main.toString(), "-ldl"));
        Path dl = LttngSessionDaemon.library("liblttng-ust-dl.so");
        Required.that(dl != null, "liblttng-ust-dl.so is not installed (apt-get install liblttng-ust-dev)");
        Map<String, String> env = Map.of("LD_PRELOAD", dl + ":" + LttngSessionDaemon.library(CYG_PROFILE));
        Recording r = lttng.record(
                "dlopen",
                Channel.AMPLE,
                List.of("lttng_ust_cyg_profile:*", "lttng_ust_dl:*"),
                env,
                List.of(main.toString(), "did.txt", plugin.toString()));
        Map<String, String> functions = Did.read(r.directory().resolve("did.txt")).functions;
        assertThat(functions).hasSize(2);
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.trace()), w -> {}), StateBuilder.Options.of(w -> {}));
        Path real = plugin.toRealPath();
        assertThat(m.binaries())
                .as("the dlopen event")
                .filteredOn(b -> Path.of(b.path()).equals(real))
                .singleElement()
                .satisfies(b -> assertThat(b.buildId()).as("build id").isNotNull());
        // the addresses the model has are those the library says its functions are at
        Map<String, Long> byAddress = new TreeMap<>();
        for (int i = 0; i < m.calls().size(); i++) {
            byAddress.merge(m.name(m.calls().subject(i)), 1L, Long::sum);
        }
        assertThat(byAddress.keySet()).isEqualTo(functions.keySet());
        List<String> warnings = new ArrayList<>();
        m.symbolize(Map.of(), warnings::add);
        assertThat(warnings).isEmpty();
        Map<String, Long> byName = new TreeMap<>();
        for (int i = 0; i < m.calls().size(); i++) {
            byName.merge(m.name(m.calls().subject(i)), 1L, Long::sum);
        }
        assertThat(byName).isEqualTo(Map.of("plugin_work", 3L, "plugin_inner", 6L));
    }

    @Test
    void messagesThroughTheQueuesLinkTheThreadsThatSentAndReceivedThem() throws Exception {
        Mapping mapping = Mapping.read(dir.resolve("src/ust-workers.yaml"));
        Run run = run(
                "messages",
                Channel.AMPLE,
                CYG_PROFILE,
                List.of("lttng_ust_cyg_profile:*", "app:msg_send", "app:msg_recv"),
                mapping);
        assertThat(run.did.messages).as("messages the program passed").hasSize(80);
        assertThat(run.model.events()).isEqualTo(2L * run.did.calls.size() + 2L * run.did.messages.size());
        assertCallsAre(run, c -> true, f -> f);
        Map<Long, Integer> taskById = new HashMap<>();
        for (int i = 0; i < run.model.tasks().size(); i++) {
            taskById.put(run.model.tasks().get(i).id(), i);
        }
        MessageTable m = run.model.messages();
        Map<List<Long>, Integer> byQueueAndId = new HashMap<>();
        for (int i = 0; i < m.size(); i++) {
            assertThat(byQueueAndId.put(List.of(m.queue(i), m.id(i)), i))
                    .as("message %d on queue %d twice", m.id(i), m.queue(i))
                    .isNull();
        }
        assertThat(m.size()).as("messages in the model").isEqualTo(run.did.messages.size());
        for (Message sent : run.did.messages) {
            Integer i = byQueueAndId.get(List.of(sent.queue, sent.id));
            assertThat(i).as("%s in the model", sent).isNotNull();
            assertThat(m.flags(i)).as("%s: flags", sent).isZero();
            assertThat(m.sendTask(i)).as("%s: sender", sent).isEqualTo(taskById.get(sent.sender));
            assertThat(m.receiveTask(i)).as("%s: receiver", sent).isEqualTo(taskById.get(sent.receiver));
            assertThat(m.receiveTime(i)).as("%s: received after sent", sent).isGreaterThan(m.sendTime(i));
            assertThat(m.sendCall(i) < 0 ? "no call" : run.model.name(m.sendCall(i)))
                    .as("%s: sent in", sent)
                    .isEqualTo("produce");
            assertThat(m.receiveCall(i) < 0 ? "no call" : run.model.name(m.receiveCall(i)))
                    .as("%s: received in", sent)
                    .isEqualTo("consume");
        }
    }

    @Test
    void tracepointPairsOfAnUnmappedTraceAreCallsOfTheThreadThatMadeThem() throws Exception {
        // no function tracing: only job's bracketing tracepoints, a generic entry/exit pair
        Run run = run("tracepoints", Channel.AMPLE, null, List.of("app:job_entry", "app:job_exit"), null);
        long jobs = run.did.calls.stream().filter(c -> c.function.equals("job")).count();
        assertThat(run.model.events()).isEqualTo(2 * jobs);
        assertCallsAre(run, c -> c.function.equals("job"), f -> "app:job");
    }

    /**
     * The kernel side of the same run cannot be recorded here (kernel tracing needs lttng-modules
     * loaded on the host), so it is written as lttng-modules writes it: the same host and the
     * same monotonic clock (uuid, offset) as the recorded user-space trace, each worker switched
     * in on a CPU of its own around its calls, and worker-1 preempted once by another task.
     */
    @Test
    void userSpaceThreadsBesideTheirKernelRunOnTheCpusTheKernelRanThemOn() throws Exception {
        Run run = run("beside-the-kernel", Channel.AMPLE, CYG_PROFILE, List.of("lttng_ust_cyg_profile:*"), null);
        String host;
        ClockClass clock;
        try (CtfReader reader = CtfReader.open(run.trace)) {
            host = (String) reader.traces().getFirst().metadata().env().get("hostname");
            clock = reader.traces().getFirst().metadata().clocks().get("monotonic");
        }
        // each worker's calls, on the trace's clock (cycles = ns from the clock's origin)
        Map<Long, long[]> span = new TreeMap<>();
        for (Call c : run.did.calls) {
            span.merge(c.tid, new long[] {c.t0, c.t1}, (a, b) ->
                    new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
        }
        List<Long> workers = span.keySet().stream()
                .filter(t -> run.did.threads.get(t).startsWith("worker-"))
                .toList();
        assertThat(workers).hasSizeGreaterThanOrEqualTo(2);
        long first = workers.getFirst();
        long[] w1 = span.get(first);
        long preemptFrom = w1[0] + (w1[1] - w1[0]) / 3;
        long preemptTo = w1[0] + 2 * (w1[1] - w1[0]) / 3;
        Path kernel = dir.resolve("beside-the-kernel-kernel");
        String tsdl = """
            /* CTF 1.8 */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 32; align = 8; signed = true; } := int32_t;
            typealias integer { size = 64; align = 8; signed = true; } := int64_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
            trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
            env { hostname = "%s"; domain = "kernel"; sysname = "Linux"; kernel_release = "6.1.0";
                tracer_name = "lttng-modules"; tracer_major = 2; tracer_minor = 13; };
            clock { name = "monotonic"; uuid = "%s"; freq = 1000000000; offset_s = %d; offset = %d; };
            stream { id = 0; packet.context := struct { uint32_t cpu_id; };
                event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; }; };
            event { name = "sched_switch"; id = 0; stream_id = 0; fields := struct { string _prev_comm; int32_t _prev_tid;
                int64_t _prev_state; string _next_comm; int32_t _next_tid; }; };
            """.formatted(host, clock.uuid(), clock.offsetSeconds(), clock.offsetCycles());
        try (CtfWriter w = CtfWriter.create(kernel, tsdl)) {
            for (int cpu = 0; cpu < workers.size(); cpu++) {
                long tid = workers.get(cpu);
                String name = run.did.threads.get(tid);
                long[] s = span.get(tid);
                StreamWriter out = w.stream(0, cpu, "channel0_" + cpu).packetContext("cpu_id", (long) cpu);
                out.event(0, s[0] - 1_000, List.of("swapper/" + cpu, 0L, 0L, name, tid));
                if (tid == first) {
                    out.event(0, preemptFrom, List.of(name, tid, 0x100L, "intruder", 99_999L));
                    out.event(0, preemptTo, List.of("intruder", 99_999L, 1L, name, tid));
                }
                out.event(0, s[1] + 1_000, List.of(name, tid, 1L, "swapper/" + cpu, 0L));
            }
        }
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(run.trace, kernel), w -> {}), StateBuilder.Options.of(w -> {}));
        m.symbolize(run.did.functions);
        Waits waits = Waits.of(m);
        // the user-space threads are the kernel's tasks: one task per worker, named as the kernel names it
        for (int cpu = 0; cpu < workers.size(); cpu++) {
            long tid = workers.get(cpu);
            List<Integer> tasks = new ArrayList<>();
            for (int t = 0; t < m.tasks().size(); t++) {
                if (m.tasks().get(t).id() == tid) {
                    tasks.add(t);
                }
            }
            assertThat(tasks).as("tasks of thread %d", tid).hasSize(1);
            int task = tasks.getFirst();
            assertThat(waits.scheduled(task)).isTrue();
            IntervalTable calls = m.calls();
            int own = 0;
            for (int i = 0; i < calls.size(); i++) {
                if (calls.owner(i) == task) {
                    own++;
                    // it ran on its CPU for the whole call, but where worker-1 was preempted
                    long ran = waits.runningTime(task, calls.start(i), calls.end(i));
                    long preempted = waits.timeIn(task, StateModel.PREEMPTED, calls.start(i), calls.end(i));
                    assertThat(ran + preempted).as("call %d of %d", i, tid).isEqualTo(calls.duration(i));
                    assertThat(m.cores()
                                    .get(waits.coreOf(task, calls.start(i), calls.end(i)))
                                    .name())
                            .as(
                                    "call %d of thread %d (%s) from %d to %d",
                                    i, tid, m.name(calls.subject(i)), calls.start(i), calls.end(i))
                            .endsWith("/cpu" + cpu);
                }
            }
            final long t0 = tid;
            assertThat(own)
                    .as("calls of %d", tid)
                    .isEqualTo(run.did.calls.stream().filter(c -> c.tid == t0).count());
        }
        // worker-1's calls across the preemption were preempted by the intruder, as the diagnosis sees it
        int w1task = -1;
        for (int t = 0; t < m.tasks().size(); t++) {
            w1task = m.tasks().get(t).id() == first ? t : w1task;
        }
        long base = clock.baseOffsetNanos();
        assertThat(waits.timeIn(w1task, StateModel.PREEMPTED, base + preemptFrom, base + preemptTo))
                .isEqualTo(preemptTo - preemptFrom);
        assertThat(waits.preemptedBy(w1task, -1, base + preemptFrom, base + preemptTo))
                .extracting(x -> m.tasks().get(x.task()).name())
                .containsExactly("intruder");
    }

    @Test
    void aPerfThreadCounterContextIsASeriesPerThreadWithTheValuesBabeltrace2Reads() throws Exception {
        Assumptions.assumeTrue(
                hardwareCounters(),
                "this machine has no hardware performance counters (no /sys/bus/event_source/devices/*/events/"
                        + "instructions): LTTng-UST cannot make the perf:thread:instructions context, and records nothing");
        Run run = run(
                program,
                true,
                "perf",
                Channel.AMPLE,
                CYG_PROFILE,
                List.of("lttng_ust_cyg_profile:*"),
                null,
                List.of("perf:thread:instructions"));
        Path babeltrace2 = LttngSessionDaemon.onPath("babeltrace2");
        if (babeltrace2 == null) {
            Required.missing("babeltrace2 is not installed: the counters are not compared with what it reads");
        }
        Process p = new ProcessBuilder(babeltrace2.toString(), "--clock-seconds", "--no-delta", run.trace.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        Pattern time = Pattern.compile("^\\[(\\d+)\\.(\\d{9})\\]");
        Pattern vtid = Pattern.compile("\\bvtid = (\\d+)");
        Pattern value = Pattern.compile("\\bperf_thread_instructions = (\\d+)");
        Map<Long, List<List<Long>>> read = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher t = time.matcher(line);
            Matcher k = vtid.matcher(line);
            Matcher v = value.matcher(line);
            if (t.find() && k.find() && v.find()) {
                read.computeIfAbsent(Long.parseLong(k.group(1)), x -> new ArrayList<>())
                        .add(List.of(nanos(t.group(1), t.group(2)), Long.parseUnsignedLong(v.group(1))));
            }
        }
        assertThat(read).as("threads babeltrace2 shows counting").isNotEmpty();
        Map<Long, List<List<Long>>> model = new TreeMap<>();
        for (int i = 0; i < run.model.samples(); i++) {
            StateModel.Counter c = run.model.counters().get(run.model.sampleSeries(i));
            assertThat(c.name()).isEqualTo("perf:thread:instructions");
            assertThat(c.kind()).isEqualTo(StateModel.COUNTER_TOTAL);
            model.computeIfAbsent(run.model.tasks().get(c.task()).id(), x -> new ArrayList<>())
                    .add(List.of(run.model.sampleTime(i), (long) run.model.sampleValue(i)));
        }
        assertThat(model).isEqualTo(read);
    }

    /** Whether the CPU has performance counters the kernel offers (perf's "instructions" event). */
    private static boolean hardwareCounters() throws IOException {
        Path devices = Path.of("/sys/bus/event_source/devices");
        if (!Files.isDirectory(devices)) {
            return false;
        }
        try (var s = Files.list(devices)) {
            return s.anyMatch(d -> Files.exists(d.resolve("events/instructions")));
        }
    }

    @Test
    void eventsLostToASmallBufferAreCountedAndMarkTheCallsOpenMeanwhile() throws Exception {
        Path babeltrace2 = LttngSessionDaemon.onPath("babeltrace2");
        if (babeltrace2 == null) {
            String why = "babeltrace2 is not installed: the lost events are not compared with what it reports";
            Required.missing(why);
        }
        // each worker in turn makes 100 times as many leaf calls: about 77,000 events into 8 KiB per CPU
        Run run = run("loss", Channel.SMALL, CYG_PROFILE, List.of("lttng_ust_cyg_profile:*"), null, "100");
        List<long[]> windows = new ArrayList<>();
        long reported = 0;
        Process p = new ProcessBuilder(babeltrace2.toString(), "--clock-seconds", run.trace.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        String warnings = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        Matcher w = Pattern.compile(
                        "Tracer discarded (\\d+) events between \\[(\\d+)\\.(\\d{9})\\] and \\[(\\d+)\\.(\\d{9})\\]")
                .matcher(warnings);
        List<List<Long>> told = new ArrayList<>();
        while (w.find()) {
            // babeltrace2 prints a counter that went back as a huge unsigned count: the sum wraps to the right total
            reported += Long.parseUnsignedLong(w.group(1));
            windows.add(new long[] {nanos(w.group(2), w.group(3)), nanos(w.group(4), w.group(5))});
            told.add(List.of(nanos(w.group(4), w.group(5)), Long.parseUnsignedLong(w.group(1))));
        }
        // the lost events' counters: each warning's count, at the end of the packet that told it
        List<List<Long>> counted = new ArrayList<>();
        for (int i = 0; i < run.model.samples(); i++) {
            StateModel.Counter c = run.model.counters().get(run.model.sampleSeries(i));
            if (c.kind() == StateModel.COUNTER_LOST) {
                counted.add(List.of(run.model.sampleTime(i), (long) run.model.sampleValue(i)));
            }
        }
        assertThat(counted).as("lost events' samples").containsExactlyInAnyOrderElementsOf(told);
        assertThat(reported)
                .as("events babeltrace2 says were discarded:%n%s", warnings)
                .isPositive();
        assertThat(run.model.discarded()).as("discarded events").isEqualTo(reported);
        assertThat(run.model.events() + run.model.discarded())
                .as("events recorded and lost: two per call made")
                .isEqualTo(2L * run.did.calls.size());
        // a call no loss window touches lost nothing; one open over a whole window is marked
        IntervalTable calls = run.model.calls();
        for (int i = 0; i < calls.size(); i++) {
            long start = calls.start(i);
            long end = calls.end(i);
            if (windows.stream().noneMatch(x -> start <= x[1] && end >= x[0])) {
                assertThat(calls.flags(i) & StateModel.EVENTS_LOST)
                        .as(
                                "call of %s from %d to %d, outside every loss",
                                run.model.name(calls.subject(i)), start, end)
                        .isZero();
            }
            if (windows.stream().anyMatch(x -> start < x[0] && end > x[1])) {
                assertThat(calls.flags(i) & StateModel.EVENTS_LOST)
                        .as("call of %s from %d to %d, open over a loss", run.model.name(calls.subject(i)), start, end)
                        .isEqualTo(StateModel.EVENTS_LOST);
            }
        }
        // every event of a worker but run's own is made while its run is open: a worker whose
        // events the trace lacks lost them then, and its run, seen whole, is marked
        Map<Long, Long> recorded = new HashMap<>();
        try (CtfReader reader = CtfReader.open(run.trace)) {
            while (reader.next()) {
                recorded.merge(reader.event().getLong("vtid"), 1L, Long::sum);
            }
        }
        Map<Long, Long> made = new HashMap<>();
        run.did.calls.forEach(c -> made.merge(c.tid, 2L, Long::sum));
        assertThat(made)
                .as("threads that lost events (made, recorded: %s)", recorded)
                .anySatisfy(
                        (tid, n) -> assertThat(recorded.getOrDefault(tid, 0L)).isLessThan(n));
        for (Call did : run.did.calls) {
            if (!did.function.equals("run")) {
                continue;
            }
            List<Integer> rows = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                if (run.model.tasks().get(calls.owner(i)).id() == did.tid
                        && run.model.name(calls.subject(i)).equals("run")) {
                    rows.add(i);
                }
            }
            assertThat(rows).as("calls of run by thread %d", did.tid).hasSize(1);
            int i = rows.getFirst();
            boolean lost = recorded.getOrDefault(did.tid, 0L) < made.get(did.tid);
            assertThat(calls.flags(i) & ~StateModel.EVENTS_LOST)
                    .as("%s: seen whole", did)
                    .isZero();
            if (lost) {
                assertThat(calls.flags(i))
                        .as(
                                "%s, during which %d of the thread's %d events were lost: flags",
                                did, made.get(did.tid) - recorded.getOrDefault(did.tid, 0L), made.get(did.tid))
                        .isEqualTo(StateModel.EVENTS_LOST);
            }
            assertThat(calls.depth(i)).as("%s: depth", did).isZero();
            assertThat(calls.start(i) - run.offset).as("%s: entry", did).isBetween(did.t0, did.t1);
            assertThat(calls.end(i) - run.offset).as("%s: exit", did).isBetween(calls.start(i) - run.offset, did.t1);
        }
    }

    /**
     * The model's tasks are the threads that made the calls (keyed by their vtid, named by their
     * procname), and each thread's calls of each function are the program's: as many, at the same
     * depth, whole, each within the program's readings just before and after it.
     */
    private static void assertCallsAre(Run run, Predicate<Call> traced, UnaryOperator<String> nameInModel) {
        StateModel m = run.model;
        Map<Long, String> threads = new TreeMap<>();
        Map<String, List<Call>> expected = new TreeMap<>();
        for (Call c : run.did.calls) {
            if (traced.test(c)) {
                threads.put(c.tid, run.did.threads.get(c.tid));
                expected.computeIfAbsent(c.tid + " " + nameInModel.apply(c.function), k -> new ArrayList<>())
                        .add(c);
            }
        }
        Map<Long, String> tasks = new TreeMap<>();
        for (StateModel.Task t : m.tasks()) {
            assertThat(tasks.put(t.id(), t.name())).as("tasks of id %d", t.id()).isNull();
        }
        assertThat(tasks).as("tasks (vtid = procname)").isEqualTo(threads);
        Map<String, List<Integer>> built = new TreeMap<>();
        IntervalTable calls = m.calls();
        for (int i = 0; i < calls.size(); i++) {
            built.computeIfAbsent(
                            m.tasks().get(calls.owner(i)).id() + " " + m.name(calls.subject(i)), k -> new ArrayList<>())
                    .add(i);
        }
        assertThat(built.keySet()).as("thread and function of the calls").isEqualTo(expected.keySet());
        expected.forEach((key, did) -> {
            List<Integer> rows = built.get(key);
            rows.sort(Comparator.comparingLong(calls::start));
            did.sort(Comparator.comparingLong(c -> c.t0));
            assertThat(rows).as("calls of %s", key).hasSize(did.size());
            for (int k = 0; k < did.size(); k++) {
                Call c = did.get(k);
                int i = rows.get(k);
                long start = calls.start(i) - run.offset;
                long end = calls.end(i) - run.offset;
                assertThat(calls.flags(i)).as("%s: flags", c).isZero();
                assertThat(calls.depth(i)).as("%s: depth", c).isEqualTo(c.depth);
                assertThat(start).as("%s: entry", c).isBetween(c.t0, c.t1);
                assertThat(end).as("%s: exit", c).isBetween(start, c.t1);
            }
        });
    }

    /** A recording of the program, what it did, the model of its trace (functions named) and its clock's offset. */
    private record Run(Path trace, Did did, StateModel model, long offset) {}

    private static Run run(
            String name, Channel channel, String helper, List<String> events, Mapping mapping, String... args)
            throws Exception {
        return run(program, true, name, channel, helper, events, mapping, List.of(), args);
    }

    /**
     * A recording of {@code binary} (the program, or a build of it), its functions named after
     * the program's own list of their addresses when {@code programNames}, else as the model
     * names them itself.
     */
    private static Run run(
            Path binary,
            boolean programNames,
            String name,
            Channel channel,
            String helper,
            List<String> events,
            Mapping mapping,
            List<String> contexts,
            String... args)
            throws Exception {
        Map<String, String> env = new HashMap<>();
        if (helper != null) {
            env.put("LD_PRELOAD", LttngSessionDaemon.library(helper).toString());
        }
        List<String> command = new ArrayList<>(List.of(binary.toString(), "did.txt"));
        command.addAll(List.of(args));
        Recording r = lttng.record(name, channel, events, contexts, env, command);
        Did did = Did.read(r.directory().resolve("did.txt"));
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.trace()), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(mapping));
        if (programNames) {
            m.symbolize(did.functions);
        }
        long offset;
        try (CtfReader reader = CtfReader.open(r.trace())) {
            ClockClass clock = reader.traces().getFirst().metadata().clocks().get("monotonic");
            assertThat(clock.frequency()).as("LTTng-UST's clock: ns").isEqualTo(1_000_000_000L);
            offset = clock.baseOffsetNanos();
        }
        return new Run(r.trace(), did, m, offset);
    }

    private static long nanos(String seconds, String fraction) {
        return Long.parseLong(seconds) * 1_000_000_000L + Long.parseLong(fraction);
    }

    private record Call(long tid, String function, int depth, long t0, long t1) {}

    private record Message(long queue, long id, long sender, long receiver) {}

    /** What the program says it did: its functions (address to name), threads (vtid to name), calls and messages. */
    private record Did(
            Map<String, String> functions, Map<Long, String> threads, List<Call> calls, List<Message> messages) {
        static Did read(Path file) throws IOException {
            Did d = new Did(new HashMap<>(), new HashMap<>(), new ArrayList<>(), new ArrayList<>());
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "func" -> d.functions.put(f[2], f[1]);
                    case "thread" -> d.threads.put(Long.parseLong(f[1]), f[2]);
                    case "call" ->
                        d.calls.add(new Call(
                                Long.parseLong(f[1]),
                                f[2],
                                Integer.parseInt(f[3]),
                                Long.parseLong(f[4]),
                                Long.parseLong(f[5])));
                    case "msg" ->
                        d.messages.add(new Message(
                                Long.parseLong(f[1]),
                                Long.parseLong(f[2]),
                                Long.parseLong(f[3]),
                                Long.parseLong(f[4])));
                    default -> fail("%s: unknown line %s", file, line);
                }
            }
            return d;
        }
    }

    private static void gcc(Path in, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd)
                .directory(in.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("%s:%n%s", cmd, out)
                .isTrue();
    }
}
