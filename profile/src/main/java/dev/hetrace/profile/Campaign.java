package dev.hetrace.profile;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A measurement campaign: one workload run in several configurations (counter sets, co-runner
 * stress levels, core placement), several times each; or the runs imported from another tool.
 *
 * @param name     a short name for reports
 * @param host     what it ran on (CPU model, cores, kernel), empty when imported
 * @param runs     every run, in the order they were made
 * @param hardware step 1 of a sweep: what each stress level does alone (e.g. {@code
 *                 level=4} to its bandwidth in bytes/s), empty when not measured
 * @param curve    how the sweep drew its slowdown curve (what the slowdown is of, the
 *                 threshold of its knee), so that every later analysis draws the same one;
 *                 null when the campaign does not say (imported, or written by an older hetrace)
 */
public record Campaign(
        String name,
        Map<String, String> host,
        List<Run> runs,
        List<Map<String, String>> hardware,
        @JsonInclude(JsonInclude.Include.NON_NULL) Curve curve) {

    /**
     * What a slowdown curve compares and where its knee is.
     *
     * @param measure   a {@link Run#value} name: {@code runtime}, {@code user}, {@code system} or a
     *                  counter such as {@code task-clock}
     * @param threshold the acceptable slowdown, 0.10 for 10 %
     */
    public record Curve(String measure, double threshold) {

        public Curve {
            Objects.requireNonNull(measure, "measure");
            if (measure.isBlank()) {
                throw new IllegalArgumentException("the slowdown's measure is empty");
            }
            if (!(threshold >= 0) || Double.isInfinite(threshold)) {
                throw new IllegalArgumentException("the slowdown threshold must be ≥ 0, not " + threshold);
            }
        }
    }

    public Campaign {
        Objects.requireNonNull(name, "name");
        host = Map.copyOf(host);
        runs = List.copyOf(runs);
        hardware = List.copyOf(hardware);
    }

    /** A campaign that does not say how to draw its slowdown curve. */
    public Campaign(String name, Map<String, String> host, List<Run> runs, List<Map<String, String>> hardware) {
        this(name, host, runs, hardware, null);
    }

    public static Campaign of(String name, List<Run> runs) {
        return new Campaign(name, Map.of(), runs, List.of());
    }

    /** The same campaign, drawing its slowdown curve as {@code curve} says. */
    public Campaign withCurve(Curve curve) {
        return new Campaign(name, host, runs, hardware, curve);
    }
}
