package dev.hetrace.ctf.write;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes events as Zephyr's CTF tracing ({@code subsys/tracing/ctf}) lays them out in its
 * packetless stream: each event as {@code ctf_top.h} gathers it, the event header (timestamp,
 * then id) and the fields in order, little-endian and packed, thread names as 20 bytes padded
 * with NULs ({@code strncpy} into a zeroed {@code ctf_bounded_string_t}). The simulator's Zephyr
 * cores and the tests' Zephyr traces both write through it, so the layout is spelled out once.
 *
 * <p>An event is written as {@link #begin}, its fields, {@link #end}: {@code begin} takes the
 * size of the fields, so that a field too many or too few is an error rather than a stream
 * that a reader would misread from that event on.
 */
public final class ZephyrEventWriter {
    /** Which of Zephyr's metadata files the events follow: the sizes of the header's two fields and what ends an event. */
    public enum Layout {
        /** {@code tsdl/metadata}: 32-bit timestamp, 8-bit id. */
        UNIPROCESSOR(4, 1, false),
        /** {@code tsdl/metadata_smp}: as {@link #UNIPROCESSOR}, every event ending with a 32-bit {@code core_id}. */
        SMP(4, 1, true),
        /** {@code tsdl/metadata_circular}: 64-bit timestamp ({@code CONFIG_TRACING_CTF_TIMESTAMP_64}), 16-bit id. */
        CIRCULAR(8, 2, false);

        private final int timestampBytes;
        private final int idBytes;
        private final boolean coreId;

        Layout(int timestampBytes, int idBytes, boolean coreId) {
            this.timestampBytes = timestampBytes;
            this.idBytes = idBytes;
            this.coreId = coreId;
        }

        /** The bytes of an event whose fields take {@code fieldBytes}: header, fields and, on SMP, the core id. */
        public int eventBytes(int fieldBytes) {
            return timestampBytes + idBytes + fieldBytes + (coreId ? 4 : 0);
        }
    }

    /** The bytes of a name field, {@code ctf_bounded_string_t name[20]}; the last is always NUL. */
    public static final int NAME_BYTES = 20;

    private final Layout layout;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    /** The event being written, reused: its limit is the event's declared length. */
    private ByteBuffer event = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);

    private int core;
    private long events;

    /** A writer of an empty stream whose events follow {@code layout}. */
    public ZephyrEventWriter(Layout layout) {
        this.layout = layout;
    }

    /** The CPU that writes the events that follow: their {@code core_id} on {@link Layout#SMP}, unused otherwise. */
    public ZephyrEventWriter onCore(int core) {
        this.core = core;
        return this;
    }

    /**
     * Starts an event of id {@code id} at {@code timestamp} ns, whose fields take
     * {@code fieldBytes}. With a 32-bit timestamp only the low 32 bits are written, as Zephyr
     * does with {@code (uint32_t) k_cyc_to_ns_floor64(k_cycle_get_32())}.
     */
    public ZephyrEventWriter begin(long timestamp, int id, int fieldBytes) {
        int length = layout.eventBytes(fieldBytes);
        if (length > event.capacity()) {
            event = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        }
        event.clear().limit(length);
        if (layout.timestampBytes == 4) {
            event.putInt((int) timestamp);
        } else {
            event.putLong(timestamp);
        }
        if (layout.idBytes == 1) {
            event.put((byte) id);
        } else {
            event.putShort((short) id);
        }
        return this;
    }

    /** A 32-bit field ({@code uint32_t}, {@code int32_t}). */
    public ZephyrEventWriter u32(int v) {
        event.putInt(v);
        return this;
    }

    /** An 8-bit field ({@code int8_t}, {@code uint8_t}). */
    public ZephyrEventWriter i8(int v) {
        event.put((byte) v);
        return this;
    }

    /** A name field: its first 19 ASCII bytes, then NULs up to {@link #NAME_BYTES}. */
    public ZephyrEventWriter name(String name) {
        byte[] b = name.getBytes(StandardCharsets.US_ASCII);
        int n = Math.min(b.length, NAME_BYTES - 1);
        event.put(b, 0, n);
        for (int i = n; i < NAME_BYTES; i++) {
            event.put((byte) 0);
        }
        return this;
    }

    /** Ends the event (with its {@code core_id} on {@link Layout#SMP}) and appends it to the stream. */
    public void end() {
        if (layout.coreId) {
            event.putInt(core); // metadata_smp: core_id, the last field of every event
        }
        if (event.hasRemaining()) {
            throw new IllegalStateException("event shorter than declared");
        }
        out.write(event.array(), 0, event.limit());
        events++;
    }

    /** The bytes of the stream so far: where the next event begins. */
    public int size() {
        return out.size();
    }

    /** The events written. */
    public long events() {
        return events;
    }

    /** The stream's bytes. */
    public byte[] bytes() {
        return out.toByteArray();
    }
}
