package dev.hetrace.cli;

import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the analysis commands read: trace directories, or a folder written by {@code hetrace sim}
 * or {@code hetrace demo} (its traces, master first); several traces synchronized on the first
 * one's clock; their state model, with the functions a sim or demo folder traces by address named.
 */
final class BoardInput {
    private BoardInput() {}

    /** The traces of {@code inputs}, synchronized, and their state model read with {@code mapping} (or the presets). */
    static StateModel model(List<Path> inputs, Path mapping, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        return built(traces(inputs), mapping, symbols(inputs), w -> err.println("hetrace: warning: " + w)).model();
    }

    /**
     * {@code traces} synchronized and their state model, in one reading of each trace (the state
     * pass also finds the sync messages), read with {@code mapping} (or the presets), functions
     * named after {@code symbols}; refused when no event has a time.
     */
    static StateBuilder.Built built(List<Path> traces, Path mapping, java.util.Map<String, String> symbols,
                                    java.util.function.Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        Mapping m = mapping == null ? null : Mapping.read(mapping);
        StateBuilder.Built built = StateBuilder.synchronizeAndBuild(traces, m, warnings, null, 0);
        StateModel model = built.model();
        model.symbolize(symbols);
        if (model.events() == model.untimed()) {
            throw new IOException(model.events() == 0 ? "the traces have no events"
                : "the traces' events have no time (their streams have no clock)");
        }
        return built;
    }

    /** The traces of {@code inputs}, synchronized when there are several. */
    static StateBuilder.Input synchronize(List<Path> inputs, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        return StateBuilder.synchronize(traces(inputs), w -> err.println("hetrace: warning: " + w));
    }

    /** The traces of the inputs: a sim or demo folder gives its master then its slaves in order. */
    static List<Path> traces(List<Path> inputs) throws IOException {
        List<Path> out = new ArrayList<>();
        for (Path p : inputs) {
            Path board = Files.isDirectory(p.resolve("board")) ? p.resolve("board") : p;
            if (Files.isRegularFile(board.resolve("ground-truth.json"))) {
                try (Stream<Path> s = Files.list(board)) {
                    s.filter(d -> Files.isRegularFile(d.resolve("metadata")))
                        .sorted(Comparator.comparing((Path d) -> !d.getFileName().toString().equals("master"))
                            .thenComparing(d -> coreNumber(d.getFileName().toString())))
                        .forEach(out::add);
                }
            } else if (!Files.exists(p)) {
                throw new IOException(p + ": no such file or directory");
            } else {
                out.add(p);
            }
        }
        return out;
    }

    /** The function addresses a sim or demo folder's ground truth names (its master traces functions by address). */
    static java.util.Map<String, String> symbols(List<Path> inputs) throws IOException {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        for (Path p : inputs) {
            Path truth = (Files.isDirectory(p.resolve("board")) ? p.resolve("board") : p).resolve("ground-truth.json");
            if (Files.isRegularFile(truth)) {
                out.putAll(symbolNames(truth));
            }
        }
        return out;
    }

    /**
     * The {@code symbols} table of a ground truth ({@code "name": "0xADDR"}), address to name. The
     * file is read as a stream up to that table, which comes before the intervals: a long run's
     * truth holds gigabytes of intervals that this does not read.
     */
    static java.util.Map<String, String> symbolNames(Path truth) throws IOException {
        java.util.Map<String, String> out = new java.util.HashMap<>();
        try (com.fasterxml.jackson.core.JsonParser p = new com.fasterxml.jackson.core.JsonFactory().createParser(truth.toFile())) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                throw new IOException(truth + ": not a ground truth (a JSON object expected)");
            }
            while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                String field = p.currentName();
                com.fasterxml.jackson.core.JsonToken value = p.nextToken();
                if (!field.equals("symbols")) {
                    p.skipChildren();
                    continue;
                }
                if (value != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                    throw new IOException(truth + ": \"symbols\" is not an object");
                }
                while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    out.put(p.getText(), name);
                }
                break;
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var at = e.getLocation();
            throw new IOException(truth + (at == null ? "" : ":" + at.getLineNr()) + ": not a ground truth: " + e.getOriginalMessage(), e);
        }
        return out;
    }

    private static long coreNumber(String name) {
        Matcher m = Pattern.compile("(\\d+)$").matcher(name);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

}
