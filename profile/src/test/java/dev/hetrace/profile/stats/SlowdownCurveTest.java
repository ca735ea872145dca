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
import java.util.Optional;
import java.util.OptionalDouble;
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
                runs.add(new Run(
                        "./work",
                        Map.of("stress", Integer.toString(level)),
                        k,
                        rt,
                        rt * 0.9,
                        rt * 0.05,
                        Map.of("task-clock", rt * 1e9 * 0.95, "page-faults", 1000.0 + k),
                        Map.of(),
                        List.of()));
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
            runs.add(new Run(
                    "w", Map.of("stress", levels[i]), 0, rt[i], Double.NaN, Double.NaN, Map.of(), Map.of(), List.of()));
        }
        SlowdownCurve c = SlowdownCurve.of(Campaign.of("named", runs));
        assertThat(c.levels())
                .extracting(SlowdownCurve.Level::label)
                .containsExactly("0", "2", "l2-read", "dram-write");
        assertThat(c.levels()).extracting(SlowdownCurve.Level::level).containsExactly(0.0, 1.0, 2.0, 3.0);
        assertThat(c.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("dram-write");
    }

    @Test
    void aCurveNeedsIsolatedRuns() {
        Campaign c = Campaign.of(
                "x", List.of(new Run("w", Map.of("stress", "2"), 0, 1, 1, 0, Map.of(), Map.of(), List.of())));
        assertThatThrownBy(() -> SlowdownCurve.of(c)).hasMessageContaining("no isolated runs");
    }

    @Test
    void campaignStatsRankCountersAndGroupRuns() {
        CampaignStats s = CampaignStats.of(
                campaign(1, 1.02, 1.05, 1.2, 1.5),
                List.of(Metric.parse("ms_per_fault=task-clock / page-faults")),
                "stress",
                0.10);
        assertThat(s.runs()).isEqualTo(25);
        assertThat(s.quantities())
                .containsKeys("runtime", "user", "system", "task-clock", "page-faults", "ms_per_fault");
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
        Campaign c = sweep(Map.of(
                0,
                new double[] {1.0, 1.02, 0.98},
                1,
                new double[] {1.05, 1.04, 1.06},
                2,
                new double[] {1.2, 1.15, 1.3},
                4,
                new double[] {1.05, 1.09, 1.01},
                8,
                new double[] {2, 2.1, 1.9}));
        SlowdownCurve s = SlowdownCurve.of(c, 0.10);
        assertThat(s.levels()).extracting(SlowdownCurve.Level::label).containsExactly("0", "1", "2", "4", "8");
        assertThat(s.levels().get(1).slowdown()).isCloseTo(1.05, within(1e-12));
        assertThat(s.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("2");
        assertThat(s.budget()).get().isEqualTo(new SlowdownCurve.Budget("1", 8e6, 1e6));
        assertThat(SlowdownCurve.of(c, 0.25).knee())
                .get()
                .extracting(SlowdownCurve.Level::label)
                .isEqualTo("8");
        assertThat(SlowdownCurve.of(c, 1.5).knee()).isEmpty();
        assertThat(SlowdownCurve.of(c, 1.5).budget())
                .get()
                .extracting(SlowdownCurve.Budget::level)
                .isEqualTo("8");
    }

    @Test
    void theSlowdownCanBeOfACounterSuchAsTheCpuTime() {
        List<Run> runs = List.of(
                new Run(
                        "w",
                        Map.of("stress", "0"),
                        0,
                        3.0,
                        Double.NaN,
                        Double.NaN,
                        Map.of("task-clock", 100.0),
                        Map.of(),
                        List.of()),
                new Run(
                        "w",
                        Map.of("stress", "8"),
                        0,
                        9.0,
                        Double.NaN,
                        Double.NaN,
                        Map.of("task-clock", 130.0),
                        Map.of(),
                        List.of()));
        Campaign c = new Campaign("c", Map.of(), runs, List.of());
        assertThat(SlowdownCurve.of(c, 0.1).levels().get(1).slowdown()).isEqualTo(3.0);
        SlowdownCurve cpu = SlowdownCurve.of(c, 0.1, "task-clock");
        assertThat(cpu.measure()).isEqualTo("task-clock");
        assertThat(cpu.levels().get(1).slowdown()).isCloseTo(1.3, within(1e-12));
        assertThat(cpu.levels().get(1).runtime().median()).isEqualTo(130.0);
    }

    @Test
    void whenTheFirstStressedLevelIsPastTheThresholdThereIsNoBudgetNotTheIsolatedLevelsZero() {
        // step 1 measured level 0 as no accesses: a budget "at stress 0 = 0 MB/s" would be that
        Campaign c = sweep(Map.of(
                0, new double[] {1.0, 1.01, 0.99}, 4, new double[] {1.3, 1.31, 1.29}, 8, new double[] {1.6, 1.5, 1.7}));
        SlowdownCurve s = SlowdownCurve.of(c, 0.10);
        assertThat(s.knee()).get().extracting(SlowdownCurve.Level::label).isEqualTo("4");
        assertThat(s.budget()).isEmpty();
        assertThat(s.budgetText())
                .isEqualTo("extra-access budget: none: the lowest stress level measured, 4"
                        + " (4.000e+06 accesses/s, 32.0 MB/s), already slows the workload past the threshold; a budget, if any,"
                        + " lies below it");
        assertThat(s.kneeText()).isEqualTo("knee: level 4, slowdown 1.300 (past 1.100)");

        // the budget at a stressed level, with its bandwidth, and "at least" when there is no knee
        SlowdownCurve loose = SlowdownCurve.of(c, 0.4);
        assertThat(loose.budget()).get().isEqualTo(new SlowdownCurve.Budget("4", 32e6, 4e6));
        assertThat(loose.budgetText())
                .isEqualTo("extra-access budget: level 4, 4.000e+06 accesses/s, 32.0 MB/s of the" + " stressor alone");
        assertThat(SlowdownCurve.of(c, 1.0).budgetText()).startsWith("extra-access budget: at least level 8, ");
        assertThat(SlowdownCurve.of(c, 1.0).kneeText())
                .isEqualTo("no knee: every level stays within a slowdown of 2.000");
    }

    @Test
    void aBudgetWhoseBandwidthWasNotMeasuredOrMeasuredAsNothingSaysSo() {
        List<Run> runs = new ArrayList<>();
        for (int level : new int[] {0, 1, 2}) {
            runs.add(new Run(
                    "w",
                    Map.of("stress", Integer.toString(level)),
                    0,
                    1 + 0.2 * level * level,
                    Double.NaN,
                    Double.NaN,
                    Map.of(),
                    Map.of(),
                    List.of()));
        }
        // imported: no step 1
        SlowdownCurve imported = SlowdownCurve.of(Campaign.of("imported", runs), 0.25);
        assertThat(imported.budget())
                .get()
                .extracting(SlowdownCurve.Budget::level)
                .isEqualTo("1");
        assertThat(imported.budgetText())
                .isEqualTo("extra-access budget: level 1; its bandwidth is unknown: the campaign"
                        + " has no measurement of the stressor alone at that level");
        // a step 1 whose stressor made no accesses at level 1
        Campaign idle = new Campaign("idle", Map.of(), runs, List.of(Map.of("level", "1", "bytes_per_second", "0.0")));
        assertThat(SlowdownCurve.of(idle, 0.25).budgetText())
                .isEqualTo("extra-access budget: unknown: the stressor"
                        + " alone at level 1 made no accesses (0.0 B/s measured)");
    }

    @Test
    void theCurveIsOfTheMeasureAndAtTheThresholdTheCampaignRecordsUnlessGiven() {
        List<Run> runs = new ArrayList<>();
        // runtime doubles at level 8 (the workload waited for its CPU), task-clock grows 5 %
        for (int k = 0; k < 3; k++) {
            runs.add(new Run(
                    "w",
                    Map.of("stress", "0"),
                    k,
                    1.0 + 0.01 * k,
                    Double.NaN,
                    Double.NaN,
                    Map.of("task-clock", 100.0 + k),
                    Map.of(),
                    List.of()));
            runs.add(new Run(
                    "w",
                    Map.of("stress", "8"),
                    k,
                    2.0 + 0.01 * k,
                    Double.NaN,
                    Double.NaN,
                    Map.of("task-clock", 105.0 + k),
                    Map.of(),
                    List.of()));
        }
        Campaign old = new Campaign("c", Map.of(), runs, List.of());
        Campaign swept = old.withCurve(new Campaign.Curve("task-clock", 0.10));

        SlowdownCurve byDefault = SlowdownCurve.of(old);
        assertThat(byDefault.measure()).isEqualTo("runtime");
        assertThat(byDefault.knee())
                .get()
                .extracting(SlowdownCurve.Level::label)
                .isEqualTo("8");
        assertThat(byDefault.basis())
                .isEqualTo("slowdown of runtime (the default: the campaign does not record what"
                        + " it was swept with), threshold 10 % (the default)");

        SlowdownCurve asSwept = SlowdownCurve.of(swept);
        assertThat(asSwept.measure()).isEqualTo("task-clock");
        assertThat(asSwept.unit()).isEqualTo("ms");
        assertThat(asSwept.knee()).isEmpty();
        assertThat(asSwept.basis()).isEqualTo("slowdown of task-clock (as swept), threshold 10 % (as swept)");
        // a threshold alone keeps the recorded measure: the statistics' --threshold
        assertThat(SlowdownCurve.of(swept, 0.02).measure()).isEqualTo("task-clock");
        assertThat(SlowdownCurve.of(swept, 0.02).knee())
                .get()
                .extracting(SlowdownCurve.Level::label)
                .isEqualTo("8");
        assertThat(CampaignStats.of(swept).slowdown())
                .get()
                .extracting(SlowdownCurve::measure)
                .isEqualTo("task-clock");

        SlowdownCurve overridden = SlowdownCurve.of(swept, Optional.of("runtime"), OptionalDouble.of(0.05));
        assertThat(overridden.knee())
                .get()
                .extracting(SlowdownCurve.Level::label)
                .isEqualTo("8");
        assertThat(overridden.basis())
                .isEqualTo("slowdown of runtime (asked for; swept with task-clock), threshold"
                        + " 5 % (asked for; swept with 10 %)");

        assertThatThrownBy(() -> SlowdownCurve.of(swept, 0.1, "cycles"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "the slowdown of cycles cannot be computed: no run of campaign 'c' has cycles (they have runtime,"
                                + " task-clock)");
        List<Run> stressedOnly = runs.stream()
                .map(r -> r.config().get("stress").equals("0")
                        ? new Run(
                                "w",
                                r.config(),
                                r.repetition(),
                                r.runtimeSeconds(),
                                Double.NaN,
                                Double.NaN,
                                Map.of(),
                                Map.of(),
                                List.of())
                        : r)
                .toList();
        assertThatThrownBy(() -> SlowdownCurve.of(Campaign.of("c", stressedOnly), 0.1, "task-clock"))
                .hasMessage("the slowdown of task-clock cannot be computed: no isolated run (stress=0) has it");
    }

    /** A sweep's campaign: runtimes per level, and step 1's bandwidth (1e6 accesses/s and 8e6 bytes/s per level). */
    private static Campaign sweep(Map<Integer, double[]> runtimes) {
        List<Run> runs = new ArrayList<>();
        List<Map<String, String>> hw = new ArrayList<>();
        runtimes.forEach((level, rts) -> {
            for (int i = 0; i < rts.length; i++) {
                runs.add(new Run(
                        "w",
                        Map.of("stress", level.toString()),
                        i,
                        rts[i],
                        Double.NaN,
                        Double.NaN,
                        Map.of(),
                        Map.of(),
                        List.of()));
            }
            hw.add(Map.of(
                    "level",
                    level.toString(),
                    "accesses_per_second",
                    Double.toString(level * 1e6),
                    "bytes_per_second",
                    Double.toString(level * 8e6)));
        });
        return new Campaign("c", Map.of(), runs, hw);
    }
}
