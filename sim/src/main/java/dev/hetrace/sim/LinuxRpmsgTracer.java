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
final class LinuxRpmsgTracer extends UstThreadTracer {
    /** The application's event declarations. */
    private static final String EVENTS = CYG_PROFILE + """
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

    /** A thread's tracer: its events go to its CPU's stream. */
    LinuxRpmsgTracer(ClockModel clock, TraceLog log, int cpu, int vtid, String procname, Map<String, Long> symbols) {
        super(log, cpu, vtid, procname, symbols);
        this.clock = clock;
    }

    /** The clock's count at true time {@code t}: ns since its origin. */
    @Override
    long count(long t) {
        return (long) Math.floor(clock.cycles(t));
    }

    void funcEntry(long t, String func) {
        entry(t, func, null);
    }

    void funcExit(long t, String func) {
        exit(t, func, null);
    }

    void send(long t, int src, int dst, int seq, int len) {
        record(t, 2, (long) src, (long) dst, (long) seq, (long) len);
    }

    void recv(long t, int src, int dst, int seq, int len) {
        record(t, 3, (long) src, (long) dst, (long) seq, (long) len);
    }
}
