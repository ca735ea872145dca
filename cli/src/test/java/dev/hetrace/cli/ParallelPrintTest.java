package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decoding on worker threads changes nothing: the same bytes on stdout and stderr, the same
 * exit status, as one thread reading in order; also when a stream is damaged mid-way.
 */
class ParallelPrintTest {
    /** Also the layout of {@link ClockRangePrintTest}'s traces, with their clock in place of clock c's line. */
    static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk_t;
        trace { major = 1; minor = 8; byte_order = le;
                packet.header := struct { uint32_t magic; uint32_t stream_id; uint64_t stream_instance_id; }; };
        env { hostname = "board"; };
        clock { name = c; freq = 1000000000; offset_s = 1700000000; };
        stream { id = 0;
            packet.context := struct { clk_t timestamp_begin; clk_t timestamp_end; uint64_t content_size;
                                       uint64_t packet_size; uint32_t cpu_id; };
            event.header := struct { uint32_t id; clk_t timestamp; }; };
        event { name = "a"; id = 0; stream_id = 0; fields := struct { uint32_t n; string s; }; };
        event { name = "b"; id = 1; stream_id = 0; fields := struct { uint64_t x; }; };
        """;

    /** Four streams whose events often share a time, so that the tie-break order matters. */
    private static Path write(Path dir) throws Exception {
        return write(dir, 4, 6000);
    }

    private static Path write(Path dir, int streams, int events) throws Exception {
        Random random = new Random(7);
        try (CtfWriter w = CtfWriter.create(dir, METADATA)) {
            for (int s = 0; s < streams; s++) {
                StreamWriter stream = w.stream(0).packetSize(1024).packetContext("cpu_id", s);
                long t = 0;
                for (int i = 0; i < events; i++) {
                    t += random.nextInt(3) * 10;
                    if (random.nextBoolean()) {
                        stream.event(0, t, new Object[] {i, "s" + s + "e" + i});
                    } else {
                        stream.event(1, t, new Object[] {(long) s << 40 | i});
                    }
                }
            }
        }
        return dir;
    }

    private record Run(int status, String out, String err) {}

    private static Run print(Path trace, PrintCommand.Format format, int threads) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = PrintCommand.print(
                List.of(trace), format, out, new PrintStream(err, true, StandardCharsets.UTF_8), false, threads);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void workerThreadsPrintTheSameAsOneThread(@TempDir Path dir) throws Exception {
        Path trace = write(dir);
        for (PrintCommand.Format format : PrintCommand.Format.values()) {
            Run one = print(trace, format, 1);
            Run four = print(trace, format, 4);
            assertThat(one.status()).isZero();
            assertThat(four).as("format %s", format).isEqualTo(one);
        }
        assertThat(print(trace, PrintCommand.Format.text, 1).out().lines()).hasSize(24_000);
    }

    @Test
    void manyStreamsMergeThroughTheHeapAndPrintTheSame(@TempDir Path dir) throws Exception {
        Path trace = write(dir, 24, 800);
        Run one = print(trace, PrintCommand.Format.text, 1);
        Run two = print(trace, PrintCommand.Format.text, 2);
        assertThat(one.status()).isZero();
        assertThat(two).isEqualTo(one);
    }

    @Test
    void oneStreamOfManyPacketsIsCutForTheWorkersAndPrintsTheSame(@TempDir Path dir) throws Exception {
        Random random = new Random(11);
        try (CtfWriter w = CtfWriter.create(dir, METADATA)) {
            StreamWriter stream = w.stream(0).packetSize(4096);
            long t = 0;
            for (int i = 0; i < 300_000; i++) {
                t += random.nextInt(5);
                stream.event(i % 3 == 0 ? 1 : 0, t, i % 3 == 0 ? new Object[] {(long) i} : new Object[] {i, "e" + i});
            }
        }
        assertThat(Files.size(dir.resolve("stream_0_0")))
                .as("several 2 MiB segments")
                .isGreaterThan(5L << 20);
        Run one = print(dir, PrintCommand.Format.text, 1);
        Run two = print(dir, PrintCommand.Format.text, 2);
        assertThat(one.status()).isZero();
        assertThat(two).isEqualTo(one);
    }

    @Test
    void aDamagedEventStopsBothAtTheSamePlaceWithTheSameError(@TempDir Path dir) throws Exception {
        Path trace = write(dir);
        // Make the first event id of the second packet of stream 2 one the metadata does not declare.
        Path file = trace.resolve("stream_0_2");
        byte[] bytes = Files.readAllBytes(file);
        int packetHeaderAndContext = 4 + 4 + 8 + 8 * 4 + 4;
        bytes[1024 + packetHeaderAndContext] = 9;
        Files.write(file, bytes);
        Run one = print(trace, PrintCommand.Format.text, 1);
        Run four = print(trace, PrintCommand.Format.text, 4);
        assertThat(one.status()).isEqualTo(1);
        assertThat(one.err()).contains("stream_0_2: packet 1").contains("event id 9");
        assertThat(four).isEqualTo(one);
    }
}
