package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.ModelEquality;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state model the index keeps is the one the traces give: read back from the index, every
 * table equal value by value to the model built by reading the traces, and the analyses of the
 * two (statistics, diagnosis) the same.
 */
class ModelStoreTest {
    @TempDir
    Path dir;

    /** The model built from the traces, as the commands build it, functions named after {@code symbols}. */
    private static StateModel fromTraces(List<Path> traces, Map<String, String> symbols) throws Exception {
        StateModel m = StateBuilder.synchronizeAndBuild(
                        traces, StateBuilder.Clocks.DEFAULT, StateBuilder.Options.of(w -> {}))
                .model();
        m.symbolize(symbols);
        return m;
    }

    private static void sameAnalyses(StateModel built, StateModel stored) {
        assertThat(Statistics.of(stored)).isEqualTo(Statistics.of(built));
        Diagnosis.Report a = Diagnosis.of(built, Diagnosis.DEFAULT_K);
        Diagnosis.Report b = Diagnosis.of(stored, Diagnosis.DEFAULT_K);
        assertThat(b.outliers()).isEqualTo(a.outliers());
        assertThat(b.silent()).isEqualTo(a.silent());
        assertThat(b.stuck()).isEqualTo(a.stuck());
    }

    @Test
    void aSimulatedBoardsModelReadFromItsIndexIsTheModelOfItsTraces() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(4).withSlaves(3), dir.resolve("board"));
        List<Path> traces = new ArrayList<>();
        traces.add(r.master());
        traces.addAll(r.slaves());
        Map<String, String> symbols = new HashMap<>();
        r.truth().symbols().forEach((name, addr) -> symbols.put("0x" + Long.toHexString(addr), name));

        TraceIndex index = TraceIndex.open(dir.resolve("cache"), traces, null, symbols, n -> {});
        StateModel built = fromTraces(traces, symbols);
        StateModel stored = index.model();

        assertThat(built.calls().size()).isPositive();
        assertThat(built.messages().size()).isPositive();
        assertThat(built.marks()).isPositive();
        ModelEquality.assertEqual(built, stored);
        sameAnalyses(built, stored);
        // reused, not built again: the same model
        TraceIndex again = TraceIndex.open(dir.resolve("cache"), traces, null, symbols, n -> {});
        assertThat(again.built()).isFalse();
        ModelEquality.assertEqual(built, again.model());
    }

    @Test
    void aLinuxKernelTracesModelReadFromItsIndexIsTheModelOfTheTrace() throws Exception {
        Path trace = Required.corpus("real", "many-threads");
        List<Path> traces = List.of(trace);

        TraceIndex index = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), n -> {});
        StateModel built = fromTraces(traces, Map.of());
        StateModel stored = index.model();

        assertThat(built.taskStates().size()).isPositive();
        assertThat(built.wakeups()).isPositive();
        assertThat(built.forks()).isPositive();
        ModelEquality.assertEqual(built, stored);
        sameAnalyses(built, stored);
    }

    @Test
    void anIndexWithoutTheModelsFilesIsBuiltAgain() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(2).withSlaves(1), dir.resolve("board"));
        List<Path> traces = List.of(r.master(), r.slaves().getFirst());
        TraceIndex first = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), n -> {});
        Files.delete(first.folder().resolve("model_messages.parquet"));

        List<String> notes = new ArrayList<>();
        TraceIndex again = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), notes::add);

        assertThat(again.built()).isTrue();
        assertThat(notes.getFirst()).contains("lacks some of its files: building it again");
        ModelEquality.assertEqual(fromTraces(traces, Map.of()), again.model());
    }
}
