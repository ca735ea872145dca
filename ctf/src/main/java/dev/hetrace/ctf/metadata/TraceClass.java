package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Everything a trace's metadata says: byte order, UUID, packet header layout, clocks,
 * environment, and stream classes (one by one in {@code streams}, and in runs of similar
 * classes without events in {@code streamRuns}, sorted by id and disjoint from {@code streams}).
 * This is the schema; decoded values live elsewhere.
 *
 * @param env        values are {@link Long} or {@link String}, in declaration order
 * @param attributes the attributes CTF 2 metadata gives (custom data of its producer, which the
 *                   decoder ignores), in metadata order: by where they are, as errors name a
 *                   place ({@code fragment 3 (event record class "e"): $.payload-field-class}),
 *                   each the JSON text of its attributes object; empty for CTF 1.8
 * @param places     where CTF 2 metadata defines each scope's field class, by {@link #placeKey}
 *                   (as errors name a place: {@code fragment 3 (event record class "e"):
 *                   $.payload-field-class}), for errors in data streams to name it; empty for CTF 1.8
 */
public record TraceClass(
        int major,
        int minor,
        ByteOrder byteOrder,
        UUID uuid,
        StructType packetHeader,
        Map<String, ClockClass> clocks,
        Map<String, Object> env,
        SortedMap<Long, StreamClass> streams,
        List<StreamClassRun> streamRuns,
        Map<String, String> attributes,
        Map<String, String> places) {
    public TraceClass {
        clocks = Collections.unmodifiableMap(new LinkedHashMap<>(clocks));
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        streams = Collections.unmodifiableSortedMap(new TreeMap<>(streams));
        streamRuns = List.copyOf(streamRuns);
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        places = Collections.unmodifiableMap(new LinkedHashMap<>(places));
    }

    public TraceClass(
            int major,
            int minor,
            ByteOrder byteOrder,
            UUID uuid,
            StructType packetHeader,
            Map<String, ClockClass> clocks,
            Map<String, Object> env,
            SortedMap<Long, StreamClass> streams,
            List<StreamClassRun> streamRuns,
            Map<String, String> attributes) {
        this(major, minor, byteOrder, uuid, packetHeader, clocks, env, streams, streamRuns, attributes, Map.of());
    }

    /**
     * The key of a scope in {@link #places}: its name as CTF 1.8 names it ({@code
     * trace.packet.header}, {@code stream.packet.context}, {@code stream.event.header}, {@code
     * stream.event.context}, {@code event.context}, {@code event.fields}) and the ids of its
     * stream and event classes (0 where they do not apply).
     */
    public static String placeKey(String scope, long streamId, long eventId) {
        return scope + " " + Long.toUnsignedString(streamId) + " " + Long.toUnsignedString(eventId);
    }

    public TraceClass(
            int major,
            int minor,
            ByteOrder byteOrder,
            UUID uuid,
            StructType packetHeader,
            Map<String, ClockClass> clocks,
            Map<String, Object> env,
            SortedMap<Long, StreamClass> streams,
            List<StreamClassRun> streamRuns) {
        this(major, minor, byteOrder, uuid, packetHeader, clocks, env, streams, streamRuns, Map.of());
    }

    public TraceClass(
            int major,
            int minor,
            ByteOrder byteOrder,
            UUID uuid,
            StructType packetHeader,
            Map<String, ClockClass> clocks,
            Map<String, Object> env,
            SortedMap<Long, StreamClass> streams) {
        this(major, minor, byteOrder, uuid, packetHeader, clocks, env, streams, List.of());
    }

    public StreamClass stream(long id) {
        StreamClass s = streams.get(id);
        if (s != null) {
            return s;
        }
        for (StreamClassRun r : streamRuns) {
            if (r.contains(id)) {
                return r.get(id);
            }
        }
        return null;
    }

    /** Number of stream classes, in runs or not. */
    public long streamCount() {
        long n = streams.size();
        for (StreamClassRun r : streamRuns) {
            n += r.count();
        }
        return n;
    }
}
