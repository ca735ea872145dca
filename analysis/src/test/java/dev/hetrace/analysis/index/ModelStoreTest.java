package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.ModelEquality;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.ctf.testing.PerfCounterTrace;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
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
    void theCountersATraceCarriesAreKeptAndTheCountersTableGivesThemWithTheirRates() throws Exception {
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        List<Path> traces = List.of(trace);
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), n -> {});
        StateModel built = fromTraces(traces, Map.of());
        assertThat(built.counters()).isNotEmpty();
        ModelEquality.assertEqual(built, index.model());
        // kept: opened again, not built, the same series
        TraceIndex again = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), n -> {});
        assertThat(again.built()).isFalse();
        ModelEquality.assertEqual(built, again.model());

        // the table: a row per sample, a running total's rate since the series' previous sample
        int cpu0 = built.core("kernel/cpu0");
        List<long[]> cycles = new ArrayList<>();
        for (int i = 0; i < built.samples(); i++) {
            StateModel.Counter c = built.counters().get(built.sampleSeries(i));
            if (c.name().equals("perf:cpu:cycles") && c.core() == cpu0) {
                cycles.add(new long[] {built.sampleTime(i), (long) built.sampleValue(i)});
            }
        }
        try (Connection c = index.connect();
                Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("select count(*), count(distinct name || coalesce(core::varchar, '')"
                    + " || coalesce(task::varchar, '')) from counters")) {
                r.next();
                assertThat(r.getLong(1)).isEqualTo(built.samples());
                assertThat(r.getLong(2)).isEqualTo(built.counters().size());
            }
            try (ResultSet r = s.executeQuery("select time_ns, value, rate_per_s, unit, kind, trace from counters"
                    + " where name = 'perf:cpu:cycles' and core = 'kernel/cpu0' order by time_ns")) {
                for (int k = 0; k < cycles.size(); k++) {
                    assertThat(r.next()).isTrue();
                    assertThat(r.getLong(1)).isEqualTo(cycles.get(k)[0]);
                    assertThat(r.getDouble(2)).isEqualTo((double) cycles.get(k)[1]);
                    if (k == 0) {
                        r.getDouble(3);
                        assertThat(r.wasNull())
                                .as("no rate before the second sample")
                                .isTrue();
                    } else {
                        double rate = (cycles.get(k)[1] - cycles.get(k - 1)[1])
                                / ((cycles.get(k)[0] - cycles.get(k - 1)[0]) / 1e9);
                        assertThat(r.getDouble(3)).isCloseTo(rate, org.assertj.core.data.Offset.offset(rate * 1e-12));
                    }
                    assertThat(r.getString(4)).isEqualTo("cycles");
                    assertThat(r.getString(5)).isEqualTo("total");
                    assertThat(r.getString(6)).isEqualTo("kernel");
                }
                assertThat(r.next()).isFalse();
            }
            try (ResultSet r = s.executeQuery(
                    "select distinct task from counters" + " where name = 'perf:thread:instructions' order by 1")) {
                List<String> tasks = new ArrayList<>();
                while (r.next()) {
                    tasks.add(r.getString(1));
                }
                assertThat(tasks).contains("worker[100]", "helper[101]", "server[200]");
            }
        }
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
