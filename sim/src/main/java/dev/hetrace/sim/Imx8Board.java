package dev.hetrace.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A simulated i.MX8-like board: four Cortex-A cores running Linux, whose application traces with
 * LTTng-UST, and one to four Cortex-M cores running Zephyr, which trace with Zephyr's own CTF
 * tracing. Linux starts each Cortex-M core through remoteproc (the core's cycle counter starts
 * then: its clock's origin has nothing to do with Linux's), then a thread of the application
 * opens the core's RPMsg endpoint and sends it a command every 10 ms, which the core's
 * {@code rpmsg_rx} thread answers; the core's {@code sensor} thread sends a report every 5 ms;
 * its {@code main} thread computes in the background. Both sides trace every message (Linux with
 * the {@code hetrace_rpmsg} provider, Zephyr with named events), which is all {@code hetrace sync}
 * needs.
 */
final class Imx8Board {
    /** Linux's clock counts from this epoch second at true time 0 (plus its origin). */
    static final long EPOCH_SECONDS = Board.EPOCH_SECONDS;

    static final int A_CORES = 4;
    static final long M_FREQUENCY_HZ = 400_000_000L;
    /** Linux's endpoint for Cortex-M core {@code i} is this plus {@code i} (RPMsg's dynamic addresses start at 0x400). */
    static final int LINUX_EPT = 0x400;
    /** Each Cortex-M core's endpoint (the firmware's static address). */
    static final int M_EPT = 0x1e;

    static final long COMMAND_PERIOD = 10_000_000;
    static final long REPORT_PERIOD = 5_000_000;

    final Imx8Config config;
    final EventLoop loop = new EventLoop();
    final SplittableRandom random;
    final GroundTruth truth;
    final ClockModel linuxClock;
    final TraceLog linuxLog = new TraceLog();
    final List<ZephyrCore> mCores = new ArrayList<>();
    final List<LinuxThread> threads = new ArrayList<>();

    static Map<String, Long> symbols() {
        Map<String, Long> s = new TreeMap<>();
        s.put("main", 0x401000L);
        s.put("rproc_boot", 0x401180L);
        s.put("send_command", 0x401340L);
        s.put("handle_message", 0x4014c0L);
        return s;
    }

    Imx8Board(Imx8Config config) {
        this.config = config;
        SplittableRandom seed = new SplittableRandom(config.seed());
        SplittableRandom clocks = seed.split();
        this.random = seed.split();
        Map<String, Long> symbols = symbols();
        this.truth = new GroundTruth(config.seed(), "imx8-rpmsg", config.durationNanos(), symbols);
        linuxClock = new ClockModel(
                1_000_000_000L,
                EPOCH_SECONDS,
                clocks.nextLong(1_000_000_000L),
                clocks.nextDouble(-2, 2),
                ClockModel.NEVER,
                0,
                false,
                0);
        truth.core(new GroundTruth.CoreTruth("linux", 0, "linux-cortex-a", linuxClock));
        for (int i = 0; i < config.mCores(); i++) {
            // remoteproc starts the cores one after the other, some 100 ms apart
            long release = 100_000_000L + i * 150_000_000L + clocks.nextLong(50_000_000L);
            double drift = clocks.nextDouble(-30, 30);
            long origin = -(long) Math.ceil(release * (M_FREQUENCY_HZ / 1e9) * (1 + drift * 1e-6));
            ClockModel clock = new ClockModel(M_FREQUENCY_HZ, 0, origin, drift, ClockModel.NEVER, 0, false, 0);
            ZephyrCore m = new ZephyrCore(i, "m" + i, clock, release);
            mCores.add(m);
            truth.core(new GroundTruth.CoreTruth(m.name, i + 1, "cortex-m-zephyr", clock));
            LinuxThread t = new LinuxThread(i, m, symbols);
            threads.add(t);
        }
    }

    double uniform(double lo, double hi) {
        return lo + (hi - lo) * random.nextDouble();
    }

    long uniformNanos(long lo, long hi) {
        return lo + random.nextLong(hi - lo + 1);
    }

    /** An exponential delay of mean {@code mean} ns. */
    long exponential(double mean) {
        // StrictMath: the same bits on every platform, so that a seed gives the same bytes anywhere
        return (long) (-mean * StrictMath.log(1 - random.nextDouble()));
    }

    void run() {
        for (LinuxThread t : threads) {
            t.start();
        }
        loop.runUntil(config.durationNanos());
    }

    /** An RPMsg message in flight: its endpoints, its number in its direction, its length. */
    record Message(int src, int dst, int seq, int len) {}

    // ------------------------------------------------------------------ Linux

    /**
     * The application's thread for one Cortex-M core, on a CPU of its own: it boots the core
     * through remoteproc, opens its endpoint, sends a command every 10 ms and reads whatever the
     * core sends. Each read or write and its handling take the thread a few microseconds, during
     * which a message that arrives waits.
     */
    final class LinuxThread {
        final int index;
        final String name;
        final ZephyrCore core;
        final int ept;
        final LinuxRpmsgTracer tracer;
        private long busyUntil;
        private int seqOut;

        LinuxThread(int index, ZephyrCore core, Map<String, Long> symbols) {
            this.index = index;
            this.name = "rpmsg-m" + index;
            this.core = core;
            this.ept = LINUX_EPT + index;
            this.tracer = new LinuxRpmsgTracer(linuxClock, linuxLog, index % A_CORES, 1400 + index, name, symbols);
        }

        void start() {
            // remoteproc loads the firmware, then releases the core from reset
            long load = uniformNanos(3_000_000, 8_000_000);
            long enter = core.release - load;
            loop.at(enter, () -> tracer.funcEntry(enter, "rproc_boot"));
            loop.at(core.release, () -> {
                core.boot();
                long exit = core.release + 50_000;
                tracer.funcExit(exit, "rproc_boot");
                function("rproc_boot", enter, exit);
                busyUntil = exit;
            });
            // the firmware's name-service announcement creates /dev/rpmsgN, which the thread opens
            loop.at(core.release + 60_000_000L, this::command);
        }

        private void function(String func, long start, long end) {
            truth.interval(new GroundTruth.Interval(
                    "linux",
                    name,
                    "function",
                    func,
                    start,
                    end,
                    linuxClock.traceNanos(start),
                    linuxClock.traceNanos(end)));
        }

        /** Sends the next command (once the thread is free), then schedules the one after. */
        private void command() {
            long now = loop.now();
            if (now < busyUntil) {
                loop.at(busyUntil, this::command);
                return;
            }
            int len = (int) uniformNanos(16, 256);
            Message m = new Message(ept, M_EPT, seqOut++, len);
            tracer.funcEntry(now, "send_command");
            long sent = now + 800;
            tracer.send(sent, m.src(), m.dst(), m.seq(), m.len());
            long exit = sent + uniformNanos(3_000, 8_000);
            tracer.funcExit(exit, "send_command");
            function("send_command", now, exit);
            busyUntil = exit;
            // write() copies it into a virtqueue buffer and kicks the core's mailbox
            long arrives = sent + 10_000 + exponential(5_000);
            loop.at(arrives, () -> core.mailbox(m));
            long next = now + COMMAND_PERIOD - 1_000_000 + random.nextLong(2_000_000);
            if (next < config.durationNanos()) {
                loop.at(next, this::command);
            }
        }

        /** A message from the core: read() returns it once the thread is free. */
        void arrive(Message m) {
            long now = loop.now();
            if (now < busyUntil) {
                loop.at(busyUntil, () -> arrive(m));
                return;
            }
            tracer.recv(now, m.src(), m.dst(), m.seq(), m.len());
            long enter = now + 500;
            tracer.funcEntry(enter, "handle_message");
            long exit = enter + uniformNanos(4_000, 40_000);
            tracer.funcExit(exit, "handle_message");
            function("handle_message", enter, exit);
            busyUntil = exit;
        }
    }

    /** A message a Cortex-M core sends reaches Linux: the mailbox interrupt, rpmsg_char, then the reader's wakeup. */
    void toLinux(int core, Message m) {
        long arrives = loop.now() + 20_000 + exponential(25_000);
        loop.at(arrives, () -> threads.get(core).arrive(m));
    }

    // ------------------------------------------------------------------ Zephyr

    /**
     * A Cortex-M core running Zephyr: fixed-priority preemptive threads ({@code rpmsg_rx} 2,
     * {@code sensor} 4, {@code main} 7, then the idle thread), interrupts (the mailbox's and the
     * system timer's) that suspend whatever runs, a semaphore the mailbox interrupt gives to the
     * receiving thread, and Zephyr's CTF events for each.
     */
    final class ZephyrCore {
        private static final int SEM_RX = 0x20004000;
        private static final int IDLE_ID = 0x20001600;
        private static final long MAILBOX_ISR = 2_500;
        private static final long TIMER_ISR = 1_800;

        /** A Zephyr thread: its state and what it does next. */
        private final class ZThread {
            final String name;
            final int id;
            final int prio;
            boolean ready = true;
            long remaining;
            Runnable next;
            long since = -1;

            ZThread(String name, int id, int prio, Runnable first) {
                this.name = name;
                this.id = id;
                this.prio = prio;
                this.next = first;
            }
        }

        final int index;
        final String name;
        final ClockModel clock;
        final long release;
        final ZephyrTracer tracer;
        private final List<ZThread> threads = new ArrayList<>();
        private final ArrayDeque<Runnable> pendingIsrs = new ArrayDeque<>();
        private final ArrayDeque<Message> inbox = new ArrayDeque<>();
        private ZThread rx;
        private ZThread sensor;
        private ZThread main;
        private ZThread running;
        private long runningFrom;
        private boolean started;
        private boolean inIsr;
        private long generation;
        private int semCount;
        private boolean rxWaiting;
        /** Linux's endpoint, once its first message arrived (the core answers to it). */
        private int linuxEpt;

        private int seqOut;

        ZephyrCore(int index, String name, ClockModel clock, long release) {
            this.index = index;
            this.name = name;
            this.clock = clock;
            this.release = release;
            this.tracer = new ZephyrTracer(clock);
        }

        /** Out of reset: Zephyr creates its threads and starts scheduling them. */
        void boot() {
            long t = release + 800_000;
            loop.at(t, () -> {
                main = new ZThread("main", 0x20001000, 7, this::mainLoop);
                rx = new ZThread("rpmsg_rx", 0x20001200, 2, this::rxLoop);
                sensor = new ZThread("sensor", 0x20001400, 4, this::sensorLoop);
                threads.add(rx);
                threads.add(sensor);
                threads.add(main);
                long now = loop.now();
                for (ZThread th : List.of(main, rx, sensor)) {
                    tracer.thread(now, ZephyrTracer.THREAD_CREATE, th.id, th.name);
                    tracer.prioritySet(now, th.id, th.name, th.prio);
                }
                tracer.thread(now, ZephyrTracer.THREAD_CREATE, IDLE_ID, "idle");
                tracer.prioritySet(now, IDLE_ID, "idle", 15);
                dispatch();
            });
        }

        private void record(String task, String kind, long start, long end) {
            if (end > start) {
                truth.interval(new GroundTruth.Interval(
                        name, task, kind, task, start, end, tracer.nanos(start), tracer.nanos(end)));
            }
        }

        private ZThread best() {
            ZThread best = null;
            for (ZThread th : threads) {
                if (th.ready && (best == null || th.prio < best.prio)) {
                    best = th;
                }
            }
            return best;
        }

        private String runningName() {
            return running == null ? "idle" : running.name;
        }

        private void dispatch() {
            if (inIsr) {
                return;
            }
            long now = loop.now();
            ZThread best = best();
            if (started && best == running) {
                if (running != null && running.since < 0) {
                    run(running);
                }
                return;
            }
            if (started) {
                if (running != null) {
                    suspend(running);
                }
                tracer.thread(
                        now, ZephyrTracer.THREAD_SWITCHED_OUT, running == null ? IDLE_ID : running.id, runningName());
                record(runningName(), "run", runningFrom, now);
            }
            started = true;
            running = best;
            runningFrom = now;
            tracer.thread(now, ZephyrTracer.THREAD_SWITCHED_IN, best == null ? IDLE_ID : best.id, runningName());
            if (best == null) {
                tracer.event(now, ZephyrTracer.IDLE);
            } else {
                run(best);
            }
        }

        private void suspend(ZThread th) {
            if (th.since >= 0) {
                th.remaining -= loop.now() - th.since;
                th.since = -1;
            }
            generation++;
        }

        /** The running thread goes on: computes what is left, else does what comes next. */
        private void run(ZThread th) {
            long now = loop.now();
            if (th.remaining > 0) {
                th.since = now;
                long g = ++generation;
                loop.at(now + th.remaining, () -> {
                    if (g == generation) {
                        th.remaining = 0;
                        th.since = -1;
                        run(th);
                    }
                });
                return;
            }
            Runnable n = th.next;
            th.next = null;
            if (n != null) {
                n.run();
            }
        }

        private void compute(ZThread th, long nanos, Runnable then) {
            th.remaining = Math.max(1, nanos);
            th.next = then;
            run(th);
        }

        private void block(ZThread th, Runnable then) {
            th.ready = false;
            th.next = then;
            dispatch();
        }

        /** k_sleep: the system timer's interrupt readies the thread when the time is up. */
        private void sleep(ZThread th, long nanos, Runnable then) {
            long wake = loop.now() + nanos;
            block(th, then);
            if (wake < config.durationNanos()) {
                loop.at(
                        wake,
                        () -> interrupt(TIMER_ISR, () -> {
                            tracer.thread(loop.now(), ZephyrTracer.THREAD_READY, th.id, th.name);
                            th.ready = true;
                        }));
            }
        }

        /** An interrupt now, or when the one being handled returns. */
        private void interrupt(long duration, Runnable handler) {
            if (inIsr) {
                pendingIsrs.add(() -> interrupt(duration, handler));
                return;
            }
            long start = loop.now();
            if (running != null) {
                suspend(running);
            }
            inIsr = true;
            tracer.event(start, ZephyrTracer.ISR_ENTER);
            handler.run();
            loop.at(start + duration, () -> {
                long end = loop.now();
                ZThread best = best();
                boolean reschedule = best != null && (running == null || best.prio < running.prio);
                tracer.event(end, reschedule ? ZephyrTracer.ISR_EXIT_TO_SCHEDULER : ZephyrTracer.ISR_EXIT);
                record("isr", "isr", start, end);
                inIsr = false;
                Runnable queued = pendingIsrs.poll();
                if (queued != null) {
                    queued.run();
                } else if (reschedule) {
                    dispatch();
                } else if (running != null) {
                    run(running);
                } else {
                    tracer.event(end, ZephyrTracer.IDLE);
                }
            });
        }

        /** Linux's message reaches the core: the mailbox interrupt gives the receiving thread's semaphore. */
        void mailbox(Message m) {
            interrupt(MAILBOX_ISR, () -> {
                long now = loop.now();
                inbox.add(m);
                tracer.semaphore(now, ZephyrTracer.SEMAPHORE_GIVE_ENTER, SEM_RX);
                if (rxWaiting) {
                    rxWaiting = false;
                    tracer.thread(now, ZephyrTracer.THREAD_READY, rx.id, rx.name);
                    rx.ready = true;
                } else {
                    semCount++;
                }
                tracer.semaphore(now, ZephyrTracer.SEMAPHORE_GIVE_EXIT, SEM_RX);
            });
        }

        private int packed(int src, int dst) {
            return ((src & 0xffff) << 16) | (dst & 0xffff);
        }

        private void send(int len) {
            Message m = new Message(M_EPT, linuxEpt, seqOut++, len);
            tracer.named(loop.now(), "rpmsg_send", packed(m.src(), m.dst()), m.seq());
            toLinux(index, m);
        }

        private void rxLoop() {
            long now = loop.now();
            tracer.semaphoreTake(now, ZephyrTracer.SEMAPHORE_TAKE_ENTER, SEM_RX, ZephyrTracer.FOREVER);
            if (semCount > 0) {
                semCount--;
                tracer.semaphoreTaken(now, SEM_RX, ZephyrTracer.FOREVER, 0);
                rxHandle();
                return;
            }
            tracer.semaphoreTake(now, ZephyrTracer.SEMAPHORE_TAKE_BLOCKING, SEM_RX, ZephyrTracer.FOREVER);
            tracer.thread(now, ZephyrTracer.THREAD_PENDING, rx.id, rx.name);
            rxWaiting = true;
            block(rx, () -> {
                tracer.semaphoreTaken(loop.now(), SEM_RX, ZephyrTracer.FOREVER, 0);
                rxHandle();
            });
        }

        private void rxHandle() {
            Message m = inbox.poll();
            tracer.named(loop.now(), "rpmsg_recv", packed(m.src(), m.dst()), m.seq());
            linuxEpt = m.src();
            compute(rx, uniformNanos(20_000, 150_000), () -> {
                send((int) uniformNanos(8, 64));
                rxLoop();
            });
        }

        private void sensorLoop() {
            sleep(
                    sensor,
                    REPORT_PERIOD - 100_000 + random.nextLong(200_000),
                    () -> compute(sensor, uniformNanos(50_000, 300_000), () -> {
                        if (linuxEpt != 0) {
                            send(48);
                        }
                        sensorLoop();
                    }));
        }

        private void mainLoop() {
            compute(
                    main,
                    uniformNanos(900_000, 1_100_000),
                    () -> sleep(main, uniformNanos(3_000_000, 8_000_000), this::mainLoop));
        }
    }
}
