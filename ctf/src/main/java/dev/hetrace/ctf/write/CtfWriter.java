package dev.hetrace.ctf.write;

import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.TracePlan;
import dev.hetrace.ctf.decode.TracePlan.StreamPlan;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a CTF trace: the metadata file (CTF 1.8 TSDL, or CTF 2 JSON with {@link CtfVersion#V2})
 * and any number of data streams, each a sequence of packets (the same in both versions). Packet headers and contexts (magic, UUID, stream ids, sizes, begin/end times,
 * discarded events, sequence numbers) and event headers (id, timestamp, and LTTng-style
 * compact/extended choices) are filled in by the writer; contexts and payloads come from the
 * caller as value trees (see {@link dev.hetrace.ctf.decode.FieldValues} for their shapes).
 *
 * <pre>{@code
 * try (CtfWriter trace = CtfWriter.create(dir, tsdl)) {
 *     StreamWriter s = trace.stream(0);
 *     s.event(1, 1000, Map.of("cpu", 2L, "msg", "hello"));
 * }
 * }</pre>
 *
 * The metadata is written first and read back through the same parser as any trace, so what
 * the writer encodes is exactly what readers will decode.
 */
public final class CtfWriter implements AutoCloseable {
    private final Path dir;
    private final TraceClass metadata;
    private final TracePlan plan;
    private final List<StreamWriter> streams = new ArrayList<>();
    private final Map<Long, Integer> instancesPerClass = new HashMap<>();
    private final int packetAlignBits;

    private CtfWriter(Path dir, TraceClass metadata, TracePlan plan) {
        this.dir = dir;
        this.metadata = metadata;
        this.plan = plan;
        this.packetAlignBits = Math.max(64, maxAlignment(plan));
    }

    /** Creates {@code dir} (if needed) and writes the metadata of {@code trace} into it, as CTF 1.8. */
    public static CtfWriter create(Path dir, TraceClass trace) throws IOException {
        return create(dir, trace, CtfVersion.V1_8);
    }

    /**
     * Creates {@code dir} (if needed) and writes the metadata of {@code trace} into it, in CTF
     * {@code version}.
     *
     * @throws IllegalArgumentException when the trace class cannot be written as valid metadata
     *                                  of that version (the message says why)
     */
    public static CtfWriter create(Path dir, TraceClass trace, CtfVersion version) throws IOException {
        try {
            return create(dir, version == CtfVersion.V2 ? Ctf2Writer.write(trace) : TsdlWriter.write(trace));
        } catch (MetadataException | Ctf2Writer.Unsupported e) {
            throw new IllegalArgumentException(
                    "the trace class cannot be written as valid CTF " + version.label() + " metadata: "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * Creates {@code dir} (if needed) and writes {@code metadata} (CTF 1.8 TSDL or CTF 2 JSON
     * fragments), checked and compiled first, as its metadata.
     */
    public static CtfWriter create(Path dir, String metadata) throws IOException, MetadataException {
        byte[] text = metadata.getBytes(StandardCharsets.UTF_8);
        TraceClass parsed = MetadataReader.parse(text, w -> {});
        TracePlan plan = TracePlan.compile(parsed);
        Files.createDirectories(dir);
        Files.write(dir.resolve("metadata"), text);
        return new CtfWriter(dir, parsed, plan);
    }

    public TraceClass metadata() {
        return metadata;
    }

    public Path directory() {
        return dir;
    }

    /**
     * A new data stream of stream class {@code streamClassId}, in file {@code stream_<class>_<n>};
     * its stream instance id (when the packet header has one) is {@code n}, its rank among the
     * streams of that class.
     */
    public StreamWriter stream(long streamClassId) throws IOException {
        int n = instancesPerClass.merge(streamClassId, 1, Integer::sum) - 1;
        return stream(streamClassId, n, "stream_" + streamClassId + "_" + n);
    }

    /** A new data stream with the given instance id, written to {@code fileName} in the trace directory. */
    public StreamWriter stream(long streamClassId, long instanceId, String fileName) throws IOException {
        StreamPlan sp = plan.streams.get(streamClassId);
        if (sp == null) {
            throw new IllegalArgumentException("stream class " + streamClassId + " is not declared in the metadata");
        }
        if (fileName.equals("metadata") || fileName.contains("/")) {
            throw new IllegalArgumentException("'" + fileName + "' cannot be a stream file name");
        }
        StreamWriter w = new StreamWriter(plan, sp, instanceId, dir.resolve(fileName), packetAlignBits);
        streams.add(w);
        return w;
    }

    /** Closes every stream (writing their last packets). */
    @Override
    public void close() throws IOException {
        IOException first = null;
        for (StreamWriter s : streams) {
            try {
                s.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static int maxAlignment(TracePlan plan) {
        int[] max = {8};
        visit(plan.packetHeader, max);
        for (StreamPlan sp : plan.streams.values()) {
            visit(sp.packetContext, max);
            visit(sp.eventHeader, max);
            visit(sp.eventContext, max);
            for (TracePlan.EventPlan ep : sp.events.values()) {
                visit(ep.context, max);
                visit(ep.payload, max);
            }
        }
        return max[0];
    }

    private static void visit(Node n, int[] max) {
        if (n == null) {
            return;
        }
        max[0] = Math.max(max[0], n.align);
        for (Node c : n.children) {
            visit(c, max);
        }
    }
}
