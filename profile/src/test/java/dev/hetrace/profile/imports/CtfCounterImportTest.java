package dev.hetrace.profile.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.stats.CoreTypes;
import dev.hetrace.profile.stats.ThreadMetrics;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CTF traces written by the project's CTF writer in LTTng's layout, with perf counter contexts
 * as {@code lttng add-context -t perf:thread:...} and {@code perf:cpu:...} add them, read into runs.
 */
class CtfCounterImportTest {

    static final String UST = """
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 32; align = 8; signed = true; } := int32_t;
            typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
            trace {
            	major = 1; minor = 8; byte_order = le;
            	packet.header := struct { uint32_t magic; uint32_t stream_id; };
            };
            env { domain = "ust"; tracer_name = "lttng-ust"; };
            clock { name = monotonic; freq = 1000000000; offset_s = 1700000000; };
            stream {
            	id = 0;
            	packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
            		uint64_t content_size; uint64_t packet_size; uint32_t cpu_id; };
            	event.header := struct { uint32_t id; uint64_clock_t timestamp; };
            	event.context := struct { int32_t _vpid; int32_t _vtid; string _procname;
            		uint64_t _perf_thread_instructions; uint64_t _perf_thread_cpu_cycles; uint64_t _perf_cpu_cache_misses; };
            };
            event { name = "app:tick"; id = 0; stream_id = 0; fields := struct { uint32_t n; }; };
            """;

    static Map<String, Object> ctx(int pid, int tid, String name, long instr, long cycles, long llc) {
        return Map.of(
                "_vpid",
                pid,
                "_vtid",
                tid,
                "_procname",
                name,
                "_perf_thread_instructions",
                instr,
                "_perf_thread_cpu_cycles",
                cycles,
                "_perf_cpu_cache_misses",
                llc);
    }

    @Test
    void perThreadSamplesAreDeltasOfTheContextCounters(@TempDir Path dir) throws Exception {
        Path trace = dir.resolve("ust-trace");
        try (CtfWriter w = CtfWriter.create(trace, UST)) {
            // CPU 0 runs thread 11 (big core), CPU 4 runs thread 12 (LITTLE core)
            StreamWriter c0 = w.stream(0).packetContext("cpu_id", 0);
            StreamWriter c4 = w.stream(0).packetContext("cpu_id", 4);
            c0.event(0, 1_000, ctx(10, 11, "worker", 1_000, 1_000, 50), null, Map.of("n", 1));
            c0.event(0, 2_000, ctx(10, 11, "worker", 31_000, 21_000, 250), null, Map.of("n", 2));
            c0.event(0, 3_000, ctx(10, 11, "worker", 61_000, 41_000, 450), null, Map.of("n", 3));
            c4.event(0, 1_500, ctx(10, 12, "helper", 0, 0, 0), null, Map.of("n", 1));
            c4.event(0, 4_500, ctx(10, 12, "helper", 15_000, 20_000, 800), null, Map.of("n", 2));
        }
        List<Run> runs = CtfCounterImport.read(trace);
        assertThat(runs).hasSize(1);
        Run r = runs.get(0);
        assertThat(r.runtimeSeconds()).isCloseTo(3.5e-6, within(1e-15));
        assertThat(r.counters())
                .containsEntry("instructions", 75_000.0)
                .containsEntry("cpu-cycles", 60_000.0)
                .containsEntry("cache-misses", 1_200.0);
        assertThat(r.samples()).hasSize(3);
        Sample first = r.samples().get(0);
        assertThat(first.tid()).isEqualTo(11);
        assertThat(first.pid()).isEqualTo(10);
        assertThat(first.thread()).isEqualTo("worker");
        assertThat(first.cpu()).isZero();
        assertThat(first.trigger()).isEqualTo("app:tick");
        assertThat(first.timeSeconds()).isCloseTo(1e-6, within(1e-15));
        assertThat(first.counters()).containsEntry("instructions", 30_000.0).containsEntry("cache-misses", 200.0);

        // IPC per thread and per core type, from the summed counters
        ThreadMetrics.Table ipc = ThreadMetrics.of(
                dev.hetrace.profile.Campaign.of("t", runs),
                Metric.parse("ipc=instructions / cpu-cycles"),
                CoreTypes.parse("0-3=big,4-7=LITTLE"));
        assertThat(ipc.threads()).extracting(ThreadMetrics.Row::key).containsExactly("11 (worker)", "12 (helper)");
        assertThat(ipc.threads().get(0).total()).isCloseTo(1.5, within(1e-12));
        assertThat(ipc.threads().get(1).total()).isCloseTo(0.75, within(1e-12));
        assertThat(ipc.coreTypes()).extracting(ThreadMetrics.Row::key).containsExactly("big", "LITTLE");
        assertThat(ipc.coreTypes().get(0).perSample().median()).isCloseTo(1.5, within(1e-12));
    }

    @Test
    void threadsComeFromSchedSwitchWhenTheContextHasNoTid(@TempDir Path dir) throws Exception {
        String kernel = UST.replace("int32_t _vpid; int32_t _vtid; string _procname;", "")
                .replace(
                        "event { name = \"app:tick\"; id = 0; stream_id = 0; fields := struct { uint32_t n; }; };",
                        "event { name = \"sched_switch\"; id = 0; stream_id = 0; fields := struct { string prev_comm;"
                                + " int32_t prev_tid; string next_comm; int32_t next_tid; }; };\n"
                                + "event { name = \"syscall_entry_read\"; id = 1; stream_id = 0; fields := struct { uint32_t fd; }; };");
        Path trace = dir.resolve("kernel");
        try (CtfWriter w = CtfWriter.create(trace, kernel)) {
            StreamWriter c = w.stream(0).packetContext("cpu_id", 1);
            Map<String, Object> zero = Map.of(
                    "_perf_thread_instructions", 0L, "_perf_thread_cpu_cycles", 0L, "_perf_cpu_cache_misses", 0L);
            c.event(
                    0,
                    100,
                    zero,
                    null,
                    Map.of("prev_comm", "swapper", "prev_tid", 0, "next_comm", "dd", "next_tid", 77));
            c.event(
                    1,
                    200,
                    Map.of(
                            "_perf_thread_instructions",
                            500L,
                            "_perf_thread_cpu_cycles",
                            1000L,
                            "_perf_cpu_cache_misses",
                            9L),
                    null,
                    Map.of("fd", 3));
        }
        Run r = CtfCounterImport.read(trace).get(0);
        assertThat(r.samples()).singleElement().satisfies(s -> {
            assertThat(s.tid()).isEqualTo(77);
            assertThat(s.thread()).isEqualTo("dd");
            assertThat(s.trigger()).isEqualTo("syscall_entry_read");
            assertThat(s.counters()).containsEntry("instructions", 500.0).containsEntry("cache-misses", 9.0);
        });
    }

    @Test
    void aTraceWithoutCountersSaysSo(@TempDir Path dir) throws Exception {
        String plain = UST.replace(
                "event.context := struct { int32_t _vpid; int32_t _vtid; string _procname;\n"
                        + "\t\tuint64_t _perf_thread_instructions; uint64_t _perf_thread_cpu_cycles; uint64_t _perf_cpu_cache_misses; };\n",
                "");
        Path trace = dir.resolve("plain");
        try (CtfWriter w = CtfWriter.create(trace, plain)) {
            w.stream(0).packetContext("cpu_id", 0).event(0, 1, Map.of("n", 1));
        }
        assertThatThrownBy(() -> CtfCounterImport.read(trace))
                .hasMessageContaining("no event carries perf counter context fields");
    }
}
