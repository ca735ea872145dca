package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A file that another program truncates while hetrace reads it through a memory mapping (a
 * stream file under {@code print}, a region under {@code collect}) ends the run with one line
 * naming the file and what happened to it, and exit status 1: never the JVM's bare
 * {@code InternalError} and its stack trace.
 */
class ShrinkingFileTest {
    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    private Process hetrace(String... args) throws IOException {
        Process p = HetraceProcess.builder(args)
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        started.add(p);
        return p;
    }

    /**
     * The printer blocks on its full output pipe after its first lines, mid-file (the stream is
     * 3 MB, its text 80 MB): the file is cut then, and the pages past the cut are read later.
     */
    @ParameterizedTest(name = "threads {0}")
    @ValueSource(ints = {1, 2})
    void aStreamFileCutWhilePrintReadsItIsOneLineNamingIt(int threads) throws Exception {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run("sim", "--cores", "1", "--images", "3000", "--seed", "3", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        Path stream = board.resolve("dsp0/stream");
        long size = Files.size(stream);
        assertThat(size).isGreaterThan(2_000_000L);

        Process print = hetrace(
                "print",
                "--threads",
                Integer.toString(threads),
                board.resolve("dsp0").toString());
        InputStream out = print.getInputStream();
        assertThat(out.readNBytes(100)).hasSize(100);
        try (RandomAccessFile f = new RandomAccessFile(stream.toFile(), "rw")) {
            f.setLength(20_000);
        }
        out.transferTo(OutputStream.nullOutputStream());
        assertThat(print.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String err = Files.readString(dir.resolve("err.txt"));
        assertThat(print.exitValue()).as(err).isEqualTo(1);
        assertThat(err.lines().toList())
                .singleElement()
                .asString()
                .isEqualTo(String.format(
                        Locale.ROOT, "hetrace: %s shrank from %,d to 20,000 bytes while being read", stream, size));
    }

    /** The region is emptied once the collector has attached it: its next look at the ring's header faults. */
    @Test
    void aRegionEmptiedWhileCollectReadsItIsOneLineNamingIt() throws Exception {
        ShmProducer.build(dir);
        Path region = dir.resolve("core0");
        Process producer = ShmProducer.startReady(dir, region, "0", "1024", "64", "2000", "100", "0", "1", "0");
        started.add(producer);
        long size = Files.size(region);

        Path trace = dir.resolve("trace");
        Process collect = hetrace(
                "collect",
                "--shm",
                region.toString(),
                "--config",
                dir.resolve("shm.yaml").toString(),
                "-o",
                trace.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(trace.resolve("core0")) && System.nanoTime() < deadline) {
            Thread.sleep(20); // the stream file is created once the region is attached (mapped)
        }
        assertThat(trace.resolve("core0")).exists();
        try (RandomAccessFile f = new RandomAccessFile(region.toFile(), "rw")) {
            f.setLength(0);
        }
        assertThat(collect.waitFor(30, TimeUnit.SECONDS)).as("collector ended").isTrue();
        String err = Files.readString(dir.resolve("err.txt"));
        assertThat(collect.exitValue()).as(err).isEqualTo(1);
        assertThat(err.lines().toList())
                .singleElement()
                .asString()
                .isEqualTo(String.format(
                        Locale.ROOT, "hetrace: %s shrank from %,d to 0 bytes while being read", region, size));
    }
}
