package dev.hetrace.ctf.testing;

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
 * ships ({@code tsdl/metadata}, a copy in this package's resources) and one packetless stream,
 * each event laid out as {@code ctf_top.h} gathers it: the 32-bit timestamp (nanoseconds since
 * boot, truncated to 32 bits: {@code (uint32_t) k_cyc_to_ns_floor64(k_cycle_get_32())}), the
 * 8-bit event id, then the fields in order, little-endian, packed, thread names as 20 bytes
 * padded with NULs ({@code strncpy} into a zeroed {@code ctf_bounded_string_t}).
 *
 * <p>{@link #scenario} simulates a small scheduler (threads, interrupts, semaphores, a mutex)
 * and keeps its truth: every event written, and the threads' and interrupts' intervals.
 * {@link #writePosix} writes the folder Zephyr's native POSIX backend leaves
 * ({@code metadata} and {@code channel0_0}); {@link #writeCapture} the same bytes as a UART or
 * USB capture started late, from the middle of an event.
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

    /** One event written: its time in nanoseconds (64 bits, before truncation), its name, where it begins in the stream. */
    public record Written(long time, String name, int offset) {}

    /** A thread's run (from switched in to the next thread's switch in) or an interrupt's (enter to exit). */
    public record Interval(boolean isr, String name, long start, long end) {}

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final List<Written> written = new ArrayList<>();
    private final List<Interval> intervals = new ArrayList<>();

    /** The metadata Zephyr writes beside its streams. */
    public static String metadata() {
        try (InputStream in = ZephyrTraces.class.getResourceAsStream("zephyr/metadata")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
        return out.toByteArray();
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

    /** An event of one object id (semaphore_give_enter/exit, mutex_unlock_enter/exit). */
    public void object(long time, int id, int objectId) {
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

    private ByteBuffer buf;

    private ZephyrTraces begin(long time, int id, int fieldBytes) {
        written.add(new Written(time, NAMES[id], out.size()));
        buf = ByteBuffer.allocate(5 + fieldBytes).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt((int) time); // ctf_top.h: const uint32_t tstamp = k_cyc_to_ns_floor64(...)
        buf.put((byte) id);
        return this;
    }

    private ZephyrTraces u32(int v) {
        buf.putInt(v);
        return this;
    }

    private ZephyrTraces i8(int v) {
        buf.put((byte) v);
        return this;
    }

    private ZephyrTraces name(String name) {
        byte[] b = name.getBytes(StandardCharsets.US_ASCII);
        byte[] field = new byte[20];
        System.arraycopy(b, 0, field, 0, Math.min(b.length, 19));
        buf.put(field);
        return this;
    }

    private void end() {
        if (buf.hasRemaining()) {
            throw new IllegalStateException("event shorter than declared");
        }
        out.writeBytes(buf.array());
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
        Files.writeString(dir.resolve("metadata"), metadata());
        byte[] all = bytes();
        Files.write(dir.resolve(STREAM_FILE), java.util.Arrays.copyOfRange(all, skip, all.length));
        return dir;
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
        ZephyrTraces z = new ZephyrTraces();
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

    private static int other(SplittableRandom r, int current) {
        int n = r.nextInt(THREADS.length - 1);
        return n >= current ? n + 1 : n;
    }
}
