package dev.hetrace.cli;

import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of the commands that read the traces' index (query, export): where it is cached, which mapping. */
final class IndexOptions {
    @Option(names = "--mapping", paramLabel = "FILE", description = "A YAML mapping instead of the presets.")
    Path mapping;

    @Option(names = "--cache", paramLabel = "DIR",
        description = "Where indexes are kept (default: $HETRACE_CACHE, else $XDG_CACHE_HOME/hetrace, else ~/.cache/hetrace).")
    Path cache;

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    /**
     * The index of the inputs (traces, or a sim/demo folder): the cached one when current, else
     * built now, saying so on stderr.
     */
    TraceIndex open(List<Path> inputs, Main main) throws IOException, MetadataException, StreamDecodingException {
        List<Path> traces = StatsCommand.traces(inputs);
        Path dir = cache != null ? cache : TraceIndex.defaultCache(System.getenv());
        return TraceIndex.open(dir, traces, mapping, StatsCommand.symbols(inputs), note -> main.err.println("hetrace: " + note));
    }

    /** Says what went wrong in one line (and the stack with --debug); the exit status. */
    int fail(Main main, Exception e) {
        String m = e instanceof java.sql.SQLException ? TraceIndex.firstLine(e.getMessage())
            : e instanceof IllegalArgumentException || !(e instanceof RuntimeException) ? e.getMessage()
            : "internal error: " + e;
        main.err.println("hetrace: " + m);
        if (debug) {
            e.printStackTrace(main.err);
        }
        return 1;
    }
}
