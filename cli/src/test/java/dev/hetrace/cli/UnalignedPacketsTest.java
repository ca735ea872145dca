package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Fields align from the start of their packet (CTF 1.8 §4.1.2), not of their file: in
 * {@code unaligned-packets/trace}, written by a generated C tracer with 110-byte packets, every
 * packet after the first starts 6 bytes off a 64-bit boundary, and its events hold 64-bit
 * aligned integers. {@code expected.txt} is what babeltrace2 2.0.4 prints (139 events) but for
 * four string fields that the program wrote empty and babeltrace2 prints with an earlier event's
 * string (its known bug with empty strings): events 24, 95, 179 and 279.
 */
class UnalignedPacketsTest {
    @Test
    void fieldsAlignFromTheirPacketsStart() throws Exception {
        Path dir = resource("unaligned-packets");
        Cli.Run run = Cli.run("print", dir.resolve("trace").toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo(Files.readString(dir.resolve("expected.txt")));
        Cli.Run one = Cli.run("print", "--threads", "1", dir.resolve("trace").toString());
        assertThat(one.out()).isEqualTo(run.out());
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(UnalignedPacketsTest.class.getResource("/" + name).toURI());
    }
}
