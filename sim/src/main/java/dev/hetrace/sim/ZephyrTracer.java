package dev.hetrace.sim;

import dev.hetrace.ctf.write.ZephyrEventWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Zephyr's own CTF tracing ({@code subsys/tracing/ctf}) on a simulated Cortex-M core: one
 * packetless stream, each event laid out as {@code ctf_top.h} gathers it — the 32-bit timestamp
 * {@code (uint32_t) k_cyc_to_ns_floor64(k_cycle_get_32())}, the 8-bit event id, then the fields,
 * little-endian and packed, names as 20 bytes padded with NULs ({@link ZephyrEventWriter}) — beside
 * the metadata Zephyr ships (a copy in this package's resources, {@code zephyr/metadata}, with
 * {@code named_event}).
 */
final class ZephyrTracer {
    static final int THREAD_SWITCHED_OUT = 0x10;
    static final int THREAD_SWITCHED_IN = 0x11;
    static final int THREAD_PRIORITY_SET = 0x12;
    static final int THREAD_CREATE = 0x13;
    static final int THREAD_READY = 0x17;
    static final int THREAD_PENDING = 0x18;
    static final int ISR_ENTER = 0x1B;
    static final int ISR_EXIT = 0x1C;
    static final int ISR_EXIT_TO_SCHEDULER = 0x1D;
    static final int IDLE = 0x1E;
    static final int SEMAPHORE_GIVE_ENTER = 0x22;
    static final int SEMAPHORE_GIVE_EXIT = 0x23;
    static final int SEMAPHORE_TAKE_ENTER = 0x24;
    static final int SEMAPHORE_TAKE_EXIT = 0x26;
    static final int SEMAPHORE_TAKE_BLOCKING = 0x25;
    static final int NAMED_EVENT = 0x62;

    /** The stream file's name, as Zephyr's native POSIX backend and its capture scripts name it. */
    static final String STREAM_FILE = "channel0_0";

    /** Zephyr's {@code K_FOREVER} as a 32-bit timeout. */
    static final int FOREVER = -1;

    private final ClockModel clock;
    private final ZephyrEventWriter stream = new ZephyrEventWriter(ZephyrEventWriter.Layout.UNIPROCESSOR);
    private long last = Long.MIN_VALUE;

    ZephyrTracer(ClockModel clock) {
        this.clock = clock;
    }

    /** The metadata Zephyr writes beside its streams. */
    static String metadata() {
        try (InputStream in = ZephyrTracer.class.getResourceAsStream("zephyr/metadata")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The nanoseconds since boot that Zephyr computes at true time {@code t} from its 32-bit cycle
     * counter ({@code k_cyc_to_ns_floor64}), before the event header truncates them to 32 bits:
     * what a reader reports once it has extended the timestamps past each wrap.
     */
    static long nanos(ClockModel clock, long t) {
        long cycles = (long) Math.floor(clock.cycles(t));
        if (cycles < 0 || cycles > 0xffff_ffffL) {
            throw new IllegalStateException("a 32-bit cycle counter read " + cycles + " cycles");
        }
        return clock.floorNanos(t);
    }

    long nanos(long t) {
        return nanos(clock, t);
    }

    long events() {
        return stream.events();
    }

    /** An event with no fields (isr_enter, isr_exit, isr_exit_to_scheduler, idle). */
    void event(long t, int id) {
        begin(t, id, 0).end();
    }

    /** An event of a thread: its id and name (switched in/out, create, ready, pending). */
    void thread(long t, int id, int threadId, String name) {
        begin(t, id, 24).u32(threadId).name(name).end();
    }

    void prioritySet(long t, int threadId, String name, int prio) {
        begin(t, THREAD_PRIORITY_SET, 25).u32(threadId).name(name).i8(prio).end();
    }

    /** semaphore_give_enter/exit: the semaphore's address. */
    void semaphore(long t, int id, int sem) {
        begin(t, id, 4).u32(sem).end();
    }

    /** semaphore_take_enter/blocking: the semaphore and the timeout. */
    void semaphoreTake(long t, int id, int sem, int timeout) {
        begin(t, id, 8).u32(sem).u32(timeout).end();
    }

    /** semaphore_take_exit: the semaphore, the timeout and the result. */
    void semaphoreTaken(long t, int sem, int timeout, int ret) {
        begin(t, SEMAPHORE_TAKE_EXIT, 12).u32(sem).u32(timeout).u32(ret).end();
    }

    /** {@code sys_trace_named_event(name, arg0, arg1)}. */
    void named(long t, String name, int arg0, int arg1) {
        begin(t, NAMED_EVENT, 28).name(name).u32(arg0).u32(arg1).end();
    }

    /** Starts an event at true time {@code t}, after the last one, with its 32-bit timestamp as Zephyr reads it. */
    private ZephyrEventWriter begin(long t, int id, int fieldBytes) {
        if (t < last) {
            throw new IllegalStateException("event at " + t + " ns after one at " + last + " ns");
        }
        last = t;
        return stream.begin(nanos(t), id, fieldBytes);
    }

    /** Writes {@code dir/metadata} and {@code dir/channel0_0}, the folder Zephyr's native POSIX backend leaves. */
    void write(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("metadata"), metadata());
        Files.write(dir.resolve(STREAM_FILE), stream.bytes());
    }
}
