package dev.hetrace.cli;

import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.Ctf2Writer;
import dev.hetrace.ctf.write.SampleTrace;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A representative run of the reader, the viewer and the analyses, for the JVM to record what
 * it loads and how the hot code behaves (JDK 25 ahead-of-time cache, JEP 483/514/515): the launcher runs it once after
 * each build with {@code -XX:AOTCacheOutput}, and later runs start with the classes already
 * loaded and linked and the profiles already collected, so the JIT compiles the decoder early.
 */
@Command(
        name = "aot-training",
        hidden = true,
        description = {
            "Reads a generated sample trace in every output format (and with CTF 2 metadata), views a",
            "simulated board, takes its statistics and builds its SQL index (used by the launcher to record",
            "a JVM AOT cache)."
        })
final class TrainCommand implements Callable<Integer> {
    @Option(
            names = "--events",
            defaultValue = "400000",
            description = "Events of the sample trace (default ${DEFAULT-VALUE}).")
    long events;

    @Override
    public Integer call() throws IOException {
        Path dir = Files.createTempDirectory("hetrace-training-");
        try {
            SampleTrace.write(dir, events, 4, 64 * 1024);
            OutputStream nowhere = OutputStream.nullOutputStream();
            PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
            int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
            int status = 0;
            for (PrintCommand.Format f : PrintCommand.Format.values()) {
                status |= PrintCommand.print(List.of(dir), f, nowhere, quiet, false, threads);
                status |= PrintCommand.print(List.of(dir), f, nowhere, quiet, false, 1);
            }
            // the same trace with CTF 2 metadata (its JSON parser), read once
            Path ctf2 = dir.resolve("ctf2");
            SampleTrace.write(ctf2, events / 4, 4, 64 * 1024);
            try {
                Ctf2Writer.rewrite(ctf2.resolve("metadata"));
            } catch (MetadataException | Ctf2Writer.Unsupported e) {
                throw new IOException(e.getMessage(), e);
            }
            status |= PrintCommand.print(List.of(ctf2), PrintCommand.Format.text, nowhere, quiet, false, 1);
            // the viewer: a board simulated, its timeline built and kept, then opened from the file
            // and served (Javalin, the view requests), as 'hetrace view' does a second time
            Path board = dir.resolve("board");
            status |= Main.run(
                    nowhere, quiet, "sim", "--cores", "16", "--inject", "preempt:dsp1", "--out", board.toString());
            for (int k = 0; k < 2; k++) {
                status |= Main.run(
                        nowhere,
                        quiet,
                        "view",
                        "--cache",
                        dir.resolve("cache").toString(),
                        "--bench",
                        "100",
                        board.toString());
            }
            // the analyses: the state model and its statistics, then the SQL index (its Parquet
            // writers and encoders), whose profiles spare a one-shot build on a large board
            // deoptimizations and recompilations (about a seventh of its CPU on one core)
            Path busy = dir.resolve("busy");
            status |= Main.run(
                    nowhere,
                    quiet,
                    "sim",
                    "--cores",
                    "8",
                    "--images",
                    "60",
                    "--inject",
                    "preempt:dsp0,dsp1,dsp2,dsp3,dsp4,dsp5,dsp6,dsp7",
                    "--out",
                    busy.toString());
            status |= Main.run(nowhere, quiet, "stats", busy.toString());
            status |= Main.run(
                    nowhere,
                    quiet,
                    "query",
                    "--cache",
                    dir.resolve("index").toString(),
                    busy.toString(),
                    "select count(*) from events");
            return status;
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
