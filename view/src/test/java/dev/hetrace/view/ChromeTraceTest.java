package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Chrome trace event export of a simulated board: valid against the format's schema, its slices hetrace's intervals. */
class ChromeTraceTest {
    @TempDir
    static Path dir;

    static StateModel model;
    static JsonNode json;

    @BeforeAll
    static void export() throws Exception {
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(3).withSlaves(4).withFaults(List.of(new Fault.Preempt(List.of(2), -1))),
                dir.resolve("board"));
        model = StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChromeTrace.write(model, out);
        json = new ObjectMapper().readTree(out.toByteArray());
    }

    @Test
    void theExportIsValidAgainstTheTraceEventFormatSchema() throws Exception {
        try (InputStream schema = ChromeTraceTest.class.getResourceAsStream("trace-event-format.schema.json")) {
            JsonSchema s = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(schema);
            Set<ValidationMessage> errors = s.validate(json);
            assertThat(errors).isEmpty();
        }
        // and the schema does reject what is not the format
        try (InputStream schema = ChromeTraceTest.class.getResourceAsStream("trace-event-format.schema.json")) {
            JsonSchema s = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(schema);
            JsonNode bad = new ObjectMapper()
                    .readTree(
                            "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 0}]}");
            assertThat(s.validate(bad)).isNotEmpty();
        }
    }

    private static List<JsonNode> events(String ph, String cat) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : json.get("traceEvents")) {
            if (e.get("ph").asText().equals(ph)
                    && (cat == null || e.get("cat").asText().equals(cat))) {
                out.add(e);
            }
        }
        return out;
    }

    private static long nanos(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }

    @Test
    void everyCallIsASliceOnItsTasksTrackWithItsExactTimes() {
        List<JsonNode> slices = events("X", "call");
        IntervalTable c = model.calls();
        assertThat(slices).hasSize(c.size());
        Map<String, Integer> expected = new HashMap<>();
        for (int i = 0; i < c.size(); i++) {
            expected.merge(
                    ChromeTrace.callTrack(c.owner(i)) + "/" + model.name(c.subject(i)) + "/"
                            + (c.start(i) - model.begin()) + "/" + c.duration(i),
                    1,
                    Integer::sum);
        }
        Map<String, Integer> found = new HashMap<>();
        for (JsonNode e : slices) {
            found.merge(
                    e.get("tid").asInt() + "/" + e.get("name").asText() + "/" + nanos(e.get("ts")) + "/"
                            + nanos(e.get("dur")),
                    1,
                    Integer::sum);
        }
        assertThat(found).isEqualTo(expected);
        assertThat(events("X", "run")).hasSize((int)
                IntStream.range(0, model.runs().size())
                        .filter(i -> model.runs().state(i) != StateModel.IDLE)
                        .count());
        assertThat(events("X", "irq")).hasSize(model.irqs().size());
    }

    @Test
    void slicesOnEachTrackNestAndEveryMessageArrowStartsAndEndsInASlice() {
        Map<String, List<long[]>> tracks = new HashMap<>();
        for (JsonNode e : events("X", null)) {
            tracks.computeIfAbsent(e.get("pid").asInt() + "/" + e.get("tid").asInt(), k -> new ArrayList<>())
                    .add(new long[] {nanos(e.get("ts")), nanos(e.get("ts")) + nanos(e.get("dur"))});
        }
        for (var t : tracks.entrySet()) {
            List<long[]> s = t.getValue();
            s.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
            ArrayDeque<long[]> open = new ArrayDeque<>();
            for (long[] x : s) {
                while (!open.isEmpty() && open.peek()[1] <= x[0]) {
                    open.pop();
                }
                assertThat(open.isEmpty() || x[1] <= open.peek()[1])
                        .as(
                                "track %s: [%d, %d] overlaps [%d, %d]",
                                t.getKey(),
                                x[0],
                                x[1],
                                open.isEmpty() ? 0 : open.peek()[0],
                                open.isEmpty() ? 0 : open.peek()[1])
                        .isTrue();
                open.push(x);
            }
        }
        List<JsonNode> starts = events("s", "message");
        List<JsonNode> ends = events("f", "message");
        assertThat(starts).hasSameSizeAs(ends).isNotEmpty();
        for (JsonNode f : starts.subList(0, Math.min(200, starts.size()))) {
            List<long[]> track =
                    tracks.get(f.get("pid").asInt() + "/" + f.get("tid").asInt());
            long t = nanos(f.get("ts"));
            assertThat(track).as("message %s", f.get("id")).anyMatch(x -> x[0] <= t && t <= x[1]);
        }
    }

    @Test
    void processesAreTheTracesAndTracksAreNamed() {
        List<String> processes = events("M", null).stream()
                .filter(e -> e.get("name").asText().equals("process_name"))
                .map(e -> e.get("args").get("name").asText())
                .toList();
        assertThat(processes).containsExactly("master", "dsp0", "dsp1", "dsp2", "dsp3");
        assertThat(events("M", null))
                .anyMatch(e -> e.get("name").asText().equals("thread_name")
                        && e.get("args").get("name").asText().equals("intruder state"));
        assertThat(json.get("displayTimeUnit").asText()).isEqualTo("ns");
    }
}
