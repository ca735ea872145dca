package dev.hetrace.ctf;

import dev.hetrace.ctf.decode.PacketInfo;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.decode.StreamDecoder.StreamFile;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One CTF trace directory: its metadata (parsed and compiled into a decode plan) and its data
 * streams, with the stream files mapped read-only. Files that belong to one stream instance
 * (LTTng tracefile rotation) form one stream, ordered by time.
 */
public final class CtfTrace implements AutoCloseable {
    private final Path dir;
    private final TraceClass metadata;
    private final TracePlan plan;
    private final Arena arena = Arena.ofShared();
    private final List<List<StreamFile>> streams = new ArrayList<>();
    private final List<Long> streamIds = new ArrayList<>();
    private final List<Long> streamClassIds = new ArrayList<>();
    /** Packet index of each stream, built when first needed. */
    private PacketIndex[] indexes;
    /** The trace's place under the directory it was found in ("" when it is that directory). */
    private String relativePath = "";

    private Consumer<String> warnings = w -> { };
    /** Stream files up to this size are read into memory rather than mapped. */
    private static final long SMALL_FILE = 16 * 1024;

    private CtfTrace(Path dir, TraceClass metadata, TracePlan plan) {
        this.dir = dir;
        this.metadata = metadata;
        this.plan = plan;
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
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> p.getFileName() != null && p.getFileName().toString().equals("metadata")
                    && Files.isRegularFile(p))
                .map(Path::getParent)
                .sorted(Comparator.comparing(Path::toString))
                .forEach(traces::add);
        }
        return traces;
    }

    /** Opens a trace directory: parses and checks its metadata, maps its stream files. */
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
        CtfTrace trace = openDirectory(dir, warnings);
        Path base = Files.isRegularFile(root) ? root.toAbsolutePath().getParent() : root; // a metadata file given
        Path relative = base.toAbsolutePath().normalize().relativize(dir.toAbsolutePath().normalize());
        trace.relativePath = relative.toString().replace(java.io.File.separatorChar, '/');
        return trace;
    }

    private static CtfTrace openDirectory(Path dir, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        Path metadataFile = dir.resolve("metadata");
        TraceClass metadata;
        try {
            metadata = MetadataReader.read(metadataFile, w -> warnings.accept(metadataFile + ": " + w));
        } catch (MetadataException e) {
            throw e.in(metadataFile);
        }
        TracePlan plan;
        try {
            plan = TracePlan.compile(metadata);
        } catch (MetadataException e) {
            throw e.in(metadataFile);
        }
        CtfTrace trace = new CtfTrace(dir, metadata, plan);
        trace.warnings = warnings;
        try {
            trace.mapStreams();
        } catch (IOException | StreamDecodingException | RuntimeException e) {
            trace.close();
            throw e;
        }
        return trace;
    }

    private void mapStreams() throws IOException, StreamDecodingException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.filter(Files::isRegularFile)
                .filter(p -> {
                    String name = p.getFileName().toString();
                    return !name.equals("metadata") && !name.startsWith(".");
                })
                .sorted(Comparator.comparing(p -> p.getFileName().toString()))
                .forEach(files::add);
        }
        // Group files of the same stream instance; order each group by its first packet's time.
        Map<String, List<StreamFile>> groups = new LinkedHashMap<>();
        Map<StreamFile, Long> firstTime = new LinkedHashMap<>();
        Map<StreamFile, Long> instanceIds = new LinkedHashMap<>();
        Map<StreamFile, Long> classIds = new LinkedHashMap<>();
        for (Path f : files) {
            long size = Files.size(f);
            if (size == 0) {
                continue;
            }
            MemorySegment seg;
            if (size <= SMALL_FILE) {
                // Small files are read, not mapped: a trace may have more stream files than a
                // process may have mappings (vm.max_map_count, 65530 by default).
                seg = MemorySegment.ofArray(Files.readAllBytes(f));
            } else {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                    seg = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                }
            }
            StreamFile sf = new StreamFile(f, seg);
            StreamDecoder probe = new StreamDecoder(plan, List.of(sf));
            String key = f.toString();
            long t = Long.MIN_VALUE;
            if (probe.nextPacket()) {
                PacketInfo p = probe.packet();
                if (p.has(p.streamInstanceId())) {
                    key = p.streamClassId() + "/" + p.streamInstanceId();
                }
                t = p.has(p.timestampBegin()) ? p.timestampBegin() : Long.MIN_VALUE;
                classIds.put(sf, p.streamClassId());
            }
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(sf);
            if (probe.packet() != null && probe.packet().has(probe.packet().streamInstanceId())) {
                instanceIds.put(sf, probe.packet().streamInstanceId());
            }
            firstTime.put(sf, t);
        }
        List<List<StreamFile>> sorted = new ArrayList<>();
        for (List<StreamFile> g : groups.values()) {
            g.sort(Comparator.comparing((StreamFile s) -> firstTime.get(s), Long::compareUnsigned)
                .thenComparing(s -> s.path().getFileName().toString()));
            sorted.add(List.copyOf(g));
        }
        sorted.sort(Comparator.comparing(g -> g.getFirst().path().toString()));
        for (int i = 0; i < sorted.size(); i++) {
            List<StreamFile> g = sorted.get(i);
            streams.add(g);
            Long instance = instanceIds.get(g.getFirst());
            streamIds.add(instance != null ? instance : i);
            Long classId = classIds.get(g.getFirst());
            streamClassIds.add(classId != null ? classId
                : metadata.streams().isEmpty() ? 0 : metadata.streams().firstKey());
        }
        indexes = new PacketIndex[streams.size()];
    }

    /**
     * The trace's name as babeltrace2 gives it: the env hostname, then the trace's path
     * relative to the directory it was found in (for a trace in a directory of traces),
     * separated by '/'; "" when there is neither.
     */
    public String name() {
        String host = metadata.env().get("hostname") instanceof String s ? s : "";
        if (relativePath.isEmpty()) {
            return host;
        }
        return host.isEmpty() ? relativePath : host + "/" + relativePath;
    }

    /** Stream class id of stream {@code index} (from its first packet). */
    public long streamClassId(int index) {
        return streamClassIds.get(index);
    }

    /** The stream's name in babeltrace2's messages: the absolute path of its first file. */
    public String streamPath(int index) {
        return streams.get(index).getFirst().path().toAbsolutePath().normalize().toString();
    }

    /** The packet index of stream {@code index}, built on first use (see {@link #indexAll}). */
    public PacketIndex index(int index) {
        PacketIndex idx = indexes[index];
        if (idx == null) {
            idx = PacketIndex.of(plan, streams.get(index), warnings);
            indexes[index] = idx;
        }
        return idx;
    }

    /**
     * Builds the packet index of every stream of these traces that has none yet, streams in
     * parallel: each stream's packets must be walked one after the other, but streams are
     * independent, and a trace usually has one stream per CPU.
     */
    public static void indexAll(List<CtfTrace> traces) {
        List<int[]> todo = new ArrayList<>();
        for (int t = 0; t < traces.size(); t++) {
            for (int s = 0; s < traces.get(t).streams.size(); s++) {
                if (traces.get(t).indexes[s] == null) {
                    todo.add(new int[] {t, s});
                }
            }
        }
        PacketIndex[] built = new PacketIndex[todo.size()];
        java.util.stream.IntStream.range(0, todo.size()).parallel().forEach(i -> {
            CtfTrace trace = traces.get(todo.get(i)[0]);
            int s = todo.get(i)[1];
            built[i] = PacketIndex.of(trace.plan, trace.streams.get(s), trace.warnings);
        });
        // Published after the parallel stream has joined, so every reader sees complete indexes.
        for (int i = 0; i < built.length; i++) {
            traces.get(todo.get(i)[0]).indexes[todo.get(i)[1]] = built[i];
        }
    }

    /** Stream id of stream {@code index}: its stream_instance_id, else its rank among the trace's streams. */
    public long streamId(int index) {
        return streamIds.get(index);
    }

    public Path directory() {
        return dir;
    }

    public TraceClass metadata() {
        return metadata;
    }

    public TracePlan plan() {
        return plan;
    }

    /** The data streams: each one or more files decoded one after the other. */
    public List<List<StreamFile>> streams() {
        return streams;
    }

    /** Where decoders and indexing report what does not stop them. */
    public Consumer<String> warnings() {
        return warnings;
    }

    /** A new decoder positioned before the first event of stream {@code index}. */
    public StreamDecoder decoder(int index) {
        StreamDecoder d = new StreamDecoder(plan, streams.get(index));
        d.warnings(warnings);
        return d;
    }

    @Override
    public void close() {
        arena.close();
    }
}
