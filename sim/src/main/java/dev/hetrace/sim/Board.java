package dev.hetrace.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * A simulated board: the master core (Linux: the application and the sync daemon on their
 * own CPUs) and the bare-metal slaves, their clocks and tracers, the links between them
 * (MessageQ-like queues with a latency; an interrupt line and a shared mailbox per slave for
 * the sync handshake) and the master's draining of the slaves' trace buffers.
 */
final class Board {
    /** The master's clock counts from this epoch second at true time 0 (plus its origin). */
    static final long EPOCH_SECONDS = 1_763_700_000L;

    static final int MASTER_ID = 0;

    final SimConfig config;
    final EventLoop loop = new EventLoop();
    /** What happens during the run: latencies, work times, clock-read jitter. */
    final SplittableRandom random;

    final GroundTruth truth;
    final Core master;
    final TraceLog masterLog = new TraceLog();
    final MasterTracer daemonTracer;
    final List<Core> slaves = new ArrayList<>();
    final List<TraceLog> slaveLogs = new ArrayList<>();
    final List<SlaveTracer> slaveTracers = new ArrayList<>();
    final Map<Long, SlaveTraceClass> slaveClasses = new HashMap<>();
    private int nextQueueId = 1;
    private int nextMessageId = 1;
    /** Per slave, the mailbox's last request (the master's last odd seq). */
    private final int[] mailboxRequest;

    Board(SimConfig config, Map<String, Long> symbols) {
        this.config = config;
        // one seed, split into independent streams: the board's clocks are the same whatever the
        // faults and the workload, so that runs with and without a fault compare
        SplittableRandom seed = new SplittableRandom(config.seed());
        SplittableRandom clocks = seed.split();
        SplittableRandom faults = seed.split();
        this.random = seed.split();
        this.truth = new GroundTruth(config.seed(), "sobel", config.effectiveDurationNanos(), symbols);
        ClockModel masterClock = new ClockModel(
                1_000_000_000L,
                EPOCH_SECONDS,
                clocks.nextLong(1_000_000_000L),
                clocks.nextDouble(-2, 2),
                ClockModel.NEVER,
                0,
                false,
                0);
        ClockReader masterReader = new ClockReader(masterClock, random);
        MasterTracer appTracer = new MasterTracer(masterReader, masterLog, 0, 1207, "sobel", symbols);
        daemonTracer =
                new MasterTracer(new ClockReader(masterClock, random), masterLog, 1, 1188, "hetrace-syncd", symbols);
        master = new Core(this, MASTER_ID, "master", masterClock, appTracer, false);
        truth.core(new GroundTruth.CoreTruth("master", MASTER_ID, "linux", masterClock));
        long duration = config.effectiveDurationNanos();
        for (int i = 0; i < config.slaves(); i++) {
            boolean epiphany = config.epiphany();
            long freq = epiphany ? 1_000_000_000L : 1_200_000_000L;
            long origin = epiphany ? clocks.nextLong(1L << 32) : (long) (freq * clocks.nextDouble(1, 60));
            double drift = epiphany ? clocks.nextDouble(-100, 100) : clocks.nextDouble(-50, 50);
            long jumpAt = ClockModel.NEVER;
            double jumpDrift = 0;
            int slave = i;
            Optional<Fault> jump = config.faults().stream()
                    .filter(f -> f instanceof Fault.DriftJump d && d.slave() == slave)
                    .findFirst();
            if (jump.isPresent()) {
                jumpAt = jump.get().atNanos() >= 0 ? jump.get().atNanos() : duration / 2;
                jumpDrift = drift + (faults.nextBoolean() ? 1 : -1) * faults.nextDouble(60, 120);
            }
            ClockModel clock =
                    new ClockModel(freq, 0, origin, drift, jumpAt, jumpDrift, epiphany, config.jitterCycles());
            SlaveTraceClass cls = slaveClasses.computeIfAbsent(freq, SlaveTraceClass::of);
            TraceLog log = new TraceLog();
            SlaveTracer tracer = new SlaveTracer(
                    cls, new ClockReader(clock, random), log, config.packetBytes(), config.ringPackets());
            Core core = new Core(this, i + 1, "dsp" + i, clock, tracer, true);
            slaves.add(core);
            slaveLogs.add(log);
            slaveTracers.add(tracer);
            truth.core(new GroundTruth.CoreTruth(core.name, core.id, epiphany ? "epiphany-ecore" : "c66x-dsp", clock));
            if (jumpAt != ClockModel.NEVER) {
                truth.fault(new GroundTruth.FaultTruth(
                        "drift-jump",
                        List.of(core.name),
                        jumpAt,
                        String.format(
                                Locale.ROOT, "the clock's drift changes from %.3f ppm to %.3f ppm", drift, jumpDrift)));
            }
        }
        mailboxRequest = new int[config.slaves()];
    }

    double uniform(double lo, double hi) {
        return lo + (hi - lo) * random.nextDouble();
    }

    /** An exponential delay of mean {@code mean} ns. */
    long exponential(double mean) {
        // StrictMath: the same bits on every platform, so that a seed gives the same bytes anywhere
        return (long) (-mean * StrictMath.log(1 - random.nextDouble()));
    }

    MessageQueue queue(Core owner, String name) {
        MessageQueue q = new MessageQueue(nextQueueId++, name, owner);
        truth.queue(new GroundTruth.QueueTruth(q.id, owner.name, name));
        return q;
    }

    /** Sends a message: traced on the sender now, delivered after the link's latency. */
    void send(Core from, MessageQueue q, int size, int tag) {
        long now = loop.now();
        MessageQueue.Message m = new MessageQueue.Message(nextMessageId++, size, tag, from.id);
        from.tracer.msgqPut(now, q.id, size, m.id());
        // MessageQ between cores: a copy through shared memory and a notification; a local queue is a list
        long latency = q.owner == from ? 1_000 : 12_000 + exponential(4_000);
        loop.at(now + latency, () -> q.owner.deliver(q, m));
    }

    // ------------------------------------------------------------------ sync daemon

    /** The sync daemon: every period, one handshake with each slave in turn. */
    void startSyncDaemon() {
        loop.at(config.syncPeriodNanos() / 2, this::syncRound);
    }

    private void syncRound() {
        long start = loop.now();
        exchange(0);
        if (start + config.syncPeriodNanos() < config.effectiveDurationNanos()) {
            loop.at(start + config.syncPeriodNanos(), this::syncRound);
        }
    }

    private static final long SYNC_TIMEOUT = 1_000_000;
    private static final long SYNC_GAP = 2_000;

    /** One handshake with slave {@code i}, then the next slave's. */
    private void exchange(int i) {
        if (i >= slaves.size()) {
            return;
        }
        Core slave = slaves.get(i);
        long now = loop.now();
        int seq = mailboxRequest[i] + 2 - (mailboxRequest[i] == 0 ? 1 : 0);
        mailboxRequest[i] = seq;
        daemonTracer.syncSend(now, seq, MASTER_ID, slave.id);
        boolean[] done = {false};
        // H1: the interrupt reaches the slave after the interrupt controller's latency
        long irqAt = now + 1_500 + exponential(500);
        loop.at(
                irqAt,
                () -> slave.interrupt(Core.IRQ_SYNC, "sync", 800, t0 -> {
                    slave.tracer.syncRecv(t0 + 200, seq, slave.id, MASTER_ID);
                    slave.tracer.syncSend(t0 + 400, seq + 1, slave.id, MASTER_ID);
                    // H2: the ACK in the shared mailbox, which the master polls
                    long seen = t0 + 500 + 300 + random.nextLong(700);
                    loop.at(seen, () -> {
                        if (done[0]) {
                            return;
                        }
                        done[0] = true;
                        daemonTracer.syncRecv(seen, seq + 1, MASTER_ID, slave.id);
                        loop.after(SYNC_GAP, () -> exchange(i + 1));
                    });
                }));
        loop.at(now + SYNC_TIMEOUT, () -> {
            if (!done[0]) {
                done[0] = true;
                exchange(i + 1);
            }
        });
    }

    // ------------------------------------------------------------------ trace buffers

    void startDraining() {
        loop.at(config.drainPeriodNanos(), this::drain);
    }

    private void drain() {
        for (SlaveTracer t : slaveTracers) {
            t.drain();
        }
        loop.after(config.drainPeriodNanos(), this::drain);
    }

    /** Runs the board to the end of the simulated time. */
    void run() {
        long end = config.effectiveDurationNanos();
        loop.runUntil(end);
        master.finish(end);
        for (int i = 0; i < slaves.size(); i++) {
            slaves.get(i).finish(end);
            truth.discarded(
                    slaves.get(i).id,
                    slaveTracers.get(i).discarded(),
                    slaveTracers.get(i).lostAtEnd());
        }
    }
}
