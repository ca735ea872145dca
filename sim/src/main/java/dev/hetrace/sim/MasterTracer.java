package dev.hetrace.sim;

import java.util.Map;
import java.util.UUID;

/**
 * LTTng-UST as the master's Linux applications use it: one stream per CPU, compact event
 * headers, the {@code vtid} and {@code procname} context, function entry and exit by address
 * ({@code lttng_ust_cyg_profile}), the application's MessageQ tracepoints and the sync daemon's
 * handshake events. User space sees neither task switches nor interrupts.
 */
final class MasterTracer extends UstThreadTracer implements CoreTracer {
    /** The master's event declarations. */
    private static final String EVENTS = CYG_PROFILE + """
        event { name = "msgq_put"; id = 2; stream_id = 0; loglevel = 13;
                fields := struct { uint16_t queue; uint32_t size; uint32_t msg_id; }; };
        event { name = "msgq_get"; id = 3; stream_id = 0; loglevel = 13;
                fields := struct { uint16_t queue; uint32_t size; uint32_t msg_id; }; };
        event { name = "hetrace_sync_send"; id = 4; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        event { name = "hetrace_sync_recv"; id = 5; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        """;

    /** The master's trace metadata; the clock offset is the epoch second of true time 0. */
    static String metadata(UUID uuid, long frequencyHz, long offsetSeconds) {
        return UstMetadata.of(uuid, "master", frequencyHz, offsetSeconds, EVENTS);
    }

    private final ClockReader clock;

    /**
     * @param cpu     the stream (one per CPU) this thread's events go to
     * @param symbols function addresses by name
     */
    MasterTracer(ClockReader clock, TraceLog log, int cpu, int vtid, String procname, Map<String, Long> symbols) {
        super(log, cpu, vtid, procname, symbols);
        this.clock = clock;
    }

    @Override
    long count(long t) {
        return clock.read(t);
    }

    @Override
    public void taskSwitch(long t, String prev, int prevPrio, String next, int nextPrio) {
        // a kernel event: not in a user-space trace
    }

    @Override
    public void msgqPut(long t, int queue, int size, int msgId) {
        record(t, 2, (long) queue, (long) size, (long) msgId);
    }

    @Override
    public void msgqGet(long t, int queue, int size, int msgId) {
        record(t, 3, (long) queue, (long) size, (long) msgId);
    }

    @Override
    public void funcEntry(long t, String func, String caller) {
        entry(t, func, caller);
    }

    @Override
    public void funcExit(long t, String func, String caller) {
        exit(t, func, caller);
    }

    @Override
    public void irqEntry(long t, int irq, String name) {
        // a kernel event: not in a user-space trace
    }

    @Override
    public void irqExit(long t, int irq) {
        // a kernel event: not in a user-space trace
    }

    @Override
    public void syncSend(long t, int seq, int core, int peer) {
        record(t, 4, (long) seq, (long) core, (long) peer);
    }

    @Override
    public void syncRecv(long t, int seq, int core, int peer) {
        record(t, 5, (long) seq, (long) core, (long) peer);
    }

    @Override
    public void stop() {
        // the master does not crash in these scenarios
    }
}
