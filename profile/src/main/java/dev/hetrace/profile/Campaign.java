package dev.hetrace.profile;

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
 */
public record Campaign(String name, Map<String, String> host, List<Run> runs,
		List<Map<String, String>> hardware) {

	public Campaign {
		Objects.requireNonNull(name, "name");
		host = Map.copyOf(host);
		runs = List.copyOf(runs);
		hardware = List.copyOf(hardware);
	}

	public static Campaign of(String name, List<Run> runs) {
		return new Campaign(name, Map.of(), runs, List.of());
	}
}
