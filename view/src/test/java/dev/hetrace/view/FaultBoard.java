package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /**
     * A 12 ms window from 1 ms before the intruder first ran on dsp1 (a few of its runs on each faulty core), from
     * and to as times since the model's beginning.
     */
    long[] intruderWindow() {
        return intruderWindow(sim, model.begin());
    }

    /** {@link #intruderWindow()} of a simulation of this board whose model begins at {@code begin}. */
    static long[] intruderWindow(Simulation.Result sim, long begin) {
        GroundTruth.Interval first = sim.truth().intervals().stream()
                .filter(i -> i.kind().equals("run")
                        && i.core().equals("dsp1")
                        && i.name().equals("intruder"))
                .findFirst()
                .orElseThrow();
        long from = sim.truth().core("master").clock().traceNanos(first.startNanos()) - begin - 1_000_000;
        return new long[] {from, from + 12_000_000};
    }

    /**
     * In the app's frame {@code draw} of [from, to): dsp1 and dsp2 drawn interval by interval, their intruder runs
     * those of the ground truth (to {@link #bound()}), at least two each, and the intruder drawn on no other core.
     */
    void assertTheIntruderIsDrawnWhereTheTruthSays(JsonNode draw, long from, long to) {
        for (String core : List.of("dsp1", "dsp2")) {
            JsonNode row = Chromium.row(draw, core);
            assertThat(row.get("mode").asText())
                    .as(core + " is drawn interval by interval at this zoom")
                    .isEqualTo("rects");
            List<long[]> drawn = new ArrayList<>();
            for (JsonNode r : draw.get("rects")) {
                if (r.get("rowName").asText().equals(core)
                        && r.get("label").asText().equals("intruder")) {
                    drawn.add(new long[] {r.get("start").asLong(), r.get("end").asLong()});
                }
            }
            List<long[]> truth = sim.truth().intervals().stream()
                    .filter(i -> i.kind().equals("run")
                            && i.core().equals(core)
                            && i.name().equals("intruder"))
                    .map(i -> new long[] {master(i.startNanos()) - model.begin(), master(i.endNanos()) - model.begin()})
                    .filter(t -> t[1] > from && t[0] < to)
                    .toList();
            assertThat(truth)
                    .as(core + ": the truth's intruder runs in the window")
                    .hasSizeGreaterThanOrEqualTo(2);
            assertThat(drawn).as(core + ": the intruder's runs drawn").hasSameSizeAs(truth);
            for (int k = 0; k < truth.size(); k++) {
                assertThat(drawn.get(k)[0])
                        .as(core + " run " + k + " start")
                        .isBetween(truth.get(k)[0] - bound(), truth.get(k)[0] + bound());
                assertThat(drawn.get(k)[1])
                        .as(core + " run " + k + " end")
                        .isBetween(truth.get(k)[1] - bound(), truth.get(k)[1] + bound());
            }
        }
        // and nowhere else
        for (JsonNode r : draw.get("rects")) {
            if (r.get("label").asText().equals("intruder")) {
                assertThat(r.get("core").asText()).isIn("dsp1", "dsp2");
            }
        }
    }
}
