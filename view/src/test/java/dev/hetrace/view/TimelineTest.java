package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The viewer's rows, summaries and view answers, on a simulated board and on random intervals. */
class TimelineTest {
    @TempDir
    static Path dir;

    static StateModel model;
    static Timeline timeline;

    @BeforeAll
    static void board() throws Exception {
        Simulation.Result r = Simulation.sobel(
                SimConfig.sobel(5).withSlaves(4).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1))),
                dir.resolve("board"));
        model = StateBuilder.build(StateBuilder.synchronize(r.traces(), w -> {}), StateBuilder.Options.of(w -> {}));
        timeline = Timeline.of(model);
    }

    @Test
    void everyCoreRowHoldsTheCoresRunsOtherThanIdleSortedByStart() {
        IntervalTable runs = model.runs();
        for (int c = 0; c < model.cores().size(); c++) {
            int row = timeline.coreRow(c);
            assertThat(timeline.rows().get(row).core()).isEqualTo(c);
            assertThat(model.cores().get(c).name())
                    .endsWith(timeline.rows().get(row).name());
            List<long[]> expected = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                if (runs.owner(i) == c && runs.state(i) != StateModel.IDLE) {
                    expected.add(new long[] {
                        runs.start(i),
                        runs.end(i),
                        timeline.labels()
                                .find(model.tasks().get(runs.subject(i)).name())
                    });
                }
            }
            expected.sort((a, b) -> Long.compare(a[0], b[0]));
            assertThat(timeline.size(row)).isEqualTo(expected.size());
            for (int k = 0; k < expected.size(); k++) {
                int i = timeline.offset[row] + k;
                assertThat(new long[] {timeline.startOf(i), timeline.endOf(i), timeline.labelOf(i)})
                        .containsExactly(expected.get(k));
            }
        }
    }

    @Test
    void theSameNameHasTheSameColorEverywhere() {
        Timeline again = Timeline.of(model);
        int sobel = timeline.labels().find("sobel");
        assertThat(sobel).isNotNegative();
        assertThat(again.labels().color(again.labels().find("sobel")))
                .isEqualTo(timeline.labels().color(sobel));
        // the color is the trace set's names', not the order they were met in
        Labels fresh = new Labels();
        for (int i = timeline.labels().size() - 1; i >= 0; i--) {
            fresh.id(timeline.labels().name(i));
        }
        assertThat(fresh.color(fresh.find("sobel"))).isEqualTo(timeline.labels().color(sobel));
        assertThat(fresh.color(fresh.find("(preempted)"))).isNotEqualTo(fresh.color(fresh.find("(running)")));
    }

    @Test
    void aCloseViewGivesTheIntervalsAndAFarOneTheBusyTimePerColumn() throws Exception {
        int dsp1 = timeline.coreRow(model.core("dsp1"));
        long span = timeline.end() - timeline.begin();
        // far: the intruder makes dsp1's runs too many for 200 px; the columns add up to its busy time
        JsonNode far = query(0, span, 200, dsp1);
        JsonNode cols = far.get("rows").get(0).get("cols");
        assertThat(cols).isNotNull();
        double nsPerPx = (double) span / 200;
        double busy = 0;
        for (int k = 0; k < cols.size(); k += 4 + 2 * RowSummary.TOP) {
            busy += cols.get(k + 1).asInt() * cols.get(k + 2).asInt() / 1000.0 * nsPerPx;
        }
        long truth = 0;
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.runs().owner(i) == model.core("dsp1") && model.runs().state(i) != StateModel.IDLE) {
                truth += model.runs().duration(i);
            }
        }
        assertThat(busy).isCloseTo(truth, within(truth * 0.01 + 200 * nsPerPx / 1000));
        // the board row: every core's busy time, as a share of all the cores
        JsonNode board = query(0, span, 200, 0).get("rows").get(0).get("cols");
        double share = 0;
        for (int k = 0; k < board.size(); k += 4 + 2 * RowSummary.TOP) {
            share += board.get(k + 1).asInt() * board.get(k + 2).asInt() / 1000.0 * nsPerPx;
        }
        long all = 0;
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.runs().state(i) != StateModel.IDLE) {
                all += model.runs().duration(i);
            }
        }
        double cores = timeline.members[0].length;
        assertThat(timeline.summaries[0]).as("the board's own summary").isNotNull();
        assertThat(share).isCloseTo(all / cores, within(all / cores * 0.01 + 200 * nsPerPx / 1000));
        // close: 2 ms are a few runs, given one by one as they are in the row
        long from = model.runs().start(firstRun(model.core("dsp1"), "intruder")) - timeline.begin();
        JsonNode close = query(from, from + 2_000_000, 1000, dsp1).get("rows").get(0);
        assertThat(close.has("rects")).isTrue();
        JsonNode first = close.get("rects");
        assertThat(first.get(0).asLong()).isEqualTo(from);
        assertThat(timeline.labels().name(first.get(2).asInt())).isEqualTo("intruder");
    }

    @Test
    void aSummaryReadsAboutAsManyBinsAsThereArePixelsAndItsColumnsAddUpToTheBusyTime() {
        SplittableRandom random = new SplittableRandom(7);
        int n = 200_000;
        long[] s = new long[n];
        long[] e = new long[n];
        int[] label = new int[n];
        long t = 0;
        for (int i = 0; i < n; i++) {
            t += random.nextLong(1, 20_000);
            s[i] = t;
            t += random.nextLong(1, 30_000);
            e[i] = t;
            label[i] = random.nextInt(6);
        }
        RowSummary.Builder b = new RowSummary.Builder(0, t, n);
        for (int i = 0; i < n; i++) {
            b.add(s[i], e[i], label[i], true);
        }
        RowSummary summary = b.build();
        Columns fromSummary = new Columns();
        Columns exact = new Columns();
        for (int trial = 0; trial < 40; trial++) {
            int width = 100 + random.nextInt(2000);
            long from = random.nextLong(0, t / 2);
            long to = from + Math.max(width, (long) ((t - from) * Math.pow(random.nextDouble(), 3)));
            double nsPerPx = (double) (to - from) / width;
            fromSummary.reset(width);
            int read = summary.addTo(fromSummary, from, nsPerPx);
            assertThat(read).as("bins read for %d px", width).isLessThanOrEqualTo(2 * width + 2);
            exact.reset(width);
            double total = 0;
            for (int i = 0; i < n; i++) {
                if (e[i] > from && s[i] < to) {
                    exact.add(s[i], e[i], label[i], true, from, nsPerPx);
                    total += Math.min(e[i], to) - Math.max(s[i], from);
                }
            }
            double sum = 0;
            double diff = 0;
            for (int x = 0; x < width; x++) {
                sum += fromSummary.busy[x];
                diff += Math.abs(fromSummary.busy[x] - exact.busy[x]);
            }
            // the bins at both ends may reach a column beyond the range
            double slack = 2 * Math.max(nsPerPx, summary.binNanos());
            assertThat(sum).isCloseTo(total, within(slack + total * 1e-5));
            // a bin is no wider than a column (or the finest): columns are off by what bins straddle
            if (nsPerPx >= 4 * summary.binNanos()) {
                assertThat(diff / total)
                        .as("relative error per column at %.0f ns/px", nsPerPx)
                        .isLessThan(0.15);
            }
        }
    }

    private static int firstRun(int core, String task) {
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.runs().owner(i) == core
                    && model.tasks().get(model.runs().subject(i)).name().equals(task)) {
                return i;
            }
        }
        throw new AssertionError("no run of " + task);
    }

    @Test
    void aRowsColumnsAreWrittenAsRunsThatGiveEveryColumnBack() throws Exception {
        // the board's columns as its summary gives them, each ‰ rounded as the answer says: the runs of
        // equal columns in the answer must give back every column, its busy share, starts, labels and theirs
        long span = timeline.end() - timeline.begin();
        SplittableRandom random = new SplittableRandom(3);
        int stride = Wire.columnStride();
        int k = RowSummary.TOP;
        for (int trial = 0; trial < 20; trial++) {
            int width = 50 + random.nextInt(2000);
            long from = trial == 0 ? 0 : random.nextLong(0, span / 2);
            long to = trial == 0 ? span : from + Math.max(width, (long) ((span - from) * random.nextDouble()));
            double nsPerPx = (double) (to - from) / width;
            Columns c = new Columns();
            c.reset(width);
            timeline.summaries[0].addTo(c, timeline.begin() + from, nsPerPx);
            double full = nsPerPx * timeline.members[0].length;
            int[][] expected = new int[width][];
            for (int x = 0; x < width; x++) {
                int busy = permille(c.busy[x], full);
                if (busy > 0 || c.count[x] > 0) {
                    expected[x] = new int[2 + 2 * k];
                    expected[x][0] = busy;
                    expected[x][1] = c.count[x];
                    for (int j = 0; j < k; j++) {
                        expected[x][2 + 2 * j] = c.top[x * k + j];
                        expected[x][3 + 2 * j] = c.top[x * k + j] < 0 ? 0 : permille(c.topTime[x * k + j], full);
                    }
                }
            }
            JsonNode cols = query(from, to, width, 0).get("rows").get(0).get("cols");
            int[][] written = new int[width][];
            int runs = 0;
            for (int at = 0; at < cols.size(); at += stride, runs++) {
                for (int x = cols.get(at).asInt();
                        x < cols.get(at).asInt() + cols.get(at + 1).asInt();
                        x++) {
                    written[x] = new int[2 + 2 * k];
                    for (int v = 0; v < 2 + 2 * k; v++) {
                        written[x][v] = cols.get(at + 2 + v).asInt();
                    }
                }
            }
            assertThat(written).as("%d px from %d to %d", width, from, to).isDeepEqualTo(expected);
            assertThat(runs).as("runs of equal columns, not a column each").isLessThan(width);
        }
    }

    /** v as ‰ of full, as answers write shares: anything at all is at least 1 ‰. */
    private static int permille(double v, double full) {
        return v > 0 ? (int) Math.max(1, Math.min(1000, Math.round(v * 1000 / full))) : 0;
    }

    private static JsonNode query(long from, long to, int width, int... rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(timeline).write(from, to, width, rows, g);
        }
        return new ObjectMapper().readTree(out.toByteArray());
    }
}
