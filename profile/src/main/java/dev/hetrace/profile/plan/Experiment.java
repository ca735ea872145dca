package dev.hetrace.profile.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.metric.Formula;
import dev.hetrace.profile.metric.Metric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PMCTrackApp experiment saved as a file (its "future work"): the event each counter register
 * counts ({@code pmc0}, {@code pmc1}, ... in order) and the metrics, as formulas over the events'
 * names or over {@code pmcN}. Saved as JSON:
 *
 * <pre>{@code
 * {
 *   "name" : "llc",
 *   "counters" : [ "instructions", "cycles", "llc_misses" ],
 *   "metrics" : { "ipc" : "pmc0 / pmc1", "llc_mpki" : "llc_misses * 1000 / instructions" }
 * }
 * }</pre>
 *
 * @param name     a short name
 * @param counters the event of each register, pmc0 first
 * @param metrics  metric name to formula text, in order
 */
public record Experiment(String name, List<String> counters, Map<String, String> metrics) {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final Pattern PMC = Pattern.compile("pmc(\\d+)");

    public Experiment {
        Objects.requireNonNull(name, "name");
        counters = List.copyOf(counters);
        metrics = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    }

    /** The metrics, parsed (a malformed formula gets a {@link ProfileException} naming the metric). */
    public List<Metric> parsedMetrics() {
        List<Metric> out = new ArrayList<>();
        metrics.forEach((k, v) -> {
            try {
                out.add(new Metric(k, Formula.parse(v)));
            } catch (ProfileException e) {
                throw new ProfileException("metric " + k + ": " + e.getMessage(), e);
            }
        });
        return out;
    }

    /** A counter lookup that answers {@code pmcN} with the value of register N's event (and the reverse), else the name itself. */
    public ToDoubleFunction<String> lookup(Map<String, Double> values) {
        return name -> {
            Double v = values.get(name);
            if (v != null) {
                return v;
            }
            Matcher m = PMC.matcher(name);
            if (m.matches()) {
                int i = Integer.parseInt(m.group(1));
                return i < counters.size() ? values.getOrDefault(counters.get(i), Double.NaN) : Double.NaN;
            }
            int i = counters.indexOf(name);
            return i >= 0 ? values.getOrDefault("pmc" + i, Double.NaN) : Double.NaN;
        };
    }

    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        JSON.writeValue(file.toFile(), this);
    }

    /** Reads an experiment; a malformed file or formula gets a {@link ProfileException} naming the file (and line). */
    public static Experiment read(Path file) throws IOException {
        Experiment e;
        try {
            e = JSON.readValue(file.toFile(), Experiment.class);
        } catch (JsonProcessingException x) {
            var at = x.getLocation();
            throw new ProfileException(
                    file + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr())
                            + ": not a hetrace experiment: " + x.getOriginalMessage(),
                    x);
        }
        try {
            e.parsedMetrics();
        } catch (ProfileException x) {
            throw new ProfileException(file + ": " + x.getMessage(), x);
        }
        return e;
    }
}
