package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a sim or demo folder's ground truth gives the analyses: the names of the master's function addresses. */
class BoardInputTest {
    @TempDir
    Path dir;

    @Test
    void theSymbolsOfASimulatedBoardAreItsTruthsAndTheIntervalsAfterThemAreNotNeeded() throws Exception {
        Simulation.Result sim = Simulation.sobel(SimConfig.sobel(3), dir.resolve("board"));
        assertThat(BoardInput.symbols(List.of(dir)))
                .isEqualTo(sim.truth().symbolNames())
                .containsValue("process_image");
        // the table is read as a stream: what follows it may even be cut off
        Path truth = dir.resolve("board/ground-truth.json");
        String text = Files.readString(truth);
        Path cut = Files.createDirectories(dir.resolve("cut")).resolve("ground-truth.json");
        Files.writeString(cut, text.substring(0, text.indexOf("\"intervals\"") + 40));
        assertThat(BoardInput.symbolNames(cut)).isEqualTo(sim.truth().symbolNames());
    }

    @Test
    void aTruthThatIsNotJsonIsOneLineNamingIt() throws IOException {
        Path bad = dir.resolve("ground-truth.json");
        Files.writeString(bad, "{\n \"cores\": [1, 2,\n ]\n}");
        assertThatThrownBy(() -> BoardInput.symbolNames(bad))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(bad + ":3: not a ground truth");
    }
}
