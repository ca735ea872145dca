package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiagnosisTest {
    @TempDir
    Path dir;

    static StateModel board(Path dir, long seed, int slaves, String... faults) throws Exception {
        SimConfig c = SimConfig.sobel(seed).withSlaves(slaves);
        List<Fault> f = new ArrayList<>();
        for (String s : faults) {
            f.add(Fault.parse(s, slaves));
        }
        Simulation.Result r = Simulation.sobel(c.withFaults(f), dir);
        List<Path> traces = new ArrayList<>();
        traces.add(r.master());
        traces.addAll(r.slaves());
        StateModel m = StateBuilder.build(StateBuilder.synchronize(traces, w -> { }), w -> { });
        return m;
    }

    @Test
    void print() throws Exception {
        for (String f : new String[] {"preempt:dsp1,dsp2", "hang:dsp3", "crash:dsp4"}) {
            StateModel m = board(dir.resolve(f.replace(':', '_').replace(',', '_')), 1, 8, f);
            Diagnosis.Report r = Diagnosis.of(m, 2.0);
            System.out.println("== " + f);
            Diagnosis.summary(r).forEach(System.out::println);
        }
    }
}
