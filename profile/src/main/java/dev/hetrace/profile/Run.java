package dev.hetrace.profile;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One execution of a workload in a campaign: the configuration it ran in, how long it took, and
 * the counters measured meanwhile (METrICS' "run", a `perf stat` invocation, one probe export).
 *
 * @param workload      what ran: the command line, or the probe or application name
 * @param config        the configuration labels that tell runs apart, e.g. {@code stress=3},
 *                      {@code stressor=l2-read}, {@code cpu=0}, {@code counters=set-2}
 * @param repetition    0-based index of this run among the runs of the same configuration
 * @param runtimeSeconds wall-clock runtime, NaN when the source does not give it
 * @param userSeconds   CPU time in user mode, NaN when unknown
 * @param systemSeconds CPU time in the kernel (system calls), NaN when unknown
 * @param counters      counter (event) name to its total over the run; only events measured
 * @param unsupported   events that were asked for but that this machine or source could not
 *                      count, each with the reason (e.g. "cycles" to "not supported by the PMU")
 * @param samples       per-thread samples over time (time- or event-based), empty when none
 */
public record Run(
        String workload,
        Map<String, String> config,
        int repetition,
        double runtimeSeconds,
        double userSeconds,
        double systemSeconds,
        Map<String, Double> counters,
        Map<String, String> unsupported,
        List<Sample> samples) {

    public Run {
        Objects.requireNonNull(workload, "workload");
        config = Map.copyOf(config);
        counters = Map.copyOf(counters);
        unsupported = Map.copyOf(unsupported);
        samples = List.copyOf(samples);
    }

    /** The value of a counter, or of {@code runtime}, {@code user} or {@code system} time; NaN when absent. */
    public double value(String name) {
        return switch (name) {
            case "runtime" -> runtimeSeconds;
            case "user" -> userSeconds;
            case "system" -> systemSeconds;
            default -> counters.getOrDefault(name, Double.NaN);
        };
    }
}
