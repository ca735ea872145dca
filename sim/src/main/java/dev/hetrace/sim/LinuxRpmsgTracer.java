package dev.hetrace.sim;

import java.util.Map;

/**
 * LTTng-UST in a Linux application that talks to coprocessors through {@code /dev/rpmsgN}: one
 * stream per CPU, compact event headers, the {@code vtid} and {@code procname} context, function
 * entry and exit by address ({@code lttng_ust_cyg_profile}), and the {@code hetrace_rpmsg}
 * provider's {@code send} (just before a message's {@code write()}) and {@code recv} (just after
 * the {@code read()} that returned it), as {@code examples/rpmsg/hetrace_rpmsg_tp.h} declares them.
 */
final class LinuxRpmsgTracer {
    /** The trace's metadata; the clock offset is the epoch second of true time 0. */
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
        env { hostname = "imx8"; domain = "ust"; tracer_name = "lttng-ust"; tracer_major = 2; tracer_minor = 13; };
        clock { name = monotonic; description = "Monotonic Clock"; freq = 1000000000; precision = 1; offset_s = %2$d;
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
        event { name = "hetrace_rpmsg:send"; id = 2; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        event { name = "hetrace_rpmsg:recv"; id = 3; stream_id = 0; loglevel = 13;
                fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        """;

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
