package dev.hetrace.profile.perf;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The slowdown curve of a sweep, simply: per stress level the workload's runtime (median and
 * spread over repetitions) and its slowdown (median at the level / median isolated, level 0),
 * the knee (the first level whose slowdown exceeds 1 + threshold) and the extra-access budget
 * (the stressor's bandwidth alone, step 1, at the last level below the knee).
 *
 * @param measure           what the slowdown is of: {@code runtime} (wall clock), or another
 *                          {@link Run#value} such as {@code task-clock} (CPU time, which leaves out
 *                          the time a workload waited for its CPU on a busy machine)
 * @param levels            the levels in increasing order
 * @param threshold         the acceptable slowdown, e.g. 0.10 for 10 %
 * @param knee              the first level past the threshold, -1 when none is
 * @param lastAcceptable    the highest level before the knee (every level when there is no knee), -1 when even level 0 is missing
 */
public record SweepSummary(String measure, List<Level> levels, double threshold, int knee, int lastAcceptable) {

	/**
	 * One stress level.
	 *
	 * @param level             the stress level (0 = isolated)
	 * @param runtime           the measure over the repetitions (the runtime in seconds by default)
	 * @param slowdown          its median / its median isolated
	 * @param accessesPerSecond the stressor's accesses per second alone at this level (step 1), NaN when not measured
	 * @param bytesPerSecond    the same in bytes per second
	 */
	public record Level(int level, Spread runtime, double slowdown, double accessesPerSecond, double bytesPerSecond) {
	}

	/** The summary of a sweep's campaign by runtime: runs grouped by their {@code stress} label. */
	public static SweepSummary of(Campaign campaign, double threshold) {
		return of(campaign, threshold, "runtime");
	}

	/** The summary by {@code measure}, a {@link Run#value} name: {@code runtime}, {@code user}, a counter. */
	public static SweepSummary of(Campaign campaign, double threshold, String measure) {
		TreeMap<Integer, List<Double>> byLevel = new TreeMap<>();
		for (Run r : campaign.runs()) {
			String s = r.config().get("stress");
			if (s != null) {
				byLevel.computeIfAbsent(Integer.parseInt(s), k -> new ArrayList<>()).add(r.value(measure));
			}
		}
		Map<Integer, Map<String, String>> hw = new TreeMap<>();
		for (Map<String, String> h : campaign.hardware()) {
			if (h.containsKey("level")) {
				hw.put(Integer.parseInt(h.get("level")), h);
			}
		}
		double isolated = byLevel.containsKey(0) ? Spread.of(byLevel.get(0)).median() : Double.NaN;
		List<Level> levels = new ArrayList<>();
		int knee = -1;
		int last = -1;
		for (var e : byLevel.entrySet()) {
			Spread rt = Spread.of(e.getValue());
			double slowdown = rt.median() / isolated;
			Map<String, String> h = hw.getOrDefault(e.getKey(), Map.of());
			levels.add(new Level(e.getKey(), rt, slowdown, number(h.get("accesses_per_second")),
					number(h.get("bytes_per_second"))));
			if (knee < 0 && !Double.isNaN(slowdown)) {
				if (slowdown > 1 + threshold) {
					knee = e.getKey();
				} else {
					last = e.getKey();
				}
			}
		}
		return new SweepSummary(measure, levels, threshold, knee, last);
	}

	/** The level {@code level}, if measured. */
	public java.util.Optional<Level> level(int level) {
		return levels.stream().filter(l -> l.level == level).findFirst();
	}

	private static double number(String s) {
		try {
			return s == null ? Double.NaN : Double.parseDouble(s);
		} catch (NumberFormatException e) {
			return Double.NaN;
		}
	}
}
