package dev.hetrace.cli;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What the analysis commands read (a picocli mixin): traces or folders of them, the mapping to
 * read them with, and how they are put on one clock.
 */
final class BoardOptions {
    @Parameters(arity = "1..*", paramLabel = "TRACE", description = BoardInput.TRACES_HELP)
    List<Path> inputs = new ArrayList<>();

    @Option(
            names = "--mapping",
            paramLabel = "FILE",
            description = "A YAML mapping instead of the presets (its format: 'hetrace stats --help').")
    Path mapping;

    @Mixin
    ClockOptions clock = new ClockOptions();

    /** The traces the inputs stand for: see {@link BoardInput#traces}. */
    List<Path> traces() throws IOException {
        return BoardInput.traces(inputs);
    }

    /** The traces' state model, on one clock: see {@link BoardInput#model}. */
    StateModel model(PrintStream err) throws IOException, MetadataException, StreamDecodingException {
        List<Path> traces = traces();
        return BoardInput.model(traces, clock.clocks(traces), mapping, BoardInput.symbols(inputs), err);
    }

    /**
     * The traces' state model as their index keeps it ({@code index}: where indexes are kept),
     * the index built first when there is none: the traces are read only then. The same model as
     * {@link #model}'s.
     */
    StateModel stored(IndexOptions index, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        return BoardInput.timed(index.open(inputs, clock, mapping, err).model());
    }
}
