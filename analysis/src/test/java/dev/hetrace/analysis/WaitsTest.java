package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.sync.Synchronizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-core waits, the critical path and the demo's diagnosis in words, on the seeds' Sobel
 * board with dsp1 and dsp2 preempted (the board of {@code hetrace demo}), against its ground truth.
 */
class WaitsTest {
    @TempDir
    static Path dir;

    static Simulation.Result sim;
    static StateBuilder.Input input;
    static StateModel model;

    @BeforeAll
    static void board() throws Exception {
        SimConfig c = SimConfig.sobel(1).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1)));
        sim = Simulation.sobel(c, dir.resolve("board"));
        input = StateBuilder.synchronize(sim.traces(), w -> {});
        model = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        model.symbolize(sim.truth().symbolNames());
    }

    private static long master(long trueNanos) {
        return sim.truth().core("master").clock().traceNanos(trueNanos);
    }

    private static long bound() {
        return input.sync().traces().stream()
                        .skip(1)
                        .mapToLong(t -> t.accuracyNanos().orElseThrow())
                        .max()
                        .orElseThrow()
                + 2;
    }

    @Test
    void theDemoDiagnosisSaysInWordsThatDsp1AndDsp2WerePreemptedByTheIntruderAndTheMasterWaitedForThem() {
        List<String> words = Diagnosis.summary(Diagnosis.of(model, Diagnosis.DEFAULT_K));
        assertThat(words).hasSize(1);
        assertThat(words.getFirst())
                .matches("dsp1 and dsp2: sobel_filter took about 29\\d ms instead of about 9\\d\\.\\d ms .*")
                .contains(
                        "task intruder preempted them for about 20",
                        "master/cpu0 waited for them",
                        "got their messages in join_results about 29");
    }

    @Test
    void everyReplyTheMasterWaitedForIsLinkedToTheDspThatSentItAndItsSobelFilterCall() {
        Waits w = Waits.of(model);
        int join = model.nameId("join_results");
        int filter = model.nameId("sobel_filter");
        List<Waits.Wait> replies = w.all().stream()
                .filter(x -> model.tasks().get(x.task()).trace() == 0
                        && w.receivedIn(x.message()) >= 0
                        && model.calls().subject(w.receivedIn(x.message())) == join)
                .toList();
        assertThat(replies).hasSize(8 * 5);
        for (Waits.Wait x : replies) {
            String core =
                    model.cores().get(model.messages().sendCore(x.message())).name();
            int call = w.sentIn(x.message());
            assertThat(model.calls().subject(call)).isEqualTo(filter);
            // the sender's call is the truth's, and the master waited from join_results' entry to the reply
            GroundTruth.Interval t = sim.truth().calls(core, "sobel_filter").stream()
                    .min(Comparator.comparingLong(
                            c -> Math.abs(master(c.endNanos()) - model.calls().end(call))))
                    .orElseThrow();
            assertThat(model.calls().end(call)).isCloseTo(master(t.endNanos()), within(bound()));
            GroundTruth.Interval j = sim.truth().calls("master", "join_results").stream()
                    .filter(c -> master(c.startNanos()) <= x.end() && x.end() <= master(c.endNanos()))
                    .findFirst()
                    .orElseThrow();
            assertThat(x.start()).isEqualTo(master(j.startNanos()));
        }
    }

    @Test
    void theCriticalPathOfAnImageGoesThroughThePreemptedDspThatRepliedLast() {
        Waits w = Waits.of(model);
        int process = model.nameId("process_image");
        IntervalTable c = model.calls();
        List<Integer> images = new ArrayList<>();
        for (int i = 0; i < c.size(); i++) {
            if (c.subject(i) == process) {
                images.add(i);
            }
        }
        assertThat(images).hasSize(5);
        for (int image : images) {
            List<Waits.Step> path = w.criticalPath(
                    c.owner(image),
                    w.coreOf(c.owner(image), c.start(image), c.end(image)),
                    c.start(image),
                    c.end(image));
            List<String> on = path.stream()
                    .map(s -> model.cores().get(s.core()).name() + "/" + model.name(c.subject(s.call())))
                    .toList();
            // the master asks dsp0 for memory, splits, the last DSP to reply filters, the master joins
            assertThat(on).hasSize(5);
            assertThat(on.get(0)).isEqualTo("master/cpu0/alloc_buffers");
            assertThat(on.get(1)).isEqualTo("dsp0/mem_alloc");
            assertThat(on.get(2)).isEqualTo("master/cpu0/split_image");
            assertThat(on.get(3)).isIn("dsp1/sobel_filter", "dsp2/sobel_filter");
            assertThat(on.get(4)).isEqualTo("master/cpu0/join_results");
            // the steps follow one another in time and span the request
            assertThat(path.getFirst().start()).isEqualTo(c.start(image));
            assertThat(path.getLast().end()).isEqualTo(c.end(image));
            for (int k = 1; k < path.size(); k++) {
                assertThat(path.get(k).start())
                        .isGreaterThanOrEqualTo(path.get(k - 1).end() - bound());
            }
            // the DSP's stretch: mostly preempted by the intruder
            Waits.Step dsp = path.get(3);
            List<Waits.Share> by = w.preemptedBy(dsp.task(), dsp.core(), dsp.start(), dsp.end());
            assertThat(model.tasks().get(by.getFirst().task()).name()).isEqualTo("intruder");
            assertThat(by.getFirst().nanos()).isGreaterThan((dsp.end() - dsp.start()) / 2);
        }
    }

    @Test
    void withoutFunctionHooksThePreemptedTasksActivationsAreTheOutliers() throws Exception {
        // an RTOS traced by its scheduler and queue hooks only: no func_entry/func_exit
        Path yaml = dir.resolve("switches-only.yaml");
        Files.writeString(yaml, """
            name: rtos-switches
            events:
              - {event: task_switch, does: switch, next: next_task, prev: prev_task, prev-prio: prev_prio, next-prio: next_prio}
              - {event: msgq_put, does: send, queue: queue, id: msg_id}
              - {event: msgq_get, does: receive, queue: queue, id: msg_id}
            """);
        Mapping mapping = Mapping.read(yaml);
        List<Path> slaves = sim.slaves();
        // the slaves exchange no message: each apart, on its own clock
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(slaves, new StateBuilder.Clocks(Synchronizer.Options.DEFAULT, true), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(mapping));
        assertThat(m.calls().size()).isZero();
        Diagnosis.Report d = Diagnosis.of(m, Diagnosis.DEFAULT_K);
        assertThat(d.outliers()).isNotEmpty().allSatisfy(o -> {
            assertThat(o.kind()).isEqualTo(Diagnosis.Kind.ACTIVATION);
            assertThat(m.cores().get(o.core()).name()).isIn("dsp1", "dsp2");
            assertThat(m.tasks().get(o.task()).name()).isEqualTo("sobel");
            assertThat(m.tasks().get(o.preemptedBy().getFirst().task()).name()).isEqualTo("intruder");
        });
        // each image's work on dsp1 and dsp2 (5 images)
        assertThat(d.outliers()).hasSize(10);
        assertThat(Diagnosis.summary(d).getFirst())
                .startsWith("dsp1 and dsp2: task sobel's activations took about 29")
                .contains("task intruder preempted them");
    }

    @Test
    void aHealthyBoardHasNoFinding() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(4).withSlaves(6), dir.resolve("healthy"));
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
        Diagnosis.Report d = Diagnosis.of(m, Diagnosis.DEFAULT_K);
        assertThat(d.outliers()).isEmpty();
        assertThat(d.silent()).isEmpty();
        assertThat(d.stuck()).isEmpty();
        assertThat(Diagnosis.summary(d)).singleElement().asString().startsWith("Nothing stands out");
    }
}
