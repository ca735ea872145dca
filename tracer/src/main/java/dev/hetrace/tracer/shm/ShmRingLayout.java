package dev.hetrace.tracer.shm;

/**
 * The layout of an {@code shm-ring} region, shared by the C platform generator and the
 * collector so that both sides agree by construction. One region holds one ring: a header,
 * then {@code slotCount} slots of {@code slotSize} bytes, each holding one whole CTF packet.
 * Fields are in the producer's byte order; the collector tells it from the magic. See
 * docs/shm-ring.md.
 */
public final class ShmRingLayout {
    private ShmRingLayout() {}

    /** "HTSR" read as a 32-bit integer; written last at initialization, so it also means "header ready". */
    public static final int MAGIC = 0x48545352;

    public static final int VERSION = 1;

    public static final int OFF_MAGIC = 0;
    /** uint16 version, then uint16 header size. */
    public static final int OFF_VERSION = 4;

    public static final int OFF_HEADER_SIZE = 6;
    public static final int OFF_SLOT_SIZE = 8;
    public static final int OFF_SLOT_COUNT = 12;
    public static final int OFF_CORE_ID = 16;
    public static final int OFF_STREAM_ID = 20;
    /** The trace UUID the producer's tracer writes in its packet headers (zeros if none). */
    public static final int OFF_UUID = 24;
    /** Set to 1 by the producer after its last packet. */
    public static final int OFF_DONE = 40;
    /** The producer's count of discarded events, as of its last published packet or finish. */
    public static final int OFF_EVENTS_DISCARDED = 48;
    /** Producer index (written by the producer only), alone in its cache line. */
    public static final int OFF_PRODUCED = 64;
    /** Consumer index (written by the collector only, after initialization), alone in its cache line. */
    public static final int OFF_CONSUMED = 128;

    public static final int HEADER_SIZE = 192;

    /** Slots hold whole packets, and start 8-byte aligned. */
    public static final int SLOT_ALIGNMENT = 8;
    /** Index differences are taken modulo 2^32 (a 32-bit core may publish only the low half atomically). */
    public static final long MAX_SLOT_COUNT = 1L << 30;

    /** Bytes of a region of {@code slotCount} slots of {@code slotSize} bytes. */
    public static long regionSize(long slotSize, long slotCount) {
        return HEADER_SIZE + slotSize * slotCount;
    }
}
