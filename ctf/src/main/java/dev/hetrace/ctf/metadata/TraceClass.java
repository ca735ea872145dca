package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Everything a trace's metadata says: byte order, UUID, packet header layout, clocks,
 * environment, and stream classes. This is the schema; decoded values live elsewhere.
 *
 * @param env values are {@link Long} or {@link String}, in declaration order
 */
public record TraceClass(int major, int minor, ByteOrder byteOrder, UUID uuid, StructType packetHeader,
                         Map<String, ClockClass> clocks, Map<String, Object> env,
                         SortedMap<Long, StreamClass> streams) {
    public TraceClass {
        clocks = Collections.unmodifiableMap(new LinkedHashMap<>(clocks));
        env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
        streams = Collections.unmodifiableSortedMap(new TreeMap<>(streams));
    }

    public StreamClass stream(long id) {
        return streams.get(id);
    }
}
