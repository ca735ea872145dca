package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CTF 2 gives packet sizes and times by roles wherever their fields sit in the packet context:
 * here in a nested structure, and in a variant option that only some packets have. The test
 * writes the metadata and the data stream byte by byte.
 */
class Ctf2PacketRolesTest {
    private static final String METADATA = """
        \u001e{"type": "preamble", "version": 2}
        \u001e{"type": "clock-class", "id": "c", "frequency": 1000000000, "origin": "unix-epoch"}
        \u001e{"type": "data-stream-class", "default-clock-class-id": "c",
          "packet-context-field-class": {"type": "structure", "member-classes": [
            {"name": "kind", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
              "byte-order": "little-endian"}},
            {"name": "sizes", "field-class": {"type": "structure", "member-classes": [
              {"name": "total", "field-class": {"type": "fixed-length-unsigned-integer", "length": 16,
                "byte-order": "little-endian", "roles": ["packet-total-length"]}},
              {"name": "content", "field-class": {"type": "fixed-length-unsigned-integer", "length": 16,
                "byte-order": "little-endian", "roles": ["packet-content-length"]}}]}},
            {"name": "begin", "field-class": {"type": "variant",
              "selector-field-location": {"origin": "packet-context", "path": ["kind"]}, "options": [
              {"name": "none", "selector-field-ranges": [[0, 0]],
                "field-class": {"type": "structure", "member-classes": []}},
              {"name": "timed", "selector-field-ranges": [[1, 1]],
                "field-class": {"type": "structure", "member-classes": [
                {"name": "ts", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
                  "byte-order": "little-endian", "roles": ["default-clock-timestamp"]}}]}}]}}]},
          "event-record-header-field-class": {"type": "structure", "member-classes": [
            {"name": "ts", "field-class": {"type": "fixed-length-unsigned-integer", "length": 32,
              "byte-order": "little-endian", "roles": ["default-clock-timestamp"]}}]}}
        \u001e{"type": "event-record-class", "name": "e", "payload-field-class": {"type": "structure",
          "member-classes": [{"name": "x", "field-class": {"type": "fixed-length-unsigned-integer", "length": 8,
            "byte-order": "little-endian"}}]}}
        """;

    /**
     * Packet 1: kind 1 (timed, begins at 1,000 ns), 192 bits long, 152 of content: a 9-byte
     * context, two events of 5 bytes, 5 bytes of padding. Packet 2: kind 0 (no time), 128 bits
     * long, 80 of content: a 5-byte context, one event, 6 bytes of padding.
     */
    private static final byte[] STREAM = bytes(
            0x01, 0xC0, 0x00, 0x98, 0x00, 0xE8, 0x03, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00, 0x01, 0xF2, 0x03, 0x00, 0x00,
            0x02, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0x00, 0x80, 0x00, 0x50, 0x00, 0xD0, 0x07, 0x00, 0x00, 0x03, 0xEE, 0xEE,
            0xEE, 0xEE, 0xEE, 0xEE);

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @Test
    void packetSizesAndTimesAreReadFromNestedFieldsAndVariantOptions(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("metadata"), METADATA);
        Files.write(dir.resolve("stream"), STREAM);
        // the sizes, used, are hidden as babeltrace2 hides them; the rest of the context is shown
        assertThat(TraceReading.hetraceText(dir).lines().toList())
                .containsExactly(
                        "[00:00:00.000001000] (+?.?????????) e: { kind = 1, begin = { { } } }, { x = 1 }",
                        "[00:00:00.000001010] (+0.000000010) e: { kind = 1, begin = { { } } }, { x = 2 }",
                        "[00:00:00.000002000] (+0.000000990) e: { kind = 0, begin = { { } } }, { x = 3 }");
    }
}
