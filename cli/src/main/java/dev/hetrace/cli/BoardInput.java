package dev.hetrace.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.TerminalText;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the analysis commands read: trace directories, or folders of traces (each directory
 * holding a {@code metadata} file, at any depth, is one trace; a {@code hetrace demo} folder
 * stands for its board); the traces put on one clock; their state model, with the functions a
 * sim or demo folder traces by address named.
 */
final class BoardInput {
    private BoardInput() {}

    /** What the inputs may be, for help texts. */
    static final String TRACES_HELP = "Trace directories, or folders of them (each directory holding a 'metadata'"
            + " file, at any depth, is a trace): a 'hetrace sim' or 'hetrace demo' folder, 'sync --out' copies,"
            + " an LTTng session's kernel/ and ust/ traces.";

    /**
     * The traces synchronized as {@code clocks} say and their state model read with
     * {@code mapping} (or the presets), functions named after {@code symbols}.
     */
    static StateModel model(
            List<Path> traces, StateBuilder.Clocks clocks, Path mapping, Map<String, String> symbols, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        return built(traces, clocks, mapping, symbols, w -> err.println("hetrace: warning: " + TerminalText.guard(w)))
                .model();
    }

    /**
     * {@code traces} synchronized as {@code clocks} say and their state model, in one reading of
     * each trace (the state pass also finds the sync messages), read with {@code mapping} (or the
     * presets), functions named after {@code symbols}; refused when no event has a time.
     */
    static StateBuilder.Built built(
            List<Path> traces,
            StateBuilder.Clocks clocks,
            Path mapping,
            Map<String, String> symbols,
            Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        Mapping m = mapping == null ? null : Mapping.read(mapping);
        StateBuilder.Built built = StateBuilder.synchronizeAndBuild(
                traces, clocks, StateBuilder.Options.of(warnings).withMapping(m));
        StateModel model = built.model();
        model.symbolize(symbols, warnings);
        timed(model);
        return built;
    }

    /** {@code model}, refused when none of its events has a time. */
    static StateModel timed(StateModel model) throws IOException {
        if (model.events() == model.untimed()) {
            throw new IOException(
                    model.events() == 0
                            ? "the traces have no events"
                            : "the traces' events have no time (their streams have no clock)");
        }
        return model;
    }

    /**
     * The traces of the inputs, each once: a trace directory itself; a folder, the trace
     * directories in it at any depth, 'master' first, then in the order of their paths (numbers
     * by value: dsp2 before dsp10); a 'hetrace demo' folder, the traces of its board.
     */
    static List<Path> traces(List<Path> inputs) throws IOException {
        LinkedHashMap<Path, Path> out = new LinkedHashMap<>();
        for (Path p : inputs) {
            if (!Files.exists(p)) {
                throw new IOException(p + ": no such file or directory");
            }
            if (!Files.isDirectory(p)) {
                throw new IOException(
                        p + ": not a trace directory (a directory holding a 'metadata' file) nor a folder of them");
            }
            List<Path> found;
            if (Files.isRegularFile(p.resolve("metadata"))) {
                found = List.of(p);
            } else {
                Path folder =
                        Files.isRegularFile(p.resolve("board").resolve("ground-truth.json")) ? p.resolve("board") : p;
                found = new ArrayList<>(CtfTrace.find(folder));
                found.sort(Comparator.comparing(
                                (Path d) -> !d.getFileName().toString().equals("master"))
                        .thenComparing((x, y) -> pathOrder(folder.relativize(x), folder.relativize(y))));
                if (found.isEmpty()) {
                    throw new IOException(p + ": no trace in it (no directory holding a 'metadata' file)");
                }
            }
            for (Path t : found) {
                out.putIfAbsent(t.toAbsolutePath().normalize(), t);
            }
        }
        return new ArrayList<>(out.values());
    }

    /** Paths in the order a person reads them: name by name, numbers in a name by value (dsp2 before dsp10). */
    static int pathOrder(Path a, Path b) {
        for (int i = 0; i < Math.min(a.getNameCount(), b.getNameCount()); i++) {
            int c = naturalOrder(a.getName(i).toString(), b.getName(i).toString());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.getNameCount(), b.getNameCount());
    }

    private static final Pattern DIGITS = Pattern.compile("\\d+|\\D+");

    /** Names in the order a person reads them: runs of digits compared by value. */
    private static int naturalOrder(String a, String b) {
        Matcher ma = DIGITS.matcher(a);
        Matcher mb = DIGITS.matcher(b);
        while (ma.find() && mb.find()) {
            String x = ma.group();
            String y = mb.group();
            int c;
            if (Character.isDigit(x.charAt(0)) && Character.isDigit(y.charAt(0))) {
                String xs = x.replaceFirst("^0+(?=.)", "");
                String ys = y.replaceFirst("^0+(?=.)", "");
                c = xs.length() != ys.length() ? Integer.compare(xs.length(), ys.length()) : xs.compareTo(ys);
            } else {
                c = x.compareTo(y);
            }
            if (c != 0) {
                return c;
            }
        }
        return a.compareTo(b);
    }

    /** The function addresses a sim or demo folder's ground truth names (its master traces functions by address). */
    static Map<String, String> symbols(List<Path> inputs) throws IOException {
        Map<String, String> out = new HashMap<>();
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
    static Map<String, String> symbolNames(Path truth) throws IOException {
        Map<String, String> out = new HashMap<>();
        try (JsonParser p = new JsonFactory().createParser(truth.toFile())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException(truth + ": not a ground truth (a JSON object expected)");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (!field.equals("symbols")) {
                    p.skipChildren();
                    continue;
                }
                if (value != JsonToken.START_OBJECT) {
                    throw new IOException(truth + ": \"symbols\" is not an object");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    out.put(p.getText(), name);
                }
                break;
            }
        } catch (JsonProcessingException e) {
            var at = e.getLocation();
            throw new IOException(
                    truth + (at == null ? "" : ":" + at.getLineNr()) + ": not a ground truth: "
                            + e.getOriginalMessage(),
                    e);
        }
        return out;
    }
}
