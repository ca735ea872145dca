package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A stream type: the layout of its packet context and event header and context, and its
 * event classes by id.
 */
public record StreamClass(long id, StructType packetContext, StructType eventHeader, StructType eventContext,
                          SortedMap<Long, EventClass> events) {
    public StreamClass {
        events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
    }

    public EventClass event(long eventId) {
        return events.get(eventId);
    }

    public Map<Long, EventClass> eventsById() {
        return events;
    }
}
