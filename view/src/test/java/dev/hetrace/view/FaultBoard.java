package dev.hetrace.view;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.List;

/**
 * The board the browser tests open: the sobel demo with DSPs 1 and 2 preempted, synchronized on
 * the master's clock, its state model built and its functions named after the truth's symbols.
 */
record FaultBoard(Simulation.Result sim, StateBuilder.Input input, StateModel model) {
    static FaultBoard make(Path dir) throws Exception {
        SimConfig c = SimConfig.sobel(1).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1)));
        Simulation.Result sim = Simulation.sobel(c, dir);
        StateBuilder.Input input = StateBuilder.synchronize(sim.traces(), w -> {});
        StateModel model = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        model.symbolize(sim.truth().symbolNames());
        return new FaultBoard(sim, input, model);
    }

    /** A true time as the master's clock, the reference, reads it. */
    long master(long trueNanos) {
        return sim.truth().core("master").clock().traceNanos(trueNanos);
    }

    /** How far a DSP's time may be from the truth once synchronized: the worst accuracy bound, plus rounding. */
    long bound() {
        return input.sync().traces().stream()
                        .skip(1)
                        .mapToLong(t -> t.accuracyNanos().orElseThrow())
                        .max()
                        .orElseThrow()
                + 2;
    }
}
