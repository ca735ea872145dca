package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.Timeline.Row;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rows of a board with many cores: where the traces (or a layout file) say the cores sit, else by type and in
 * clusters, each group aggregating its cores, checked against the state model of simulated boards of 100, 20 and 16
 * slaves.
 */
class TimelineGroupsTest {
    @TempDir
    static Path dir;

    static StateModel model;
    static Timeline timeline;

    @BeforeAll
    static void board() throws Exception {
        model = model(100, "many");
        timeline = Timeline.of(model);
    }

    /** A simulated board whose traces do not say where their cores sit, as most tracers' do not. */
    private static StateModel model(int slaves, String name) throws Exception {
        return model(slaves, name, false);
    }

    private static StateModel model(int slaves, String name, boolean placed) throws Exception {
        Simulation.Result r =
                Simulation.sobel(SimConfig.sobel(3).withSlaves(slaves).withImages(2, 50_000_000L), dir.resolve(name));
        if (!placed) {
            for (Path t : r.slaves()) {
                Path metadata = t.resolve("metadata");
                String text = Files.readString(metadata);
                String without = text.replaceAll("\\s(chip|cluster) = \"[^\"]*\";", "");
                assertThat(without.equals(text))
                        .as("a board of one chip says nothing")
                        .isEqualTo(slaves <= 16);
                Files.writeString(metadata, without);
            }
        }
        return StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
    }

    /** Each group row under {@code parent}, by name, with the names of the cores it aggregates. */
    private static void group(Timeline t, int row, String name, int from, int to) {
        Row r = t.rows().get(row);
        assertThat(r.kind()).isEqualTo(Kind.GROUP);
        assertThat(r.name()).isEqualTo(name);
        List<String> cores = new ArrayList<>();
        for (int m : t.members[row]) {
            cores.add(t.rows().get(m).name());
        }
        List<String> expected = new ArrayList<>();
        for (int k = from; k <= to; k++) {
            expected.add("dsp" + k);
        }
        assertThat(cores).as(name).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aBoardWhoseTracesSayWhereTheirCoresSitIsGroupedByClusterThenChip() throws Exception {
        StateModel m = model(100, "placed", true);
        for (int t = 1; t < m.traceNames().size(); t++) {
            int n = Integer.parseInt(m.traceNames().get(t).substring(3));
            assertThat(m.tracePlace(t)).containsExactly("cluster" + n / 64, "chip" + n / 16);
        }
        Timeline t = Timeline.of(m);
        List<Row> top = t.rows().stream()
                .filter(r -> r.kind() == Kind.GROUP && r.parent() == 0)
                .toList();
        assertThat(top).hasSize(2);
        group(t, top.get(0).id(), "cluster0 \u00b7 dsp0\u2013dsp63", 0, 63);
        group(t, top.get(1).id(), "cluster1 \u00b7 dsp64\u2013dsp99", 64, 99);
        List<Row> chips = children(t, top.get(0).id());
        assertThat(chips).hasSize(4);
        for (int c = 0; c < 4; c++) {
            group(
                    t,
                    chips.get(c).id(),
                    "chip" + c + " \u00b7 dsp" + 16 * c + "\u2013dsp" + (16 * c + 15),
                    16 * c,
                    16 * c + 15);
            assertThat(children(t, chips.get(c).id())).allMatch(r -> r.kind() == Kind.CORE && r.level() == 3);
        }
        chips = children(t, top.get(1).id());
        group(t, chips.get(0).id(), "chip4 \u00b7 dsp64\u2013dsp79", 64, 79);
        group(t, chips.get(1).id(), "chip5 \u00b7 dsp80\u2013dsp95", 80, 95);
        group(t, chips.get(2).id(), "chip6 \u00b7 dsp96\u2013dsp99", 96, 99);
        assertThat(t.rows().stream().filter(r -> r.name().startsWith("dsp \u00d7")))
                .isEmpty();
        // a layout file places the cores it lists, nested as it says; the others stay where their traces say
        Path file = dir.resolve("layout.yaml");
        Files.writeString(file, """
            groups:
              left:
                a: [dsp0..dsp9]
                b: ["dsp1?"]
              right: ["dsp2*"]
            """);
        Timeline laid = Timeline.of(m, BoardLayout.read(file));
        int left = laid.rows().stream()
                .filter(r -> r.name().startsWith("left "))
                .findFirst()
                .orElseThrow()
                .id();
        group(laid, left, "left \u00b7 dsp0\u2013dsp19", 0, 19);
        group(laid, children(laid, left).get(0).id(), "a \u00b7 dsp0\u2013dsp9", 0, 9);
        group(laid, children(laid, left).get(1).id(), "b \u00b7 dsp10\u2013dsp19", 10, 19);
        int right = laid.rows().stream()
                .filter(r -> r.name().startsWith("right "))
                .findFirst()
                .orElseThrow()
                .id();
        assertThat(laid.members[right]).hasSize(10); // dsp20..dsp29: dsp2 is a's, the first group listing it
        int cluster0 = laid.rows().stream()
                .filter(r -> r.name().startsWith("cluster0 "))
                .findFirst()
                .orElseThrow()
                .id();
        assertThat(laid.members[cluster0]).hasSize(64 - 20 - 10);
        assertThat(laid.members[0]).hasSize(m.cores().size());
    }

    @Test
    void aLayoutFileThatIsNotOneIsRefusedWithItsLine() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "groups:\n  chip0: [dsp0]\n  chip1: 3\n");
        assertThatThrownBy(() -> BoardLayout.read(file))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageStartingWith(file + ":3: expected group chip1 to list its cores");
        Files.writeString(file, "chips: {}\n");
        assertThatThrownBy(() -> BoardLayout.read(file)).hasMessageContaining(":1: expected `groups:`");
    }

    @Test
    void manyCoresOfATypeAreOneGroupInClustersOfSixteenByNumber() {
        List<Row> rows = timeline.rows();
        List<Row> groups = rows.stream().filter(r -> r.kind() == Kind.GROUP).toList();
        Row dsp = groups.getFirst();
        assertThat(dsp.name()).isEqualTo("dsp \u00d7100");
        assertThat(dsp.parent()).isZero();
        assertThat(dsp.level()).isEqualTo(1);
        List<Row> clusters = children(dsp.id());
        assertThat(clusters)
                .extracting(Row::name)
                .containsExactly(
                        "dsp0\u2013dsp15",
                        "dsp16\u2013dsp31",
                        "dsp32\u2013dsp47",
                        "dsp48\u2013dsp63",
                        "dsp64\u2013dsp79",
                        "dsp80\u2013dsp95",
                        "dsp96\u2013dsp99");
        assertThat(groups).hasSize(1 + clusters.size());
        Set<Integer> seen = new HashSet<>();
        int next = 0;
        for (Row cluster : clusters) {
            assertThat(cluster.kind()).isEqualTo(Kind.GROUP);
            assertThat(cluster.level()).isEqualTo(2);
            List<Row> cores = children(cluster.id());
            // the cores by number, each once, at the level under their cluster
            for (Row core : cores) {
                assertThat(core.kind()).isEqualTo(Kind.CORE);
                assertThat(core.name()).isEqualTo("dsp" + next++);
                assertThat(core.level()).isEqualTo(3);
                assertThat(model.cores().get(core.core()).name()).isEqualTo(core.name());
                assertThat(seen.add(core.core())).isTrue();
            }
            // a cluster aggregates its cores, and only them
            assertThat(timeline.members[cluster.id()])
                    .containsExactly(cores.stream().mapToInt(Row::id).toArray());
        }
        assertThat(next).isEqualTo(100);
        assertThat(timeline.members[dsp.id()]).hasSize(100);
        // the board: every core, the master's too; the master stays its trace's row
        assertThat(timeline.members[0]).hasSize(model.cores().size());
        assertThat(rows.stream().filter(r -> r.kind() == Kind.TRACE).map(Row::name))
                .containsExactly("master");
        // a core's tasks and calls are under it, as on a small board
        Row dsp5 = rows.get(timeline.coreRow(model.core("dsp5")));
        assertThat(children(dsp5.id())).extracting(Row::kind).contains(Kind.TASK);
        assertThat(children(dsp5.id()).stream().allMatch(r -> r.level() == 4)).isTrue();
    }

    @Test
    void aGroupsColumnsAreItsCoresBusyTimeTogether() throws Exception {
        long span = timeline.end() - timeline.begin();
        SplittableRandom random = new SplittableRandom(11);
        List<Integer> groups = new ArrayList<>();
        for (Row r : timeline.rows()) {
            if (r.kind() == Kind.GROUP) {
                groups.add(r.id());
            }
        }
        for (int trial = 0; trial < 6; trial++) {
            int width = 200 + random.nextInt(1800);
            long from = trial == 0 ? 0 : random.nextLong(0, span / 2);
            long to = trial == 0 ? span : from + Math.max(width, (long) ((span - from) * random.nextDouble()));
            double nsPerPx = (double) (to - from) / width;
            JsonNode answer = query(
                    from, to, width, groups.stream().mapToInt(Integer::intValue).toArray());
            for (int g = 0; g < groups.size(); g++) {
                int row = groups.get(g);
                int[] members = timeline.members[row];
                // the model's busy time of these cores, per column, as a share of their time together (‰)
                Set<Integer> cores = new HashSet<>();
                for (int m : members) {
                    cores.add(timeline.rows().get(m).core());
                }
                double[] truth = new double[width];
                IntervalTable runs = model.runs();
                long b = timeline.begin();
                for (int i = 0; i < runs.size(); i++) {
                    if (runs.state(i) == StateModel.IDLE || !cores.contains(runs.owner(i))) {
                        continue;
                    }
                    double x0 = (runs.start(i) - b - from) / nsPerPx;
                    double x1 = (runs.end(i) - b - from) / nsPerPx;
                    for (int x = (int) Math.max(0, Math.floor(x0)); x < Math.min(width, Math.ceil(x1)); x++) {
                        truth[x] += Math.max(0, Math.min(x1, x + 1) - Math.max(x0, x)) * 1000.0 / members.length;
                    }
                }
                double[] drawn = new double[width];
                JsonNode cols = answer.get("rows").get(g).get("cols");
                int stride = Wire.columnStride();
                for (int k = 0; k < cols.size(); k += stride) {
                    for (int x = cols.get(k).asInt();
                            x < cols.get(k).asInt() + cols.get(k + 1).asInt();
                            x++) {
                        drawn[x] = cols.get(k + 2).asInt();
                    }
                }
                double sumTruth = Arrays.stream(truth).sum();
                double sumDrawn = Arrays.stream(drawn).sum();
                double diff = 0;
                for (int x = 0; x < width; x++) {
                    diff += Math.abs(truth[x] - drawn[x]);
                }
                String what = timeline.rows().get(row).name() + " over " + from + ".." + to + " at " + width + " px";
                // each column's ‰ is rounded; the summary's bins at both ends may reach a column beyond the range
                assertThat(sumDrawn).as(what).isCloseTo(sumTruth, within(0.5 * width + sumTruth * 0.02 + 2000));
                if (sumTruth > 0) {
                    // a bin straddles at most two columns: the columns are off by what the bins straddle
                    assertThat(diff / sumTruth).as(what).isLessThan(0.2);
                }
                // nothing busy is left out: every column the model has busy time in is in the answer
                for (int x = 0; x < width; x++) {
                    if (truth[x] >= 1) {
                        assertThat(drawn[x]).as(what + ", column " + x).isPositive();
                    }
                }
            }
        }
    }

    @Test
    void aTypeOfAFewCoresIsNotGroupedAndOneOfSomeIsGroupedWithoutClusters() throws Exception {
        Timeline sixteen = Timeline.of(model(16, "sixteen"));
        assertThat(sixteen.rows().stream().filter(r -> r.kind() == Kind.GROUP)).isEmpty();
        assertThat(sixteen.rows().get(sixteen.coreRow(sixteen.core("dsp3"))).parent())
                .isZero();
        Timeline twenty = Timeline.of(model(20, "twenty"));
        List<Row> groups =
                twenty.rows().stream().filter(r -> r.kind() == Kind.GROUP).toList();
        assertThat(groups).extracting(Row::name).containsExactly("dsp \u00d720");
        Row dsp3 = twenty.rows().get(twenty.coreRow(twenty.core("dsp3")));
        assertThat(dsp3.parent()).isEqualTo(groups.getFirst().id());
        assertThat(twenty.members[groups.getFirst().id()]).hasSize(20);
    }

    @Test
    void intervalsThatLostEventsAreCountedUnderEachRowAndKept() throws Exception {
        // buffers too small for the tracers: events dropped on every slave
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(5).withSlaves(20).withBuffers(512, 2, 150_000_000), dir.resolve("lossy"));
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
        Timeline t = Timeline.of(m);
        int[] lost = t.lost();
        // a core row: the model's runs that lost events on that core, and what its tasks and calls lost under it
        int total = 0;
        for (int c = 0; c < m.cores().size(); c++) {
            int runs = 0;
            for (int i = 0; i < m.runs().size(); i++) {
                if (m.runs().owner(i) == c
                        && m.runs().state(i) != StateModel.IDLE
                        && (m.runs().flags(i) & StateModel.EVENTS_LOST) != 0) {
                    runs++;
                }
            }
            int row = t.coreRow(c);
            int under = 0;
            for (Row x : t.rows()) {
                if (x.parent() == row) {
                    under += lost[x.id()];
                }
            }
            assertThat(lost[row]).as(m.cores().get(c).name()).isEqualTo(runs + under);
            total += lost[row];
        }
        assertThat(total).isPositive();
        // a group: its cores' together; the board: every core's
        Row group = t.rows().stream()
                .filter(x -> x.kind() == Kind.GROUP)
                .findFirst()
                .orElseThrow();
        assertThat(lost[group.id()])
                .isEqualTo(
                        Arrays.stream(t.members[group.id()]).map(x -> lost[x]).sum())
                .isPositive();
        assertThat(lost[0]).isEqualTo(total);
        // kept in the timeline's file, read back the same
        Path file = dir.resolve("lossy.timeline");
        TimelineFile.write(t, file);
        assertThat(TimelineFile.read(file).lost()).containsExactly(lost);
    }

    @Test
    void pointEventsTooManyToSendAreCountedPerPixelColumn() throws Exception {
        int core = model.core("dsp7");
        int row = timeline.coreRow(core);
        long span = timeline.end() - timeline.begin();
        int width = 24;
        JsonNode r = query(0, span, width, row).get("rows").get(0);
        int total = r.get("markCount").asInt();
        assertThat(total).isGreaterThan(width / 4);
        assertThat(r.has("marks")).isFalse();
        // the model's point events of that core, per column
        int[] truth = new int[width];
        double nsPerPx = (double) span / width;
        for (int i = 0; i < model.marks(); i++) {
            if (model.markCore(i) == core) {
                long t = model.markTime(i) - timeline.begin();
                if (t < 0 || t >= span) {
                    continue; // the range is [0, span)
                }
                int x = (int) Math.min(width - 1, Math.floor(t / nsPerPx));
                // the column whose first ns (rounded up) is at or before t
                while (x + 1 < width && (long) Math.ceil((x + 1) * nsPerPx) <= t) {
                    x++;
                }
                while (x > 0 && (long) Math.ceil(x * nsPerPx) > t) {
                    x--;
                }
                truth[x]++;
            }
        }
        int[] sent = new int[width];
        JsonNode runs = r.get("markCols");
        int stride = Wire.MARK_COLUMN.size();
        for (int k = 0; k < runs.size(); k += stride) {
            assertThat(runs.get(k + 2).asInt()).isPositive();
            for (int x = runs.get(k).asInt();
                    x < runs.get(k).asInt() + runs.get(k + 1).asInt();
                    x++) {
                sent[x] = runs.get(k + 2).asInt();
            }
        }
        assertThat(sent).containsExactly(truth);
        assertThat(Arrays.stream(sent).sum()).isEqualTo(total);
    }

    @Test
    void coresAreTypedAndOrderedByTheirNamesNumbers() {
        assertThat(TimelineBuilder.Layout.type("dsp12")).isEqualTo("dsp");
        assertThat(TimelineBuilder.Layout.type("ecore")).isEqualTo("ecore");
        assertThat(TimelineBuilder.Layout.type("42")).isEqualTo("42");
        List<String> names = new ArrayList<>(List.of("dsp10", "dsp2", "dsp1", "arm0", "dsp100", "dsp02"));
        names.sort(TimelineBuilder.Layout::compareNames);
        assertThat(names).containsExactly("arm0", "dsp1", "dsp2", "dsp02", "dsp10", "dsp100");
    }

    private static List<Row> children(Timeline t, int id) {
        return t.rows().stream().filter(r -> r.parent() == id).toList();
    }

    private static List<Row> children(int id) {
        return timeline.rows().stream().filter(r -> r.parent() == id).toList();
    }

    private static JsonNode query(long from, long to, int width, int... rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(timeline).write(from, to, width, rows, g);
        }
        return new ObjectMapper().readTree(out.toByteArray());
    }
}
