package dev.hetrace.sync.out;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.ctf.write.Ctf2Writer;
import dev.hetrace.ctf.write.CtfVersion;
import dev.hetrace.ctf.write.TsdlWriter;
import dev.hetrace.sync.ClockTransform;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongUnaryOperator;

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
     * @param version        the CTF version of the copy's metadata, or null for the trace's own
     * @param metadataName   the name the copy's metadata file is written under: {@code metadata},
     *                       or another name for a caller that renames it once the copy is where it
     *                       belongs (readers take a folder for a trace only by its {@code metadata})
     */
    public record Options(Method method, boolean absoluteClocks, CtfVersion version, String metadataName) {
        /** Choose the route; the metadata changes no more than the times need. */
        public static final Options DEFAULT = new Options(null, false);

        /** The copy's metadata in the trace's own CTF version, as {@code metadata}. */
        public Options(Method method, boolean absoluteClocks) {
            this(method, absoluteClocks, null, "metadata");
        }

        public Options {
            if (metadataName == null || metadataName.isEmpty() || metadataName.contains("/")) {
                throw new IllegalArgumentException("metadata file name '" + metadataName + "'");
            }
        }

        public Options with(Method m) {
            return new Options(m, absoluteClocks, version, metadataName);
        }

        /** The copy's metadata in CTF {@code v} (null: the trace's own version). */
        public Options in(CtfVersion v) {
            return new Options(method, absoluteClocks, v, metadataName);
        }

        /** The copy's metadata written as {@code name} instead of {@code metadata}. */
        public Options metadataAs(String name) {
            return new Options(method, absoluteClocks, version, name);
        }
    }

    private SynchronizedCopy() {}

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

    /**
     * Writes the copy of the trace at {@code traceDir} into {@code outDir} (absent or empty) as {@code options} say.
     * Every stream file is written before the metadata: a copy cut short holds no {@code metadata}
     * file, and no reader takes it for a trace.
     */
    public static CopyReport write(Path traceDir, ClockTransform transform, Path outDir, Options options)
            throws IOException, SynchronizedCopyException {
        CopyFiles.prepareOutput(traceDir, outDir);
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
                    return viaMetadata(trace, fits, outDir, error, options);
                }
            }
            return viaPackets(trace, transform::apply, outDir, options);
        } catch (IOException | SynchronizedCopyException | RuntimeException e) {
            CopyFiles.deleteQuietly(outDir);
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
        return write(traceDir, map, outDir, new Options(Method.PACKETS, absoluteClocks));
    }

    /** Like {@link #write(Path, LongUnaryOperator, Path)}, as {@code options} say (the route is the packets). */
    public static CopyReport write(Path traceDir, LongUnaryOperator map, Path outDir, Options options)
            throws IOException, SynchronizedCopyException {
        CopyFiles.prepareOutput(traceDir, outDir);
        try (CtfTrace trace = open(traceDir)) {
            return viaPackets(trace, map, outDir, options);
        } catch (IOException | SynchronizedCopyException | RuntimeException e) {
            CopyFiles.deleteQuietly(outDir);
            throw e;
        }
    }

    // ------------------------------------------------------------------ routes

    private static CopyReport viaMetadata(
            CtfTrace trace, Map<String, ClockFit> fits, Path outDir, long error, Options options)
            throws IOException, SynchronizedCopyException {
        Path src = trace.directory();
        List<Path> written = CopyFiles.copyTree(src, outDir, p -> !p.toString().equals("metadata"));
        Map<String, Map<String, String>> edits = new LinkedHashMap<>();
        fits.forEach((name, f) -> edits.put(name, f.attributes()));
        List<String> notes = new ArrayList<>();
        if (options.absoluteClocks()) {
            markAbsolute(trace, edits, notes);
        }
        Metadata md = metadata(trace, edits, options.version());
        if (md.converted()) {
            checkConversion(trace, outDir, md);
        }
        writeMetadata(outDir, md, options.metadataName());
        written.add(Path.of("metadata"));
        CtfVersion version = md.version();
        for (ClockFit f : fits.values()) {
            ClockClass old = declared(trace, f.clock());
            notes.add("clock " + f.clock() + ": freq " + old.frequency() + " -> " + f.frequency() + ", offset_s "
                    + old.offsetSeconds() + " -> " + f.offsetSeconds() + ", offset " + old.offsetCycles() + " -> "
                    + f.offsetCycles() + " (at most " + f.maxErrorNanos().toPlainString() + " ns from the transform)");
        }
        return new CopyReport(outDir, Method.METADATA, error, CopyFiles.sorted(written), notes, version);
    }

    /** The clock block of the trace's metadata that readers name {@code name}, or null (the implicit clock). */
    private static ClockClass declared(CtfTrace trace, String name) {
        ClockClass byKey = trace.metadata().clocks().get(name);
        if (byKey != null && byKey.name().equals(name)) {
            return byKey;
        }
        for (ClockClass c : trace.metadata().clocks().values()) {
            if (c.name().equals(name)) {
                return c; // a CTF 2 clock class whose id is not its name
            }
        }
        return null;
    }

    /** The CTF version of the trace's metadata. */
    private static CtfVersion version(CtfTrace trace) {
        return trace.metadata().major() >= 2 ? CtfVersion.V2 : CtfVersion.V1_8;
    }

    /** Adds {@code absolute = true} to the edits of every clock block of the trace. */
    private static void markAbsolute(CtfTrace trace, Map<String, Map<String, String>> edits, List<String> notes) {
        boolean ctf2 = version(trace) == CtfVersion.V2;
        for (ClockClass c : trace.metadata().clocks().values()) {
            edits.computeIfAbsent(c.name(), k -> new LinkedHashMap<>()).put("absolute", "true");
            notes.add("clock " + c.name() + (ctf2 ? ": origin unix-epoch" : ": absolute = true"));
        }
    }

    /**
     * The copy's metadata.
     *
     * @param own     the trace's own, its clocks edited
     * @param bytes   what is written: {@code own} in the CTF version asked for
     * @param version the version of {@code bytes}
     */
    private record Metadata(byte[] own, byte[] bytes, CtfVersion version, boolean converted) {}

    /**
     * The copy's metadata: the trace's own with {@code edits} applied to its clocks, in CTF
     * {@code wanted} (null: the trace's own version).
     */
    private static Metadata metadata(CtfTrace trace, Map<String, Map<String, String>> edits, CtfVersion wanted)
            throws IOException, SynchronizedCopyException {
        Path src = trace.directory().resolve("metadata");
        byte[] own = Files.readAllBytes(src);
        CtfVersion was = version(trace);
        CtfVersion version = wanted == null ? was : wanted;
        try {
            if (!edits.isEmpty()) {
                own = MetadataClocks.rewrite(own, edits);
            }
            return new Metadata(own, version == was ? own : convert(own, version), version, version != was);
        } catch (MetadataException | Ctf2Writer.Unsupported | IllegalArgumentException e) {
            throw new SynchronizedCopyException(
                    src + ": cannot be written as CTF " + version.label() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the copy's metadata, the last of its files, under {@code name}: first aside, then
     * renamed, so that a reader finds either no metadata file or a whole one.
     */
    private static void writeMetadata(Path outDir, Metadata md, String name) throws IOException {
        Path out = outDir.resolve(name);
        Path aside = outDir.resolve(".metadata-writing");
        try {
            Files.write(aside, md.bytes(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(aside, out, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(aside);
            throw CopyFiles.writing(out, e);
        }
    }

    /** The metadata (either version) as CTF {@code version}, read back to check it. */
    private static byte[] convert(byte[] metadata, CtfVersion version)
            throws MetadataException, Ctf2Writer.Unsupported {
        if (version == CtfVersion.V2) {
            return Ctf2Writer.rewrite(metadata).getBytes(StandardCharsets.UTF_8);
        }
        TraceClass t = MetadataReader.parse(metadata, w -> {});
        t = new TraceClass(
                1, 8, t.byteOrder(), t.uuid(), t.packetHeader(), t.clocks(), t.env(), t.streams(), t.streamRuns());
        byte[] tsdl = TsdlWriter.write(t).getBytes(StandardCharsets.UTF_8);
        TracePlan.compile(MetadataReader.parse(tsdl, w -> {}));
        return tsdl;
    }

    /**
     * When the copy's metadata is in another CTF version than the trace's, reads the copy's
     * streams with both (the trace's own, its clocks edited, and the converted one) and checks
     * that they decode alike, packet by packet and event by event: the same sizes, positions,
     * clock values and event classes.
     */
    private static void checkConversion(CtfTrace trace, Path outDir, Metadata md)
            throws IOException, SynchronizedCopyException {
        CtfVersion version = md.version();
        try (Arena arena = Arena.ofConfined()) {
            // the trace's own metadata, with the copy's clocks: what the copy means; and what it says in the other
            // version
            TracePlan plan = TracePlan.compile(MetadataReader.parse(md.own(), w -> {}));
            TracePlan converted = TracePlan.compile(MetadataReader.parse(md.bytes(), w -> {}));
            List<List<StreamDecoder.StreamFile>> streams = CopyFiles.copyStreams(trace, outDir, arena);
            for (List<StreamDecoder.StreamFile> files : streams) {
                StreamDecoder a = new StreamDecoder(plan, files);
                StreamDecoder b = new StreamDecoder(converted, files);
                while (true) {
                    boolean pa = a.nextPacket();
                    if (pa != b.nextPacket()) {
                        throw differs(outDir, version, b, "packets");
                    }
                    if (!pa) {
                        break;
                    }
                    PacketInfo x = a.packet();
                    PacketInfo y = b.packet();
                    if (x.offsetBits() != y.offsetBits()
                            || x.contentBits() != y.contentBits()
                            || x.packetBits() != y.packetBits()
                            || x.timestampBegin() != y.timestampBegin()
                            || x.timestampEnd() != y.timestampEnd()) {
                        throw differs(outDir, version, b, "packet context");
                    }
                    long end = y.offsetBits() + y.contentBits();
                    while (true) {
                        boolean ea = a.position() < end && a.next();
                        if (ea != (b.position() < end && b.next())) {
                            throw differs(outDir, version, b, "events");
                        }
                        if (!ea) {
                            break;
                        }
                        if (a.position() != b.position()
                                || a.clockValue() != b.clockValue()
                                || a.event().cls.id() != b.event().cls.id()
                                || !Objects.equals(
                                        a.event().cls.name(), b.event().cls.name())) {
                            throw differs(outDir, version, b, "event");
                        }
                    }
                }
            }
        } catch (MetadataException | StreamDecodingException e) {
            throw new SynchronizedCopyException(
                    outDir + ": the copy in CTF " + version.label() + " does not read: " + e.getMessage(), e);
        }
    }

    private static SynchronizedCopyException differs(Path outDir, CtfVersion version, StreamDecoder d, String what) {
        PacketInfo p = d.packet();
        return new SynchronizedCopyException(
                outDir + ": CTF " + version.label() + " cannot say what the trace's metadata"
                        + " says: the copy's " + what + " would decode otherwise"
                        + (p == null ? "" : " (" + p.file() + ", packet " + p.number() + ")"));
    }

    private static CopyReport viaPackets(CtfTrace trace, LongUnaryOperator map, Path outDir, Options options)
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
                if (declared(trace, c.name()) == null) {
                    throw new SynchronizedCopyException(src + ": the new times are before the origin of the trace's"
                            + " implicit clock, and there is no clock block whose offset could move");
                }
                long seconds = Math.floorDiv(map.applyAsLong(span[0]) - span[0], 1_000_000_000L);
                n = new ClockClass(
                        c.name(),
                        c.description(),
                        c.uuid(),
                        c.frequency(),
                        c.precision(),
                        c.offsetSeconds() + seconds,
                        c.offsetCycles(),
                        c.absolute());
                // Both, normalised: a block may say its whole offset in cycles (LTTng's "offset =
                // 1565056443054742594").
                Map<String, String> e = edits.computeIfAbsent(c.name(), k -> new LinkedHashMap<>());
                e.put("offset_s", Long.toString(n.offsetSeconds()));
                e.put("offset", Long.toString(n.offsetCycles()));
                notes.add("clock " + c.name() + ": offset_s " + c.offsetSeconds() + " -> " + n.offsetSeconds()
                        + " (the new times are before its origin)");
            }
            newClocks.add(n);
        }
        if (options.absoluteClocks()) {
            markAbsolute(trace, edits, notes);
        }
        // LTTng index files hold packet times too: they are written with the packets' new ones.
        // The metadata goes last, once every stream holds its new times.
        List<Path> written = CopyFiles.copyTree(
                src, outDir, p -> !p.startsWith("index") && !p.toString().equals("metadata"));
        PacketRetiming retiming = new PacketRetiming(trace, map, outDir, newClocks);
        Metadata md = metadata(trace, edits, options.version());
        try {
            retiming.run();
            written.addAll(retiming.rewriteIndexes(src));
            retiming.verify(md.own());
        } catch (StreamDecodingException e) {
            throw new SynchronizedCopyException(e.getMessage(), e);
        }
        if (md.converted()) {
            checkConversion(trace, outDir, md);
        }
        writeMetadata(outDir, md, options.metadataName());
        written.add(Path.of("metadata"));
        return new CopyReport(
                outDir, Method.PACKETS, retiming.maxErrorNanos(), CopyFiles.sorted(written), notes, md.version());
    }

    // ------------------------------------------------------------------ the metadata route's fit

    /** The new clock block of every clock the trace's streams use, fitted over the trace's time span. */
    private static Map<String, ClockFit> fits(CtfTrace trace, ClockTransform transform)
            throws IOException, SynchronizedCopyException {
        long[] span = span(trace);
        Map<String, ClockFit> fits = new LinkedHashMap<>();
        for (ClockClass clock : trace.plan().clocks) {
            if (declared(trace, clock.name()) == null) {
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
            return CtfTrace.open(traceDir, w -> {});
        } catch (MetadataException | StreamDecodingException e) {
            throw new SynchronizedCopyException(traceDir + ": " + e.getMessage(), e);
        }
    }
}
