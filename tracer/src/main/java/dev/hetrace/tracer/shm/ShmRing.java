package dev.hetrace.tracer.shm;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;

import dev.hetrace.ctf.MappedFiles;
import dev.hetrace.ctf.api.PacketCheck;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One shm-ring region as the collector sees it: attached once its producer has written the
 * header, then drained slot by slot into a stream file, each packet checked ({@link PacketCheck})
 * and appended with one write straight from the mapping before its slot is given back. Nothing
 * is allocated per packet but the check's record of its header (and a view of the slot, for a
 * region over 2 GiB). Drained by one thread at a time.
 */
final class ShmRing implements AutoCloseable {
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE_VH = LONG_LE.varHandle();
    private static final VarHandle LONG_BE_VH = LONG_BE.varHandle();
    private static final VarHandle INT_LE_VH = INT_LE.varHandle();
    private static final VarHandle INT_BE_VH = INT_BE.varHandle();

    final Path region;
    private final Path streamFile;
    private Arena arena;
    private MemorySegment segment;
    private MappedFiles.Mapping mapping;
    /** The whole region as one buffer, or null if it exceeds the 2 GiB a ByteBuffer spans. */
    private ByteBuffer view;

    private boolean bigEndian;
    private int slotSize;
    private int slotCount;
    private long coreId = -1;
    private byte[] uuid;
    private FileChannel out;
    private PacketCheck check;
    /** Told once that the region is awaited; null: a missing region is an error. */
    private Consumer<Path> waitingFor;
    /** The collector's own copy of the consumer index (it is its only writer). */
    private long consumed;
    /** Read by other threads for progress and the summary. */
    private volatile long packets;

    private volatile long bytes;
    /** Slots that held no packet of the trace: given back, not written. */
    private volatile long refused;

    private volatile String firstRefusal;
    private volatile boolean finished;
    /** Set once attached, after the fields the summary reads (for threads other than the draining one). */
    private volatile boolean published;

    private long discardedAtClose;

    /**
     * @param waitingFor told once, with the region, if the region is not there yet and will be
     *                   waited for; null: a region that is not there is an error
     */
    ShmRing(Path region, Path streamFile, Consumer<Path> waitingFor) {
        this.region = region;
        this.streamFile = streamFile;
        this.waitingFor = waitingFor;
    }

    boolean attached() {
        return segment != null;
    }

    /**
     * Maps the region once its producer has initialized it (the magic is written last) and
     * opens the stream file; returns false while the region is not initialized yet (or, when
     * waited for, not created yet).
     */
    boolean attach() throws IOException {
        long size;
        try {
            size = Files.size(region);
        } catch (NoSuchFileException e) {
            if (waitingFor == null) {
                throw new ShmRingException(
                        region, "no such region file (its producer creates it; to wait for it:" + " --wait)");
            }
            waitingFor.accept(region);
            waitingFor = p -> {};
            return false;
        }
        if (size < HEADER_SIZE) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            Arena a = Arena.ofShared();
            MemorySegment header = ch.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_SIZE, a);
            int magicLe = (int) INT_LE_VH.getAcquire(header, 0L);
            if (magicLe != MAGIC && Integer.reverseBytes(magicLe) != MAGIC) {
                a.close();
                if (magicLe == 0) {
                    return false; // being initialized
                }
                throw new ShmRingException(region, "not an shm-ring region (magic 0x%08x)".formatted(magicLe));
            }
            boolean be = magicLe != MAGIC;
            ByteOrder order = be ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            int version = Short.toUnsignedInt(header.get(ValueLayout.JAVA_SHORT.withOrder(order), OFF_VERSION));
            int headerSize = Short.toUnsignedInt(header.get(ValueLayout.JAVA_SHORT.withOrder(order), OFF_HEADER_SIZE));
            long slot = Integer.toUnsignedLong(header.get(be ? INT_BE : INT_LE, OFF_SLOT_SIZE));
            long count = Integer.toUnsignedLong(header.get(be ? INT_BE : INT_LE, OFF_SLOT_COUNT));
            long core = Integer.toUnsignedLong(header.get(be ? INT_BE : INT_LE, OFF_CORE_ID));
            byte[] id = header.asSlice(OFF_UUID, 16).toArray(ValueLayout.JAVA_BYTE);
            a.close();
            if (version != VERSION || headerSize != HEADER_SIZE) {
                throw new ShmRingException(
                        region,
                        "shm-ring version %d (header %d bytes); this collector reads version %d"
                                .formatted(version, headerSize, VERSION));
            }
            if (slot == 0
                    || slot % SLOT_ALIGNMENT != 0
                    || slot > Integer.MAX_VALUE - 8
                    || count == 0
                    || count > MAX_SLOT_COUNT) {
                throw new ShmRingException(region, "invalid ring: %d slots of %d bytes".formatted(count, slot));
            }
            long regionSize = regionSize(slot, count);
            if (ch.size() < regionSize) {
                throw new ShmRingException(
                        region,
                        "%d bytes, but %d slots of %d bytes need %d".formatted(ch.size(), count, slot, regionSize));
            }
            arena = Arena.ofShared();
            segment = ch.map(FileChannel.MapMode.READ_WRITE, 0, regionSize, arena);
            mapping = MappedFiles.register(region, regionSize);
            view = regionSize <= Integer.MAX_VALUE ? segment.asByteBuffer() : null;
            bigEndian = be;
            slotSize = (int) slot;
            slotCount = (int) count;
            coreId = core;
            uuid = id;
        }
        consumed = counter(OFF_CONSUMED);
        published = true;
        return true;
    }

    /**
     * Creates (truncates) the stream file; after {@link #attach()}, once the metadata is there.
     * Each slot is checked to hold one of {@code packets} before it is written.
     */
    void openStream(PacketCheck.Packets packets) throws IOException {
        check = new PacketCheck(packets, region, segment);
        out = FileChannel.open(
                streamFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * Appends the published packets to the stream file, each with one write, giving each slot
     * back after its write; stops early when {@code stop} says so. Returns the packets drained.
     * One write per packet, not per run of adjacent packets: Linux may end a write early when
     * the collector is killed (kill -9), at a page boundary, and a write of many packets would
     * then leave a partial packet at the end of the stream file far more often.
     */
    int drain(BooleanSupplier stop) throws IOException {
        long produced = counter(OFF_PRODUCED);
        // modulo 2^32: a 32-bit producer may publish only the low half atomically
        int available = (int) produced - (int) consumed;
        if (available < 0 || available > slotCount) {
            throw new ShmRingException(
                    region,
                    "inconsistent indexes: %d packets published, %d drained, %d slots"
                            .formatted(produced, consumed, slotCount));
        }
        int n = 0;
        while (n < available && !stop.getAsBoolean()) {
            long slot = Long.remainderUnsigned(consumed, slotCount);
            long offset = HEADER_SIZE + slot * slotSize;
            String problem = check.problem(offset, slotSize);
            if (problem != null) {
                if (refused == 0) {
                    firstRefusal = "packet %d (slot %d): %s".formatted(consumed, slot, problem);
                }
                refused++;
            } else {
                ByteBuffer packet;
                if (view != null) {
                    packet = view.limit(view.capacity()).position((int) offset).limit((int) offset + slotSize);
                } else {
                    packet = segment.asSlice(offset, slotSize).asByteBuffer();
                }
                try {
                    while (packet.hasRemaining()) {
                        out.write(packet);
                    }
                } catch (IOException e) {
                    // the region cut short under the write: the kernel says EFAULT where a read would fault
                    String shrank = mapping == null ? null : MappedFiles.shrinkage(mapping);
                    if (shrank == null) {
                        throw e;
                    }
                    IOException told = new IOException(shrank);
                    told.addSuppressed(e);
                    throw told;
                }
                packets++;
                bytes += slotSize;
            }
            consumed++;
            if (bigEndian) {
                LONG_BE_VH.setRelease(segment, (long) OFF_CONSUMED, consumed);
            } else {
                LONG_LE_VH.setRelease(segment, (long) OFF_CONSUMED, consumed);
            }
            n++;
        }
        return n;
    }

    /** Whether the producer said it is done and every packet it published is drained. */
    boolean finished() {
        if (!finished && segment != null) {
            int done = bigEndian
                    ? (int) INT_BE_VH.getAcquire(segment, (long) OFF_DONE)
                    : (int) INT_LE_VH.getAcquire(segment, (long) OFF_DONE);
            // produced is read after done (acquire): it is then final
            if (done != 0 && (int) counter(OFF_PRODUCED) == (int) consumed) {
                finished = true;
            }
        }
        return finished;
    }

    private long counter(int offset) {
        return bigEndian
                ? (long) LONG_BE_VH.getAcquire(segment, (long) offset)
                : (long) LONG_LE_VH.getAcquire(segment, (long) offset);
    }

    long coreId() {
        return coreId;
    }

    /** The trace UUID of the producer's packet headers, or null if it writes none (or not attached yet). */
    UUID uuid() {
        if (uuid == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(uuid);
        UUID u = new UUID(b.getLong(), b.getLong());
        return u.getMostSignificantBits() == 0 && u.getLeastSignificantBits() == 0 ? null : u;
    }

    Path streamFile() {
        return streamFile;
    }

    /** Callable from any thread while the ring is open. */
    ShmCollector.RingStats stats() {
        if (!published) {
            return new ShmCollector.RingStats(region, -1, false, false, 0, 0, 0, 0, null);
        }
        MemorySegment s = segment;
        long discarded = s == null
                ? discardedAtClose
                : bigEndian ? s.get(LONG_BE, OFF_EVENTS_DISCARDED) : s.get(LONG_LE, OFF_EVENTS_DISCARDED);
        return new ShmCollector.RingStats(
                region, coreId, true, finished, packets, bytes, discarded, refused, firstRefusal);
    }

    @Override
    public void close() throws IOException {
        try {
            if (out != null) {
                out.close();
            }
        } finally {
            if (arena != null) {
                try {
                    discardedAtClose = stats().eventsDiscarded();
                } finally { // the region may have shrunk (the read faulted): unmapped all the same
                    arena.close();
                    arena = null;
                    segment = null;
                    MappedFiles.release(mapping);
                    mapping = null;
                }
            }
        }
    }
}
