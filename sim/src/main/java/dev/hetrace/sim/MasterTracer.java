package dev.hetrace.sim;

import java.util.Map;

/**
 * LTTng-UST as the master's Linux applications use it: one stream per CPU, compact event
 * headers, the {@code vtid} and {@code procname} context, function entry and exit by address
 * ({@code lttng_ust_cyg_profile}), the application's MessageQ tracepoints and the sync daemon's
 * handshake events. User space sees neither task switches nor interrupts.
 */
final class MasterTracer implements CoreTracer {
    /** The master's trace metadata; the clock offset is the epoch second of true time 0. */
    static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;

        trace {
            major = 1; minor = 8; byte_order = le;
            uuid = "%1$s";
            packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t stream_instance_id; };
        };
        env { hostname = "master"; domain = "ust"; tracer_name = "lttng-ust"; tracer_major = 2; tracer_minor = 13; };
        clock { name = monotonic; description = "Monotonic Clock"; freq = %2$d; precision = 1; offset_s = %3$d;
                offset = 0; absolute = false; };
        stream {
            id = 0;
            packet.context := struct {
                uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
                uint64_t events_discarded; uint32_t cpu_id;
            };
            event.header := struct {
                enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
                variant <id> {
                    struct { uint27_clock_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_t timestamp; } extended;
                } v;
            } align(8);
            event.context := struct { int32_t vtid; string procname; };
        };
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
