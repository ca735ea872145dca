package dev.hetrace.analysis;

import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.metadata.EventClass;
import java.util.IdentityHashMap;
import java.util.function.Function;

/**
 * What a pass over events keeps per event class, worked out once per class and found again by
 * the class's identity: a direct-mapped cache of 64 classes by id in front of a map. The map is
 * bounded (classes declared in runs may come as new objects): past 4096 classes it starts again.
 * Not thread-safe: one per pass, on the thread that reads the events.
 *
 * @param <V> what is kept per class
 */
public final class ClassCache<V> {
    private static final int BOUND = 4096;

    private final EventClass[] classes = new EventClass[64];
    private final Object[] values = new Object[64];
    private final IdentityHashMap<EventClass, V> all = new IdentityHashMap<>();
    private final Function<Event, V> make;

    /** {@code make} works out what is kept for the class of the event it is given (never null). */
    public ClassCache(Function<Event, V> make) {
        this.make = make;
    }

    /** What is kept for the class of {@code e} (the reader's current event). */
    @SuppressWarnings("unchecked")
    public V of(Event e) {
        EventClass cls = e.eventClass();
        int slot = (int) cls.id() & 63;
        if (classes[slot] == cls) {
            return (V) values[slot];
        }
        V v = all.get(cls);
        if (v == null) {
            if (all.size() >= BOUND) {
                all.clear();
            }
            v = make.apply(e);
            all.put(cls, v);
        }
        classes[slot] = cls;
        values[slot] = v;
        return v;
    }
}
