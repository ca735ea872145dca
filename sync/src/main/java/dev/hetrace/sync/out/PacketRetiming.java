package dev.hetrace.sync.out;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.ClockFields;
import dev.hetrace.ctf.decode.ClockFields.ClockField;
import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.write.BitWriter;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * Moves every time of a trace's stream files to another clock by rewriting, in copies of the
 * files, each integer that samples a clock (packet begin and end times, event header
 * timestamps full or partial, any other field mapped to a clock), and the packet times of its
 * LTTng index files. Before a packet is written, the new values are decoded the way readers will decode them, so a
 * partial timestamp that cannot span its new gap is an error rather than a wrong trace; once
 * written, the copy is read back and every clock field checked against the value meant for it.
 */
final class PacketRetiming {
    private static final BigInteger NS_PER_S = BigInteger.valueOf(1_000_000_000L);

    private final CtfTrace trace;
    private final LongUnaryOperator map;
    private final Path outDir;
    /** The clocks as the copy's metadata declares them, by index in the plan (their origin may have moved). */
    private final List<ClockClass> newClocks;
    /**
     * The new begin and end (cycles, or ABSENT) of each packet, by stream file name, then by byte
     * offset; null when the trace has no index files to rewrite.
     */
    private final Map<String, Map<Long, long[]>> packetTimes;
    /** Largest distance (ns) between a time readers will compute from the copy and the map's time. */
    private long maxErrorNanos;

    PacketRetiming(CtfTrace trace, LongUnaryOperator map, Path outDir, List<ClockClass> newClocks) {
        this.trace = trace;
        this.map = map;
        this.outDir = outDir;
        this.newClocks = newClocks;
        this.packetTimes = Files.isDirectory(trace.directory().resolve("index")) ? new HashMap<>() : null;
    }

    long maxErrorNanos() {
        return maxErrorNanos;
    }

    /** Rewrites every stream of the trace into files of {@code outDir} that already hold copies of the originals. */
    void run() throws IOException, StreamDecodingException, SynchronizedCopyException {
        for (int s = 0; s < trace.streamCount(); s++) {
            retimeStream(trace.decoder(s));
        }
    }

    /** What the stream's clock is, in the copy, as a reader follows it; and the last time seen, for monotonicity. */
    private static final class StreamState {
        long newClock;
        boolean any;
        long lastOldNanos;
        long lastNewNanos;
        PacketInfo packet;
        byte[] bytes;
        boolean changed;
        long newBegin = PacketInfo.ABSENT;
        long newEnd = PacketInfo.ABSENT;

        String where(ClockField f) {
            return packet.file() + ": packet " + packet.number() + " at bit " + f.bitOffset();
        }
    }

    private void retimeStream(StreamDecoder d) throws IOException, StreamDecodingException, SynchronizedCopyException {
        StreamState st = new StreamState();
        Map<Path, FileChannel> channels = new HashMap<>();
        try {
            while (d.nextPacket()) {
                PacketInfo p = d.packet();
                endOfPreviousPacket(st, d);
                st.packet = p;
                st.newBegin = PacketInfo.ABSENT;
                st.newEnd = PacketInfo.ABSENT;
                long bytes = p.packetBits() / 8;
                if (bytes > Integer.MAX_VALUE - 16) {
                    throw new SynchronizedCopyException(p.file() + ": packet " + p.number() + " is larger than 2 GiB,"
                            + " which packet rewriting does not handle");
                }
                st.bytes = new byte[(int) bytes];
                MemorySegment.copy(
                        d.segment(), ValueLayout.JAVA_BYTE, p.offsetBits() / 8, st.bytes, 0, st.bytes.length);
                st.changed = false;
                List<ClockField> fields = new ArrayList<>();
                ClockFields.ofPacket(d, fields::add);
                long end = p.offsetBits() + p.contentBits();
                while (d.position() < end && d.next()) {
                    ClockFields.ofEvent(d, fields::add);
                }
                for (ClockField f : fields) {
                    retime(d, st, f);
                }
                if (packetTimes != null) {
                    packetTimes
                            .computeIfAbsent(p.file().getFileName().toString(), k -> new HashMap<>())
                            .put(p.offsetBits() / 8, new long[] {st.newBegin, st.newEnd});
                }
                if (st.changed) {
                    FileChannel ch = channels.get(p.file());
                    if (ch == null) {
                        ch = FileChannel.open(outDir.resolve(p.file().getFileName()), StandardOpenOption.WRITE);
                        channels.put(p.file(), ch);
                    }
                    ByteBuffer buf = ByteBuffer.wrap(st.bytes);
                    long at = p.offsetBits() / 8;
                    try {
                        while (buf.hasRemaining()) {
                            at += ch.write(buf, at);
                        }
                    } catch (IOException e) {
                        throw CopyFiles.writing(outDir.resolve(p.file().getFileName()), e);
                    }
                }
            }
        } finally {
            for (FileChannel ch : channels.values()) {
                ch.close();
            }
        }
    }

    /**
     * A reader moves the clock to a packet's timestamp_end when the packet ends, unless that
     * moves it back or the end is 0 (a crashed LTTng session); the copy's clock follows it so
     * that the partial timestamps of the next packet are checked against what readers will have.
     */
    private static void endOfPreviousPacket(StreamState st, StreamDecoder d) {
        if (st.packet == null || st.newEnd == PacketInfo.ABSENT || d.defaultClock() == null) {
            return;
        }
        boolean crashed = st.newEnd == 0 && st.newBegin != PacketInfo.ABSENT && st.newBegin != 0;
        if (!crashed && Long.compareUnsigned(st.newEnd, st.newClock) >= 0) {
            st.newClock = st.newEnd;
        }
    }

    /** Whether a field keeps its value: a crashed session's end of 0 means "unknown" to readers, and stays so. */
    private static boolean kept(PacketInfo p, ClockField f) {
        boolean crashedEnd = f.role() == Node.ROLE_TIMESTAMP_END
                && f.raw() == 0
                && p.has(p.timestampBegin())
                && p.timestampBegin() != 0;
        return crashedEnd || (f.signed() && f.raw() < 0);
    }

    private static long oldNanos(StreamDecoder d, StreamState st, ClockField f) throws SynchronizedCopyException {
        try {
            return d.plan().clocks.get(f.clock()).nanosFromOrigin(f.cycles());
        } catch (ArithmeticException e) {
            throw new SynchronizedCopyException(st.where(f) + ": " + e.getMessage(), e);
        }
    }

    private void retime(StreamDecoder d, StreamState st, ClockField f) throws SynchronizedCopyException {
        PacketInfo p = st.packet;
        if (kept(p, f)) {
            note(st, f, f.raw());
            return;
        }
        long oldNanos = oldNanos(d, st, f);
        long newNanos = map.applyAsLong(oldNanos);
        if (st.any && Long.compare(oldNanos, st.lastOldNanos) >= 0 && newNanos < st.lastNewNanos) {
            throw new SynchronizedCopyException(
                    "the time map is not monotonic: it maps " + st.lastOldNanos + " ns to " + st.lastNewNanos
                            + " ns but the later " + oldNanos + " ns to " + newNanos + " ns (" + st.where(f) + ")");
        }
        st.any = true;
        st.lastOldNanos = oldNanos;
        st.lastNewNanos = newNanos;
        long cycles = cyclesAt(newClocks.get(f.clock()), newNanos, st, f);
        long raw = f.size() == 64 ? cycles : cycles & ((1L << f.size()) - 1);
        if (f.setsClock()) {
            long decoded = ClockFields.updated(st.newClock, raw, f.size());
            if (decoded != cycles) {
                long gap = cycles - st.newClock;
                throw new SynchronizedCopyException(st.where(f) + ": the " + f.size() + "-bit clock field cannot"
                        + " hold the new time " + newNanos + " ns: "
                        + (gap < 0
                                ? "it is before the previous clock value"
                                : "its gap of " + Long.toUnsignedString(gap)
                                        + " cycles from the previous clock value is more" + " than the field can span ("
                                        + Long.toUnsignedString(1L << f.size()) + " cycles)")
                        + "; this trace cannot be synchronized by rewriting its packets");
            }
            st.newClock = decoded;
        } else if (f.size() < 64 && (cycles >>> (f.signed() ? f.size() - 1 : f.size())) != 0) {
            throw new SynchronizedCopyException(st.where(f) + ": the " + f.size() + "-bit clock field cannot hold the"
                    + " new clock value " + Long.toUnsignedString(cycles));
        }
        note(st, f, cycles);
        long oldRaw = f.size() == 64 ? f.raw() : f.raw() & ((1L << f.size()) - 1);
        if (raw != oldRaw) {
            BitWriter.put(st.bytes, f.bitOffset() - p.offsetBits(), raw, f.size(), f.bigEndian());
            st.changed = true;
        }
    }

    /** LTTng index files: a 16-byte header (magic, version, entry size), then big-endian entries. */
    private static final int IDX_MAGIC = 0xC1F1DCC1;

    private static final int IDX_HEADER_BYTES = 16;
    private static final int IDX_MIN_ENTRY_BYTES = 56;

    /**
     * Writes the trace's LTTng index files ({@code index/FILE.idx}) into the copy with each
     * packet's new begin and end times (they are the packet context's, in cycles); an index file
     * that is not one is left out, as readers would ignore it.
     *
     * @return the index files written, relative to the copy
     */
    List<Path> rewriteIndexes(Path traceDir) throws IOException {
        Path index = traceDir.resolve("index");
        List<Path> written = new ArrayList<>();
        if (packetTimes == null) {
            return written;
        }
        try (var files = Files.list(index)) {
            for (Path idx : files.sorted().toList()) {
                String name = idx.getFileName().toString();
                if (!name.endsWith(".idx") || !Files.isRegularFile(idx)) {
                    continue;
                }
                ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(idx));
                if (b.remaining() < IDX_HEADER_BYTES || b.getInt(0) != IDX_MAGIC) {
                    continue;
                }
                int entryBytes = b.getInt(12);
                if (entryBytes < IDX_MIN_ENTRY_BYTES) {
                    continue;
                }
                Map<Long, long[]> times = packetTimes.getOrDefault(name.substring(0, name.length() - 4), Map.of());
                for (int at = IDX_HEADER_BYTES; at + entryBytes <= b.limit(); at += entryBytes) {
                    long[] t = times.get(b.getLong(at));
                    if (t != null) {
                        if (t[0] != PacketInfo.ABSENT) {
                            b.putLong(at + 24, t[0]);
                        }
                        if (t[1] != PacketInfo.ABSENT) {
                            b.putLong(at + 32, t[1]);
                        }
                    }
                }
                Path out = outDir.resolve("index").resolve(name);
                Files.createDirectories(out.getParent());
                try {
                    Files.write(out, b.array());
                } catch (IOException e) {
                    throw CopyFiles.writing(out, e);
                }
                written.add(Path.of("index", name));
            }
        }
        return written;
    }

    /**
     * Reads the copy back with {@code metadata} (the copy's, in the trace's CTF version), stream
     * by stream alongside the original, and checks that every clock field decodes (partial
     * timestamps included, as readers follow them) to the value meant for it. The copy has no
     * metadata file yet: its stream files are read as the trace's are grouped.
     */
    void verify(byte[] metadata) throws IOException, StreamDecodingException, SynchronizedCopyException {
        try (Arena arena = Arena.ofConfined()) {
            TracePlan plan = TracePlan.compile(MetadataReader.parse(metadata, w -> {}));
            List<List<StreamDecoder.StreamFile>> copy = CopyFiles.copyStreams(trace, outDir, arena);
            for (int s = 0; s < trace.streamCount(); s++) {
                StreamDecoder a = trace.decoder(s);
                StreamDecoder b = new StreamDecoder(plan, copy.get(s));
                StreamState st = new StreamState();
                List<ClockField> fa = new ArrayList<>();
                List<ClockField> fb = new ArrayList<>();
                while (a.nextPacket()) {
                    if (!b.nextPacket()) {
                        throw new SynchronizedCopyException(
                                outDir + ": the copy of stream " + s + " has fewer packets");
                    }
                    st.packet = b.packet();
                    fa.clear();
                    fb.clear();
                    ClockFields.ofPacket(a, fa::add);
                    ClockFields.ofPacket(b, fb::add);
                    long end = a.packet().offsetBits() + a.packet().contentBits();
                    while (a.position() < end && a.next()) {
                        if (!b.next()) {
                            throw new SynchronizedCopyException(st.packet.file() + ": packet " + st.packet.number()
                                    + " has fewer events than the original's");
                        }
                        ClockFields.ofEvent(a, fa::add);
                        ClockFields.ofEvent(b, fb::add);
                    }
                    if (fa.size() != fb.size()) {
                        throw new SynchronizedCopyException(st.packet.file() + ": packet " + st.packet.number()
                                + " has " + fb.size() + " clock fields, the original's " + fa.size());
                    }
                    for (int k = 0; k < fa.size(); k++) {
                        ClockField f = fb.get(k);
                        long want = kept(a.packet(), fa.get(k))
                                ? fa.get(k).raw()
                                : cyclesAt(
                                        newClocks.get(f.clock()), map.applyAsLong(oldNanos(a, st, fa.get(k))), st, f);
                        if (f.cycles() != want) {
                            throw new SynchronizedCopyException(st.where(f) + ": the copy decodes to clock value "
                                    + Long.toUnsignedString(f.cycles()) + " instead of " + Long.toUnsignedString(want));
                        }
                    }
                }
                if (b.nextPacket()) {
                    throw new SynchronizedCopyException(outDir + ": the copy of stream " + s + " has more packets");
                }
            }
        } catch (MetadataException e) {
            throw new SynchronizedCopyException(outDir + ": " + e.getMessage(), e);
        }
    }

    private static void note(StreamState st, ClockField f, long cycles) {
        if (f.role() == Node.ROLE_TIMESTAMP_BEGIN) {
            st.newBegin = cycles;
        } else if (f.role() == Node.ROLE_TIMESTAMP_END) {
            st.newEnd = cycles;
        }
    }

    /** The clock value whose time, as readers compute it, is nearest {@code nanos}. */
    private long cyclesAt(ClockClass clock, long nanos, StreamState st, ClockField f) throws SynchronizedCopyException {
        long base = clock.baseOffsetNanos();
        if (base == Long.MIN_VALUE || nanos < base) {
            throw new SynchronizedCopyException(st.where(f) + ": the new time " + nanos + " ns is before the origin of"
                    + " clock " + clock.name() + " (" + base + " ns), which no clock value can express");
        }
        long rel = nanos - base;
        if (clock.frequency() == 1_000_000_000L) {
            return rel;
        }
        long guess = BigInteger.valueOf(rel)
                .multiply(BigInteger.valueOf(clock.frequency()))
                .divide(NS_PER_S)
                .longValue();
        long best = guess;
        long bestError = Long.MAX_VALUE;
        // Readers convert through a double and truncate: the nearest value is among the neighbours.
        for (long c = Math.max(0, guess - 2); c <= guess + 2; c++) {
            long error = Math.abs(base + clock.cyclesToNanos(c) - nanos);
            if (error < bestError) {
                best = c;
                bestError = error;
            }
        }
        maxErrorNanos = Math.max(maxErrorNanos, bestError);
        return best;
    }
}
