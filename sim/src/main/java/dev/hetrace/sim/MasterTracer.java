package dev.hetrace.sim;

import java.util.Map;
import java.util.UUID;

/**
 * LTTng-UST as the master's Linux applications use it: one stream per CPU, compact event
 * headers, the {@code vtid} and {@code procname} context, function entry and exit by address
 * ({@code lttng_ust_cyg_profile}), the application's MessageQ tracepoints and the sync daemon's
 * handshake events. User space sees neither task switches nor interrupts.
 */
final class MasterTracer implements CoreTracer {
    /** The master's event declarations. */
    private static final String EVENTS = """
        event { name = "lttng_ust_cyg_profile:func_entry"; id = 0; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
        event { name = "lttng_ust_cyg_profile:func_exit"; id = 1; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
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
    private final TraceLog log;
    private final int cpu;
    private final Object[] context;
    private final Map<String, Long> symbols;

    /**
     * @param cpu     the stream (one per CPU) this thread's events go to
     * @param symbols function addresses by name
     */
    MasterTracer(ClockReader clock, TraceLog log, int cpu, int vtid, String procname, Map<String, Long> symbols) {
        this.clock = clock;
        this.log = log;
        this.cpu = cpu;
        this.context = new Object[] {(long) vtid, procname};
        this.symbols = symbols;
    }

    private void record(long t, long id, Object... payload) {
        log.add(new TraceLog.Event(cpu, id, clock.read(t), context, payload));
    }

    private long address(String func) {
        Long a = symbols.get(func);
        if (a == null) {
            throw new IllegalStateException("no address for function " + func);
        }
        return a;
    }

    /** The return address in the caller: a few instructions into it. */
    private long callSite(String caller) {
        return (caller == null ? address("main") : address(caller)) + 0x2c;
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
        record(t, 0, address(func), callSite(caller));
    }

    @Override
    public void funcExit(long t, String func, String caller) {
        record(t, 1, address(func), callSite(caller));
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
