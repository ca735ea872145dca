package dev.hetrace.sync;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The clock a trace's events are timed by, as its metadata declares it: what tells that two
 * traces share a time base without any message between them. LTTng names its clocks by a UUID
 * (the boot's, for the monotonic clock): the kernel and user-space traces of one host give the
 * same raw value at the same instant, though each tracer sampled the clock's offset from the
 * epoch itself, so that their {@code offset}s differ by some nanoseconds. A clock declared
 * {@code absolute} is a reference across traces whatever its UUID (CTF 1.8): two absolute
 * clocks' times from the epoch are comparable as they are.
 *
 * @param uuid        the clock's UUID (null when the metadata gives none)
 * @param name        its name
 * @param frequency   its frequency (Hz)
 * @param absolute    whether it is declared a global reference across traces
 * @param originNanos the time of its value 0, in ns from the epoch ({@link ClockClass#baseOffsetNanos()}:
 *                    {@link Long#MIN_VALUE} when the offset does not fit)
 */
public record TraceClock(String uuid, String name, long frequency, boolean absolute, long originNanos) {

    /**
     * The clock of the trace in {@code dir} (and of the traces below it, which a reader of
     * {@code dir} merges): null when its streams are timed by no clock or by several.
     */
    public static TraceClock of(Path dir) throws IOException, MetadataException, StreamDecodingException {
        Set<TraceClock> found = new LinkedHashSet<>();
        for (Path t : CtfTrace.find(dir)) {
            try (CtfTrace trace = CtfTrace.open(t, w -> {})) {
                for (ClockClass c : trace.streamClocks()) {
                    found.add(new TraceClock(c.uuid(), c.name(), c.frequency(), c.absolute(), c.baseOffsetNanos()));
                }
            }
        }
        return found.size() == 1 ? found.iterator().next() : null;
    }

    /**
     * The exact map from a time of a trace on this clock to the time of the same instant on a
     * trace on {@code reference}'s clock, or null when the two clocks are not known to be one
     * time base. The same UUID (and name, frequency and absoluteness, so that a clock rewritten
     * by a synchronized copy is not taken for its original): the same raw value is the same
     * instant, so times differ by the difference of the origins. Both absolute: the identity.
     */
    public ClockTransform to(TraceClock reference) {
        if (originNanos == Long.MIN_VALUE || reference.originNanos == Long.MIN_VALUE) {
            return null; // an offset past 64-bit ns: the events are timed from the clock's origin, not from the epoch
        }
        if (absolute && reference.absolute) {
            return ClockTransform.IDENTITY;
        }
        if (uuid == null
                || !uuid.equalsIgnoreCase(reference.uuid)
                || !name.equals(reference.name)
                || frequency != reference.frequency
                || absolute != reference.absolute) {
            return null;
        }
        return new ClockTransform(0, Math.subtractExact(reference.originNanos, originNanos), 0);
    }
}
