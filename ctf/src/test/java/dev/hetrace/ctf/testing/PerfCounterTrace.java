package dev.hetrace.ctf.testing;

import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A Linux kernel trace as lttng-modules writes it after {@code lttng add-context -k -t perf:cpu:cycles
 * -t perf:thread:instructions}: every event's stream event context holds {@code _perf_cpu_cycles}
 * (the CPU's cycle counter) and {@code _perf_thread_instructions} (the running thread's instruction
 * counter), running totals that only grow. Two CPUs (a stream each, {@code cpu_id} in the packet
 * context, several packets), {@code sched_switch} between threads 100 and 101 on cpu0 and between
 * thread 200 and the idle task on cpu1; beside them {@code app_queue} ({@code _depth}: a level) on
 * cpu0 and {@code app_sent} ({@code _sent}: a running total) on cpu1, for a mapping's counter rules.
 * Times are ns after {@link #OFFSET_SECONDS}.
 */
public final class PerfCounterTrace {
    public static final long OFFSET_SECONDS = 1_700_000_000L;

    /** Events per CPU. */
    public static final int EVENTS = 300;

    private static final String TSDL = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 64; align = 8; signed = true; } := int64_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        env { hostname = "perfbox"; domain = "kernel"; sysname = "Linux"; kernel_release = "6.1.0";
            tracer_name = "lttng-modules"; tracer_major = 2; tracer_minor = 13; };
        clock { name = "monotonic"; freq = 1000000000; offset_s = %d; offset = 0; };
        stream { id = 0;
            packet.context := struct { uint64_clock_monotonic_t timestamp_begin; uint64_clock_monotonic_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num; uint64_t events_discarded;
                uint32_t cpu_id; };
            event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; };
            event.context := struct { uint64_t _perf_cpu_cycles; uint64_t _perf_thread_instructions; }; };
        event { name = "sched_switch"; id = 0; stream_id = 0; fields := struct { string _prev_comm; int32_t _prev_tid;
            int64_t _prev_state; string _next_comm; int32_t _next_tid; }; };
        event { name = "app_queue"; id = 1; stream_id = 0; fields := struct { int32_t _depth; }; };
        event { name = "app_sent"; id = 2; stream_id = 0; fields := struct { uint64_t _sent; }; };
        """;

    private PerfCounterTrace() {}

    /** Writes the trace into {@code dir} and returns it. */
    public static Path write(Path dir) throws IOException {
        return write(dir, EVENTS, 1024);
    }

    /**
     * Writes the trace with {@code events} events per CPU (the first {@link #EVENTS} as {@link #write(Path)}'s),
     * in packets of {@code packetBytes}.
     */
    public static Path write(Path dir, int events, int packetBytes) throws IOException {
        try (CtfWriter w = CtfWriter.create(dir, TSDL.formatted(OFFSET_SECONDS))) {
            long[] instructions = new long[300];
            for (int cpu = 0; cpu < 2; cpu++) {
                StreamWriter out = w.stream(0, cpu, "channel0_" + cpu)
                        .packetContext("cpu_id", (long) cpu)
                        .packetSize(packetBytes);
                long[] tids = cpu == 0 ? new long[] {100, 101} : new long[] {200, 0};
                String[] names = cpu == 0 ? new String[] {"worker", "helper"} : new String[] {"server", "swapper/1"};
                int running = 0;
                long cycles = 5_000_000_000L * (cpu + 1); // counters that started long before the trace
                for (int k = 0; k < events; k++) {
                    long time = 1_000_000L + k * 10_000L + cpu * 3_000L + (k % 5) * 700L;
                    cycles += 20_000 + 37L * ((k * 7919L + cpu) % 101);
                    long tid = tids[running];
                    instructions[(int) (tid % 300)] += tid == 0 ? 0 : 9_000 + 13L * (k % 17);
                    List<Object> context = List.of(cycles, instructions[(int) (tid % 300)]);
                    if (k % 4 == 3) {
                        int next = 1 - running;
                        out.event(
                                0,
                                time,
                                context,
                                null,
                                List.of(names[running], tid, k % 8 == 3 ? 0L : 1L, names[next], tids[next]));
                        running = next;
                    } else if (cpu == 0) {
                        out.event(1, time, context, null, List.of((long) (k * 13 % 7)));
                    } else {
                        out.event(2, time, context, null, List.of(1_000L * k * k));
                    }
                }
            }
        } catch (MetadataException e) {
            throw new IOException(e);
        }
        return dir;
    }
}
