package dev.hetrace.ctf.write;

/**
 * The TSDL of a trace laid out as LTTng-UST lays out its own, but for the environment, the
 * clock and the events: the integer types, the trace block with its packet header, and the one
 * stream with its per-CPU packet context and its compact or extended event headers (a 5-bit id
 * and 27-bit timestamp, or a 32-bit id and 64-bit timestamp). The sample trace, the simulator's
 * Linux traces and the writer's tests build their metadata from these blocks, so that the
 * layout is declared once; their clock, whatever its frequency, is named {@code monotonic}.
 */
public final class UstTsdl {
    private UstTsdl() {}

    /** The integer types the trace and stream blocks and most events use, by their C names. */
    private static final String INTEGER_TYPES = """
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 32; align = 8; signed = true; } := int32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
        """;

    /**
     * The beginning of the metadata: the CTF 1.8 signature, the integer types, and the trace
     * block, in byte order {@code byteOrder} ({@code le} or {@code be}), of the trace's
     * {@code uuid}, with the packet header LTTng writes (magic, uuid, stream id and instance id).
     */
    public static String head(String byteOrder, String uuid) {
        return "/* CTF 1.8 */\n" + INTEGER_TYPES + "\n" + """
            trace {
                major = 1; minor = 8; byte_order = %s;
                uuid = "%s";
                packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; uint64_t stream_instance_id; };
            };
            """.formatted(byteOrder, uuid);
    }

    /**
     * The stream block of stream class 0: the packet context with the CPU's id, the compact or
     * extended event header, and, when {@code eventContext} is not null, an event context of
     * those member declarations (e.g. {@code "int32_t vtid; string procname;"}).
     */
    public static String stream(String eventContext) {
        return """
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
            """ + (eventContext == null ? "" : "    event.context := struct { " + eventContext + " };\n") + "};\n";
    }
}
