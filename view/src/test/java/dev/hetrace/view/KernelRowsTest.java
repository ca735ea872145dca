package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.Timeline.Row;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rows of a real desktop kernel trace ({@code real/many-threads}: 8 CPUs, a program that
 * starts and ends 8,000 threads): CPUs with their interrupt lines and load, the threads grouped by
 * process, each process under the one that created it, the short-lived ones gathered; the
 * counters' values against the model.
 */
class KernelRowsTest {
    static StateModel model;
    static Timeline timeline;

    @BeforeAll
    static void trace() throws Exception {
        var trace = Required.corpus("real", "many-threads");
        model = StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        timeline = Timeline.of(model);
    }

    /** The tasks the model shows created or ended in the trace that ran less than a millisecond in all. */
    static Set<Integer> shortLivedFromTheModel(StateModel m) {
        Map<Integer, Long> running = new HashMap<>();
        for (int i = 0; i < m.runs().size(); i++) {
            if (m.runs().state(i) == StateModel.RUNNING) {
                running.merge(m.runs().subject(i), m.runs().duration(i), Long::sum);
            }
        }
        Set<Integer> bornOrDead = new HashSet<>();
        for (int i = 0; i < m.forks(); i++) {
            bornOrDead.add(m.forkTask(i));
        }
        for (int i = 0; i < m.taskStates().size(); i++) {
            if (m.taskStates().state(i) == StateModel.DEAD) {
                bornOrDead.add(m.taskStates().owner(i));
            }
        }
        Set<Integer> out = new HashSet<>();
        for (int k : bornOrDead) {
            if (!m.tasks().get(k).idle() && running.getOrDefault(k, 0L) < 1_000_000) {
                out.add(k);
            }
        }
        return out;
    }

    private static int taskRow(int task) {
        for (Row r : timeline.rows()) {
            if (r.kind() == Kind.TASK && r.task() == task) {
                return r.id();
            }
        }
        return -1;
    }

    private static int task(String name, long tid) {
        for (int k = 0; k < model.tasks().size(); k++) {
            if (model.tasks().get(k).name().equals(name) && model.tasks().get(k).id() == tid) {
                return k;
            }
        }
        throw new AssertionError("no task " + name + " [" + tid + "]");
    }

    @Test
    void eachCpuHasItsInterruptLinesAndItsLoadAndTheThreadsHaveASectionOfTheirOwn() {
        List<Row> rows = timeline.rows();
        for (int c = 0; c < model.cores().size(); c++) {
            int cr = timeline.coreRow(c);
            List<Row> under = rows.stream().filter(r -> r.parent() == cr).toList();
            assertThat(under)
                    .as("under %s", model.cores().get(c).name())
                    .anyMatch(r -> r.kind() == Kind.COUNTER
                            && r.depth() == Counters.LOAD
                            && r.name().equals("CPU load"))
                    .noneMatch(r -> r.kind() == Kind.TASK);
            Set<String> lines = new HashSet<>();
            for (int i = 0; i < model.irqs().size(); i++) {
                if (model.irqs().owner(i) == c) {
                    lines.add(model.name(model.irqs().subject(i)));
                }
            }
            int irq = under.stream()
                    .filter(r -> r.kind() == Kind.IRQ)
                    .findFirst()
                    .orElseThrow()
                    .id();
            assertThat(rows.stream()
                            .filter(r -> r.parent() == irq && r.kind() == Kind.COUNTER && r.depth() == Counters.RATE)
                            .map(Row::name))
                    .containsExactlyInAnyOrderElementsOf(lines);
        }
        Row section =
                rows.stream().filter(r -> r.kind() == Kind.PROCESS).findFirst().orElseThrow();
        assertThat(section.name()).isEqualTo("threads");
        assertThat(rows.get(section.parent()).kind()).isEqualTo(Kind.TRACE);
        for (Row r : rows) {
            if (r.kind() == Kind.TASK) {
                int p = r.parent();
                while (rows.get(p).kind() == Kind.TASK || rows.get(p).kind() == Kind.PROCESS && p != section.id()) {
                    p = rows.get(p).parent();
                }
                assertThat(p).as("%s is in the threads' section", r.name()).isEqualTo(section.id());
            }
        }
    }

    private static int processRow(long pid) {
        for (Row r : timeline.rows()) {
            if (r.kind() == Kind.PROCESS && r.name().contains(" [" + pid + "] \u00b7 ")) {
                return r.id();
            }
        }
        return -1;
    }

    @Test
    void aProcessOfSeveralThreadsIsARowListingItsThreadsAndHoldingTheirRuns() {
        Set<Integer> gathered = shortLivedFromTheModel(model);
        int[] leader = model.processLeaders();
        // the model's processes of several shown threads
        Map<Long, List<Integer>> byPid = new HashMap<>();
        for (int k = 0; k < model.tasks().size(); k++) {
            StateModel.Task t = model.tasks().get(k);
            if (t.process() >= 0 && (taskRow(k) >= 0 || gathered.contains(k))) {
                byPid.computeIfAbsent(t.process(), x -> new ArrayList<>()).add(k);
            }
        }
        int checked = 0;
        for (var e : byPid.entrySet()) {
            List<Integer> threads = e.getValue();
            int pr = processRow(e.getKey());
            if (threads.size() == 1) {
                assertThat(pr)
                        .as("process %d of one thread: no row of its own", e.getKey())
                        .isNegative();
                continue;
            }
            Row row = timeline.rows().get(pr);
            int first = threads.getFirst();
            assertThat(row.name())
                    .isEqualTo(KernelRows.processName(
                            model.tasks().get(leader[first]).name(), e.getKey(), threads.size()));
            // its threads are its rows (the short-lived ones in its short-lived row), and no other thread is
            Set<Integer> under = new HashSet<>();
            for (Row r : timeline.rows()) {
                if (r.parent() == pr && r.kind() == Kind.TASK) {
                    under.add(r.task());
                }
            }
            Set<Integer> expected = new HashSet<>(threads);
            expected.removeIf(k -> gathered.contains(k) && taskRow(k) < 0);
            assertThat(under).as("threads of %s", row.name()).isEqualTo(expected);
            // its row holds every run of its threads
            long ran = 0;
            int runs = 0;
            Set<Integer> set = new HashSet<>(threads);
            for (int i = 0; i < model.runs().size(); i++) {
                if (model.runs().state(i) == StateModel.RUNNING
                        && set.contains(model.runs().subject(i))) {
                    ran += model.runs().duration(i);
                    runs++;
                }
            }
            long total = 0;
            for (int i = timeline.offset[pr]; i < timeline.offset[pr + 1]; i++) {
                total += timeline.endOf(i) - timeline.startOf(i);
            }
            assertThat(timeline.size(pr)).isEqualTo(runs);
            assertThat(total).isEqualTo(ran);
            checked++;
        }
        // eight have several threads that ran or changed state in the trace: firefox, multithread, Xwayland...
        assertThat(checked).isEqualTo(8);
        assertThat(timeline.rows().get(processRow(851)).name()).startsWith("firefox [851] \u00b7 ");
    }

    @Test
    void aProcessIsUnderTheProcessThatCreatedIt() {
        // genKernelTraces (one thread) started multithread, a process of 8,001 threads
        int multithread = processRow(2673);
        assertThat(timeline.rows().get(multithread).name())
                .isEqualTo(KernelRows.processName("multithread", 2673, 8001));
        assertThat(timeline.rows().get(multithread).parent()).isEqualTo(taskRow(task("genKernelTraces", 2656)));
        assertThat(taskRow(task("multithread", 2673))).isPositive();
        assertThat(timeline.rows().get(taskRow(task("multithread", 2673))).parent())
                .isEqualTo(multithread);
        // a process made in the trace by another process's thread is under that process's row
        int[] leader = model.processLeaders();
        int checked = 0;
        for (int i = 0; i < model.forks(); i++) {
            int child = model.forkTask(i);
            int parent = model.forkParent(i);
            StateModel.Task c = model.tasks().get(child);
            if (parent < 0 || !c.leader() || taskRow(child) < 0) {
                continue;
            }
            StateModel.Task p = model.tasks().get(parent);
            int pr = processRow(p.process());
            int expected = pr >= 0 ? pr : taskRow(leader[parent]);
            int own = processRow(c.process()) >= 0 ? processRow(c.process()) : taskRow(child);
            if (expected >= 0) {
                assertThat(timeline.rows().get(own).parent())
                        .as(
                                "%s under %s",
                                timeline.rows().get(own).name(),
                                timeline.rows().get(expected).name())
                        .isEqualTo(expected);
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(2);
    }

    @Test
    void threadsThatRanLessThanAMillisecondAreGatheredInOneRowUnderTheirProcess() {
        Set<Integer> gathered = shortLivedFromTheModel(model);
        int multithread = task("multithread", 2673);
        List<Integer> its = new ArrayList<>();
        for (int i = 0; i < model.forks(); i++) {
            if (model.forkParent(i) == multithread && gathered.contains(model.forkTask(i))) {
                its.add(model.forkTask(i));
            }
        }
        assertThat(its).hasSize(8000);
        Row row = timeline.rows().stream()
                .filter(r -> r.kind() == Kind.PROCESS && r.parent() == processRow(2673))
                .findFirst()
                .orElseThrow();
        assertThat(row.name()).isEqualTo("short-lived (8,000 threads)").isEqualTo(KernelRows.shortLivedName(8000));
        for (int k : its) {
            assertThat(taskRow(k)).as("no row of its own").isNegative();
        }
        // the row holds their runs, labelled by thread name, with the CPU each ran on
        IntervalTable runs = model.runs();
        Set<Integer> set = new HashSet<>(its);
        long expected = 0;
        int count = 0;
        for (int i = 0; i < runs.size(); i++) {
            if (runs.state(i) == StateModel.RUNNING && set.contains(runs.subject(i))) {
                expected += runs.duration(i);
                count++;
            }
        }
        assertThat(timeline.size(row.id())).isEqualTo(count);
        long total = 0;
        for (int i = timeline.offset[row.id()]; i < timeline.offset[row.id() + 1]; i++) {
            total += timeline.endOf(i) - timeline.startOf(i);
            assertThat(timeline.extraOf(i)).isBetween(0L, (long) model.cores().size() - 1);
        }
        assertThat(total).isEqualTo(expected);
        // the shown threads are far fewer than the model's
        long taskRows =
                timeline.rows().stream().filter(r -> r.kind() == Kind.TASK).count();
        assertThat(taskRows).isLessThan(200);
        assertThat(model.tasks().size()).isGreaterThan(8000);
    }

    @Test
    void theCpuLoadIsTheShareOfEachColumnTheModelSaysTheCpuRan() throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        long span = timeline.end() - timeline.begin();
        IntervalTable runs = model.runs();
        for (int trial = 0; trial < 30; trial++) {
            int c = random.nextInt(model.cores().size());
            int row = counterRow(timeline.coreRow(c), Counters.LOAD, "CPU load");
            int width = 50 + random.nextInt(1500);
            long from = random.nextLong(-span / 20, span);
            long to = from + Math.max(width, (long) (span * Math.pow(random.nextDouble(), 4)));
            long[] values = values(query(from, to, width, row), width);
            long f = timeline.begin() + from;
            long e = timeline.begin() + to;
            List<long[]> ran = new ArrayList<>();
            for (int i = 0; i < runs.size(); i++) {
                if (runs.owner(i) == c && runs.state(i) == StateModel.RUNNING && runs.end(i) > f && runs.start(i) < e) {
                    ran.add(new long[] {runs.start(i), runs.end(i)});
                }
            }
            for (int x = 0; x < width; x++) {
                long a = Counters.columnStart(f, e, width, x);
                long b = Counters.columnStart(f, e, width, x + 1);
                long busy = 0;
                for (long[] run : ran) {
                    busy += Math.max(0, Math.min(b, run[1]) - Math.max(a, run[0]));
                }
                long expected = b > a ? Math.round(busy * 1000.0 / (b - a)) : 0;
                assertThat(values[x])
                        .as("cpu %d column %d of %d ns", c, x, b - a)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void anInterruptLinesRateCountsItsHandlersStartingInEachColumn() throws Exception {
        SplittableRandom random = new SplittableRandom(5);
        long span = timeline.end() - timeline.begin();
        IntervalTable irqs = model.irqs();
        int c = model.core("many-threads/cpu2");
        int rcu = model.nameId("softirq:RCU");
        int irqRow = timeline.rows().stream()
                .filter(r -> r.parent() == timeline.coreRow(c) && r.kind() == Kind.IRQ)
                .findFirst()
                .orElseThrow()
                .id();
        int row = counterRow(irqRow, Counters.RATE, "softirq:RCU");
        for (int trial = 0; trial < 10; trial++) {
            int width = 100 + random.nextInt(1000);
            long from = random.nextLong(0, span / 2);
            long to = from + Math.max(20_000_000, (long) (span * Math.pow(random.nextDouble(), 2)));
            long[] values = values(query(from, to, width, row), width);
            long f = timeline.begin() + from;
            long e = timeline.begin() + to;
            long all = 0;
            List<Long> starts = new ArrayList<>();
            for (int i = 0; i < irqs.size(); i++) {
                if (irqs.owner(i) == c && irqs.subject(i) == rcu) {
                    starts.add(irqs.start(i));
                }
            }
            for (int x = 0; x < width; x++) {
                long a = Counters.columnStart(f, e, width, x);
                long b = Counters.columnStart(f, e, width, x + 1);
                long n = starts.stream().filter(t -> t >= a && t < b).count();
                assertThat(values[x]).as("column %d", x).isEqualTo(n);
                all += n;
            }
            assertThat(all).isPositive();
        }
    }

    @Test
    void theThreadsWaitingForACpuAreTheModelsPreemptedAndRunnableThreadsOnAverage() throws Exception {
        int row = timeline.rows().stream()
                .filter(r -> r.kind() == Kind.COUNTER && r.depth() == Counters.LEVEL)
                .findFirst()
                .orElseThrow()
                .id();
        assertThat(timeline.rows().get(row).name()).isEqualTo("waiting for a CPU");
        assertThat(timeline.rows().get(timeline.rows().get(row).parent()).name())
                .isEqualTo("threads");
        IntervalTable states = model.taskStates();
        List<long[]> waiting = new ArrayList<>();
        for (int i = 0; i < states.size(); i++) {
            if (states.state(i) == StateModel.PREEMPTED || states.state(i) == StateModel.RUNNABLE) {
                waiting.add(new long[] {states.start(i), states.end(i)});
            }
        }
        assertThat(waiting).hasSizeGreaterThan(1000);
        SplittableRandom random = new SplittableRandom(3);
        long span = timeline.end() - timeline.begin();
        for (int trial = 0; trial < 12; trial++) {
            int width = 50 + random.nextInt(800);
            long from = random.nextLong(-span / 20, span);
            long to = from + Math.max(width, (long) (span * Math.pow(random.nextDouble(), 3)));
            long[] values = values(query(from, to, width, row), width);
            long f = timeline.begin() + from;
            long e = timeline.begin() + to;
            List<long[]> in = waiting.stream().filter(w -> w[1] > f && w[0] < e).toList();
            for (int x = 0; x < width; x++) {
                long a = Counters.columnStart(f, e, width, x);
                long b = Counters.columnStart(f, e, width, x + 1);
                long area = 0;
                for (long[] w : in) {
                    area += Math.max(0, Math.min(b, w[1]) - Math.max(a, w[0]));
                }
                long expected = b > a ? Math.round(area * 1000.0 / (b - a)) : 0;
                assertThat(values[x]).as("column %d", x).isEqualTo(expected);
            }
        }
    }

    @Test
    void aKeptTimelineHoldsTheKernelRowsAndAnswersTheSame(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("many-threads.timeline");
        TimelineFile.write(timeline, file);
        Timeline kept = TimelineFile.read(file);
        assertThat(kept.rows()).isEqualTo(timeline.rows());
        assertThat(kept.intervals()).isEqualTo(timeline.intervals());
        for (int i = 0; i < timeline.intervals(); i++) {
            assertThat(new long[] {
                        kept.startOf(i),
                        kept.endOf(i),
                        kept.maxEndOf(i),
                        kept.labelOf(i),
                        kept.stateOf(i),
                        kept.flagsOf(i),
                        kept.extraOf(i)
                    })
                    .as("interval %d", i)
                    .containsExactly(
                            timeline.startOf(i),
                            timeline.endOf(i),
                            timeline.maxEndOf(i),
                            timeline.labelOf(i),
                            timeline.stateOf(i),
                            timeline.flagsOf(i),
                            timeline.extraOf(i));
        }
        int[] all = IntStream.range(0, timeline.rows().size()).toArray();
        long span = timeline.end() - timeline.begin();
        SplittableRandom random = new SplittableRandom(9);
        for (int k = 0; k < 6; k++) {
            long from = k == 0 ? 0 : random.nextLong(span);
            long to =
                    k == 0 ? span : from + 1 + random.nextLong(Math.max(1, (span - from) / (1 + random.nextInt(200))));
            int width = 1 + random.nextInt(2000);
            assertThat(answer(kept, from, to, width, all))
                    .as("the view of [%d, %d) at %d px", from, to, width)
                    .isEqualTo(answer(timeline, from, to, width, all));
        }
    }

    private static String answer(Timeline t, long from, long to, int width, int... rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(t).write(from, to, width, rows, g);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aBurstOfInterruptsIsDrawnWhereItHappenedNotSpreadOverACoarseSummaryBin() throws Exception {
        // a mostly idle single-CPU machine whose interrupts come in bursts: its summary's finest bins are wider
        // than a pixel of a 10 s view, so that a bin spread evenly would draw a burst as a solid bar
        var trace = Required.corpus("real", "flipping-endianness");
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        Timeline t = Timeline.of(m);
        int irqRow = t.rows().stream()
                .filter(r -> r.kind() == Kind.IRQ)
                .findFirst()
                .orElseThrow()
                .id();
        long from = 15_000_000_000L;
        long to = 25_000_000_000L;
        int width = 1000;
        double nsPerPx = (double) (to - from) / width;
        long f = t.begin() + from;
        long e = t.begin() + to;
        assertThat(t.summaries[irqRow]).isNotNull();
        assertThat(t.summaries[irqRow].binNanos()).isGreaterThan((long) nsPerPx);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(t).write(from, to, width, new int[] {irqRow}, g);
        }
        JsonNode cols = new ObjectMapper()
                .readTree(out.toByteArray())
                .get("rows")
                .get(0)
                .get("cols");
        assertThat(cols).as("too many to draw one by one").isNotNull();
        long[] busy = new long[width];
        long[] starts = new long[width];
        int stride = Wire.columnStride();
        for (int k = 0; k < cols.size(); k += stride) {
            for (int x = cols.get(k).asInt();
                    x < cols.get(k).asInt() + cols.get(k + 1).asInt();
                    x++) {
                busy[x] = cols.get(k + 2).asLong();
                starts[x] = cols.get(k + 3).asLong();
            }
        }
        double[] truth = new double[width];
        long[] truthStarts = new long[width];
        IntervalTable irqs = m.irqs();
        for (int i = 0; i < irqs.size(); i++) {
            if (irqs.end(i) <= f || irqs.start(i) >= e) {
                continue;
            }
            if (irqs.start(i) >= f) {
                truthStarts[(int) ((irqs.start(i) - f) / nsPerPx)]++;
            }
            for (int x = 0; x < width; x++) {
                double a = f + x * nsPerPx;
                truth[x] += Math.max(0, Math.min(a + nsPerPx, irqs.end(i)) - Math.max(a, irqs.start(i)));
            }
        }
        for (int x = 0; x < width; x++) {
            assertThat(starts[x]).as("handlers starting in column %d", x).isEqualTo(truthStarts[x]);
            assertThat((double) busy[x])
                    .as("busy ‰ of column %d", x)
                    .isCloseTo(truth[x] * 1000 / nsPerPx, org.assertj.core.data.Offset.offset(1.0));
        }
    }

    private static int counterRow(int parent, int measure, String name) {
        return timeline.rows().stream()
                .filter(r -> r.parent() == parent && r.kind() == Kind.COUNTER && r.depth() == measure)
                .filter(r -> r.name().equals(name))
                .findFirst()
                .orElseThrow()
                .id();
    }

    /** A counter's answer as one value per column. */
    static long[] values(JsonNode answer, int width) {
        JsonNode v = answer.get("rows").get(0).get("values");
        assertThat(v).as("a counter's values").isNotNull();
        long[] out = new long[width];
        int stride = Wire.VALUE.size();
        for (int k = 0; k < v.size(); k += stride) {
            for (int x = v.get(k).asInt(); x < v.get(k).asInt() + v.get(k + 1).asInt(); x++) {
                out[x] = v.get(k + 2).asLong();
            }
        }
        return out;
    }

    private static JsonNode query(long from, long to, int width, int... rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            new ViewQuery(timeline).write(from, to, width, rows, g);
        }
        return new ObjectMapper().readTree(out.toByteArray());
    }
}
