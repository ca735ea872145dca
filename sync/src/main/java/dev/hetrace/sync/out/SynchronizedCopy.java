package dev.hetrace.sync.out;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.decode.PacketInfo;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.sync.ClockTransform;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.stream.Stream;

/**
 * Writes a copy of a trace that every CTF reader, babeltrace2 included, shows on the reference
 * clock ({@code hetrace sync ... --out DIR}). A linear transform goes into the clock blocks of
 * the metadata, the stream files copied byte for byte; when the integer frequency CTF demands
 * cannot carry the slope closely enough, or the map is not linear, the timestamps in the
 * packets are rewritten instead and the metadata is kept.
 */
public final class SynchronizedCopy {
    /** Largest representation error (ns) the metadata route may introduce when the route is chosen automatically. */
    public static final long METADATA_TOLERANCE_NANOS = 1;

    /** How the copy carries the new times. */
    public enum Method {
        /** The clock blocks' {@code freq}, {@code offset_s} and {@code offset} are rewritten; the data is untouched. */
        METADATA,
        /**
         * Every clock field of every packet is rewritten; the metadata is untouched, except for the
         * offset of a clock whose origin the new times would precede (moved back by whole seconds).
         */
        PACKETS
    }

    /**
     * How to write a copy.
     *
     * @param method         the route, or null to take the metadata route when it is within
     *                       {@link #METADATA_TOLERANCE_NANOS} over the trace's time span, else the packets
     * @param absoluteClocks also say {@code absolute = true} in the copy's clock blocks: CTF's word
     *                       for a clock that is a global reference across clock UUIDs, which a
     *                       synchronized copy's clock is; babeltrace2 then reads the copies of traces
     *                       of different clocks together (else it refuses unless told
     *                       {@code --clock-force-correlate}). Off, the metadata keeps its word.
     */
    public record Options(Method method, boolean absoluteClocks) {
        /** Choose the route; the metadata changes no more than the times need. */
        public static final Options DEFAULT = new Options(null, false);

        public Options with(Method m) {
            return new Options(m, absoluteClocks);
        }
    }

    private SynchronizedCopy() {
    }

    /**
     * Writes the copy of the trace at {@code traceDir} into {@code outDir} (absent or empty),
     * through the metadata when that is within {@link #METADATA_TOLERANCE_NANOS} over the
     * trace's time span, else through the packets.
     */
    public static CopyReport write(Path traceDir, ClockTransform transform, Path outDir)
            throws IOException, SynchronizedCopyException {
        return write(traceDir, transform, outDir, Options.DEFAULT);
    }

    /** Like {@link #write(Path, ClockTransform, Path)} through the given route. */
    public static CopyReport write(Path traceDir, ClockTransform transform, Path outDir, Method method)
            throws IOException, SynchronizedCopyException {
        return write(traceDir, transform, outDir, Options.DEFAULT.with(method));
    }

    /** Writes the copy of the trace at {@code traceDir} into {@code outDir} (absent or empty) as {@code options} say. */
    public static CopyReport write(Path traceDir, ClockTransform transform, Path outDir, Options options)
            throws IOException, SynchronizedCopyException {
        prepareOutput(traceDir, outDir);
        try (CtfTrace trace = open(traceDir)) {
            Method method = options.method();
            if (method != Method.PACKETS) {
                Map<String, ClockFit> fits = fits(trace, transform);
                long error = 0;
                for (ClockFit f : fits.values()) {
                    error = Math.max(error, f.maxErrorWholeNanos());
                }
                if (fits.isEmpty() && method == Method.METADATA) {
                    throw new SynchronizedCopyException(traceDir + ": the trace's timestamps use no clock its"
                        + " metadata declares, so the metadata cannot carry the transform");
                }
                if (method == Method.METADATA || (!fits.isEmpty() && error <= METADATA_TOLERANCE_NANOS)) {
                    return viaMetadata(trace, fits, outDir, error, options.absoluteClocks());
                }
            }
            return viaPackets(trace, transform::apply, outDir, options.absoluteClocks());
        } catch (IOException | SynchronizedCopyException | RuntimeException e) {
            deleteQuietly(outDir);
            throw e;
        }
    }

    /**
     * Writes the copy of the trace at {@code traceDir} into {@code outDir} (absent or empty) by
     * rewriting the timestamps in its packets: each time {@code t} (ns from the epoch, as readers
     * compute it) becomes {@code map(t)}. The map must not decrease.
     */
    public static CopyReport write(Path traceDir, LongUnaryOperator map, Path outDir)
            throws IOException, SynchronizedCopyException {
        return write(traceDir, map, outDir, false);
    }

    /** Like {@link #write(Path, LongUnaryOperator, Path)}, saying {@code absolute = true} if asked (see {@link Options}). */
    public static CopyReport write(Path traceDir, LongUnaryOperator map, Path outDir, boolean absoluteClocks)
            throws IOException, SynchronizedCopyException {
        prepareOutput(traceDir, outDir);
        try (CtfTrace trace = open(traceDir)) {
            return viaPackets(trace, map, outDir, absoluteClocks);
        } catch (IOException | SynchronizedCopyException | RuntimeException e) {
            deleteQuietly(outDir);
            throw e;
        }
    }

    // ------------------------------------------------------------------ routes

    private static CopyReport viaMetadata(CtfTrace trace, Map<String, ClockFit> fits, Path outDir, long error,
                                          boolean absolute) throws IOException, SynchronizedCopyException {
        Path src = trace.directory();
        List<Path> written = copyTree(src, outDir, p -> !p.toString().equals("metadata"));
        Map<String, Map<String, String>> edits = new LinkedHashMap<>();
        fits.forEach((name, f) -> edits.put(name, f.attributes()));
        List<String> notes = new ArrayList<>();
        if (absolute) {
            markAbsolute(trace, edits, notes);
        }
        writeMetadata(src, outDir, edits);
        written.add(Path.of("metadata"));
        for (ClockFit f : fits.values()) {
            ClockClass old = trace.metadata().clocks().get(f.clock());
            notes.add("clock " + f.clock() + ": freq " + old.frequency() + " -> " + f.frequency() + ", offset_s "
                + old.offsetSeconds() + " -> " + f.offsetSeconds() + ", offset " + old.offsetCycles() + " -> "
                + f.offsetCycles() + " (at most " + f.maxErrorNanos().toPlainString() + " ns from the transform)");
        }
        return new CopyReport(outDir, Method.METADATA, error, sorted(written), notes);
    }

    /** Adds {@code absolute = true} to the edits of every clock block of the trace. */
    private static void markAbsolute(CtfTrace trace, Map<String, Map<String, String>> edits, List<String> notes) {
        for (String name : trace.metadata().clocks().keySet()) {
            edits.computeIfAbsent(name, k -> new LinkedHashMap<>()).put("absolute", "true");
            notes.add("clock " + name + ": absolute = true");
        }
    }

    private static void writeMetadata(Path src, Path outDir, Map<String, Map<String, String>> edits)
            throws IOException, SynchronizedCopyException {
        byte[] metadata = Files.readAllBytes(src.resolve("metadata"));
        try {
            Files.write(outDir.resolve("metadata"), MetadataClocks.rewrite(metadata, edits));
        } catch (MetadataException e) {
            throw new SynchronizedCopyException(src.resolve("metadata") + ": " + e.getMessage(), e);
        }
    }

    private static CopyReport viaPackets(CtfTrace trace, LongUnaryOperator map, Path outDir, boolean absolute)
            throws IOException, SynchronizedCopyException {
        Path src = trace.directory();
        List<String> notes = new ArrayList<>();
        // A clock value cannot be negative: when the map moves times before a clock's origin
        // (a reference clock hours behind), the origin moves back by whole seconds, which keeps
        // the clock values' fractions and their gaps (what partial timestamps hold) as they were.
        long[] span = span(trace);
        List<ClockClass> newClocks = new ArrayList<>();
        Map<String, Map<String, String>> edits = new LinkedHashMap<>();
        for (ClockClass c : trace.plan().clocks) {
            ClockClass n = c;
            if (span != null && map.applyAsLong(span[0]) < c.baseOffsetNanos()) {
                if (!trace.metadata().clocks().containsKey(c.name())) {
                    throw new SynchronizedCopyException(src + ": the new times are before the origin of the trace's"
                        + " implicit clock, and there is no clock block whose offset could move");
                }
                long seconds = Math.floorDiv(map.applyAsLong(span[0]) - span[0], 1_000_000_000L);
                n = new ClockClass(c.name(), c.description(), c.uuid(), c.frequency(), c.precision(),
                    c.offsetSeconds() + seconds, c.offsetCycles(), c.absolute());
                // Both, normalised: a block may say its whole offset in cycles (LTTng's "offset = 1565056443054742594").
                Map<String, String> e = edits.computeIfAbsent(c.name(), k -> new LinkedHashMap<>());
                e.put("offset_s", Long.toString(n.offsetSeconds()));
                e.put("offset", Long.toString(n.offsetCycles()));
                notes.add("clock " + c.name() + ": offset_s " + c.offsetSeconds() + " -> " + n.offsetSeconds()
                    + " (the new times are before its origin)");
            }
            newClocks.add(n);
        }
        if (absolute) {
            markAbsolute(trace, edits, notes);
        }
        // LTTng index files hold packet times too: they are written with the packets' new ones.
        List<Path> written = copyTree(src, outDir, p -> !p.startsWith("index")
            && (edits.isEmpty() || !p.toString().equals("metadata")));
        if (!edits.isEmpty()) {
            writeMetadata(src, outDir, edits);
            written.add(Path.of("metadata"));
        }
        PacketRetiming retiming = new PacketRetiming(trace, map, outDir, newClocks);
        try {
            retiming.run();
            written.addAll(retiming.rewriteIndexes(src));
            retiming.verify();
        } catch (StreamDecodingException e) {
            throw new SynchronizedCopyException(e.getMessage(), e);
        }
        return new CopyReport(outDir, Method.PACKETS, retiming.maxErrorNanos(), sorted(written), notes);
    }

    // ------------------------------------------------------------------ the metadata route's fit

    /** The new clock block of every clock the trace's streams use, fitted over the trace's time span. */
    private static Map<String, ClockFit> fits(CtfTrace trace, ClockTransform transform)
            throws IOException, SynchronizedCopyException {
        long[] span = span(trace);
        Map<String, ClockFit> fits = new LinkedHashMap<>();
        for (ClockClass clock : trace.plan().clocks) {
            if (!trace.metadata().clocks().containsKey(clock.name())) {
                return Map.of(); // babeltrace2's implicit clock: no block to rewrite
            }
            long first = span == null ? clock.baseOffsetNanos() : span[0];
            long last = span == null ? first : span[1];
            try {
                fits.put(clock.name(), ClockFit.of(clock, transform, first, last));
            } catch (ArithmeticException e) {
                throw new SynchronizedCopyException(trace.directory() + ": " + e.getMessage(), e);
            }
        }
        return fits;
    }

    /**
     * The first and last times (ns) of the trace, from its packets' begin and end times, or
     * from its events in packets that have none; null when it has no time at all.
     */
    private static long[] span(CtfTrace trace) throws SynchronizedCopyException {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        try {
            for (int s = 0; s < trace.streamCount(); s++) {
                StreamDecoder d = trace.decoder(s);
                while (d.nextPacket()) {
                    ClockClass clock = d.defaultClock();
                    if (clock == null) {
                        break;
                    }
                    PacketInfo p = d.packet();
                    long lo = Long.MAX_VALUE;
                    long hi = Long.MIN_VALUE;
                    if (p.has(p.timestampBegin()) && p.has(p.timestampEnd()) && p.timestampEnd() != 0) {
                        lo = clock.nanosFromOrigin(p.timestampBegin());
                        hi = clock.nanosFromOrigin(p.timestampEnd());
                    } else {
                        long end = p.offsetBits() + p.contentBits();
                        while (d.position() < end && d.next()) {
                            long t = clock.nanosFromOrigin(d.clockValue());
                            lo = Math.min(lo, t);
                            hi = Math.max(hi, t);
                        }
                    }
                    first = Math.min(first, lo);
                    last = Math.max(last, hi);
                }
            }
        } catch (StreamDecodingException | ArithmeticException e) {
            throw new SynchronizedCopyException(trace.directory() + ": " + e.getMessage(), e);
        }
        return first <= last ? new long[] {first, last} : null;
    }

    // ------------------------------------------------------------------ files

    private static CtfTrace open(Path traceDir) throws IOException, SynchronizedCopyException {
        try {
            return CtfTrace.open(traceDir, w -> { });
        } catch (MetadataException | StreamDecodingException e) {
            throw new SynchronizedCopyException(traceDir + ": " + e.getMessage(), e);
        }
    }

    private static void prepareOutput(Path traceDir, Path outDir) throws IOException, SynchronizedCopyException {
        Path in = traceDir.toAbsolutePath().normalize();
        Path out = outDir.toAbsolutePath().normalize();
        if (out.startsWith(in) || in.startsWith(out)) {
            throw new SynchronizedCopyException(outDir + ": the output directory may not be in the trace directory "
                + traceDir + " or hold it");
        }
        if (Files.exists(outDir)) {
            if (!Files.isDirectory(outDir)) {
                throw new SynchronizedCopyException(outDir + ": exists and is not a directory");
            }
            try (Stream<Path> entries = Files.list(outDir)) {
                if (entries.findAny().isPresent()) {
                    throw new SynchronizedCopyException(outDir + ": output directory exists and is not empty;"
                        + " give a new or empty directory");
                }
            }
        }
        Files.createDirectories(outDir);
    }

    /**
     * Copies the trace's files that {@code keep} accepts (by relative path): those of its
     * directory and of its {@code index/}; other folders (traces of their own) are not this
     * trace's. Returns their relative paths.
     */
    private static List<Path> copyTree(Path src, Path dst, java.util.function.Predicate<Path> keep) throws IOException {
        List<Path> written = new ArrayList<>();
        Files.walkFileTree(src, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path rel = src.relativize(dir);
                if (!rel.toString().isEmpty() && (!keep.test(rel) || !rel.startsWith("index"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(dst.resolve(rel.toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path rel = src.relativize(file);
                if (keep.test(rel)) {
                    Files.copy(file, dst.resolve(rel.toString()));
                    written.add(rel);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return written;
    }

    private static List<Path> sorted(List<Path> paths) {
        List<Path> out = new ArrayList<>(paths);
        out.sort(Comparator.comparing(Path::toString));
        return out;
    }

    /** Removes what a failed copy wrote (the directory was absent or empty before). */
    private static void deleteQuietly(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException ignored) {
                    // best effort: the original error matters more
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
