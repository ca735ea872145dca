package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace print} of a CTF 2 trace with a bit map, a UTF-16 string, a 65-bit integer and
 * attributes, written byte by byte here: the text, and the JSON with its attributes line.
 */
class Ctf2LeafClassesPrintTest {
    private static final String METADATA = """
        \u001e{"type": "preamble", "version": 2}
        \u001e{"type": "data-stream-class"}
        \u001e{"type": "event-record-class", "name": "io", "attributes": {"my.tracer": {"since": "2.17"}},
          "payload-field-class": {"type": "structure", "member-classes": [
            {"name": "mode", "field-class": {"type": "fixed-length-bit-map", "length": 4, "byte-order": "big-endian",
              "alignment": 8, "flags": {"READ": [[0, 0]], "WRITE": [[1, 1]], "SYNC": [[2, 3]]}}},
            {"name": "offset", "field-class": {"type": "fixed-length-signed-integer", "length": 65,
              "byte-order": "little-endian", "alignment": 8}},
            {"name": "path", "field-class": {"type": "null-terminated-string", "encoding": "utf-16be"}}]}}
        """;

    @Test
    void bitMapsWideStringsAndWideIntegersPrintAsTextAndJson(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("metadata"), METADATA);
        // mode: 0b1011 in the high 4 bits (big-endian) = READ, WRITE, SYNC; offset: 65 bits of
        // ones, -1 in two's complement; path (from the next byte): "/é" in UTF-16BE.
        Files.write(
                dir.resolve("stream"),
                new byte[] {(byte) 0xB0, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0, 0x2F, 0, (byte) 0xE9, 0, 0});
        Cli.Run text = Cli.run("print", dir.toString());
        assertThat(text.status()).as("stderr: %s", text.err()).isZero();
        assertThat(text.out()).isEqualTo("io: { mode = 0xB, offset = -1, path = \"/é\" }\n");
        Cli.Run json = Cli.run("print", "--format=json", dir.toString());
        assertThat(json.status()).as("stderr: %s", json.err()).isZero();
        assertThat(json.out().lines().toList())
                .containsExactly(
                        "{\"trace\":\"" + dir + "\",\"attributes\":{\"fragment 2 (event record class \\\"io\\\"): $\":"
                                + "{\"my.tracer\":{\"since\":\"2.17\"}}}}",
                        "{\"trace\":\"" + dir
                                + "\",\"stream_class\":0,\"event\":\"io\",\"payload\":{\"mode\":{\"flags\":"
                                + "[\"READ\",\"WRITE\",\"SYNC\"],\"value\":11},\"offset\":-1,\"path\":\"/é\"}}");
    }
}
