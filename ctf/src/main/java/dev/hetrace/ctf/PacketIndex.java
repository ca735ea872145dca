package dev.hetrace.ctf;

import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecoder.StreamFile;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.ClockClass;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where each packet of one data stream is and what its header and context say (size, time
 * range, events_discarded, packet_seq_num), in primitive arrays, so that a reader can start at
 * any time without decoding what precedes it. Built from LTTng's {@code index/FILE.idx} files
 * when every file of the stream has a consistent one, else by walking the packet headers and
 * contexts (never the events).
 *
 * <p>Absent values are {@link PacketInfo#ABSENT}. Packets are numbered across the stream's
 * files, in the order they are read.
 */
public final class PacketIndex {
    /** Where the index came from. */
    public enum Source {
        LTTNG_INDEX,
        PACKETS
    }

    private static final int IDX_MAGIC = 0xC1F1DCC1;
    private static final int IDX_HEADER_BYTES = 16;
    /** Entry size of index format 1.0: offset, packet and content size, two timestamps, discarded, stream id. */
    private static final int IDX_V1_0_ENTRY_BYTES = 56;

    private static final int IDX_V1_1_ENTRY_BYTES = 72;

    private final Source source;
    private int count;
    private int[] file = new int[16];
    private int[] numberInFile = new int[16];
    private long[] offsetBytes = new long[16];
    private long[] packetBits = new long[16];
    private long[] contentBits = new long[16];
    private long[] beginCycles = new long[16];
    private long[] endCycles = new long[16];
    private long[] beginNanos = new long[16];
    private long[] endNanos = new long[16];
    private long[] eventsDiscarded = new long[16];
    private long[] seqNum = new long[16];
    /** Time no event of the packet is later than: its end, or the next packet's beginning when the end is unknown. */
    private long[] latestNanos;

    private boolean latestSorted = true;
    private boolean timed = true;
    private boolean clockFromPacket;
    private StreamDecodingException damage;
    /** Packets that may still be added (shared with other indexes being built), or null for no limit. */
    private java.util.concurrent.atomic.AtomicLong budget;

    private PacketIndex(Source source) {
        this.source = source;
    }

    // ------------------------------------------------------------------ building

    /**
     * The index of one stream: from its LTTng index files when they are all there and agree
     * with the stream files, else by walking the packets (with a warning when index files
     * exist but cannot be trusted).
     */
    static PacketIndex of(TracePlan plan, List<StreamFile> files, Consumer<String> warnings) {
        return of(plan, files, warnings, null);
    }

    /** Thrown when an index would hold more packets than its budget allows. */
    private static final class OverBudget extends RuntimeException {
        OverBudget() {
            super(null, null, false, false);
        }
    }

    /**
     * Like {@link #of(TracePlan, List, Consumer)}, taking one from {@code budget} (shared by
     * the streams indexed together) per packet: null when it runs out.
     */
    static PacketIndex of(
            TracePlan plan,
            List<StreamFile> files,
            Consumer<String> warnings,
            java.util.concurrent.atomic.AtomicLong budget) {
        try {
            return build(plan, files, warnings, budget);
        } catch (OverBudget e) {
            return null;
        }
    }

    private static PacketIndex build(
            TracePlan plan,
            List<StreamFile> files,
            Consumer<String> warnings,
            java.util.concurrent.atomic.AtomicLong budget) {
        Path dir = files.getFirst().path().toAbsolutePath().getParent();
        boolean anyIndex = false;
        for (StreamFile f : files) {
            anyIndex |= Files.isRegularFile(indexFile(dir, f));
        }
        if (anyIndex) {
            String problem;
            try {
                PacketIndex idx = new PacketIndex(Source.LTTNG_INDEX);
                idx.budget = budget;
                problem = idx.readLttngIndexes(plan, files, dir);
                if (problem == null) {
                    return idx;
                }
            } catch (IOException e) {
                problem = e.getMessage();
            }
            warnings.accept(problem + "; indexing the stream from its packets instead");
        }
        return walk(plan, files, budget);
    }

    private static Path indexFile(Path dir, StreamFile f) {
        return dir.resolve("index").resolve(f.path().getFileName().toString() + ".idx");
    }

    /** Indexes a stream by reading the header and context of each packet, one after the other. */
    static PacketIndex walk(TracePlan plan, List<StreamFile> files) {
        return walk(plan, files, null);
    }

    private static PacketIndex walk(
            TracePlan plan, List<StreamFile> files, java.util.concurrent.atomic.AtomicLong budget) {
        PacketIndex idx = new PacketIndex(Source.PACKETS);
        idx.budget = budget;
        StreamDecoder d = new StreamDecoder(plan, files);
        try {
            int lastFile = -1;
            int inFile = 0;
            while (d.nextPacket()) {
                if (d.fileIndex() != lastFile) {
                    lastFile = d.fileIndex();
                    inFile = 0;
                }
                PacketInfo p = d.packet();
                while (d.pollDiscarded() != null) {
                    // losses are found again when the events are read
                }
                if (idx.count == 0) {
                    idx.clockFromPacket = beginSetsClock(d.streamPlan());
                }
                idx.add(
                        lastFile,
                        inFile++,
                        p.offsetBits() >>> 3,
                        p.packetBits(),
                        p.contentBits(),
                        p.timestampBegin(),
                        p.timestampEnd(),
                        p.eventsDiscarded(),
                        p.sequenceNumber(),
                        d.defaultClock());
            }
        } catch (StreamDecodingException e) {
            // The packets before the damage are indexed; reading from there reports the damage.
            idx.damage = e;
        }
        idx.trim();
        idx.budget = null;
        return idx;
    }

    /**
     * Whether a packet's timestamp_begin sets the whole clock (64 bits, mapped to the stream's
     * clock), so that decoding can start at that packet with the same times as a full read.
     */
    private static boolean beginSetsClock(StreamPlan sp) {
        if (sp == null || sp.packetContext == null || sp.defaultClock < 0) {
            return false;
        }
        for (Node n : sp.packetContext.children) {
            if (n.role == Node.ROLE_TIMESTAMP_BEGIN) {
                return n.size == 64 && !n.signed && n.clock == sp.defaultClock;
            }
        }
        return false;
    }

    /** Reads the index files of every file of the stream; returns why they cannot be used, or null. */
    private String readLttngIndexes(TracePlan plan, List<StreamFile> files, Path dir) throws IOException {
        for (int f = 0; f < files.size(); f++) {
            StreamFile sf = files.get(f);
            Path idxPath = indexFile(dir, sf);
            if (!Files.isRegularFile(idxPath)) {
                return idxPath + ": missing while other files of the stream have one";
            }
            // The probe decodes the file's first packet: it says which clock and fields the stream
            // has, and the index's first entry must agree with it.
            StreamDecoder probe = new StreamDecoder(plan, List.of(sf));
            PacketInfo first;
            try {
                if (!probe.nextPacket()) {
                    return sf.path() + ": empty, but " + idxPath + " exists";
                }
                first = probe.packet();
            } catch (StreamDecodingException e) {
                return e.getMessage();
            }
            if (f == 0) {
                clockFromPacket = beginSetsClock(probe.streamPlan());
            }
            String problem = readLttngIndex(idxPath, f, sf.segment().byteSize(), first, probe.defaultClock());
            if (problem != null) {
                return idxPath + ": " + problem;
            }
        }
        trim();
        return null;
    }

    private String readLttngIndex(Path idxPath, int fileIndex, long fileBytes, PacketInfo first, ClockClass clock)
            throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(idxPath)); // big-endian, as LTTng writes it
        if (b.remaining() < IDX_HEADER_BYTES) {
            return "too short for an index header";
        }
        int magic = b.getInt();
        int major = b.getInt();
        int minor = b.getInt();
        int entryBytes = b.getInt();
        if (magic != IDX_MAGIC) {
            return String.format("bad magic 0x%08X (expected 0x%08X)", magic, IDX_MAGIC);
        }
        if (major != 1) {
            return "index format " + major + "." + minor + " is not supported (1.x is)";
        }
        int needed = minor >= 1 ? IDX_V1_1_ENTRY_BYTES : IDX_V1_0_ENTRY_BYTES;
        if (entryBytes < needed) {
            return "entries of " + entryBytes + " bytes are too small for index format 1." + minor;
        }
        if ((b.remaining() % entryBytes) != 0) {
            return "its size is not a whole number of " + entryBytes + "-byte entries";
        }
        long expectedOffset = 0;
        int entries = b.remaining() / entryBytes;
        for (int i = 0; i < entries; i++) {
            int at = IDX_HEADER_BYTES + i * entryBytes;
            long offset = b.getLong(at);
            long size = b.getLong(at + 8);
            long content = b.getLong(at + 16);
            long tsBegin = b.getLong(at + 24);
            long tsEnd = b.getLong(at + 32);
            long disc = b.getLong(at + 40);
            long seq = minor >= 1 ? b.getLong(at + 64) : PacketInfo.ABSENT;
            if (offset != expectedOffset) {
                return "entry " + i + " says the packet starts at byte " + offset + ", but the previous one ends at "
                        + expectedOffset;
            }
            if (size <= 0
                    || (size & 7) != 0
                    || Long.compareUnsigned(content, size) > 0
                    || Long.compareUnsigned(size >>> 3, fileBytes - offset) > 0) {
                return "entry " + i + " has packet size " + Long.toUnsignedString(size) + " and content size "
                        + Long.toUnsignedString(content) + " bits, which do not fit the " + fileBytes
                        + "-byte stream file";
            }
            if (i == 0) {
                String mismatch = compare(first, size, content, tsBegin, tsEnd, disc, seq);
                if (mismatch != null) {
                    return "its first entry disagrees with the first packet of " + first.file() + " (" + mismatch + ")";
                }
            }
            add(
                    fileIndex,
                    i,
                    offset,
                    size,
                    content,
                    first.has(first.timestampBegin()) ? tsBegin : PacketInfo.ABSENT,
                    first.has(first.timestampEnd()) ? tsEnd : PacketInfo.ABSENT,
                    first.has(first.eventsDiscarded()) ? disc : PacketInfo.ABSENT,
                    first.has(first.sequenceNumber()) ? seq : PacketInfo.ABSENT,
                    clock);
            expectedOffset = offset + (size >>> 3);
        }
        if (expectedOffset != fileBytes) {
            return "its packets cover " + expectedOffset + " bytes of the " + fileBytes + "-byte stream file";
        }
        return null;
    }

    /** What differs between a decoded packet and an index entry, for the fields the packet has; null if nothing. */
    private static String compare(
            PacketInfo p, long size, long content, long tsBegin, long tsEnd, long disc, long seq) {
        if (p.packetBits() != size) {
            return "packet size " + p.packetBits() + " bits, index " + size;
        }
        if (p.contentBits() != content) {
            return "content size " + p.contentBits() + " bits, index " + content;
        }
        if (p.has(p.timestampBegin()) && p.timestampBegin() != tsBegin) {
            return "timestamp_begin " + Long.toUnsignedString(p.timestampBegin()) + ", index "
                    + Long.toUnsignedString(tsBegin);
        }
        if (p.has(p.timestampEnd()) && p.timestampEnd() != tsEnd) {
            return "timestamp_end " + Long.toUnsignedString(p.timestampEnd()) + ", index "
                    + Long.toUnsignedString(tsEnd);
        }
        if (p.has(p.eventsDiscarded()) && p.eventsDiscarded() != disc) {
            return "events_discarded " + p.eventsDiscarded() + ", index " + disc;
        }
        if (p.has(p.sequenceNumber()) && seq != PacketInfo.ABSENT && p.sequenceNumber() != seq) {
            return "packet_seq_num " + p.sequenceNumber() + ", index " + seq;
        }
        return null;
    }

    private void add(
            int fileIndex,
            int inFile,
            long offset,
            long size,
            long content,
            long tsBegin,
            long tsEnd,
            long disc,
            long seq,
            ClockClass clock) {
        if (budget != null && budget.decrementAndGet() < 0) {
            throw new OverBudget();
        }
        if (count == file.length) {
            int n = count * 2;
            file = Arrays.copyOf(file, n);
            numberInFile = Arrays.copyOf(numberInFile, n);
            offsetBytes = Arrays.copyOf(offsetBytes, n);
            packetBits = Arrays.copyOf(packetBits, n);
            contentBits = Arrays.copyOf(contentBits, n);
            beginCycles = Arrays.copyOf(beginCycles, n);
            endCycles = Arrays.copyOf(endCycles, n);
            beginNanos = Arrays.copyOf(beginNanos, n);
            endNanos = Arrays.copyOf(endNanos, n);
            eventsDiscarded = Arrays.copyOf(eventsDiscarded, n);
            seqNum = Arrays.copyOf(seqNum, n);
        }
        int i = count++;
        file[i] = fileIndex;
        numberInFile[i] = inFile;
        offsetBytes[i] = offset;
        packetBits[i] = size;
        contentBits[i] = content;
        beginCycles[i] = tsBegin;
        endCycles[i] = tsEnd;
        beginNanos[i] = toNanos(clock, tsBegin);
        endNanos[i] = toNanos(clock, tsEnd);
        eventsDiscarded[i] = disc;
        seqNum[i] = seq;
        if (beginNanos[i] == PacketInfo.ABSENT || endNanos[i] == PacketInfo.ABSENT) {
            timed = false;
        }
    }

    private static long toNanos(ClockClass clock, long cycles) {
        if (clock == null || cycles == PacketInfo.ABSENT) {
            return PacketInfo.ABSENT;
        }
        return clock.time(cycles);
    }

    /** Shrinks the arrays to the packets found and works out {@link #latestNanos}. */
    private void trim() {
        latestNanos = new long[count];
        for (int i = 0; i < count; i++) {
            // A crashed LTTng session leaves timestamp_end at 0 in the packets it did not close.
            boolean endUnknown = endCycles[i] == 0 && beginCycles[i] != 0;
            latestNanos[i] = !endUnknown ? endNanos[i] : i + 1 < count ? beginNanos[i + 1] : Long.MAX_VALUE;
            if (i > 0 && latestNanos[i] < latestNanos[i - 1]) {
                latestSorted = false;
            }
        }
        file = Arrays.copyOf(file, count);
        numberInFile = Arrays.copyOf(numberInFile, count);
        offsetBytes = Arrays.copyOf(offsetBytes, count);
        packetBits = Arrays.copyOf(packetBits, count);
        contentBits = Arrays.copyOf(contentBits, count);
        beginCycles = Arrays.copyOf(beginCycles, count);
        endCycles = Arrays.copyOf(endCycles, count);
        beginNanos = Arrays.copyOf(beginNanos, count);
        endNanos = Arrays.copyOf(endNanos, count);
        eventsDiscarded = Arrays.copyOf(eventsDiscarded, count);
        seqNum = Arrays.copyOf(seqNum, count);
    }

    // ------------------------------------------------------------------ queries

    public Source source() {
        return source;
    }

    /** Number of packets indexed (those before the damage, if any). */
    public int size() {
        return count;
    }

    /** Index of the packet's file among the stream's files. */
    public int file(int packet) {
        return file[packet];
    }

    /** 0-based number of the packet within its file. */
    public int numberInFile(int packet) {
        return numberInFile[packet];
    }

    public long offsetBytes(int packet) {
        return offsetBytes[packet];
    }

    public long packetBits(int packet) {
        return packetBits[packet];
    }

    public long contentBits(int packet) {
        return contentBits[packet];
    }

    /** timestamp_begin in clock cycles, as written. */
    public long beginCycles(int packet) {
        return beginCycles[packet];
    }

    public long endCycles(int packet) {
        return endCycles[packet];
    }

    /** timestamp_begin in nanoseconds from the epoch. */
    public long beginNanos(int packet) {
        return beginNanos[packet];
    }

    public long endNanos(int packet) {
        return endNanos[packet];
    }

    public long eventsDiscarded(int packet) {
        return eventsDiscarded[packet];
    }

    public long sequenceNumber(int packet) {
        return seqNum[packet];
    }

    /** Why indexing stopped before the end of the stream, or null when every packet is indexed. */
    public StreamDecodingException damage() {
        return damage;
    }

    /**
     * Whether decoding can start at any packet with the same result as a full read from the
     * start: every packet has a time range and its timestamp_begin sets the whole clock.
     */
    public boolean seekable() {
        return timed && clockFromPacket && count > 0;
    }

    /**
     * The first packet whose timestamp_end is at or after {@code nanos} ({@link #size()} if
     * none): the events before {@code nanos} all lie in earlier packets. A packet whose end a
     * crash left unknown (0) ends, for this purpose, where the next one begins. Binary search
     * when the end times never go back, as they should.
     */
    public int firstEndingAtOrAfter(long nanos) {
        long[] endNanos = latestNanos;
        if (latestSorted) {
            int lo = 0;
            int hi = count;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (endNanos[mid] < nanos) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
        for (int i = 0; i < count; i++) {
            if (endNanos[i] >= nanos) {
                return i;
            }
        }
        return count;
    }
}
