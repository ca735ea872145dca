package dev.hetrace.sim;

import java.util.Map;
import java.util.UUID;

/**
 * LTTng-UST in a Linux application that talks to coprocessors through {@code /dev/rpmsgN}: one
 * stream per CPU, compact event headers, the {@code vtid} and {@code procname} context, function
 * entry and exit by address ({@code lttng_ust_cyg_profile}), and the {@code hetrace_rpmsg}
 * provider's {@code send} (just before a message's {@code write()}) and {@code recv} (just after
 * the {@code read()} that returned it), as {@code examples/rpmsg/hetrace_rpmsg_tp.h} declares them.
 */
final class LinuxRpmsgTracer {
    /** The application's event declarations. */
    private static final String EVENTS = """
        event { name = "lttng_ust_cyg_profile:func_entry"; id = 0; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
        event { name = "lttng_ust_cyg_profile:func_exit"; id = 1; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
        event { name = "hetrace_rpmsg:send"; id = 2; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        event { name = "hetrace_rpmsg:recv"; id = 3; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        """;

    /** The trace's metadata (a 1 GHz clock); the clock offset is the epoch second of true time 0. */
    static String metadata(UUID uuid, long offsetSeconds) {
        return UstMetadata.of(uuid, "imx8", 1_000_000_000L, offsetSeconds, EVENTS);
    }

    private final ClockModel clock;
    private final TraceLog log;
    private final int cpu;
    private final Object[] context;
    private final Map<String, Long> symbols;

    /** A thread's tracer: its events go to its CPU's stream. */
    LinuxRpmsgTracer(ClockModel clock, TraceLog log, int cpu, int vtid, String procname, Map<String, Long> symbols) {
        this.clock = clock;
        this.log = log;
        this.cpu = cpu;
        this.context = new Object[] {(long) vtid, procname};
        this.symbols = symbols;
    }

    /** The clock's count at true time {@code t}: ns since its origin. */
    long cycles(long t) {
        return (long) Math.floor(clock.cycles(t));
    }

    private void record(long t, long id, Object... payload) {
        log.add(new TraceLog.Event(cpu, id, cycles(t), context, payload));
    }

    private long address(String func) {
        Long a = symbols.get(func);
        if (a == null) {
            throw new IllegalStateException("no address for function " + func);
        }
        return a;
    }

    void funcEntry(long t, String func) {
        record(t, 0, address(func), address("main") + 0x2c);
    }

    void funcExit(long t, String func) {
        record(t, 1, address(func), address("main") + 0x2c);
    }

    void send(long t, int src, int dst, int seq, int len) {
        record(t, 2, (long) src, (long) dst, (long) seq, (long) len);
    }

    void recv(long t, int src, int dst, int seq, int len) {
        record(t, 3, (long) src, (long) dst, (long) seq, (long) len);
    }
}
