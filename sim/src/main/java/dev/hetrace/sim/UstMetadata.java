package dev.hetrace.sim;

import dev.hetrace.ctf.write.UstTsdl;
import java.util.UUID;

/**
 * The TSDL that the simulated LTTng-UST traces share: {@link UstTsdl}'s integer types, trace
 * block and stream (with the {@code vtid} and {@code procname} event context LTTng-UST adds),
 * the environment LTTng-UST 2.13 writes and the monotonic clock. Each tracer adds its own event
 * declarations.
 */
final class UstMetadata {
    private UstMetadata() {}

    /** What differs from one simulated LTTng-UST trace to another: the host, the clock's frequency and origin. */
    private static final String ENV_AND_CLOCK = """
        env { hostname = "%s"; domain = "ust"; tracer_name = "lttng-ust"; tracer_major = 2; tracer_minor = 13; };
        clock { name = monotonic; description = "Monotonic Clock"; freq = %d; precision = 1; offset_s = %d;
                offset = 0; absolute = false; };
        """;

    /**
     * The metadata of a trace whose clock counts at {@code frequencyHz} from the epoch second
     * {@code offsetSeconds}, recorded on {@code hostname}, declaring {@code events} (TSDL event
     * blocks, taken as they are).
     */
    static String of(UUID uuid, String hostname, long frequencyHz, long offsetSeconds, String events) {
        return UstTsdl.head("le", uuid.toString())
                + ENV_AND_CLOCK.formatted(hostname, frequencyHz, offsetSeconds)
                + UstTsdl.stream("int32_t vtid; string procname;")
                + events;
    }
}
