package dev.hetrace.ctf.testing;

import dev.hetrace.ctf.write.ZephyrEventWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes traces as Zephyr's CTF tracing does ({@code subsys/tracing/ctf}): the metadata Zephyr
 * ships ({@code tsdl/metadata}, {@code metadata_smp}, {@code metadata_circular}: copies in this
 * package's resources) and one stream, each event laid out as {@code ctf_top.h} gathers it: the
 * 32-bit timestamp (nanoseconds since boot, truncated to 32 bits:
 * {@code (uint32_t) k_cyc_to_ns_floor64(k_cycle_get_32())}), the 8-bit event id, then the
 * fields in order, little-endian, packed, thread names as 20 bytes padded with NULs
 * ({@code strncpy} into a zeroed {@code ctf_bounded_string_t}), as {@link ZephyrEventWriter}
 * writes them. {@link Layout} says which
 * metadata: on SMP builds every event ends with the {@code core_id} of the CPU that wrote it;
 * the circular RAM capture's events have a 64-bit timestamp and a 16-bit id.
 *
 * <p>{@link #scenario} simulates a small scheduler (threads, interrupts, semaphores, a mutex)
 * and keeps its truth: every event written, and the threads' and interrupts' intervals;
 * {@link #smpScenario} the same on two CPUs, threads migrating between them.
 * {@link #writePosix} writes the folder Zephyr's native POSIX backend leaves
 * ({@code metadata} and {@code channel0_0}); {@link #writeCapture} the same bytes as a UART or
 * USB capture started late, from the middle of an event; {@link #ring} the RAM buffer of the
 * circular capture ({@code ctf_circular_ram.c}) after the events, dumped.
 */
public final class ZephyrTraces {
    /** The stream file's name, as Zephyr's POSIX backend and its capture scripts name it. */
    public static final String STREAM_FILE = "channel0_0";

    public static final int THREAD_SWITCHED_OUT = 0x10;
    public static final int THREAD_SWITCHED_IN = 0x11;
    public static final int THREAD_PRIORITY_SET = 0x12;
    public static final int THREAD_CREATE = 0x13;
    public static final int THREAD_READY = 0x17;
    public static final int THREAD_PENDING = 0x18;
    public static final int THREAD_INFO = 0x19;
    public static final int THREAD_NAME_SET = 0x1A;
    public static final int ISR_ENTER = 0x1B;
    public static final int ISR_EXIT = 0x1C;
    public static final int ISR_EXIT_TO_SCHEDULER = 0x1D;
    public static final int IDLE = 0x1E;
    public static final int SEMAPHORE_GIVE_ENTER = 0x22;
    public static final int SEMAPHORE_GIVE_EXIT = 0x23;
    public static final int SEMAPHORE_TAKE_ENTER = 0x24;
    public static final int SEMAPHORE_TAKE_BLOCKING = 0x25;
    public static final int SEMAPHORE_TAKE_EXIT = 0x26;
    public static final int MUTEX_LOCK_ENTER = 0x29;
    public static final int MUTEX_LOCK_BLOCKING = 0x2A;
    public static final int MUTEX_LOCK_EXIT = 0x2B;
    public static final int MUTEX_UNLOCK_ENTER = 0x2C;
    public static final int MUTEX_UNLOCK_EXIT = 0x2D;

    /** Which of Zephyr's metadata files the events follow. */
    public enum Layout {
        /** {@code tsdl/metadata}: 32-bit timestamp, 8-bit id. */
        UNIPROCESSOR("metadata", ZephyrEventWriter.Layout.UNIPROCESSOR),
        /** {@code tsdl/metadata_smp}: as {@link #UNIPROCESSOR}, every event ending with a 32-bit {@code core_id}. */
        SMP("metadata_smp", ZephyrEventWriter.Layout.SMP),
        /** {@code tsdl/metadata_circular}: 64-bit timestamp, 16-bit id, in fixed-size packets. */
        CIRCULAR("metadata_circular", ZephyrEventWriter.Layout.CIRCULAR);

        final String resource;
        /** How its events are laid out in the stream. */
        final ZephyrEventWriter.Layout events;

        Layout(String resource, ZephyrEventWriter.Layout events) {
            this.resource = resource;
            this.events = events;
        }

        /** The metadata file's text. */
        public String metadata() {
            try (InputStream in = ZephyrTraces.class.getResourceAsStream("zephyr/" + resource)) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * One event written: its time in nanoseconds (64 bits, before truncation), its name, where
     * it begins in the stream, its length in bytes and the CPU that wrote it.
     */
    public record Written(long time, String name, int offset, int length, int core) {}

    /** A thread's run (from switched in to the next thread's switch in on its CPU) or an interrupt's (enter to exit). */
    public record Interval(boolean isr, String name, long start, long end, int core) {
        public Interval(boolean isr, String name, long start, long end) {
            this(isr, name, start, end, 0);
        }
    }

    private final Layout layout;
    private final ZephyrEventWriter out;
    private final List<Written> written = new ArrayList<>();
    private final List<Interval> intervals = new ArrayList<>();
    /** The CPU writing the next events (SMP). */
    private int core;

    /** A writer of events as {@code tsdl/metadata} lays them out. */
    public ZephyrTraces() {
        this(Layout.UNIPROCESSOR);
    }

    public ZephyrTraces(Layout layout) {
        this.layout = layout;
        this.out = new ZephyrEventWriter(layout.events);
    }

    public Layout layout() {
        return layout;
    }

    /** The CPU that writes the events that follow (their {@code core_id} on SMP). */
    public ZephyrTraces onCore(int core) {
        this.core = core;
        out.onCore(core);
        return this;
    }

    /** The metadata Zephyr writes beside its streams (the uniprocessor one). */
    public static String metadata() {
        return Layout.UNIPROCESSOR.metadata();
    }

    /** The events written, in order. */
    public List<Written> written() {
        return List.copyOf(written);
    }

    /** The threads' and interrupts' intervals of a {@link #scenario}, in order of their ends. */
    public List<Interval> intervals() {
        return List.copyOf(intervals);
    }

    /** The stream's bytes. */
    public byte[] bytes() {
        return out.bytes();
    }

    // ------------------------------------------------------------------ events, as ctf_top.h lays them out

    private static final String[] NAMES = new String[0x100];

    static {
        NAMES[THREAD_SWITCHED_OUT] = "thread_switched_out";
        NAMES[THREAD_SWITCHED_IN] = "thread_switched_in";
        NAMES[THREAD_PRIORITY_SET] = "thread_priority_set";
        NAMES[THREAD_CREATE] = "thread_create";
        NAMES[THREAD_READY] = "thread_ready";
        NAMES[THREAD_PENDING] = "thread_pending";
        NAMES[THREAD_INFO] = "thread_info";
        NAMES[THREAD_NAME_SET] = "thread_name_set";
        NAMES[ISR_ENTER] = "isr_enter";
        NAMES[ISR_EXIT] = "isr_exit";
        NAMES[ISR_EXIT_TO_SCHEDULER] = "isr_exit_to_scheduler";
        NAMES[IDLE] = "idle";
        NAMES[SEMAPHORE_GIVE_ENTER] = "semaphore_give_enter";
        NAMES[SEMAPHORE_GIVE_EXIT] = "semaphore_give_exit";
        NAMES[SEMAPHORE_TAKE_ENTER] = "semaphore_take_enter";
        NAMES[SEMAPHORE_TAKE_BLOCKING] = "semaphore_take_blocking";
        NAMES[SEMAPHORE_TAKE_EXIT] = "semaphore_take_exit";
        NAMES[MUTEX_LOCK_ENTER] = "mutex_lock_enter";
        NAMES[MUTEX_LOCK_BLOCKING] = "mutex_lock_blocking";
        NAMES[MUTEX_LOCK_EXIT] = "mutex_lock_exit";
        NAMES[MUTEX_UNLOCK_ENTER] = "mutex_unlock_enter";
        NAMES[MUTEX_UNLOCK_EXIT] = "mutex_unlock_exit";
    }

    /** An event with no fields (isr_enter, isr_exit, isr_exit_to_scheduler, idle). */
    public void event(long time, int id) {
        begin(time, id, 0).end();
    }

    /** An event of a thread: thread_id and name (switched in/out, create, ready, pending, name_set). */
    public void thread(long time, int id, int threadId, String name) {
        begin(time, id, 24).u32(threadId).name(name).end();
    }

    public void prioritySet(long time, int threadId, String name, int prio) {
        begin(time, THREAD_PRIORITY_SET, 25).u32(threadId).name(name).i8(prio).end();
    }

    public void threadInfo(long time, int threadId, String name, int stackBase, int stackSize) {
        begin(time, THREAD_INFO, 32)
                .u32(threadId)
                .name(name)
                .u32(stackBase)
                .u32(stackSize)
                .end();
    }

    /**
     * An event of one object id (semaphore_give_enter/exit, mutex_unlock_enter/exit;
     * {@code metadata_circular}'s mutex_unlock_exit also has a return value, 0).
     */
    public void object(long time, int id, int objectId) {
        if (layout == Layout.CIRCULAR && id == MUTEX_UNLOCK_EXIT) {
            begin(time, id, 8).u32(objectId).u32(0).end();
            return;
        }
        begin(time, id, 4).u32(objectId).end();
    }

    /** An event of an object id and a timeout (semaphore_take_enter/blocking, mutex_lock_enter/blocking). */
    public void objectTimeout(long time, int id, int objectId, int timeout) {
        begin(time, id, 8).u32(objectId).u32(timeout).end();
    }

    /** An event of an object id, a timeout and a result (semaphore_take_exit, mutex_lock_exit). */
    public void objectResult(long time, int id, int objectId, int timeout, int ret) {
        begin(time, id, 12).u32(objectId).u32(timeout).u32(ret).end();
    }

    private ZephyrEventWriter begin(long time, int id, int fieldBytes) {
        written.add(new Written(time, NAMES[id], out.size(), layout.events.eventBytes(fieldBytes), core));
        return out.begin(time, id, fieldBytes);
    }

    // ------------------------------------------------------------------ folders

    /** Writes {@code dir/metadata} and {@code dir/channel0_0} (the native POSIX backend's folder). */
    public Path writePosix(Path dir) throws IOException {
        return write(dir, 0);
    }

    /** Writes the stream as a capture that began {@code skip} bytes into it (a UART or USB capture started late). */
    public Path writeCapture(Path dir, int skip) throws IOException {
        return write(dir, skip);
    }

    private Path write(Path dir, int skip) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("metadata"), layout.metadata());
        byte[] all = bytes();
        Files.write(dir.resolve(STREAM_FILE), java.util.Arrays.copyOfRange(all, skip, all.length));
        return dir;
    }

    // ------------------------------------------------------------------ the circular RAM capture

    /** Zephyr's packet header and context in a slot: magic, timestamp_begin/end, content_size, packet_size, packet_seq_num. */
    public static final int RING_HEADER_BYTES = 36;

    /** The stream file of a RAM dump, named as the symbol dumped. */
    public static final String RING_FILE = "ram_tracing_circular.bin";

    /**
     * A dump of the circular capture's buffer: its bytes, the slot size, each slot's packet
     * sequence number (0: never written) and the events of each slot (indexes into
     * {@link #written()}, {@code [from, to)}), and the slot torn by the dump (−1: none).
     */
    public record RingDump(byte[] bytes, int slotSize, long[] seq, int[] from, int[] to, int torn) {
        /** The events of the packets that survive whole (written, not overwritten, not torn), in time order. */
        public List<Integer> surviving() {
            List<Integer> slots = new ArrayList<>();
            for (int s = 0; s < seq.length; s++) {
                if (seq[s] > 0 && s != torn && to[s] > from[s]) {
                    slots.add(s);
                }
            }
            slots.sort((a, b) -> Long.compare(seq[a], seq[b]));
            List<Integer> events = new ArrayList<>();
            for (int s : slots) {
                for (int e = from[s]; e < to[s]; e++) {
                    events.add(e);
                }
            }
            return events;
        }

        /** The slots that survive, in sequence order. */
        public List<Integer> survivingSlots() {
            List<Integer> slots = new ArrayList<>();
            for (int s = 0; s < seq.length; s++) {
                if (seq[s] > 0 && s != torn && to[s] > from[s]) {
                    slots.add(s);
                }
            }
            slots.sort((a, b) -> Long.compare(seq[a], seq[b]));
            return slots;
        }

        /** Writes {@code dir/metadata} ({@code metadata_circular}) and the dump, {@link #RING_FILE}. */
        public Path write(Path dir) throws IOException {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("metadata"), Layout.CIRCULAR.metadata());
            Files.write(dir.resolve(RING_FILE), bytes);
            return dir;
        }

        /**
         * Writes the trace Zephyr's {@code sort_ctf_circular.py} makes of the dump for babeltrace2:
         * the packets that survive, in sequence order, in {@code channel0}.
         */
        public Path writeSorted(Path dir) throws IOException {
            Files.createDirectories(dir);
            // babeltrace2 takes a plain text metadata file only when it begins with its
            // "/* CTF 1.8" signature: the licence comment metadata_circular begins with is left out
            String metadata = Layout.CIRCULAR.metadata();
            Files.writeString(dir.resolve("metadata"), metadata.substring(metadata.indexOf("/* CTF 1.8")));
            ByteArrayOutputStream sorted = new ByteArrayOutputStream();
            for (int s : survivingSlots()) {
                sorted.write(bytes, s * slotSize, slotSize);
            }
            Files.write(dir.resolve("channel0"), sorted.toByteArray());
            return dir;
        }
    }

    /**
     * The RAM buffer of Zephyr's circular CTF capture ({@code ctf_circular_ram.c}) after this
     * writer's events (layout {@link Layout#CIRCULAR}), dumped: {@code slots} slots of
     * {@code bufferBytes / slots} bytes, each formatted at start as an empty packet of sequence
     * number 0, slot 0 opened with number 1; an event that does not fit in the current packet
     * closes it and opens the next slot (overwriting the oldest packet) with the next number.
     * With {@code tornBytes} > 0, the dump was read while the next rollover had written only
     * that many bytes of the next packet's header over the oldest slot.
     */
    public RingDump ring(int bufferBytes, int slots, int tornBytes) {
        if (layout != Layout.CIRCULAR) {
            throw new IllegalStateException("the circular capture writes metadata_circular's layout");
        }
        int slotSize = bufferBytes / slots;
        ByteBuffer ram = ByteBuffer.allocate(slotSize * slots).order(ByteOrder.LITTLE_ENDIAN);
        long[] seqOf = new long[slots];
        int[] from = new int[slots];
        int[] to = new int[slots];
        for (int s = 0; s < slots; s++) {
            packetOpen(ram, s, slotSize, 0, 0);
            packetUpdate(ram, s, slotSize, RING_HEADER_BYTES, 0);
        }
        int cur = 0;
        long seq = 1;
        int off = RING_HEADER_BYTES;
        long last = 0;
        packetOpen(ram, 0, slotSize, 0, seq);
        seqOf[0] = seq;
        byte[] all = bytes();
        for (int e = 0; e < written.size(); e++) {
            Written w = written.get(e);
            if (w.length() > slotSize - RING_HEADER_BYTES) {
                throw new IllegalArgumentException("event " + e + " does not fit in a " + slotSize + "-byte slot");
            }
            if (off + w.length() > slotSize) {
                packetUpdate(ram, cur, slotSize, off, last);
                cur = (cur + 1) % slots;
                seq++;
                packetOpen(ram, cur, slotSize, w.time(), seq);
                seqOf[cur] = seq;
                from[cur] = e;
                to[cur] = e;
                off = RING_HEADER_BYTES;
            }
            ram.put(cur * slotSize + off, all, w.offset(), w.length());
            off += w.length();
            last = w.time();
            to[cur] = e + 1;
            packetUpdate(ram, cur, slotSize, off, last);
        }
        int torn = -1;
        if (tornBytes > 0) {
            torn = (cur + 1) % slots;
            ByteBuffer next = ByteBuffer.allocate(slotSize).order(ByteOrder.LITTLE_ENDIAN);
            packetOpen(next, 0, slotSize, last + 1_000, seq + 1);
            ram.put(torn * slotSize, next.array(), 0, Math.min(tornBytes, RING_HEADER_BYTES));
        }
        return new RingDump(ram.array(), slotSize, seqOf, from, to, torn);
    }

    private static void packetOpen(ByteBuffer ram, int slot, int slotSize, long tstamp, long seq) {
        int at = slot * slotSize;
        ram.putInt(at, 0xC1FC1FC1);
        ram.putLong(at + 4, tstamp); // timestamp_begin
        ram.putLong(at + 12, tstamp); // timestamp_end
        ram.putInt(at + 20, RING_HEADER_BYTES * 8); // content_size, bits
        ram.putInt(at + 24, slotSize * 8); // packet_size, bits
        ram.putLong(at + 28, seq);
    }

    private static void packetUpdate(ByteBuffer ram, int slot, int slotSize, int contentBytes, long tstamp) {
        int at = slot * slotSize;
        ram.putInt(at + 20, contentBytes * 8);
        ram.putLong(at + 12, tstamp);
    }

    // ------------------------------------------------------------------ a scheduler with its truth

    private static final int SEM = 0x20004000;
    private static final int MUTEX = 0x20004100;
    private static final int[] IDS = {0x20001000, 0x20001200, 0x20001400, 0x20001600};
    private static final String[] THREADS = {"main", "sensor", "logger", "idle"};
    private static final int IDLE_THREAD = 3;

    /**
     * A run of {@code switches} thread switches from {@code start} ns (below 2^32: the reader's
     * times then equal the truth's; a start near 2^32 makes the 32-bit timestamps wrap early).
     * Threads run a few hundred microseconds to a few milliseconds, interrupts of a few
     * microseconds preempt them (some ending to the scheduler, which switches), threads block
     * on a semaphore or a mutex, and the idle thread runs until an interrupt readies another. A thread's
     * interval is from its switch in to the next thread's switch in (the switch itself, between
     * switched_out and switched_in, is the outgoing thread's), an interrupt's from enter to exit.
     */
    public static ZephyrTraces scenario(long seed, long start, int switches) {
        return scenario(Layout.UNIPROCESSOR, seed, start, switches);
    }

    /** {@link #scenario(long, long, int)} with the events laid out as {@code layout}'s metadata says. */
    public static ZephyrTraces scenario(Layout layout, long seed, long start, int switches) {
        ZephyrTraces z = new ZephyrTraces(layout);
        SplittableRandom r = new SplittableRandom(seed);
        long t = start;
        for (int k = 0; k < THREADS.length; k++) {
            z.thread(t, THREAD_CREATE, IDS[k], THREADS[k]);
            t += 700;
            z.threadInfo(t, IDS[k], THREADS[k], 0x20010000 + k * 0x800, 0x800);
            t += 500;
            z.prioritySet(t, IDS[k], THREADS[k], k == IDLE_THREAD ? 15 : k - 2);
            t += 900;
        }
        int current = 0;
        long runStart = t;
        z.thread(t, THREAD_SWITCHED_IN, IDS[current], THREADS[current]);
        for (int s = 0; s < switches; s++) {
            t += r.nextLong(2_000, 400_000);
            if (current == IDLE_THREAD) {
                z.event(t, IDLE);
                t += r.nextLong(50_000, 3_000_000);
            }
            int next;
            // the idle thread neither blocks nor gives: an interrupt readies a thread
            switch (current == IDLE_THREAD ? 0 : r.nextInt(4)) {
                case 0 -> {
                    // an interrupt; it may end to the scheduler, which switches
                    long enter = t;
                    z.event(t, ISR_ENTER);
                    t += r.nextLong(1_000, 20_000);
                    boolean toScheduler = current == IDLE_THREAD || r.nextBoolean();
                    z.event(t, toScheduler ? ISR_EXIT_TO_SCHEDULER : ISR_EXIT);
                    z.intervals.add(new Interval(true, "isr", enter, t));
                    if (!toScheduler) {
                        s--;
                        continue;
                    }
                    next = other(r, current);
                    t += 300;
                    if (current == IDLE_THREAD) {
                        next = r.nextInt(IDLE_THREAD);
                    }
                }
                case 1 -> {
                    // takes the semaphore, and blocks on it
                    z.objectTimeout(t, SEMAPHORE_TAKE_ENTER, SEM, -1);
                    t += 400;
                    z.objectTimeout(t, SEMAPHORE_TAKE_BLOCKING, SEM, -1);
                    t += 300;
                    z.thread(t, THREAD_PENDING, IDS[current], THREADS[current]);
                    t += 300;
                    next = other(r, current);
                }
                case 2 -> {
                    // locks the mutex held by another thread
                    z.objectTimeout(t, MUTEX_LOCK_ENTER, MUTEX, 1000);
                    t += 500;
                    z.objectTimeout(t, MUTEX_LOCK_BLOCKING, MUTEX, 1000);
                    t += 300;
                    next = other(r, current);
                }
                default -> {
                    // gives the semaphore, readies a thread, and yields to it
                    next = other(r, current);
                    z.object(t, SEMAPHORE_GIVE_ENTER, SEM);
                    t += 600;
                    z.thread(t, THREAD_READY, IDS[next], THREADS[next]);
                    t += 400;
                    z.object(t, SEMAPHORE_GIVE_EXIT, SEM);
                    t += 300;
                }
            }
            z.thread(t, THREAD_SWITCHED_OUT, IDS[current], THREADS[current]);
            t += r.nextLong(200, 1_500);
            z.intervals.add(new Interval(false, THREADS[current], runStart, t));
            z.thread(t, THREAD_SWITCHED_IN, IDS[next], THREADS[next]);
            runStart = t;
            current = next;
            t += 200;
            if (r.nextInt(3) == 0 && next != IDLE_THREAD) {
                // back from a semaphore take or a mutex lock
                boolean sem = r.nextBoolean();
                z.objectResult(t, sem ? SEMAPHORE_TAKE_EXIT : MUTEX_LOCK_EXIT, sem ? SEM : MUTEX, -1, 0);
                t += 500;
                z.object(t, MUTEX_UNLOCK_ENTER, MUTEX);
                t += 300;
                z.object(t, MUTEX_UNLOCK_EXIT, MUTEX);
            }
        }
        return z;
    }

    // ------------------------------------------------------------------ two CPUs (SMP), with their truth

    private static final String[] SMP_THREADS = {"main", "sensor", "logger", "worker", "idle 00", "idle 01"};
    private static final int[] SMP_IDS = {0x20001000, 0x20001200, 0x20001400, 0x20001600, 0x20001800, 0x20001A00};
    /** The first idle thread: CPU c idles in thread {@code SMP_IDLE + c} (Zephyr's "idle 00", "idle 01"). */
    private static final int SMP_IDLE = 4;

    private static final int READY = 0;
    private static final int BLOCKED = 1;
    private static final int RUNNING = 2;

    /**
     * A run of {@code switches} thread switches on two CPUs, as {@code metadata_smp} lays the
     * events out (each ending with the {@code core_id} of the CPU that wrote it), in one stream
     * in time order as Zephyr's tracing serializes them. Four threads migrate: a thread that
     * blocks, yields or is preempted is ready again, and the next CPU to switch takes any ready
     * thread; each CPU idles in its own idle thread ("idle 00", "idle 01") when none is ready,
     * until a thread is readied (by a give on the other CPU, or an interrupt on its own). A
     * thread's interval is from its switch in on a CPU to that CPU's next switch in; an
     * interrupt's from enter to exit on its CPU. A thread leaves a CPU (its switch out and the
     * next switch in there) before another CPU switches it in.
     */
    public static ZephyrTraces smpScenario(long seed, long start, int switches) {
        ZephyrTraces z = new ZephyrTraces(Layout.SMP);
        SplittableRandom r = new SplittableRandom(seed);
        long t = start;
        z.onCore(0);
        for (int k = 0; k < SMP_THREADS.length; k++) {
            z.thread(t, THREAD_CREATE, SMP_IDS[k], SMP_THREADS[k]);
            t += 700;
            z.prioritySet(t, SMP_IDS[k], SMP_THREADS[k], k >= SMP_IDLE ? 15 : k - 2);
            t += 900;
        }
        int[] state = new int[SMP_THREADS.length];
        int[] current = new int[2];
        long[] since = new long[2];
        long[] due = new long[2];
        for (int c = 0; c < 2; c++) {
            current[c] = c; // main on CPU 0, sensor on CPU 1; logger and worker ready
            state[c] = RUNNING;
            state[SMP_IDLE + c] = RUNNING;
            z.onCore(c).thread(t, THREAD_SWITCHED_IN, SMP_IDS[c], SMP_THREADS[c]);
            since[c] = t;
            t += 400;
            due[c] = t + r.nextLong(2_000, 200_000);
        }
        int done = 0;
        while (done < switches) {
            int c = due[0] <= due[1] ? 0 : 1;
            t = Math.max(t, due[c]);
            z.onCore(c);
            int running = current[c];
            boolean idle = running >= SMP_IDLE;
            int next = -1;
            if (idle) {
                z.event(t, IDLE);
                t += r.nextLong(1_000, 30_000);
                next = readyThread(r, state);
                if (next < 0) {
                    // an interrupt readies a blocked thread and ends to the scheduler
                    long enter = t;
                    z.event(t, ISR_ENTER);
                    t += r.nextLong(1_000, 15_000);
                    next = blockedThread(r, state);
                    z.thread(t, THREAD_READY, SMP_IDS[next], SMP_THREADS[next]);
                    state[next] = READY;
                    t += 500;
                    z.event(t, ISR_EXIT_TO_SCHEDULER);
                    z.intervals.add(new Interval(true, "isr", enter, t, c));
                    t += 300;
                }
            } else {
                switch (r.nextInt(5)) {
                    case 0 -> {
                        // an interrupt; to the scheduler when a thread is ready to take the CPU
                        long enter = t;
                        z.event(t, ISR_ENTER);
                        t += r.nextLong(1_000, 20_000);
                        boolean toScheduler = r.nextBoolean() && readyThread(r, state) >= 0;
                        z.event(t, toScheduler ? ISR_EXIT_TO_SCHEDULER : ISR_EXIT);
                        z.intervals.add(new Interval(true, "isr", enter, t, c));
                        t += 300;
                        if (toScheduler) {
                            next = readyThread(r, state);
                            state[running] = READY;
                        }
                    }
                    case 1 -> {
                        // blocks on the semaphore
                        z.objectTimeout(t, SEMAPHORE_TAKE_ENTER, SEM, -1);
                        t += 400;
                        z.objectTimeout(t, SEMAPHORE_TAKE_BLOCKING, SEM, -1);
                        t += 300;
                        z.thread(t, THREAD_PENDING, SMP_IDS[running], SMP_THREADS[running]);
                        t += 300;
                        state[running] = BLOCKED;
                        next = readyThread(r, state);
                        next = next >= 0 ? next : SMP_IDLE + c;
                    }
                    case 2 -> {
                        // gives the semaphore: a blocked thread is ready (for whichever CPU switches next)
                        int woken = blockedThread(r, state);
                        z.object(t, SEMAPHORE_GIVE_ENTER, SEM);
                        t += 600;
                        if (woken >= 0) {
                            z.thread(t, THREAD_READY, SMP_IDS[woken], SMP_THREADS[woken]);
                            state[woken] = READY;
                            t += 400;
                        }
                        z.object(t, SEMAPHORE_GIVE_EXIT, SEM);
                        t += 300;
                        int other = 1 - c;
                        if (woken >= 0 && current[other] >= SMP_IDLE) {
                            due[other] = Math.min(due[other], t + r.nextLong(2_000, 10_000)); // the IPI
                        }
                    }
                    default -> {
                        // yields to a ready thread, if any
                        next = readyThread(r, state);
                        if (next >= 0) {
                            state[running] = READY;
                        }
                    }
                }
            }
            if (next >= 0) {
                z.thread(t, THREAD_SWITCHED_OUT, SMP_IDS[running], SMP_THREADS[running]);
                t += r.nextLong(200, 1_500);
                z.intervals.add(new Interval(false, SMP_THREADS[running], since[c], t, c));
                z.thread(t, THREAD_SWITCHED_IN, SMP_IDS[next], SMP_THREADS[next]);
                state[next] = RUNNING;
                current[c] = next;
                since[c] = t;
                done++;
                t += 200;
            }
            due[c] = t + r.nextLong(2_000, idle && next < 0 ? 3_000_000 : 400_000);
        }
        return z;
    }

    /** A ready thread at random (not an idle one), or −1. */
    private static int readyThread(SplittableRandom r, int[] state) {
        return pick(r, state, READY);
    }

    private static int blockedThread(SplittableRandom r, int[] state) {
        return pick(r, state, BLOCKED);
    }

    private static int pick(SplittableRandom r, int[] state, int wanted) {
        int n = 0;
        for (int k = 0; k < SMP_IDLE; k++) {
            n += state[k] == wanted ? 1 : 0;
        }
        if (n == 0) {
            return -1;
        }
        int chosen = r.nextInt(n);
        for (int k = 0; k < SMP_IDLE; k++) {
            if (state[k] == wanted && chosen-- == 0) {
                return k;
            }
        }
        throw new AssertionError();
    }

    private static int other(SplittableRandom r, int current) {
        int n = r.nextInt(THREADS.length - 1);
        return n >= current ? n + 1 : n;
    }
}
