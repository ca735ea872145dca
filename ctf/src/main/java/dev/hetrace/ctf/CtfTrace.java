package dev.hetrace.ctf;

import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecoder.StreamFile;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One CTF trace directory: its metadata (parsed and compiled into a decode plan) and its data
 * streams. Files that belong to one stream instance (LTTng tracefile rotation) form one stream,
 * ordered by time. A trace holds little per stream file (its name, in one table): small files
 * are read when a decoder needs them (kept in memory within a budget), larger ones are mapped
 * read-only once. Traces opened through one {@link Opener} share what is the same in them: the
 * parsed metadata of byte-identical metadata files, and the tables of stream files.
 */
public final class CtfTrace implements AutoCloseable {
    /** Where the trace was found: the trace is {@code base.resolve(relativePath)} unless {@link #dir} says otherwise. */
    private final Shared shared;
    /** The trace's place under the directory it was found in ("" when it is that directory). */
    private final String relativePath;
    /** The directory, when it is not {@code shared.base.resolve(relativePath)}. */
    private final Path dir;

    private FileTable table;
    /** Contents of small stream files (by file index) kept in memory, or null. */
    private byte[][] small;
    /** Large stream files, mapped when first needed, or null. */
    private MemorySegment[] mapped;
    /** Stream files that are ring buffer dumps, as their packets in the order written ({@link RingDump}), or null. */
    private byte[][] rings;

    private Arena arena;
    /** The files mapped in {@link #arena}, released from {@link MappedFiles} when it closes. */
    private final List<MappedFiles.Mapping> mappings = Collections.synchronizedList(new ArrayList<>());
    /** Packet index of each stream, built when first needed. */
    private PacketIndex[] indexes;

    /** Clocks said to be out of the range of times: bit 2 &times; index for the offset, + 1 for a value. */
    private final BitSet clocksTold = new BitSet();
    /**
     * Streams whose times were said to go back, whatever decoders read them: bit 2 &times; stream
     * + {@link StreamDecoder#EVENT_BEFORE_PREVIOUS} or {@link StreamDecoder#PACKET_BEFORE_PREVIOUS_END}.
     */
    private final BitSet timeOrderTold = new BitSet();

    /** Stream files up to this size are read into memory rather than mapped. */
    private static final long SMALL_FILE = 16 * 1024;

    /** What traces opened by one opener from one directory have in common. */
    private record Shared(Path base, TraceClass metadata, TracePlan plan, Consumer<String> warnings) {}

    private CtfTrace(Shared shared, String relativePath, Path dir) {
        this.shared = shared;
        this.relativePath = relativePath;
        this.dir = dir;
    }

    /** Trace directories under {@code root} (itself, or any depth below), in a stable order. */
    public static List<Path> find(Path root) throws IOException {
        if (Files.isRegularFile(root) && root.getFileName().toString().equals("metadata")) {
            return List.of(root.getParent());
        }
        if (!Files.isDirectory(root)) {
            throw new IOException(root + ": no such trace directory");
        }
        List<Path> traces = new ArrayList<>();
        // symbolic links followed (a trace or a folder of them linked from elsewhere is a trace
        // like any other), a link back to a folder above skipped rather than walked forever
        Files.walkFileTree(
                root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path p, BasicFileAttributes a) {
                        if (a.isRegularFile() && p.getFileName().toString().equals("metadata")) {
                            traces.add(p.getParent());
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path p, IOException e) throws IOException {
                        if (e instanceof FileSystemLoopException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }
                });
        traces.sort(Comparator.comparing(Path::toString));
        return traces;
    }

    /** Opens a trace directory: parses and checks its metadata, reads its stream files' first packets. */
    public static CtfTrace open(Path dir, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return open(dir, dir, warnings);
    }

    /**
     * Opens a trace directory found under {@code root} (a directory given by the user): the
     * trace's name, as babeltrace2 gives it, includes its path relative to {@code root}.
     */
    public static CtfTrace open(Path dir, Path root, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return new Opener(warnings).open(dir, root);
    }

    /**
     * Opens traces that may have much in common (thousands of traces of one tracer): traces
     * whose metadata files are byte-identical share one parsed metadata and decode plan (the
     * warnings of its parsing are told for each), and identical tables of stream files are
     * kept once. Small stream files are kept in memory up to a budget shared by all.
     */
    public static final class Opener {
        private final Consumer<String> warnings;
        private final Map<FileTable, FileTable> tables = new HashMap<>();
        /** By base directory, then by parsed metadata (identity). */
        private final Map<Path, Map<ParsedMetadata, Shared>> shared = new HashMap<>();

        private long smallBudget = 32L << 20;

        public Opener(Consumer<String> warnings) {
            this.warnings = warnings;
        }

        public CtfTrace open(Path dir, Path root) throws IOException, MetadataException, StreamDecodingException {
            Path metadataFile = dir.resolve("metadata");
            ParsedMetadata pm = ParsedMetadata.read(metadataFile, warnings);
            Path base = Files.isRegularFile(root) ? root.toAbsolutePath().getParent() : root; // a metadata file given
            Path relative = base.toAbsolutePath()
                    .normalize()
                    .relativize(dir.toAbsolutePath().normalize());
            String relativePath = relative.toString().replace(File.separatorChar, '/');
            Shared s = shared.computeIfAbsent(base, k -> new IdentityHashMap<>())
                    .computeIfAbsent(pm, k -> new Shared(base, pm.metadata(), pm.plan(), warnings));
            boolean derived =
                    !relativePath.isEmpty() && base.resolve(relativePath).equals(dir);
            CtfTrace trace = new CtfTrace(s, relativePath, derived ? null : dir);
            try {
                trace.readStreams(this);
            } catch (IOException | StreamDecodingException | RuntimeException e) {
                trace.close();
                throw e;
            }
            return trace;
        }

        private FileTable intern(FileTable t) {
            FileTable known = tables.putIfAbsent(t, t);
            return known != null ? known : t;
        }
    }

    private void readStreams(Opener opener) throws IOException, StreamDecodingException {
        Path dir = directory();
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> list = Files.newDirectoryStream(dir)) {
            for (Path p : list) {
                String name = p.getFileName().toString();
                if (!name.equals("metadata") && !name.startsWith(".") && Files.isRegularFile(p)) {
                    names.add(name);
                }
            }
        }
        names.sort(Comparator.naturalOrder());
        int n = names.size();
        // What each file's first packet says; files of the same stream instance are grouped.
        long[] firstTime = new long[n];
        long[] classId = new long[n];
        boolean[] hasClass = new boolean[n];
        boolean[] keep = new boolean[n];
        long[] instance = new long[n];
        boolean[] hasInstance = new boolean[n];
        small = null;
        rings = null;
        for (int f = 0; f < n; f++) {
            Path path = dir.resolve(names.get(f));
            long size = Files.size(path);
            if (size == 0) {
                continue;
            }
            keep[f] = true;
            MemorySegment seg;
            if (size <= SMALL_FILE) {
                // Small files are read, not mapped: a trace may have more stream files than a
                // process may have mappings (vm.max_map_count, 65530 by default).
                byte[] bytes = Files.readAllBytes(path);
                seg = MemorySegment.ofArray(bytes);
                long cost = bytes.length + 48;
                if (opener.smallBudget >= cost) {
                    opener.smallBudget -= cost;
                    if (small == null) {
                        small = new byte[n][];
                    }
                    small[f] = bytes;
                }
            } else {
                seg = map(f, path, size, n);
            }
            byte[] ring = RingDump.ordered(shared.plan, path, seg, shared.warnings);
            if (ring != null) {
                if (rings == null) {
                    rings = new byte[n][];
                }
                rings[f] = ring;
                seg = MemorySegment.ofArray(ring);
                if (ring.length == 0) {
                    keep[f] = false;
                    continue;
                }
            }
            StreamDecoder probe = new StreamDecoder(shared.plan, List.of(new StreamFile(path, seg)));
            firstTime[f] = Long.MIN_VALUE;
            if (probe.nextPacket()) {
                PacketInfo p = probe.packet();
                if (p.has(p.streamInstanceId())) {
                    hasInstance[f] = true;
                    instance[f] = p.streamInstanceId();
                }
                firstTime[f] = p.has(p.timestampBegin()) ? p.timestampBegin() : Long.MIN_VALUE;
                classId[f] = p.streamClassId();
                hasClass[f] = true;
            }
        }
        long fallbackClass = shared.metadata.streams().isEmpty()
                ? 0
                : shared.metadata.streams().firstKey();
        table = opener.intern(
                FileTable.of(names, keep, firstTime, classId, hasClass, instance, hasInstance, fallbackClass));
        indexes = null;
    }

    private MemorySegment map(int file, Path path, long size, int files) throws IOException {
        if (mapped == null) {
            mapped = new MemorySegment[files];
        }
        if (mapped[file] == null) {
            if (arena == null) {
                arena = Arena.ofShared();
            }
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                mapped[file] = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                mappings.add(MappedFiles.register(path, size));
            }
        }
        return mapped[file];
    }

    /** The files of stream {@code index}, read or mapped. */
    private List<StreamFile> files(int index) {
        FileTable t = table;
        int count = t.fileCount(index);
        List<StreamFile> out = new ArrayList<>(count);
        Path dir = directory();
        for (int k = 0; k < count; k++) {
            int f = t.file(index, k);
            Path path = dir.resolve(t.name(f));
            try {
                MemorySegment seg;
                if (rings != null && rings[f] != null) {
                    seg = MemorySegment.ofArray(rings[f]);
                } else if (small != null && small[f] != null) {
                    seg = MemorySegment.ofArray(small[f]);
                } else if (mapped != null && mapped[f] != null) {
                    seg = mapped[f];
                } else {
                    long size = Files.size(path);
                    seg = size <= SMALL_FILE
                            ? MemorySegment.ofArray(Files.readAllBytes(path))
                            : map(f, path, size, t.nameEnd().length);
                }
                out.add(new StreamFile(path, seg));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /**
     * The trace's name as babeltrace2 gives it: the env hostname, then the trace's path
     * relative to the directory it was found in (for a trace in a directory of traces),
     * separated by '/'; "" when there is neither.
     */
    public String name() {
        String host = shared.metadata.env().get("hostname") instanceof String s ? s : "";
        if (relativePath.isEmpty()) {
            return host;
        }
        return host.isEmpty() ? relativePath : host + "/" + relativePath;
    }

    /** Stream class id of stream {@code index} (from its first packet). */
    public long streamClassId(int index) {
        return table.classId(index);
    }

    /** The stream's name in babeltrace2's messages: the absolute path of its first file. */
    public String streamPath(int index) {
        return directory()
                .resolve(table.name(table.file(index, 0)))
                .toAbsolutePath()
                .normalize()
                .toString();
    }

    /** The packet index of stream {@code index}, built on first use (see {@link #indexAll}). */
    public PacketIndex index(int index) {
        PacketIndex[] all = indexes();
        PacketIndex idx = all[index];
        if (idx == null) {
            idx = PacketIndex.of(shared.plan, files(index), shared.warnings);
            all[index] = idx;
        }
        return idx;
    }

    private PacketIndex[] indexes() {
        if (indexes == null) {
            indexes = new PacketIndex[table.streamCount()];
        }
        return indexes;
    }

    /**
     * Builds the packet index of every stream of these traces that has none yet, streams in
     * parallel: each stream's packets must be walked one after the other, but streams are
     * independent, and a trace usually has one stream per CPU.
     */
    public static void indexAll(List<CtfTrace> traces) {
        indexAll(traces, Long.MAX_VALUE);
    }

    /**
     * Like {@link #indexAll(List)}, unless the indexes would hold more than {@code maxPackets}
     * packets in all: then none is kept, and false is returned.
     */
    public static boolean indexAll(List<CtfTrace> traces, long maxPackets) {
        AtomicLong budget = maxPackets == Long.MAX_VALUE ? null : new AtomicLong(maxPackets);
        List<int[]> todo = new ArrayList<>();
        for (int t = 0; t < traces.size(); t++) {
            PacketIndex[] idx = traces.get(t).indexes();
            for (int s = 0; s < idx.length; s++) {
                if (idx[s] == null) {
                    todo.add(new int[] {t, s});
                }
            }
        }
        PacketIndex[] built = new PacketIndex[todo.size()];
        // threads of their own: packet headers and contexts may nest as deep as the plan allows
        AtomicInteger next = new AtomicInteger();
        Throwable[] failure = {null};
        Runnable work = () -> {
            for (int i = next.getAndIncrement(); i < todo.size() && failure[0] == null; i = next.getAndIncrement()) {
                try {
                    CtfTrace trace = traces.get(todo.get(i)[0]);
                    int s = todo.get(i)[1];
                    built[i] = budget != null && budget.get() < 0
                            ? null
                            : PacketIndex.of(trace.shared.plan, trace.files(s), trace.shared.warnings, budget);
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                }
            }
        };
        Thread[] workers = new Thread[Math.min(todo.size(), Runtime.getRuntime().availableProcessors())];
        for (int t = 0; t < workers.length; t++) {
            workers[t] = TracePlan.threads().name("hetrace-index-" + t).daemon().start(work);
        }
        for (Thread w : workers) {
            try {
                w.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while indexing", e);
            }
        }
        if (failure[0] instanceof RuntimeException r) {
            throw r;
        } else if (failure[0] instanceof Error e) {
            throw e;
        } else if (failure[0] != null) {
            throw new IllegalStateException(failure[0]);
        }
        for (PacketIndex idx : built) {
            if (idx == null) {
                return false;
            }
        }
        // Published after the parallel stream has joined, so every reader sees complete indexes.
        for (int i = 0; i < built.length; i++) {
            traces.get(todo.get(i)[0]).indexes[todo.get(i)[1]] = built[i];
        }
        return true;
    }

    /** Stream id of stream {@code index}: its stream_instance_id, else its rank among the trace's streams. */
    public long streamId(int index) {
        return table.streamId(index);
    }

    public Path directory() {
        return dir != null ? dir : shared.base.resolve(relativePath);
    }

    public TraceClass metadata() {
        return shared.metadata;
    }

    public TracePlan plan() {
        return shared.plan;
    }

    /**
     * The clocks that time this trace's streams: the default clock of each stream class (named
     * by the class, or, in CTF 1.8, the clock its timestamp fields map to), each once, in the
     * order of the stream classes; streams timed by no clock add nothing.
     */
    public List<ClockClass> streamClocks() {
        Set<ClockClass> clocks = new LinkedHashSet<>();
        for (TracePlan.StreamPlan s : shared.plan.distinctStreams()) {
            if (s.defaultClock >= 0) {
                clocks.add(shared.plan.clocks.get(s.defaultClock));
            }
        }
        return List.copyOf(clocks);
    }

    /**
     * The data streams: each one or more files decoded one after the other. A view: the files
     * of a stream are read (small ones) or mapped (once) when it is asked for; an
     * {@link java.io.UncheckedIOException} tells a file that can no longer be read.
     */
    public List<List<StreamFile>> streams() {
        return new AbstractList<>() {
            @Override
            public List<StreamFile> get(int index) {
                Objects.checkIndex(index, table.streamCount());
                return files(index);
            }

            @Override
            public int size() {
                return table.streamCount();
            }
        };
    }

    /** Number of data streams. */
    public int streamCount() {
        return table.streamCount();
    }

    /** Where decoders and indexing report what does not stop them. */
    public Consumer<String> warnings() {
        return shared.warnings;
    }

    /**
     * Says on the trace's warnings, once per clock, that the offset of clock {@code clock} (its
     * index in the plan) does not fit in 64-bit nanoseconds: its times count from its origin
     * (see {@link ClockClass}). Safe from any thread.
     */
    public void clockOffsetOutOfRange(int clock) {
        ClockClass c = shared.plan.clocks.get(clock);
        if (firstTold(2 * clock)) {
            tell(
                    c,
                    "its offset (" + c.offsetSeconds() + " s + " + Long.toUnsignedString(c.offsetCycles())
                            + " cycles) does not fit in 64-bit nanoseconds from the epoch; its events are timed from the clock's own"
                            + " origin instead (1970-01-01 in dates): their order and intervals are right, their dates are not");
        }
    }

    /**
     * Says on the trace's warnings, once per clock, that the time of {@code value} of clock
     * {@code clock} is past 64-bit nanoseconds: it is saturated (see {@link ClockClass}). Safe
     * from any thread.
     */
    public void clockValueOutOfRange(int clock, long value) {
        ClockClass c = shared.plan.clocks.get(clock);
        if (firstTold(2 * clock + 1)) {
            tell(
                    c,
                    "value " + Long.toUnsignedString(value) + " (at " + c.frequency() + " Hz) is past 64-bit"
                            + " nanoseconds from the epoch; events at such values are timed 2262-04-11 23:47:16.854775807 UTC,"
                            + " the last time hetrace holds");
        }
    }

    private boolean firstTold(int bit) {
        return firstTold(clocksTold, bit);
    }

    /**
     * Says {@code warning} on the trace's warnings when it is the first of its kind for stream
     * {@code stream} ({@link StreamDecoder#watchTimeOrder}), whatever decoder found it. Safe from
     * any thread.
     */
    public void timeGoesBack(int stream, int kind, String warning) {
        if (firstTold(timeOrderTold, 2 * stream + kind)) {
            shared.warnings.accept(warning);
        }
    }

    /** Whether {@code bit} of {@code told} was clear; sets it. Safe from any thread. */
    private static boolean firstTold(BitSet told, int bit) {
        synchronized (told) {
            boolean first = !told.get(bit);
            told.set(bit);
            return first;
        }
    }

    private void tell(ClockClass clock, String what) {
        shared.warnings.accept(directory() + ": clock \"" + clock.name() + "\": " + what);
    }

    /** A new decoder positioned before the first event of stream {@code index}. */
    public StreamDecoder decoder(int index) {
        StreamDecoder d = new StreamDecoder(shared.plan, files(index));
        d.warnings(shared.warnings);
        d.watchTimeOrder((kind, warning) -> timeGoesBack(index, kind, warning));
        return d;
    }

    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
        for (MappedFiles.Mapping m : mappings) {
            MappedFiles.release(m);
        }
        mappings.clear();
    }
}
