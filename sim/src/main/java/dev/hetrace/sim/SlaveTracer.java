package dev.hetrace.sim;

/**
 * The generated barectf-style tracer of a bare-metal core, with its platform: events go into
 * packets of a fixed size in a ring of a few packet slots in shared memory, which the master
 * drains now and then; when no slot is free, new events are dropped and counted, and the next
 * packet's {@code events_discarded} says so.
 */
final class SlaveTracer implements CoreTracer {
    /** Room that the packet header and context take, and then some. */
    private static final int PACKET_OVERHEAD = 128;
    /** An event's header (id and 64-bit timestamp) and its alignment, at most. */
    private static final int EVENT_OVERHEAD = 24;

    private final SlaveTraceClass cls;
    private final ClockReader clock;
    private final TraceLog log;
    private final int capacity;
    private final int ringPackets;
    private final long[] ids = new long[10];

    private boolean open;
    private int used;
    private int ringUsed;
    private long lost;
    private long lostTotal;
    private boolean stopped;

    SlaveTracer(SlaveTraceClass cls, ClockReader clock, TraceLog log, int packetBytes, int ringPackets) {
        this.cls = cls;
        this.clock = clock;
        this.log = log;
        this.capacity = packetBytes - PACKET_OVERHEAD;
        this.ringPackets = ringPackets;
        String[] names = {
            "task_switch",
            "msgq_put",
            "msgq_get",
            "func_entry",
            "func_exit",
            "irq_entry",
            "irq_exit",
            "hetrace_sync_send",
            "hetrace_sync_recv",
            "msgq_wait"
        };
        for (int i = 0; i < names.length; i++) {
            ids[i] = cls.id(names[i]);
        }
    }

    /** Events this tracer dropped because its ring was full, as the packets that followed count them. */
    long discarded() {
        return lostTotal;
    }

    /** Events dropped after the last packet: no packet context counts them. */
    long lostAtEnd() {
        return lost;
    }

    /** The master took every full packet. */
    void drain() {
        ringUsed = 0;
    }

    private void record(long t, int kind, int payloadBytes, Object... payload) {
        if (stopped) {
            return;
        }
        int size = EVENT_OVERHEAD + payloadBytes;
        if (open && used + size > capacity) {
            log.add(new TraceLog.PacketEnd(0));
            ringUsed++;
            open = false;
        }
        if (!open) {
            if (ringUsed >= ringPackets) {
                lost++;
                return;
            }
            open = true;
            used = 0;
        }
        if (lost > 0) {
            log.add(new TraceLog.Discarded(0, lost));
            lostTotal += lost;
            lost = 0;
        }
        log.add(new TraceLog.Event(0, ids[kind], clock.read(t), null, payload));
        used += size;
    }

    private static int str(String s) {
        return s.length() + 1;
    }

    @Override
    public void taskSwitch(long t, String prev, int prevPrio, String next, int nextPrio) {
        record(t, 0, str(prev) + str(next) + 2, prev, (long) prevPrio, next, (long) nextPrio);
    }

    @Override
    public void msgqPut(long t, int queue, int size, int msgId) {
        record(t, 1, 10, (long) queue, (long) size, (long) msgId);
    }

    @Override
    public void msgqGet(long t, int queue, int size, int msgId) {
        record(t, 2, 10, (long) queue, (long) size, (long) msgId);
    }

    @Override
    public void msgqWait(long t, int queue) {
        record(t, 9, 2, (long) queue);
    }

    @Override
    public void funcEntry(long t, String func, String caller) {
        record(t, 3, str(func), func);
    }

    @Override
    public void funcExit(long t, String func, String caller) {
        record(t, 4, str(func), func);
    }

    @Override
    public void irqEntry(long t, int irq, String name) {
        record(t, 5, 2 + str(name), (long) irq, name);
    }

    @Override
    public void irqExit(long t, int irq) {
        record(t, 6, 2, (long) irq);
    }

    @Override
    public void syncSend(long t, int seq, int core, int peer) {
        record(t, 7, 12, (long) seq, (long) core, (long) peer);
    }

    @Override
    public void syncRecv(long t, int seq, int core, int peer) {
        record(t, 8, 12, (long) seq, (long) core, (long) peer);
    }

    @Override
    public void stop() {
        stopped = true;
    }

    SlaveTraceClass traceClass() {
        return cls;
    }
}
