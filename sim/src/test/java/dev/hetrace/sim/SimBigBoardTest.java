package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A board of 1,024 Epiphany-like cores runs and writes traces that read back. */
class SimBigBoardTest {
    @TempDir
    Path dir;

    @Test
    void a1024CoreBoardRunsForSecondsOfSimulatedTimeAndReadsBack() throws Exception {
        SimConfig config = SimConfig.sobel(31).withSlaves(1024).withImages(4, 400_000_000L);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        assertThat(r.slaves()).hasSize(1024);
        assertThat(config.effectiveDurationNanos()).isGreaterThanOrEqualTo(2_000_000_000L);
        long events = 0;
        for (Path trace : r.traces()) {
            try (CtfReader reader = CtfReader.open(trace)) {
                while (reader.next()) {
                    events++;
                }
            }
        }
        assertThat(events).isEqualTo(r.events());
        // the same image split 1,024 ways: 96 ms × 8 / 1024 per part
        assertThat(r.truth().calls("dsp1000", SobelScenario.FILTER))
                .hasSize(4)
                .allSatisfy(i -> assertThat(i.durationNanos()).isBetween(700_000L, 800_000L));
    }
}
