package dev.hetrace.profile.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Median and quartiles of repetitions, and the knee of a slowdown curve. */
class SweepSummaryTest {

	@Test
	void quartilesInterpolateBetweenOrderStatisticsAsNumpyDoes() {
		// numpy.percentile([4, 1, 3, 2, 10], [25, 50, 75]) = [2, 3, 4]
		Spread s = Spread.of(new double[] {4, 1, 3, 2, 10});
		assertThat(s).isEqualTo(new Spread(5, 3, 2, 4, 1, 10));
		// numpy.percentile([1, 2, 3, 4], [25, 50, 75]) = [1.75, 2.5, 3.25]
		Spread e = Spread.of(new double[] {4, 3, 2, 1, Double.NaN});
		assertThat(e.n()).isEqualTo(4);
		assertThat(e.q1()).isCloseTo(1.75, within(1e-12));
		assertThat(e.median()).isCloseTo(2.5, within(1e-12));
		assertThat(e.q3()).isCloseTo(3.25, within(1e-12));
		assertThat(e.iqr()).isCloseTo(1.5, within(1e-12));
		assertThat(Spread.of(new double[0]).median()).isNaN();
	}

	@Test
	void theKneeIsTheFirstLevelPastTheThresholdAndTheBudgetTheBandwidthOfTheLevelBefore() {
		Campaign c = campaign(Map.of(0, new double[] {1.0, 1.02, 0.98}, 1, new double[] {1.05, 1.04, 1.06}, 2,
				new double[] {1.2, 1.15, 1.3}, 4, new double[] {1.05, 1.09, 1.01}, 8, new double[] {2, 2.1, 1.9}));
		SweepSummary s = SweepSummary.of(c, 0.10);
		assertThat(s.levels()).extracting(SweepSummary.Level::level).containsExactly(0, 1, 2, 4, 8);
		assertThat(s.level(0).orElseThrow().slowdown()).isEqualTo(1.0);
		assertThat(s.level(1).orElseThrow().slowdown()).isCloseTo(1.05, within(1e-12));
		assertThat(s.level(2).orElseThrow().slowdown()).isCloseTo(1.2, within(1e-12));
		// the first crossing is the knee even if a higher level happens to dip back below
		assertThat(s.knee()).isEqualTo(2);
		assertThat(s.lastAcceptable()).isEqualTo(1);
		assertThat(s.level(1).orElseThrow().accessesPerSecond()).isEqualTo(1e6);
		assertThat(s.level(1).orElseThrow().bytesPerSecond()).isEqualTo(8e6);
		assertThat(SweepSummary.of(c, 0.25).knee()).isEqualTo(8);
		assertThat(SweepSummary.of(c, 1.5).knee()).isEqualTo(-1);
		assertThat(SweepSummary.of(c, 1.5).lastAcceptable()).isEqualTo(8);
	}

	@Test
	void theSlowdownCanBeOfACounterSuchAsTheCpuTime() {
		List<Run> runs = new ArrayList<>();
		double[][] byLevel = {{10, 3.0, 100}, {8, 9.0, 130}};
		for (double[] l : byLevel) {
			runs.add(new Run("w", Map.of("stress", Integer.toString((int) l[0])), 0, l[1], Double.NaN, Double.NaN,
					Map.of("task-clock", l[2]), Map.of(), List.of()));
		}
		runs.set(0, new Run("w", Map.of("stress", "0"), 0, 3.0, Double.NaN, Double.NaN, Map.of("task-clock", 100.0), Map.of(),
				List.of()));
		Campaign c = new Campaign("c", Map.of(), runs, List.of());
		assertThat(SweepSummary.of(c, 0.1).level(8).orElseThrow().slowdown()).isEqualTo(3.0);
		SweepSummary cpu = SweepSummary.of(c, 0.1, "task-clock");
		assertThat(cpu.measure()).isEqualTo("task-clock");
		assertThat(cpu.level(8).orElseThrow().slowdown()).isCloseTo(1.3, within(1e-12));
		assertThat(cpu.level(8).orElseThrow().runtime().median()).isEqualTo(130.0);
	}

	private static Campaign campaign(Map<Integer, double[]> runtimes) {
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
