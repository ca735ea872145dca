package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth.Interval;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a trace does not show is marked, not invented: a start mid-call, exits that never come, lost events. */
class RobustnessTest {
    @TempDir
    Path dir;

    @Test
    void aTraceThatStartsMidCallGivesCallsAndARunMarkedAsBegunBeforeItWithTheirTrueEnds() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(2), dir.resolve("board"));
        Interval second = r.truth().calls("dsp0", "sobel_filter").get(1);
        long from = second.startTraceNanos() + 30_000_000;
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.slaves().get(0)), w -> {}),
                StateBuilder.Options.of(w -> {}).withFrom(from));
        assertThat(m.begin()).isGreaterThanOrEqualTo(from);
        int filter = m.nameId("sobel_filter");
        IntervalTable c = m.calls();
        int cut = -1;
        for (int k = 0; k < c.size(); k++) {
            if (c.subject(k) == filter && cut < 0) {
                cut = k;
            }
        }
        assertThat(cut).isGreaterThanOrEqualTo(0);
        assertThat(c.flags(cut)).isEqualTo(StateModel.START_UNKNOWN);
        assertThat(c.start(cut)).isEqualTo(m.begin());
        assertThat(c.end(cut)).isCloseTo(second.endTraceNanos(), within(1L));
        // its self time leaves out the calls it made that the trace saw, the one cut as well
        long children = 0;
        for (int k = 0; k < cut; k++) {
            if (c.owner(k) == c.owner(cut) && c.start(k) >= c.start(cut)) {
                children += c.duration(k);
            }
        }
        assertThat(c.self(cut)).isEqualTo(c.duration(cut) - children);
        // the task running then: its run begins with the trace, marked
        IntervalTable runs = m.runs();
        assertThat(runs.flags(0) & StateModel.START_UNKNOWN).isNotZero();
        assertThat(runs.start(0)).isEqualTo(m.begin());
        // and every other call is whole
        for (int k = 0; k < c.size(); k++) {
            if (c.flags(k) != 0) {
                assertThat(c.start(k)).isEqualTo(m.begin());
            }
        }
    }

    @Test
    void aCoreThatCrashesMidCallLeavesItsCallsOpenAndMarkedAtItsLastEvent() throws Exception {
        SimConfig config = SimConfig.sobel(4).withFaults(List.of(Fault.parse("crash:dsp3", 8)));
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.slaves().get(3)), w -> {}), StateBuilder.Options.of(w -> {}));
        int filter = m.nameId("sobel_filter");
        IntervalTable c = m.calls();
        int open = 0;
        for (int k = 0; k < c.size(); k++) {
            if (c.subject(k) == filter && (c.flags(k) & StateModel.END_UNKNOWN) != 0) {
                open++;
                assertThat(c.end(k)).isEqualTo(m.end());
            }
        }
        assertThat(open).isEqualTo(1);
        assertThat(r.truth().calls("dsp3", "sobel_filter")).hasSize(1);
    }

    @Test
    void intervalsDuringWhichTheTracerDroppedEventsAreMarked() throws Exception {
        SimConfig config = SimConfig.sobel(5).withBuffers(512, 2, 150_000_000);
        Simulation.Result r = Simulation.sobel(config, dir.resolve("board"));
        Path dsp = r.slaves().get(0);
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(dsp), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(r.truth().discarded(r.truth().core("dsp0").id())).isPositive();
        assertThat(m.discarded()).isPositive();
        int lost = 0;
        for (IntervalTable t : List.of(m.runs(), m.calls(), m.irqs())) {
            for (int k = 0; k < t.size(); k++) {
                if ((t.flags(k) & StateModel.EVENTS_LOST) != 0) {
                    lost++;
                }
            }
        }
        assertThat(lost).isPositive();
    }

    @Test
    void aCallThatEndedWithinALossWindowIsMarkedThoughAnotherStreamToldTheLossAfterIt() throws Exception {
        // CPU 1's stream loses 3 events between its packets (its first ends at 5 ns, its next at 40);
        // CPU 0's call of f runs from 10 to 20: its events may have had company in the lost ones
        Path trace = dir.resolve("lossy");
        String tsdl = """
            /* CTF 1.8 */
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk;
            trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
            clock { name = c; freq = 1000000000; offset_s = 1700000000; };
            stream { id = 0;
                packet.context := struct { clk timestamp_begin; clk timestamp_end; uint64_t content_size;
                    uint64_t packet_size; uint64_t events_discarded; uint32_t cpu_id; };
                event.header := struct { uint32_t id; clk timestamp; }; };
            event { name = "f_entry"; id = 0; stream_id = 0; fields := struct { uint32_t n; }; };
            event { name = "f_exit"; id = 1; stream_id = 0; fields := struct { uint32_t n; }; };
            event { name = "tick"; id = 2; stream_id = 0; fields := struct { uint32_t n; }; };
            """;
        try (CtfWriter w = CtfWriter.create(trace, tsdl)) {
            StreamWriter cpu0 = w.stream(0, 0, "chan_0").packetContext("cpu_id", 0L);
            cpu0.event(0, 10, List.of(1L));
            cpu0.event(1, 20, List.of(1L));
            StreamWriter cpu1 = w.stream(0, 1, "chan_1").packetContext("cpu_id", 1L);
            cpu1.event(2, 2, List.of(0L));
            cpu1.event(2, 5, List.of(0L));
            cpu1.flush();
            cpu1.discard(3);
            cpu1.event(2, 30, List.of(0L));
            cpu1.event(2, 40, List.of(0L));
        }
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.discarded()).isEqualTo(3);
        int f = m.nameId("f");
        assertThat(m.calls().size()).isEqualTo(1);
        assertThat(m.calls().subject(0)).isEqualTo(f);
        assertThat(m.calls().flags(0)).isEqualTo(StateModel.EVENTS_LOST);
    }
}
