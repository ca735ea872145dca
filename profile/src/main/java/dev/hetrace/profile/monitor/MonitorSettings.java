package dev.hetrace.profile.monitor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.metric.Metric;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@code hetrace monitor} measures: the sampling interval, the events asked for, and the
 * metrics computed from them; saved as {@code monitor.json} next to the samples, and read back
 * with {@code --config} (PMCTrackApp's future work: save and load configurations).
 *
 * @param intervalMs how often the threads are sampled
 * @param events     the events asked for: those /proc gives ({@link ThreadStat#COUNTERS}) are read
 *                   there, the others are counted by perf
 * @param metrics    the metrics, formulas over the counters and {@code interval} (the sample's
 *                   length in ms)
 */
public record MonitorSettings(int intervalMs, List<String> events, List<Metric> metrics) {

    /** The counter every sample has besides the events: its length in ms. */
    public static final String INTERVAL = "interval";

    /** The metrics shown when none is given. */
    public static final List<Metric> DEFAULT_METRICS = List.of(
            Metric.parse("cpu=task-clock * 100 / interval"),
            Metric.parse("switches=context-switches * 1000 / interval"),
            Metric.parse("faults=page-faults * 1000 / interval"),
            Metric.parse("migrations=cpu-migrations * 1000 / interval"));

    /** The events measured when none is given: the software events perf has and /proc gives per thread. */
    public static final List<String> DEFAULT_EVENTS =
            List.of("task-clock", "context-switches", "cpu-migrations", "page-faults");

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public MonitorSettings {
        if (intervalMs < 10 || intervalMs > 3_600_000) {
            throw new ProfileException("interval " + intervalMs + " ms: must be within 10 ms .. 1 h");
        }
        events = List.copyOf(new LinkedHashSet<>(events));
        metrics = List.copyOf(metrics);
        Set<String> names = new LinkedHashSet<>();
        List<String> measured = counters(events);
        for (Metric m : metrics) {
            if (!names.add(m.name())) {
                throw new ProfileException("metric '" + m.name() + "' is defined twice");
            }
            List<String> missing = m.formula().names().stream()
                    .filter(c -> !measured.contains(c))
                    .sorted()
                    .map(c -> "'" + c + "'")
                    .toList();
            if (!missing.isEmpty()) {
                throw new ProfileException("metric '" + m + "' uses " + String.join(", ", missing)
                        + ", not measured: add " + (missing.size() == 1 ? "it" : "them") + " to --events (measured: "
                        + String.join(", ", measured) + ")");
            }
        }
    }

    /** The events that perf counts: those asked for that /proc does not give. */
    public List<String> perfEvents() {
        return perfEvents(events);
    }

    private static List<String> perfEvents(List<String> events) {
        return events.stream().filter(e -> !ThreadStat.COUNTERS.contains(e)).toList();
    }

    /** Every counter of a sample: /proc's, {@code interval}, then perf's events. */
    public List<String> counters() {
        return counters(events);
    }

    private static List<String> counters(List<String> events) {
        List<String> all = new ArrayList<>(ThreadStat.COUNTERS);
        all.add(INTERVAL);
        all.addAll(perfEvents(events));
        return all;
    }

    /** Writes {@code monitor.json}: the interval, the events and the metrics as {@code NAME=FORMULA}. */
    public void write(Path file) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("interval_ms", intervalMs);
        events.forEach(root.putArray("events")::add);
        var ms = root.putArray("metrics");
        metrics.forEach(m -> ms.add(m.toString()));
        JSON.writeValue(file.toFile(), root);
    }

    /** Reads a {@code monitor.json}; a malformed one gets a {@link ProfileException} naming it. */
    public static MonitorSettings read(Path file) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new ProfileException(file + ": not a monitor configuration: " + e.getOriginalMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new ProfileException(file + ": not a monitor configuration: expected a JSON object");
        }
        List<String> events = new ArrayList<>();
        root.path("events").forEach(e -> events.add(e.asText()));
        List<Metric> metrics = new ArrayList<>();
        for (JsonNode m : root.path("metrics")) {
            try {
                metrics.add(Metric.parse(m.asText()));
            } catch (ProfileException e) {
                throw new ProfileException(file + ": " + e.getMessage(), e);
            }
        }
        try {
            return new MonitorSettings(
                    root.path("interval_ms").asInt(1000),
                    events.isEmpty() ? DEFAULT_EVENTS : events,
                    metrics.isEmpty() ? DEFAULT_METRICS : metrics);
        } catch (ProfileException e) {
            throw new ProfileException(file + ": " + e.getMessage(), e);
        }
    }
}
