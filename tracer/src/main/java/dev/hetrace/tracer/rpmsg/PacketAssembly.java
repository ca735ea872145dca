package dev.hetrace.tracer.rpmsg;

import dev.hetrace.ctf.api.PacketCheck;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.tracer.shm.InputOverlap;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Packets reassembled from numbered parts (RPMsg messages, trace-buffer slots), each part
 * telling its number in the sequence of parts, its packet's number, where its bytes go in the
 * packet and the packet's size; each whole packet that reads as a packet of the trace is
 * appended to the stream file with one write. Counts what is lost on the way: parts (gaps in
 * their numbers) and packets (gaps in their numbers, or missing a part). The metadata is
 * written, renamed into place, at the first whole packet; so the trace on disk holds every
 * whole packet received at every moment.
 */
final class PacketAssembly implements AutoCloseable {
    /** Packets larger than this are taken for garbage: no tracer packet is 1 GiB. */
    static final long MAX_PACKET_SIZE = 1L << 30;

    static final String METADATA = "metadata";
    private static final String METADATA_TMP = ".metadata.tmp";

    private final Path input;
    private final Path traceDir;
    private final Path streamFile;
    private final List<Path> inputs;
    private final List<Path> written;
    private final FirstPacketMetadata metadataSource;
    private FileChannel out;
    private PacketCheck.Packets compiled;
    private PacketCheck check;

    /** The packet being reassembled, as a segment the check reads. */
    private ByteBuffer packet = ByteBuffer.allocate(64 * 1024);

    private MemorySegment packetSegment = MemorySegment.ofArray(packet.array());

    private boolean haveSequence;
    private int nextSequence;
    /** The packet number of the last part, -1 before the first. */
    private long current = -1;
    /** Whether the rest of {@link #current} is ignored (whole already, or a part was lost). */
    private boolean skipping;

    private int packetSize;

    volatile long parts;
    volatile long packets;
    volatile long bytes;
    volatile long partsLost;
    volatile long packetsLost;
    volatile long packetsRefused;
    volatile String firstRefusal;
    private volatile boolean stopRequested;
    /** Held while a packet is written: a stop waits for it. */
    final Object writeLock = new Object();

    /**
     * Checks that nothing written in {@code traceDir} is an input, and creates it.
     *
     * @param input       what the parts are read from: its name names the stream file
     * @param otherInputs the files the metadata is made from
     * @throws IllegalArgumentException if the input's name is the metadata's, or the trace
     *                                  directory or a file written there is or holds an input
     */
    PacketAssembly(Path input, List<Path> otherInputs, Path traceDir, FirstPacketMetadata metadataSource)
            throws IOException {
        this.input = input;
        this.traceDir = traceDir;
        this.metadataSource = metadataSource;
        String name = input.getFileName().toString();
        if (name.equals(METADATA) || name.equals(METADATA_TMP)) {
            throw new IllegalArgumentException(
                    input + ": the input's name names the stream file: it cannot be '" + METADATA + "'");
        }
        this.streamFile = traceDir.resolve(name);
        this.written = List.of(traceDir.resolve(METADATA), traceDir.resolve(METADATA_TMP), streamFile);
        this.inputs = new ArrayList<>(otherInputs);
        inputs.add(input);
        InputOverlap.check(traceDir, written, inputs);
    }

    void createTraceDir() throws IOException {
        Files.createDirectories(traceDir);
    }

    Path streamFile() {
        return streamFile;
    }

    /**
     * Takes one part: {@code length} bytes of {@code from} at {@code at} (its position and limit
     * untouched), to go at {@code offset} in packet {@code number} of {@code size} bytes.
     */
    void part(int sequence, long number, int offset, int size, ByteBuffer from, int at, int length) throws IOException {
        parts++;
        // a number far behind is a restarted producer (its numbers from 0 again), not a loss
        long gap = Integer.toUnsignedLong(sequence - nextSequence);
        if (haveSequence && gap < 1L << 31) {
            partsLost += gap;
        }
        haveSequence = true;
        nextSequence = sequence + 1;
        if (number == current) {
            if (skipping) {
                return;
            }
            if (offset == packet.position() && size == packetSize) {
                append(from, at, length);
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
        append(from, at, length);
    }

    /**
     * The producer numbers its parts and packets from 0 and every part it wrote can still be
     * read (a trace buffer): the first ones missing are lost, not just written before the
     * reader started.
     */
    void startsAtZero() {
        haveSequence = true;
        nextSequence = 0;
        current = 0xffff_ffffL; // packet -1, whole: packet 0 comes next
        skipping = true;
    }

    /** Bytes of a packet still incomplete (when the input ends). */
    int partial() {
        return current >= 0 && !skipping ? packet.position() : 0;
    }

    private void append(ByteBuffer from, int at, int length) throws IOException {
        packet.put(packet.position(), from, at, length);
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
            check = new PacketCheck(compiled, input, packetSegment);
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

    boolean stopRequested() {
        return stopRequested;
    }

    /** No packet is written after this returns (one being written is finished first); callable from any thread. */
    void stop() {
        synchronized (writeLock) {
            stopRequested = true;
            writeLock.notifyAll();
        }
    }

    @Override
    public void close() throws IOException {
        stop();
        if (out != null) {
            out.close();
        }
    }
}
