package dev.hetrace.profile.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.metric.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The slowdown curve, its knee and budget, and the campaign statistics around them, on campaigns whose numbers are known. */
class SlowdownCurveTest {

	/** Five repetitions per level, runtimes base·factor·(1 + small known jitter). */
	static Campaign campaign(double... factors) {
		double[] jitter = {0, 0.01, -0.01, 0.02, -0.02};
		List<Run> runs = new ArrayList<>();
		for (int level = 0; level < factors.length; level++) {
			for (int k = 0; k < jitter.length; k++) {
				double rt = 2.0 * factors[level] * (1 + jitter[k]);
				runs.add(new Run("./work", Map.of("stress", Integer.toString(level)), k, rt, rt * 0.9, rt * 0.05,
						Map.of("task-clock", rt * 1e9 * 0.95, "page-faults", 1000.0 + k), Map.of(), List.of()));
			}
		}
		List<Map<String, String>> hw = new ArrayList<>();
		for (int level = 1; level < factors.length; level++) {
			hw.add(Map.of("level", Integer.toString(level), "bytes_per_second", Double.toString(level * 1e9)));
		}
		return new Campaign("sweep", Map.of(), runs, hw);
	}

	@Test
	void theKneeIsTheFirstLevelPastTheThresholdAndTheBudgetTheLastBeforeIt() {
		SlowdownCurve c = SlowdownCurve.of(campaign(1, 1.02, 1.05, 1.2, 1.5));
		assertThat(c.levels()).extracting(SlowdownCurve.Level::label).containsExactly("0", "1", "2", "3", "4");
		assertThat(c.levels().get(0).slowdown()).isEqualTo(1.0);
		assertThat(c.levels().get(3).slowdown()).isCloseTo(1.2, within(1e-12));
		assertThat(c.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("3");
		assertThat(c.budget()).get().isEqualTo(new SlowdownCurve.Budget("2", 2e9));
		// medians of resamples of ±2 % jitter: the interval holds the ratio and stays within the jitter's reach
		SlowdownCurve.Level l3 = c.levels().get(3);
		assertThat(l3.slowdownLow()).isLessThanOrEqualTo(l3.slowdown()).isGreaterThan(1.2 * 0.96);
		assertThat(l3.slowdownHigh()).isGreaterThanOrEqualTo(l3.slowdown()).isLessThan(1.2 * 1.04);

		SlowdownCurve loose = SlowdownCurve.of(campaign(1, 1.02, 1.05, 1.2, 1.5), 0.25);
		assertThat(loose.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("4");
		assertThat(loose.budget()).get().extracting(SlowdownCurve.Budget::level).isEqualTo("3");
	}

	@Test
	void withoutAKneeEveryLevelIsAcceptable() {
		SlowdownCurve c = SlowdownCurve.of(campaign(1, 1.01, 1.03));
		assertThat(c.knee()).isEmpty();
		assertThat(c.budget()).get().extracting(SlowdownCurve.Budget::level).isEqualTo("2");
	}

	@Test
	void namedLevelsComeAfterNumberedOnesAtTheirRank() {
		List<Run> runs = new ArrayList<>();
		String[] levels = {"0", "l2-read", "dram-write", "2"};
		double[] rt = {1, 1.05, 1.5, 1.02};
		for (int i = 0; i < levels.length; i++) {
			runs.add(new Run("w", Map.of("stress", levels[i]), 0, rt[i], Double.NaN, Double.NaN, Map.of(), Map.of(), List.of()));
		}
		SlowdownCurve c = SlowdownCurve.of(Campaign.of("named", runs));
		assertThat(c.levels()).extracting(SlowdownCurve.Level::label).containsExactly("0", "2", "l2-read", "dram-write");
		assertThat(c.levels()).extracting(SlowdownCurve.Level::level).containsExactly(0.0, 1.0, 2.0, 3.0);
		assertThat(c.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("dram-write");
	}

	@Test
	void aCurveNeedsIsolatedRuns() {
		Campaign c = Campaign.of("x", List.of(new Run("w", Map.of("stress", "2"), 0, 1, 1, 0, Map.of(), Map.of(), List.of())));
		assertThatThrownBy(() -> SlowdownCurve.of(c)).hasMessageContaining("no isolated runs");
	}

	@Test
	void campaignStatsRankCountersAndGroupRuns() {
		CampaignStats s = CampaignStats.of(campaign(1, 1.02, 1.05, 1.2, 1.5),
				List.of(Metric.parse("ms_per_fault=task-clock / page-faults")), "stress", 0.10);
		assertThat(s.runs()).isEqualTo(25);
		assertThat(s.quantities()).containsKeys("runtime", "user", "system", "task-clock", "page-faults", "ms_per_fault");
		// task-clock is runtime·0.95e9: a perfect line
		assertThat(s.ranking().get(0).x()).isEqualTo("task-clock");
		assertThat(s.ranking().get(0).r()).isCloseTo(1, within(1e-9));
		assertThat(s.ranking().get(0).slope()).isCloseTo(1 / 0.95e9, within(1e-18));
		assertThat(s.groups()).extracting(CampaignStats.Group::key).containsExactly("0", "1", "2", "3", "4");
		assertThat(s.groups().get(4).runtime().median()).isCloseTo(3.0, within(1e-12));
		assertThat(s.split().systemShare()).isCloseTo(0.05 / 0.95, within(1e-12));
		assertThat(s.slowdown()).isPresent();
		assertThat(CampaignStats.of(campaign(1)).slowdown()).isEmpty();
	}

	@Test
	void theKneeIsTheFirstCrossingEvenIfAHigherLevelDipsBackAndTheBudgetIsTheLevelBefore() {
		Campaign c = sweep(Map.of(0, new double[] {1.0, 1.02, 0.98}, 1, new double[] {1.05, 1.04, 1.06}, 2,
				new double[] {1.2, 1.15, 1.3}, 4, new double[] {1.05, 1.09, 1.01}, 8, new double[] {2, 2.1, 1.9}));
		SlowdownCurve s = SlowdownCurve.of(c, 0.10);
		assertThat(s.levels()).extracting(SlowdownCurve.Level::label).containsExactly("0", "1", "2", "4", "8");
		assertThat(s.levels().get(1).slowdown()).isCloseTo(1.05, within(1e-12));
		assertThat(s.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("2");
		assertThat(s.budget()).get().isEqualTo(new SlowdownCurve.Budget("1", 8e6, 1e6));
		assertThat(SlowdownCurve.of(c, 0.25).knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("8");
		assertThat(SlowdownCurve.of(c, 1.5).knee()).isEmpty();
		assertThat(SlowdownCurve.of(c, 1.5).budget()).get().extracting(SlowdownCurve.Budget::level).isEqualTo("8");
	}

	@Test
	void theSlowdownCanBeOfACounterSuchAsTheCpuTime() {
		List<Run> runs = List.of(
				new Run("w", Map.of("stress", "0"), 0, 3.0, Double.NaN, Double.NaN, Map.of("task-clock", 100.0), Map.of(), List.of()),
				new Run("w", Map.of("stress", "8"), 0, 9.0, Double.NaN, Double.NaN, Map.of("task-clock", 130.0), Map.of(), List.of()));
		Campaign c = new Campaign("c", Map.of(), runs, List.of());
		assertThat(SlowdownCurve.of(c, 0.1).levels().get(1).slowdown()).isEqualTo(3.0);
		SlowdownCurve cpu = SlowdownCurve.of(c, 0.1, "task-clock");
		assertThat(cpu.measure()).isEqualTo("task-clock");
		assertThat(cpu.levels().get(1).slowdown()).isCloseTo(1.3, within(1e-12));
		assertThat(cpu.levels().get(1).runtime().median()).isEqualTo(130.0);
	}

	/** A sweep's campaign: runtimes per level, and step 1's bandwidth (1e6 accesses/s and 8e6 bytes/s per level). */
	private static Campaign sweep(Map<Integer, double[]> runtimes) {
		List<Run> runs = new ArrayList<>();
		List<Map<String, String>> hw = new ArrayList<>();
		runtimes.forEach((level, rts) -> {
			for (int i = 0; i < rts.length; i++) {
				runs.add(new Run("w", Map.of("stress", level.toString()), i, rts[i], Double.NaN, Double.NaN, Map.of(),
						Map.of(), List.of()));
			}
			hw.add(Map.of("level", level.toString(), "accesses_per_second", Double.toString(level * 1e6),
					"bytes_per_second", Double.toString(level * 8e6)));
		});
		return new Campaign("c", Map.of(), runs, hw);
	}
}
