package dev.hetrace.profile.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.stats.SlowdownCurve;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Campaigns made for real: perf stat runs of the built-in workload, alone and against the stressor on the other core. */
class CampaignRunnerTest {
    @TempDir
    Path dir;

    MemoryKernel kernel;
    List<String> progress = new ArrayList<>();

    @BeforeEach
    void tools() throws Exception {
        PerfAvailable.assume();
        PerfAvailable.assumeGcc();
        kernel = MemoryKernel.in(dir.resolve("cache")).orElseThrow();
    }

    private CampaignRunner runner(int repeat) {
        WorkloadSpec w = WorkloadSpec.parse("stream:size=2M:accesses=2M");
        return new CampaignRunner(
                kernel.command(w.arguments()),
                "stream",
                PerfStat.SOFTWARE_EVENTS,
                repeat,
                PerfAvailable.first(),
                List.of(PerfAvailable.other()),
                dir.resolve("out"),
                Optional.of(kernel),
                progress::add);
    }

    @Test
    void aSweepMeasuresTheStressorAloneThenTheWorkloadAgainstEachLevel() throws Exception {
        StressorSpec spec = StressorSpec.parse("2M:stride=64:rw=read");
        Campaign c = runner(2).sweep("stream", spec, List.of(0, 8), 0.2, new Campaign.Curve("task-clock", 0.2));
        // how its curve is drawn goes with the campaign, so that its later analyses draw the same
        assertThat(c.curve()).isEqualTo(new Campaign.Curve("task-clock", 0.2));
        assertThat(SlowdownCurve.of(c).measure()).isEqualTo("task-clock");
        assertThat(SlowdownCurve.of(c).threshold()).isEqualTo(0.2);
        assertThat(c.hardware()).hasSize(2);
        assertThat(c.hardware().get(0)).containsEntry("level", "0").containsEntry("accesses_per_second", "0.0");
        assertThat(c.hardware().get(1)).containsEntry("level", "8").containsEntry("engine", "gcc");
        assertThat(Double.parseDouble(c.hardware().get(1).get("bytes_per_second")))
                .isPositive();
        assertThat(c.runs()).hasSize(4);
        assertThat(c.runs()).extracting(r -> r.config().get("stress")).containsExactly("0", "0", "8", "8");
        assertThat(c.runs()).extracting(Run::repetition).containsExactly(0, 1, 0, 1);
        assertThat(c.runs()).allSatisfy(r -> {
            assertThat(r.config()).containsEntry("stressor", "2M:stride=64:rw=read");
            assertThat(r.runtimeSeconds()).isPositive();
            assertThat(r.value("task-clock")).isPositive();
            assertThat(r.workload()).isEqualTo("stream");
        });
        assertThat(c.host())
                .containsEntry("workload_cpu", Integer.toString(PerfAvailable.first()))
                .containsKey("cpu_model");
        SlowdownCurve s = SlowdownCurve.of(c, 0.10);
        assertThat(s.levels()).hasSize(2);
        assertThat(s.levels().get(0).slowdown()).isEqualTo(1.0);
        assertThat(s.levels().get(1).slowdown()).isPositive();
        assertThat(s.levels().get(1).accessesPerSecond()).isPositive();
        // the workload's own report is in the log, not in hetrace's output
        assertThat(Files.readString(dir.resolve("out/workload.log"))).contains("accesses=2000000");
        assertThat(progress)
                .anyMatch(l -> l.startsWith("step 1: stressor"))
                .anyMatch(l -> l.startsWith("step 2: run 4/4"));
    }

    @Test
    void aRunWithAStressorLabelsItsRunsAndAFailingWorkloadStopsTheCampaign() {
        Campaign c = runner(1).run("stream", StressorSpec.parse("64K"), 4);
        assertThat(c.runs())
                .singleElement()
                .satisfies(r -> assertThat(r.config()).containsEntry("stress", "4"));
        CampaignRunner failing = new CampaignRunner(
                List.of("sh", "-c", "exit 7"),
                "fails",
                PerfStat.SOFTWARE_EVENTS,
                2,
                -1,
                List.of(),
                dir.resolve("f"),
                Optional.empty(),
                progress::add);
        assertThatThrownBy(() -> failing.run("fails", null, 0))
                .isInstanceOf(ProfileException.class)
                .hasMessage("the workload exited with status 7 (repetition 1/2); its output is in "
                        + dir.resolve("f/workload.log"));
    }
}
