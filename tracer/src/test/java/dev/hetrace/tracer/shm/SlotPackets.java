package dev.hetrace.tracer.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Packets of a small CTF trace, as the regions written by tests hold them: a header (magic,
 * stream_id 0) and a context (packet_size = the slot, content_size = header and context), then
 * padding of one byte value, which tells the packets apart.
 */
final class SlotPackets {
    private SlotPackets() {}

    static final int HEADER_AND_CONTEXT = 16;

    static String metadata(ByteOrder order) {
        return """
            /* CTF 1.8 */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            trace {
                major = 1; minor = 8; byte_order = %s;
                packet.header := struct { uint32_t magic; uint32_t stream_id; };
            };
            stream {
                id = 0;
                packet.context := struct { uint32_t packet_size; uint32_t content_size; };
                event.header := struct { uint32_t id; };
            };
            event { id = 0; name = "e"; stream_id = 0; fields := struct { uint32_t x; }; };
            """.formatted(order == ByteOrder.BIG_ENDIAN ? "be" : "le");
    }

    /** A packet filling a slot of {@code slotSize} bytes, padded with {@code padding}. */
    static byte[] packet(ByteOrder order, int slotSize, byte padding) {
        byte[] p = new byte[slotSize];
        Arrays.fill(p, padding);
        ByteBuffer.wrap(p)
                .order(order)
                .putInt(0xC1FC1FC1)
                .putInt(0)
                .putInt(slotSize * 8)
                .putInt(HEADER_AND_CONTEXT * 8);
        return p;
    }
}
