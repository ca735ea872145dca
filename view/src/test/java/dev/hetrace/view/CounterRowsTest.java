package dev.hetrace.view;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.testing.PerfCounterTrace;
import dev.hetrace.ctf.testing.TraceWriter;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.Timeline.Row;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The COUNTER rows of the counter series the traces carry: one per series under its core, task or
 * trace, named with its unit, and per pixel column the least, greatest and average value of the
 * series over the column, exact at any zoom: checked column by column against the model's samples.
 */
class CounterRowsTest {
    @TempDir
    Path dir;

    static final String MAPPING = """
            name: kernel-with-app-counters
            core: packet_context.cpu_id
            idle: {id: 0}
            states: linux
            events:
              - {event: sched_switch, does: switch, next: next_comm, next-id: next_tid, prev: prev_comm, prev-id: prev_tid, prev-state: prev_state}
              - {event: app_queue, does: counter, value: depth, name: queue depth, unit: messages, per: task}
              - {event: app_sent, does: counter, value: sent, name: bytes sent, unit: B, as: total}
            """;

    /** The model of the perf counter trace, with the app's counter rules. */
    static StateModel perfModel(Path dir) throws Exception {
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        return StateBuilder.build(
                StateBuilder.synchronize(List.of(trace), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(Mapping.parse(MAPPING, "app.yaml")));
    }

    /** A column's least, greatest and average value, from the model's samples of series {@code s} (null: none). */
    static double[] expected(StateModel m, int s, long a, long b) {
        List<long[]> samples = new ArrayList<>();
        for (int i = 0; i < m.samples(); i++) {
            if (m.sampleSeries(i) == s) {
                samples.add(new long[] {m.sampleTime(i), Double.doubleToRawLongBits(m.sampleValue(i))});
            }
        }
        int kind = m.counters().get(s).kind();
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double area = 0;
        long covered = 0;
        if (kind == StateModel.COUNTER_LOST) {
            double sum = 0;
            boolean any = false;
            for (long[] x : samples) {
                if (x[0] >= a && x[0] < b) {
                    sum += Double.longBitsToDouble(x[1]);
                    any = true;
                }
            }
            return any ? new double[] {sum, sum, sum} : null;
        }
        for (int k = 0; k < samples.size(); k++) {
            long from = samples.get(k)[0];
            long to = k + 1 < samples.size()
                    ? samples.get(k + 1)[0]
                    : kind == StateModel.COUNTER_VALUE ? Math.max(from, m.end()) : from;
            long lo = Math.max(from, a);
            long hi = Math.min(to, b);
            if (hi <= lo) {
                continue;
            }
            double v = kind == StateModel.COUNTER_VALUE
                    ? Double.longBitsToDouble(samples.get(k)[1])
                    : (Double.longBitsToDouble(samples.get(k + 1)[1]) - Double.longBitsToDouble(samples.get(k)[1]))
                            * 1e9
                            / (to - from);
            min = Math.min(min, v);
            max = Math.max(max, v);
            area += v * (hi - lo);
            covered += hi - lo;
        }
        return covered == 0 ? null : new double[] {min, max, area / covered};
    }

    /** The answer's per-column values of its first row ({@link Wire#SAMPLE}), null where none is sent. */
    static double[][] columns(JsonNode answer, int width) {
        JsonNode v = answer.get("rows").get(0).get("samples");
        assertThat(v).as("a counter series' samples").isNotNull();
        return samples(v, width);
    }

    /** {@link Wire#SAMPLE} records as per-column values, null where none is sent. */
    static double[][] samples(JsonNode v, int width) {
        double[][] out = new double[width][];
        int stride = Wire.SAMPLE.size();
        for (int k = 0; k < v.size(); k += stride) {
            for (int x = v.get(k).asInt(); x < v.get(k).asInt() + v.get(k + 1).asInt(); x++) {
                assertThat(out[x]).as("column %d sent once", x).isNull();
                out[x] = new double[] {
                    v.get(k + 2).asDouble(),
                    v.get(k + 3).asDouble(),
                    v.get(k + 4).asDouble()
                };
            }
        }
        return out;
    }

    static JsonNode query(Timeline t, long from, long to, int width, int row) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(t).write(from, to, width, new int[] {row}, g);
        }
        return new ObjectMapper().readTree(out.toByteArray());
    }

    /** The row of each series, found by the layout's rule: under its task's row, its core's or its trace's. */
    static int seriesRow(Timeline t, StateModel m, int s) {
        StateModel.Counter c = m.counters().get(s);
        for (Row r : t.rows()) {
            if (r.kind() != Kind.COUNTER
                    || !Counters.sampled(r.depth())
                    || !r.name().endsWith(c.name())) {
                continue;
            }
            Row parent = t.rows().get(r.parent());
            boolean owner = c.task() >= 0
                    ? parent.kind() == Kind.TASK && parent.task() == c.task()
                            || r.name().equals(m.tasks().get(c.task()).name() + ": " + c.name())
                    : c.core() >= 0
                            ? parent.kind() == Kind.CORE && parent.core() == c.core()
                            : parent.core() < 0 || parent.kind() == Kind.CORE;
            if (owner) {
                return r.id();
            }
        }
        throw new AssertionError("no row for series " + c);
    }

    private static void checkColumns(Timeline t, StateModel m, int s, long from, long to, int width) throws Exception {
        int row = seriesRow(t, m, s);
        double[][] got = columns(query(t, from, to, width, row), width);
        long b = t.begin;
        for (int x = 0; x < width; x++) {
            long a = Counters.columnStart(b + from, b + to, width, x);
            long e = Counters.columnStart(b + from, b + to, width, x + 1);
            double[] want = expected(m, s, a, e);
            String what = String.format(
                    "%s, column %d of [%d, %d) at %d px", m.counters().get(s), x, from, to, width);
            if (want == null) {
                assertThat(got[x]).as(what).isNull();
                continue;
            }
            assertThat(got[x]).as(what).isNotNull();
            assertThat(got[x][0]).as(what + ": min").isEqualTo(want[0]);
            assertThat(got[x][1]).as(what + ": max").isEqualTo(want[1]);
            assertThat(got[x][2])
                    .as(what + ": average")
                    .isCloseTo(want[2], org.assertj.core.data.Offset.offset(Math.abs(want[2]) * 1e-9 + 1e-9));
        }
    }

    @Test
    void eachSeriesIsACounterRowUnderItsOwnerNamedWithItsUnit() throws Exception {
        StateModel m = perfModel(dir);
        Timeline t = Timeline.of(m);
        assertThat(m.counters())
                .extracting(StateModel.Counter::name)
                .contains("perf:cpu:cycles", "perf:thread:instructions", "queue depth", "bytes sent");
        for (int s = 0; s < m.counters().size(); s++) {
            StateModel.Counter c = m.counters().get(s);
            Row r = t.rows().get(seriesRow(t, m, s));
            assertThat(r.depth()).isEqualTo(Counters.measureOf(c.kind()));
            String unit = t.labels().name(r.task());
            assertThat(unit).isEqualTo(c.kind() == StateModel.COUNTER_TOTAL ? c.unit() + "/s" : c.unit());
            if (c.core() >= 0) {
                assertThat(r.core()).isEqualTo(c.core());
            }
        }
    }

    @Test
    void aSearchStepsThroughIntervalsNotCounterSamples() throws Exception {
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        StateBuilder.Input input = StateBuilder.synchronize(List.of(trace), w -> {});
        StateModel m = StateBuilder.build(
                input, StateBuilder.Options.of(w -> {}).withMapping(Mapping.parse(MAPPING, "app.yaml")));
        Timeline t = Timeline.of(m);
        Panels panels = new Panels(t, TraceAnswers.of(m, input));
        for (String q : new String[] {"cycles", "messages", "/s"}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
                panels.find(q, 0, true, g);
            }
            assertThat(new ObjectMapper()
                            .readTree(out.toByteArray())
                            .get("matches")
                            .asLong())
                    .as("matches of %s", q)
                    .isZero();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            panels.find("worker", 0, true, g);
        }
        assertThat(new ObjectMapper().readTree(out.toByteArray()).get("matches").asLong())
                .isPositive();
    }

    @Test
    void eachColumnIsTheLeastGreatestAndAverageValueOverItAtAnyZoom() throws Exception {
        StateModel m = perfModel(dir);
        Timeline t = Timeline.of(m);
        long span = t.end - t.begin;
        SplittableRandom random = new SplittableRandom(7);
        for (int s = 0; s < m.counters().size(); s++) {
            // whole (many samples a column), a few samples a column, a column between two samples
            checkColumns(t, m, s, 0, span, 200);
            checkColumns(t, m, s, 0, span, 1500);
            checkColumns(t, m, s, span / 3, span / 3 + 40_000, 400);
            for (int k = 0; k < 5; k++) {
                long from = random.nextLong(span);
                long to = from + 1 + random.nextLong(span - from);
                checkColumns(t, m, s, from, to, 1 + random.nextInt(900));
            }
        }
    }

    @Test
    void aKeptTimelineGivesTheSameColumns() throws Exception {
        StateModel m = perfModel(dir);
        Timeline t = Timeline.of(m);
        Path file = dir.resolve("kept.timeline");
        TimelineFile.write(t, file);
        Timeline kept = TimelineFile.read(file);
        long span = t.end - t.begin;
        for (int s = 0; s < m.counters().size(); s++) {
            int row = seriesRow(t, m, s);
            assertThat(kept.rows().get(row)).isEqualTo(t.rows().get(row));
            assertThat(kept.labels().name(kept.rows().get(row).task()))
                    .isEqualTo(t.labels().name(t.rows().get(row).task()));
            assertThat(query(kept, 0, span, 700, row)).isEqualTo(query(t, 0, span, 700, row));
        }
    }

    @Test
    void aStreamsLostEventsAreSummedPerColumnUnderItsTrace() throws Exception {
        Path trace = new TraceWriter(dir.resolve("lossy"))
                .stream("chan_0", 0)
                        .packet(100, 200, 0, 0, event(110, 1, "a"), event(150, 2, "b"))
                        .packet(300, 400, 1, 5, event(310, 3, "c"), event(390, 4, "d"))
                        .packet(500, 600, 2, 5, event(510, 5, "e"))
                        .packet(700, 800, 3, 7, event(710, 6, "f"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(120, 250, 0, 0, event(130, 10, "x"), event(240, 11, "y"))
                        .packet(350, 450, 1, 4, event(360, 12, "z"))
                        .done()
                        .write();
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        Timeline t = Timeline.of(m);
        assertThat(m.counters())
                .extracting(StateModel.Counter::name)
                .containsExactlyInAnyOrder("lost events (chan_0)", "lost events (chan_1)");
        long span = t.end - t.begin;
        for (int s = 0; s < m.counters().size(); s++) {
            Row r = t.rows().get(seriesRow(t, m, s));
            assertThat(r.depth()).isEqualTo(Counters.LOST);
            assertThat(t.labels().name(r.task())).isEqualTo("events");
            checkColumns(t, m, s, 0, span, 7);
            checkColumns(t, m, s, 0, span + 200, 1000);
        }
        // one column: every loss of chan_0
        int row = seriesRow(t, m, m.counters().get(0).name().endsWith("(chan_0)") ? 0 : 1);
        assertThat(columns(query(t, 0, span + 1000, 1, row), 1)[0]).containsExactly(7.0, 7.0, 7.0);
    }
}
