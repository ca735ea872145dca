package dev.hetrace.sim;

import java.util.UUID;

/**
 * The TSDL that the simulated LTTng-UST traces share: the integer types, the trace block with
 * its packet header, the environment, the monotonic clock and the one stream (per-CPU packet
 * context, compact and extended event headers, the {@code vtid} and {@code procname} context).
 * Each tracer adds its own event declarations.
 */
final class UstMetadata {
    private UstMetadata() {}

    private static final String HEAD = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;

        trace {
            major = 1; minor = 8; byte_order = le;
            uuid = "%1$s";
            packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t stream_instance_id; };
        };
        env { hostname = "%2$s"; domain = "ust"; tracer_name = "lttng-ust"; tracer_major = 2; tracer_minor = 13; };
        clock { name = monotonic; description = "Monotonic Clock"; freq = %3$d; precision = 1; offset_s = %4$d;
                offset = 0; absolute = false; };
        stream {
            id = 0;
            packet.context := struct {
                uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;
                uint64_t events_discarded; uint32_t cpu_id;
            };
            event.header := struct {
                enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
                variant <id> {
                    struct { uint27_clock_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_t timestamp; } extended;
                } v;
            } align(8);
            event.context := struct { int32_t vtid; string procname; };
        };
        """;

    /**
     * The metadata of a trace whose clock counts at {@code frequencyHz} from the epoch second
     * {@code offsetSeconds}, recorded on {@code hostname}, declaring {@code events} (TSDL event
     * blocks, taken as they are).
     */
    static String of(UUID uuid, String hostname, long frequencyHz, long offsetSeconds, String events) {
        return HEAD.formatted(uuid, hostname, frequencyHz, offsetSeconds) + events;
    }
}
