package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A stream type: the layout of its packet context and event header and context, and its
 * event classes by id: one by one in {@code events}, and in runs of similar classes in
 * {@code eventRuns} (sorted by id, disjoint from {@code events}).
 */
public record StreamClass(
        long id,
        StructType packetContext,
        StructType eventHeader,
        StructType eventContext,
        SortedMap<Long, EventClass> events,
        List<EventClassRun> eventRuns) {
    public StreamClass {
        events = Collections.unmodifiableSortedMap(new TreeMap<>(events));
        eventRuns = List.copyOf(eventRuns);
    }

    public StreamClass(
            long id,
            StructType packetContext,
            StructType eventHeader,
            StructType eventContext,
            SortedMap<Long, EventClass> events) {
        this(id, packetContext, eventHeader, eventContext, events, List.of());
    }

    public EventClass event(long eventId) {
        EventClass e = events.get(eventId);
        if (e != null) {
            return e;
        }
        for (EventClassRun r : eventRuns) {
            if (r.contains(eventId)) {
                return r.get(eventId - r.firstId());
            }
        }
        return null;
    }

    /** Number of event classes, in runs or not. */
    public long eventCount() {
        long n = events.size();
        for (EventClassRun r : eventRuns) {
            n += r.count();
        }
        return n;
    }

    public Map<Long, EventClass> eventsById() {
        return events;
    }
}
