package dev.hetrace.analysis.index;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The diagnosis's tables are made from the stored model when first asked for, not by the build,
 * and then hold what the diagnosis of the traces' own model says.
 */
class DiagnosisTablesTest {
    @TempDir
    Path dir;

    @Test
    void theDiagnosisIsMadeAtItsFirstUseAndEqualsTheTracesOwn() throws Exception {
        SimConfig config = SimConfig.sobel(3).withSlaves(3).withFaults(List.of(new Fault.Preempt(List.of(1), -1)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        List<Path> traces = r.traces();
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), traces, null, Map.of(), n -> {});
        Path made = index.folder().resolve(DiagnosisTables.DIR);
        assertThat(made).doesNotExist();
        try (Connection c = index.connect();
                Statement s = c.createStatement();
                ResultSet t =
                        s.executeQuery("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE 'diagnosis_%'")) {
            t.next();
            assertThat(t.getLong(1)).isZero();
        }

        assertThat(index.diagnose()).isTrue();
        assertThat(index.diagnose()).isFalse(); // kept
        assertThat(made).isDirectory();

        StateModel m = StateBuilder.synchronizeAndBuild(
                        traces, StateBuilder.Clocks.DEFAULT, StateBuilder.Options.of(w -> {}))
                .model();
        DiagnosisTables.Rows expected = DiagnosisTables.of(Diagnosis.of(m, Diagnosis.DEFAULT_K), m, 50);
        assertThat(expected.outlierCount()).isPositive();
        try (RangeQueries q = new RangeQueries(index)) {
            assertThat(q.diagnosis(50)).isEqualTo(expected);
        }
        try (Connection c = index.connect();
                Statement s = c.createStatement();
                ResultSet t = s.executeQuery("SELECT count(*), min(start_ns) FROM diagnosis_outliers")) {
            t.next();
            assertThat(t.getLong(1)).isEqualTo(expected.outlierCount());
        }
    }

    @Test
    void aDamagedDiagnosisIsMadeAgain() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(2), dir.resolve("board"));
        TraceIndex index = TraceIndex.open(dir.resolve("cache"), r.traces(), null, Map.of(), n -> {});
        index.diagnose();
        Path findings = index.folder().resolve(DiagnosisTables.DIR).resolve("diagnosis_findings.parquet");
        byte[] before = Files.readAllBytes(findings);
        Files.write(findings, new byte[] {1, 2, 3});

        assertThat(index.diagnose()).isTrue();
        assertThat(Files.readAllBytes(findings)).isEqualTo(before);
    }
}
