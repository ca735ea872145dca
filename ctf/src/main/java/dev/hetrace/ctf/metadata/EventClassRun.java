package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.StructType;

/**
 * Consecutive event classes that differ only by their id (+1 each) and, when {@code nameStep}
 * is 1, by the counter at the end of their name ({@code e0, e1, ...}): {@code count} event
 * classes in one object. Generated metadata declares millions of events this way.
 *
 * @param namePrefix the name (nameStep 0) or its part before the counter (nameStep 1); null if unnamed
 */
public record EventClassRun(
        long firstId,
        long count,
        String namePrefix,
        long firstNumber,
        int nameStep,
        long streamId,
        StructType context,
        StructType payload,
        Long logLevel,
        String emfUri) {
    public long lastId() {
        return firstId + count - 1;
    }

    public boolean contains(long id) {
        return id >= firstId && id - firstId < count;
    }

    /** Name of the event class at {@code index} in the run. */
    public String name(long index) {
        return namePrefix == null || nameStep == 0 ? namePrefix : namePrefix + (firstNumber + index);
    }

    /** The event class at {@code index} in the run (a new object). */
    public EventClass get(long index) {
        return new EventClass(firstId + index, name(index), streamId, context, payload, logLevel, emfUri);
    }
}
