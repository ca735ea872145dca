package dev.hetrace.tracer.rpmsg;

import static dev.hetrace.tracer.rpmsg.RpmsgFraming.*;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    private final Path device;
    private final PacketAssembly assembly;
    private final FileChannel in;

    /**
     * Bytes read and not yet parsed, little-endian. Twice the largest message: what is left
     * after parsing is less than one message, so each read has room for a whole one (an
     * rpmsg_char read drops the part of a message that does not fit).
     */
    private final ByteBuffer buf =
            ByteBuffer.allocateDirect(2 * MAX_MESSAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);

    private volatile long bytesSkipped;
    private volatile long partialAtEnd;

    private Thread reader;

    /** The sync handshake's master, with {@link #syncEvery}; else null. */
    private final RpmsgSyncMaster sync;

    private final RandomAccessFile device2;
    private Thread syncThread;
    private boolean closed;

    /**
     * Opens {@code device} (a tty is put in raw mode first, so that no byte is translated) and
     * checks that nothing written in {@code traceDir} is an input.
     *
     * @param otherInputs the files the metadata is made from
     * @throws IllegalArgumentException if the trace directory or a file written there is or
     *                                  holds an input
     */
    public RpmsgCollector(Path device, List<Path> otherInputs, Path traceDir, FirstPacketMetadata metadataSource)
            throws IOException {
        this(device, otherInputs, traceDir, metadataSource, 0, null);
    }

    /**
     * The same, and with {@code syncEveryNanos > 0} the master of the sync handshake over RPMsg:
     * the device is opened for writing too, a request is sent whenever the link has been idle
     * (no message and no answer received) that long, and the master's events are written into
     * the trace {@code syncTraceDir} when the collector stops.
     */
    public RpmsgCollector(
            Path device,
            List<Path> otherInputs,
            Path traceDir,
            FirstPacketMetadata metadataSource,
            long syncEveryNanos,
            Path syncTraceDir)
            throws IOException {
        this.device = device;
        this.assembly = new PacketAssembly(device, otherInputs, traceDir, metadataSource);
        if (!Files.exists(device)) {
            throw new RpmsgException(device, "no such device or file");
        }
        if (syncEveryNanos > 0 && !isCharacterDevice(device)) {
            // a file or FIFO read back what is written into it
            throw new RpmsgException(
                    device,
                    "not a character device (an rpmsg_char or rpmsg_tty device): the sync requests"
                            + " cannot be sent to it");
        }
        rawIfTty(device);
        try {
            if (syncEveryNanos > 0) {
                // one open for both ways (an rpmsg_char endpoint can be open once); the writes go
                // through the descriptor, not the channel, whose reads and writes exclude each other
                device2 = new RandomAccessFile(device.toFile(), "rw");
                in = device2.getChannel();
                sync = new RpmsgSyncMaster(new FileOutputStream(device2.getFD()), syncEveryNanos, syncTraceDir);
            } else {
                device2 = null;
                sync = null;
                in = FileChannel.open(device, StandardOpenOption.READ);
            }
        } catch (IOException e) {
            throw new RpmsgException(device, "cannot be opened: " + e.getMessage());
        }
        assembly.createTraceDir();
    }

    private static boolean isCharacterDevice(Path device) throws IOException {
        try {
            return Files.getAttribute(device, "unix:mode") instanceof Integer m && (m & 0170000) == 0020000;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
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
                synchronized (assembly.writeLock) {
                    assembly.writeLock.notifyAll();
                }
            }
        });
        if (sync != null) {
            syncThread = Thread.ofPlatform()
                    .daemon()
                    .name("hetrace-collect-rpmsg-sync")
                    .start(() -> sync.run(() -> assembly.stopRequested() || !reader.isAlive()));
        }
        try {
            synchronized (assembly.writeLock) {
                while (reader.isAlive() && !assembly.stopRequested()) {
                    assembly.writeLock.wait(100);
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
            while (!assembly.stopRequested()) {
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
                long now = System.nanoTime();
                if (n < 0) {
                    // the end of the input: what is left is no whole message
                    bytesSkipped += buf.position();
                    buf.clear();
                    break;
                }
                buf.flip();
                parse(now);
                buf.compact();
            }
        } finally {
            partialAtEnd = assembly.partial();
        }
    }

    /** Takes the whole messages at the start of {@link #buf}; leaves a partial one there. */
    private void parse(long now) throws IOException {
        while (buf.remaining() >= (sync != null ? Math.min(HEADER_SIZE, RpmsgSyncMaster.ANSWER_SIZE) : HEADER_SIZE)) {
            int p = buf.position();
            if (sync != null && RpmsgSyncMaster.isAnswer(buf, p, buf.remaining())) {
                if (buf.remaining() < RpmsgSyncMaster.ANSWER_SIZE) {
                    return;
                }
                sync.answer(buf, p, now);
                buf.position(p + RpmsgSyncMaster.ANSWER_SIZE);
                continue;
            }
            if (buf.remaining() < HEADER_SIZE) {
                return;
            }
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
                    && size <= PacketAssembly.MAX_PACKET_SIZE
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
            if (sync != null) {
                sync.activity(now);
            }
            assembly.part(
                    buf.getInt(p + OFF_SEQUENCE),
                    Integer.toUnsignedLong(buf.getInt(p + OFF_PACKET)),
                    (int) offset,
                    (int) size,
                    buf,
                    p + HEADER_SIZE,
                    length);
            buf.position(p + HEADER_SIZE + length);
        }
    }

    /**
     * Makes {@link #run} return; callable from any thread (a shutdown hook). Closing the device
     * ends a read waiting for input; what was written stays written.
     */
    public void stop() {
        assembly.stop(); // once the packet being written is written
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
                bytesSkipped,
                partialAtEnd,
                a.firstRefusal);
    }

    /** The sync handshake's figures, or null without it. */
    public RpmsgSyncMaster.Stats syncStats() {
        return sync == null ? null : sync.stats();
    }

    /** The directory of the master's sync trace, or null without the handshake. */
    public Path syncTraceDir() {
        return sync == null ? null : sync.traceDir();
    }

    public Path device() {
        return device;
    }

    public Path streamFile() {
        return assembly.streamFile();
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        assembly.stop();
        if (syncThread != null) {
            syncThread.interrupt();
            try {
                syncThread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (reader == null || !reader.isAlive()) {
            in.close(); // else it waits for the read: left to the process's end
        }
        try {
            if (sync != null) {
                sync.write();
            }
        } finally {
            assembly.close();
        }
    }
}
