package dev.hetrace.cli;

import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** Where the commands that read the traces' index (query, export, view) keep it (a picocli mixin), and how they open it. */
final class IndexOptions {
    @Option(
            names = "--cache",
            paramLabel = "DIR",
            description = {
                "Where indexes are kept (default: $HETRACE_CACHE, else",
                "$XDG_CACHE_HOME/hetrace, else ~/.cache/hetrace)."
            })
    Path cache;

    /**
     * The index of the inputs (traces, or folders of them) put on one clock as {@code clock} says
     * and read with {@code mapping} (null: the presets): the cached one when current, else built
     * now, saying so on {@code err}.
     */
    TraceIndex open(List<Path> inputs, ClockOptions clock, Path mapping, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        List<Path> traces = BoardInput.traces(inputs);
        return TraceIndex.open(
                dir(),
                traces,
                clock.clocks(traces),
                mapping,
                BoardInput.symbols(inputs),
                note -> err.println("hetrace: " + note));
    }

    /** The folder of the indexes: --cache, else the default. */
    Path dir() {
        return cache != null ? cache : TraceIndex.defaultCache(System.getenv());
    }
}
