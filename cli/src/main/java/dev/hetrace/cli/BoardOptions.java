package dev.hetrace.cli;

import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What the analysis commands read (a picocli mixin): traces or a sim/demo folder, and the mapping to read them with. */
final class BoardOptions {
    @Parameters(arity = "1..*", paramLabel = "TRACE",
        description = "Trace directories, or a 'hetrace sim'/'hetrace demo' output folder.")
    List<Path> inputs = new ArrayList<>();

    @Option(names = "--mapping", paramLabel = "FILE", description = "A YAML mapping instead of the presets.")
    Path mapping;

    /** The traces' state model: see {@link BoardInput#model}. */
    StateModel model(PrintStream err) throws IOException, MetadataException, StreamDecodingException {
        return BoardInput.model(inputs, mapping, err);
    }
}
