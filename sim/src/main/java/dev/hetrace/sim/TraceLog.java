package dev.hetrace.sim;

import dev.hetrace.ctf.write.StreamWriter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one core's tracer produced, kept in order in memory until the run ends: events in
 * clock cycles, where packets end, and how many events were lost before the next one. Replayed
 * into the CTF writer afterwards, so that a board of a thousand cores never holds a thousand
 * open files.
 */
final class TraceLog {
    /** One record of the log, for stream {@code stream} of the trace. */
    sealed interface Entry {
        int stream();
    }

    /** An event: class id, timestamp in cycles, stream event context (or null) and payload. */
    record Event(int stream, long eventClassId, long cycles, Object[] context, Object[] payload) implements Entry {}

    /** The tracer closed the stream's current packet. */
    record PacketEnd(int stream) implements Entry {}

    /** The tracer dropped {@code count} events since the previous record of the stream. */
    record Discarded(int stream, long count) implements Entry {}

    private final List<Entry> entries = new ArrayList<>();
    private long events;

    void add(Entry e) {
        entries.add(e);
        if (e instanceof Event) {
            events++;
        }
    }

    long events() {
        return events;
    }

    /** Writes the log into the streams, {@code streams.get(i)} for stream {@code i}. */
    void replay(List<StreamWriter> streams) throws IOException {
        for (Entry e : entries) {
            StreamWriter w = streams.get(e.stream());
            switch (e) {
                case Event ev -> w.event(ev.eventClassId(), ev.cycles(), ev.context(), null, ev.payload());
                case PacketEnd p -> w.flush();
                case Discarded d -> w.discard(d.count());
            }
        }
    }
}
