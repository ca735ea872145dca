package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.TreeMap;

/**
 * Consecutive stream classes with ids {@code firstId ... firstId + count - 1}, the same scopes
 * and no event class: one object for what generated metadata may declare millions of times.
 */
public record StreamClassRun(
        long firstId, long count, StructType packetContext, StructType eventHeader, StructType eventContext) {
    public boolean contains(long id) {
        return id >= firstId && id - firstId < count;
    }

    public long lastId() {
        return firstId + count - 1;
    }

    /** The stream class with this id (a new object). */
    public StreamClass get(long id) {
        return new StreamClass(id, packetContext, eventHeader, eventContext, new TreeMap<>());
    }
}
