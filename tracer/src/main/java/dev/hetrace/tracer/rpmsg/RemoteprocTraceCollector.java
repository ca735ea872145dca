package dev.hetrace.tracer.rpmsg;

import static dev.hetrace.tracer.rpmsg.RemoteprocTraceLayout.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads the trace buffer of a remoteproc-trace platform ({@link RemoteprocTraceLayout}) as Linux
 * shows it ({@code /sys/kernel/debug/remoteproc/remoteprocN/traceM}, whose reads start from
 * offset 0 and see the buffer as it is at that moment): the whole file again every period, taking
 * the slots written since the last pass in their order, reassembling the packets and appending
 * each whole packet that reads as a packet of the trace to the stream file with one write. Slots
 * overwritten before they were read (the core lapped the reader) are counted as lost, and so are
 * the packets they were part of. It stops when the core says it is done and every slot written
 * was read, when the file goes away (remoteproc stopped the core), or on {@link #stop()}.
 */
public final class RemoteprocTraceCollector implements AutoCloseable {
    /**
     * What was read so far: {@code slots} taken, {@code packets}/{@code bytes} written,
     * {@code slotsLost} (overwritten before they were read, or unreadable), {@code packetsLost}
     * (not wholly read), {@code packetsRefused} (whole but not a packet of the trace: not
     * written, the first with why in {@code firstRefusal}), {@code partialAtEnd} (bytes of a
     * packet incomplete at the end), whether a producer was seen and whether it said it was done.
     */
    public record Stats(
            long slots,
            long packets,
            long bytes,
            long slotsLost,
            long packetsLost,
            long packetsRefused,
            long partialAtEnd,
            String firstRefusal,
            boolean started,
            boolean done) {}

    /** The default period between two reads of the file. */
    public static final long DEFAULT_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Path file;
    private final PacketAssembly assembly;
    private final long periodNanos;

    /** The file as the last pass read it; grown to hold the whole file. */
    private ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    /** A slot's packet bytes, decoded. */
    private ByteBuffer decoded = ByteBuffer.allocate(MAX_SLOT_SIZE);

    /** The number of the next slot to take. */
    private int next;

    private volatile boolean started;
    private volatile boolean done;
    private volatile long bytesRead;
    private volatile long partialAtEnd;

    /**
     * @param file        the trace file (or a file standing in for it), which must exist
     * @param otherInputs the files the metadata is made from
     * @param periodNanos the time between two reads of the file
     * @throws IllegalArgumentException if the trace directory or a file written there is or
     *                                  holds an input
     */
    public RemoteprocTraceCollector(
            Path file, List<Path> otherInputs, Path traceDir, FirstPacketMetadata metadataSource, long periodNanos)
            throws IOException {
        this.file = file;
        this.periodNanos = periodNanos;
        this.assembly = new PacketAssembly(file, otherInputs, traceDir, metadataSource);
        if (!Files.exists(file)) {
            throw new RpmsgException(file, "no such file (is the core running?)");
        }
        if (!Files.isReadable(file)) {
            throw new RpmsgException(file, "cannot be read (debugfs files are root's)");
        }
        assembly.createTraceDir();
    }

    /**
     * Reads the file every period until the core is done and every slot it wrote was read, the
     * file goes away, or {@link #stop()} is called; every whole packet read is written by then.
     */
    public void run() throws IOException {
        while (!assembly.stopRequested()) {
            if (pass()) {
                break;
            }
            synchronized (assembly.writeLock) {
                if (assembly.stopRequested()) {
                    break;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(assembly.writeLock, periodNanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        partialAtEnd = assembly.partial();
    }

    /** Reads the file once and takes the new slots; returns whether the input ended. */
    private boolean pass() throws IOException {
        if (!read()) {
            return true; // gone: remoteproc stopped the core
        }
        int length = buf.limit();
        if (length < HEADER_SIZE || !magic()) {
            return false; // not initialized yet
        }
        if (buf.get(OFF_VERSION) != '0' + VERSION) {
            throw new RpmsgException(file, "trace buffer version " + (char) buf.get(OFF_VERSION) + ", not " + VERSION);
        }
        long slotSize = hex(buf, OFF_SLOT_SIZE, 8);
        long slotCount = hex(buf, OFF_SLOT_COUNT, 8);
        if (slotSize < MIN_SLOT_SIZE || slotSize > MAX_SLOT_SIZE || slotCount < 1) {
            throw new RpmsgException(
                    file,
                    "its header says slots of " + slotSize + " bytes, " + slotCount + " of them: not a trace buffer");
        }
        if (!started) {
            started = true;
            assembly.startsAtZero();
        }
        // read before the slots (the file is read from its start): '1' means every slot is written
        boolean doneBefore = buf.get(OFF_DONE) == '1';
        int size = (int) slotSize;
        int count = (int) Math.min(slotCount, (length - HEADER_SIZE) / size);
        while (!assembly.stopRequested() && count > 0) {
            int at = HEADER_SIZE + Integer.remainderUnsigned(next, (int) slotCount) * size;
            if (at + size > length) {
                break;
            }
            long seq = sequence(at, size);
            if (seq < 0) {
                break; // being written
            }
            int ahead = (int) seq - next;
            if (ahead == 0) {
                take(at, size);
                next++;
            } else if (ahead > 0) {
                // lapped: go on from the oldest slot left
                next += oldestAhead(count, size);
            } else {
                break; // not written in this round yet: nothing more
            }
        }
        if (doneBefore) {
            done = true;
            return true;
        }
        return false;
    }

    /** The slot number at {@code at} if its first and last fields agree, else -1. */
    private long sequence(int at, int size) {
        long seq = hex(buf, at + SLOT_OFF_SEQUENCE, 8);
        return seq >= 0 && seq == hex(buf, at + size - SLOT_TRAILER, 8) ? seq : -1;
    }

    /** How far the oldest slot written after {@link #next} is from it. */
    private int oldestAhead(int count, int size) {
        int min = Integer.MAX_VALUE;
        for (int i = 0; i < count; i++) {
            long seq = sequence(HEADER_SIZE + i * size, size);
            int ahead = (int) seq - next;
            if (seq >= 0 && ahead > 0 && ahead < min) {
                min = ahead;
            }
        }
        return min;
    }

    /** Gives the slot's packet bytes to the assembly; an unreadable slot is skipped, and counted lost with the next. */
    private void take(int at, int size) throws IOException {
        long number = hex(buf, at + SLOT_OFF_PACKET, 8);
        long offset = hex(buf, at + SLOT_OFF_OFFSET, 8);
        long packetSize = hex(buf, at + SLOT_OFF_PACKET_SIZE, 8);
        long n = hex(buf, at + SLOT_OFF_LENGTH, 4);
        long encoded = hex(buf, at + SLOT_OFF_ENCODED, 4);
        if (number < 0
                || offset < 0
                || packetSize <= 0
                || packetSize > PacketAssembly.MAX_PACKET_SIZE
                || n <= 0
                || offset + n > packetSize
                || encoded < n
                || encoded > dataRoom(size)) {
            return;
        }
        decoded.clear();
        if (decode(buf, at + SLOT_OFF_DATA, (int) encoded, decoded) != n) {
            return;
        }
        assembly.part(
                (int) hex(buf, at + SLOT_OFF_SEQUENCE, 8), number, (int) offset, (int) packetSize, decoded, 0, (int) n);
    }

    private boolean magic() {
        for (int i = 0; i < MAGIC.length; i++) {
            if (buf.get(i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** Reads the whole file into {@link #buf} (position 0, limit its length); false if it is gone. */
    private boolean read() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            buf.clear();
            while (true) {
                if (!buf.hasRemaining()) {
                    ByteBuffer larger = ByteBuffer.allocate(2 * buf.capacity());
                    buf.flip();
                    larger.put(buf);
                    buf = larger;
                }
                if (ch.read(buf) < 0) {
                    break;
                }
            }
            buf.flip();
            bytesRead += buf.limit();
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            if (!Files.exists(file)) {
                return false;
            }
            throw new RpmsgException(file, "cannot be read: " + e.getMessage());
        }
    }

    /** Makes {@link #run} return after the packet being written; callable from any thread (a shutdown hook). */
    public void stop() {
        assembly.stop();
    }

    /** Whether anything was read from the file (a trace buffer or not). */
    public boolean readBytes() {
        return bytesRead > 0;
    }

    public Stats stats() {
        PacketAssembly a = assembly;
        return new Stats(
                a.parts,
                a.packets,
                a.bytes,
                a.partsLost,
                a.packetsLost,
                a.packetsRefused,
                partialAtEnd,
                a.firstRefusal,
                started,
                done);
    }

    public Path file() {
        return file;
    }

    public Path streamFile() {
        return assembly.streamFile();
    }

    @Override
    public void close() throws IOException {
        assembly.close();
    }
}
