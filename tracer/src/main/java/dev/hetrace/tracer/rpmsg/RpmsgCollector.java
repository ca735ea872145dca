package dev.hetrace.tracer.rpmsg;

import static dev.hetrace.tracer.rpmsg.RpmsgFraming.*;

import dev.hetrace.ctf.api.PacketCheck;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.tracer.shm.InputOverlap;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads the messages of an rpmsg platform from a device (an rpmsg_char {@code /dev/rpmsgN},
 * whose reads return one message each, or an rpmsg_tty {@code /dev/ttyRPMSGN}, a byte stream;
 * or a FIFO, pipe or pty standing in for them), reassembles the packets and appends each whole
 * packet that reads as a packet of the trace to the stream file with one write. It counts what
 * is lost on the way: messages (gaps in their sequence numbers), packets (gaps in their
 * numbers, or missing a part), bytes that are no message. The trace on disk holds every whole
 * packet received at every moment.
 */
public final class RpmsgCollector implements AutoCloseable {
    /**
     * What was read so far: {@code messages} and {@code packets}/{@code bytes} written;
     * {@code messagesLost} (sequence gaps), {@code packetsLost} (never or not wholly received),
     * {@code packetsRefused} (whole but not a packet of the trace: not written, the first
     * with why in {@code firstRefusal}), {@code bytesSkipped} (not part of a message), and
     * {@code partialAtEnd}: bytes of a packet still incomplete when the input ended.
     */
    public record Stats(
            long messages,
            long packets,
            long bytes,
            long messagesLost,
            long packetsLost,
            long packetsRefused,
            long bytesSkipped,
            long partialAtEnd,
            String firstRefusal) {}

    /** The metadata to write, made from the first whole packet (e.g. to take its trace UUID). */
    @FunctionalInterface
    public interface MetadataSource {
        byte[] metadata(ByteBuffer firstPacket) throws IOException;
    }

    /** Packets larger than this are taken for garbage: no tracer packet is 1 GiB. */
    private static final long MAX_PACKET_SIZE = 1L << 30;

    private static final String METADATA = "metadata";
    private static final String METADATA_TMP = ".metadata.tmp";

    private final Path device;
    private final Path traceDir;
    private final Path streamFile;
    private final List<Path> inputs;
    private final List<Path> written;
    private final MetadataSource metadataSource;
    private final FileChannel in;
    private FileChannel out;
    private PacketCheck.Packets compiled;
    private PacketCheck check;

    /**
     * Bytes read and not yet parsed, little-endian. Twice the largest message: what is left
     * after parsing is less than one message, so each read has room for a whole one (an
     * rpmsg_char read drops the part of a message that does not fit).
     */
    private final ByteBuffer buf =
            ByteBuffer.allocateDirect(2 * MAX_MESSAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    /** The packet being reassembled, as a segment the check reads. */
    private ByteBuffer packet = ByteBuffer.allocate(64 * 1024);

    private MemorySegment packetSegment = MemorySegment.ofArray(packet.array());

    private boolean haveSequence;
    private int nextSequence;
    /** The packet number of the last message, -1 before the first. */
    private long current = -1;
    /** Whether the rest of {@link #current} is ignored (whole already, or a part was lost). */
    private boolean skipping;

    private int packetSize;

    private volatile long messages;
    private volatile long packets;
    private volatile long bytes;
    private volatile long messagesLost;
    private volatile long packetsLost;
    private volatile long packetsRefused;
    private volatile long bytesSkipped;
    private volatile long partialAtEnd;
    private volatile String firstRefusal;
    private volatile boolean stopRequested;
    /** Held while a packet is written: a stop waits for it. */
    private final Object writeLock = new Object();

    private Thread reader;

    /**
     * Opens {@code device} (a tty is put in raw mode first, so that no byte is translated) and
     * checks that nothing written in {@code traceDir} is an input.
     *
     * @param otherInputs the files the metadata is made from
     * @throws IllegalArgumentException if the trace directory or a file written there is or
     *                                  holds an input
     */
    public RpmsgCollector(Path device, List<Path> otherInputs, Path traceDir, MetadataSource metadataSource)
            throws IOException {
        this.device = device;
        this.traceDir = traceDir;
        this.metadataSource = metadataSource;
        String name = device.getFileName().toString();
        if (name.equals(METADATA) || name.equals(METADATA_TMP)) {
            throw new IllegalArgumentException(
                    device + ": the device's name names the stream file: it cannot be '" + METADATA + "'");
        }
        this.streamFile = traceDir.resolve(name);
        this.written = List.of(traceDir.resolve(METADATA), traceDir.resolve(METADATA_TMP), streamFile);
        this.inputs = new ArrayList<>(otherInputs);
        inputs.add(device);
        InputOverlap.check(traceDir, written, inputs);
        if (!Files.exists(device)) {
            throw new RpmsgException(device, "no such device or file");
        }
        rawIfTty(device);
        try {
            in = FileChannel.open(device, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new RpmsgException(device, "cannot be opened: " + e.getMessage());
        }
        Files.createDirectories(traceDir);
    }

    /**
     * A tty (rpmsg_tty, a pty) translates bytes unless raw: a packet's 0x0d would read as 0x0a.
     * stty fails on what is not a tty, which is then read as it is.
     */
    private static void rawIfTty(Path device) throws IOException {
        Object mode;
        try {
            mode = Files.getAttribute(device, "unix:mode");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return;
        }
        if (!(mode instanceof Integer m) || (m & 0170000) != 0020000) {
            return; // not a character device
        }
        try {
            Process p = new ProcessBuilder("stty", "-F", device.toString(), "raw", "-echo")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            p.waitFor();
        } catch (IOException e) {
            // no stty: an rpmsg_char device needs none
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads until the input ends (end of file, or a tty hung up) or {@link #stop()} is called;
     * every whole packet received is written by then. The reads are done by a daemon thread:
     * a read waiting for a device that sends nothing cannot be ended (closing the channel
     * waits for it), so a stop leaves that thread waiting, and writing nothing more.
     */
    public void run() throws IOException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        reader = Thread.ofPlatform().daemon().name("hetrace-collect-rpmsg").start(() -> {
            try {
                read();
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                synchronized (writeLock) {
                    writeLock.notifyAll();
                }
            }
        });
        try {
            synchronized (writeLock) {
                while (reader.isAlive() && !stopRequested) {
                    writeLock.wait(100);
                }
            }
        } catch (InterruptedException e) {
            stop();
            Thread.currentThread().interrupt();
        }
        Throwable e = failure.get();
        if (e instanceof IOException io) {
            throw io;
        } else if (e instanceof RuntimeException re) {
            throw re;
        } else if (e instanceof Error err) {
            throw err;
        }
    }

    private void read() throws IOException {
        try {
            while (!stopRequested) {
                int n;
                try {
                    n = in.read(buf);
                } catch (ClosedChannelException e) {
                    break; // stop(): everything whole is written already
                } catch (IOException e) {
                    if (String.valueOf(e.getMessage()).contains("Input/output error")) {
                        // a tty whose other side closed (EIO): the end of its input
                        bytesSkipped += buf.position();
                        buf.clear();
                        break;
                    }
                    throw new RpmsgException(device, "cannot be read: " + e.getMessage());
                }
                if (n < 0) {
                    // the end of the input: what is left is no whole message
                    bytesSkipped += buf.position();
                    buf.clear();
                    break;
                }
                buf.flip();
                parse();
                buf.compact();
            }
        } finally {
            if (current >= 0 && !skipping) {
                partialAtEnd = packet.position();
            }
        }
    }

    /** Takes the whole messages at the start of {@link #buf}; leaves a partial one there. */
    private void parse() throws IOException {
        while (buf.remaining() >= HEADER_SIZE) {
            int p = buf.position();
            int length = Short.toUnsignedInt(buf.getShort(p + OFF_LENGTH));
            long offset = Integer.toUnsignedLong(buf.getInt(p + OFF_OFFSET));
            long size = Integer.toUnsignedLong(buf.getInt(p + OFF_PACKET_SIZE));
            boolean header = buf.get(p) == MAGIC[0]
                    && buf.get(p + 1) == MAGIC[1]
                    && buf.get(p + 2) == MAGIC[2]
                    && buf.get(p + 3) == MAGIC[3]
                    && buf.get(p + 4) == VERSION
                    && buf.get(p + 5) == HEADER_SIZE
                    && size > 0
                    && size <= MAX_PACKET_SIZE
                    && length > 0
                    && offset + length <= size;
            if (!header) {
                // not a message: look for the next one a byte further
                buf.position(p + 1);
                bytesSkipped++;
                continue;
            }
            if (buf.remaining() < HEADER_SIZE + length) {
                return;
            }
            message(
                    buf.getInt(p + OFF_SEQUENCE),
                    Integer.toUnsignedLong(buf.getInt(p + OFF_PACKET)),
                    (int) offset,
                    (int) size,
                    p + HEADER_SIZE,
                    length);
            buf.position(p + HEADER_SIZE + length);
        }
    }

    private void message(int sequence, long number, int offset, int size, int at, int length) throws IOException {
        messages++;
        // a number far behind is a restarted producer (its numbers from 0 again), not a loss
        long gap = Integer.toUnsignedLong(sequence - nextSequence);
        if (haveSequence && gap < 1L << 31) {
            messagesLost += gap;
        }
        haveSequence = true;
        nextSequence = sequence + 1;
        if (number == current) {
            if (skipping) {
                return;
            }
            if (offset == packet.position() && size == packetSize) {
                append(at, length);
            } else {
                packetsLost++; // a part is missing
                skipping = true;
            }
            return;
        }
        if (current >= 0) {
            if (!skipping) {
                packetsLost++; // the previous one is missing its end
            }
            long missed = (number - current - 1) & 0xffff_ffffL;
            packetsLost += missed < 1L << 31 ? missed : 0;
        }
        current = number;
        skipping = offset != 0;
        if (skipping) {
            packetsLost++; // its start is missing
            return;
        }
        packetSize = size;
        if (packet.capacity() < size) {
            packet = ByteBuffer.allocate(Math.max(size, 2 * packet.capacity()));
            packetSegment = MemorySegment.ofArray(packet.array());
            check = null;
        }
        packet.clear();
        append(at, length);
    }

    private void append(int at, int length) throws IOException {
        packet.put(packet.position(), buf, at, length);
        packet.position(packet.position() + length);
        if (packet.position() == packetSize) {
            skipping = true;
            whole();
        }
    }

    /** Writes the whole packet in {@link #packet}, or refuses it; nothing once stopped. */
    private void whole() throws IOException {
        synchronized (writeLock) {
            if (!stopRequested) {
                wholeLocked();
            }
        }
    }

    private void wholeLocked() throws IOException {
        packet.flip();
        if (compiled == null) {
            start();
        }
        if (check == null) {
            check = new PacketCheck(compiled, device, packetSegment);
        }
        String problem = check.problem(0, packetSize);
        if (problem != null) {
            if (packetsRefused == 0) {
                firstRefusal = "packet %d: %s".formatted(current, problem);
            }
            packetsRefused++;
            return;
        }
        while (packet.hasRemaining()) {
            out.write(packet);
        }
        packets++;
        bytes += packetSize;
    }

    /** Writes the metadata (renamed into place) and creates the stream file, at the first whole packet. */
    private void start() throws IOException {
        try {
            InputOverlap.check(traceDir, written, inputs);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        byte[] metadata = metadataSource.metadata(packet.asReadOnlyBuffer());
        try {
            compiled = PacketCheck.Packets.of(MetadataReader.parse(metadata, w -> {}));
        } catch (MetadataException e) {
            throw new IOException("the metadata cannot describe the producer's packets: " + e.getMessage(), e);
        }
        Path tmp = traceDir.resolve(METADATA_TMP);
        Files.write(tmp, metadata);
        Files.move(
                tmp, traceDir.resolve(METADATA), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        out = FileChannel.open(
                streamFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * Makes {@link #run} return; callable from any thread (a shutdown hook). Closing the device
     * ends a read waiting for input; what was written stays written.
     */
    public void stop() {
        // once the packet being written is written
        synchronized (writeLock) {
            stopRequested = true;
            writeLock.notifyAll();
        }
    }

    public Stats stats() {
        return new Stats(
                messages,
                packets,
                bytes,
                messagesLost,
                packetsLost,
                packetsRefused,
                bytesSkipped,
                partialAtEnd,
                firstRefusal);
    }

    public Path device() {
        return device;
    }

    public Path streamFile() {
        return streamFile;
    }

    @Override
    public void close() throws IOException {
        synchronized (writeLock) {
            stopRequested = true;
        }
        if (reader == null || !reader.isAlive()) {
            in.close(); // else it waits for the read: left to the process's end
        }
        if (out != null) {
            out.close();
        }
    }
}
