package dev.hetrace.sim;

import java.util.Map;

/**
 * What the LTTng-UST tracers of an application thread share: events go to the stream of the
 * thread's CPU with its {@code vtid} and {@code procname} context, and functions are traced by
 * address ({@code lttng_ust_cyg_profile}, events 0 and 1 of {@link #CYG_PROFILE}).
 */
abstract class UstThreadTracer {
    /** The declarations of {@code lttng_ust_cyg_profile}'s function entry and exit, ids 0 and 1. */
    static final String CYG_PROFILE = """
        event { name = "lttng_ust_cyg_profile:func_entry"; id = 0; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
        event { name = "lttng_ust_cyg_profile:func_exit"; id = 1; stream_id = 0; loglevel = 12;
                fields := struct { uint64_hex_t addr; uint64_hex_t call_site; }; };
        """;

    private final TraceLog log;
    private final int cpu;
    private final Object[] context;
    private final Map<String, Long> symbols;

    /**
     * @param cpu     the stream (one per CPU) this thread's events go to
     * @param symbols function addresses by name
     */
    UstThreadTracer(TraceLog log, int cpu, int vtid, String procname, Map<String, Long> symbols) {
        this.log = log;
        this.cpu = cpu;
        this.context = new Object[] {(long) vtid, procname};
        this.symbols = symbols;
    }

    /** The trace clock's count at true time {@code t}. */
    abstract long count(long t);

    final void record(long t, long id, Object... payload) {
        log.add(new TraceLog.Event(cpu, id, count(t), context, payload));
    }

    /** Function entry at {@code t}, called from {@code caller} (null: {@code main}). */
    final void entry(long t, String func, String caller) {
        record(t, 0, address(func), callSite(caller));
    }

    /** Function exit at {@code t}, back to {@code caller} (null: {@code main}). */
    final void exit(long t, String func, String caller) {
        record(t, 1, address(func), callSite(caller));
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
}
