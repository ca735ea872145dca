package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Real LTTng traces of the corpus: the presets build their state, and the statistics agree with a direct count. */
class CorpusStateTest {
    private static Path corpus(String name) {
        return Required.corpus("babeltrace", "succeed", name);
    }

    @Test
    void anLttngKernelTracesTaskStatisticsAreThoseOfItsSchedSwitchEventsCountedDirectly() throws Exception {
        Path trace = corpus("lttng-tracefile-rotation");
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames()).containsExactly("lttng-kernel");
        assertThat(m.cores()).hasSizeGreaterThan(1);
        // the direct computation: per CPU, from switch to switch (from the trace's first event
        // before the first, to its last after the last), per thread id
        Map<Long, long[]> direct = new HashMap<>();
        Map<Long, long[]> cpus = new HashMap<>();
        long first = Long.MIN_VALUE;
        long last = 0;
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                long t = e.timeNanos();
                first = first == Long.MIN_VALUE ? t : first;
                last = t;
                if (e.name().equals("sched_switch")) {
                    long cpu = e.getLong("cpu_id");
                    long[] c = cpus.get(cpu);
                    long prev = e.getLong("prev_tid");
                    long since = c == null ? first : c[1];
                    if (t > since) {
                        long[] d = direct.computeIfAbsent(prev, k -> new long[2]);
                        d[0]++;
                        d[1] += t - since;
                    }
                    cpus.put(cpu, new long[] {e.getLong("next_tid"), t});
                }
            }
        }
        for (long[] c : cpus.values()) {
            if (last > c[1]) {
                long[] d = direct.computeIfAbsent(c[0], k -> new long[2]);
                d[0]++;
                d[1] += last - c[1];
            }
        }
        Statistics.Table table = Statistics.of(m);
        Map<Long, long[]> fromStats = new HashMap<>();
        for (Statistics.Row row : table.rows(Statistics.Context.TASK)) {
            long tid = Long.parseLong(row.name()
                    .substring(row.name().lastIndexOf('[') + 1, row.name().length() - 1));
            long[] d = fromStats.computeIfAbsent(tid, k -> new long[2]);
            d[0] += row.count();
            d[1] += row.totalNanos();
        }
        long[] idle = new long[2];
        for (Statistics.Row row : table.rows(Statistics.Context.IDLE)) {
            idle[0] += row.count();
            idle[1] += row.totalNanos();
        }
        fromStats.put(0L, idle);
        assertThat(fromStats.keySet()).isEqualTo(direct.keySet());
        for (long tid : direct.keySet()) {
            assertThat(fromStats.get(tid)).as("tid %d", tid).containsExactly(direct.get(tid));
        }
        // every core's busy and idle time add up to the trace's span minus the time before its first switch
        for (Statistics.Row row : table.rows(Statistics.Context.CORE)) {
            assertThat(row.percent()).isBetween(0.0, 100.0);
        }
    }

    @Test
    void aRealLttngUstFunctionTracesCallsAreTheEntriesAndExitsOfEachThreadPairedDirectly() throws Exception {
        Path trace = Path.of("src/test/resources/traces/lttng-ust-cyg-profile/trace");
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames()).containsExactly("lttng-ust-cyg-profile");
        // the direct computation: per thread, a stack of entries; each exit closes the top
        Map<String, long[]> direct = new HashMap<>();
        Map<Long, ArrayDeque<long[]>> stacks = new HashMap<>();
        Set<Long> threads = new TreeSet<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                Event e = r.event();
                long tid = e.getLong("vtid");
                threads.add(tid);
                long addr = e.getLong("addr");
                var stack = stacks.computeIfAbsent(tid, k -> new ArrayDeque<>());
                if (e.name().equals("lttng_ust_cyg_profile:func_entry")) {
                    stack.push(new long[] {addr, e.timeNanos()});
                } else {
                    long[] open = stack.pop();
                    assertThat(open[0]).isEqualTo(addr);
                    long[] acc = direct.computeIfAbsent(tid + "/0x" + Long.toHexString(addr), k -> new long[2]);
                    acc[0]++;
                    acc[1] += e.timeNanos() - open[1];
                }
            }
        }
        assertThat(threads).hasSize(4);
        Map<String, long[]> built = new HashMap<>();
        IntervalTable c = m.calls();
        for (int i = 0; i < c.size(); i++) {
            assertThat(c.flags(i)).as("a whole trace: every call is seen whole").isZero();
            long[] acc = built.computeIfAbsent(
                    m.tasks().get(c.owner(i)).id() + "/" + m.name(c.subject(i)), k -> new long[2]);
            acc[0]++;
            acc[1] += c.duration(i);
        }
        assertThat(built.keySet()).isEqualTo(direct.keySet());
        direct.forEach((k, v) -> assertThat(built.get(k)).as(k).containsExactly(v));
        // and the statistics' function rows are their sums over the threads
        Statistics.Table table = Statistics.of(m);
        Map<String, long[]> byFunction = new HashMap<>();
        direct.forEach((k, v) -> {
            long[] acc = byFunction.computeIfAbsent(k.substring(k.indexOf('/') + 1), x -> new long[2]);
            acc[0] += v[0];
            acc[1] += v[1];
        });
        byFunction.forEach((f, v) -> {
            Statistics.Row row = table.row(Statistics.Context.FUNCTION, f);
            assertThat(row.count()).as(f).isEqualTo(v[0]);
            assertThat(row.totalNanos()).as(f).isEqualTo(v[1]);
        });
    }

    @Test
    void aTraceNoPresetFitsHasItsStreamsAsCoresOfPointEventsAndANoteNamingTheMappingOption() throws Exception {
        Path trace = corpus("debug-info");
        List<String> warnings = new ArrayList<>();
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(warnings::add));
        assertThat(m.mappingNames()).containsExactly(StateBuilder.EVENTS_ONLY);
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains("no preset maps its events", "--mapping FILE", "does: enter");
        assertThat(m.runs().size() + m.calls().size() + m.irqs().size()).isZero();
        // every event is a point event on the core of its stream, counted per stream and per name
        Map<String, Long> perStream = new HashMap<>();
        Map<String, Long> perName = new HashMap<>();
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                String stream = Path.of(r.cursor().trace().streamPath(r.cursor().stream()))
                        .getFileName()
                        .toString();
                perStream.merge(stream, 1L, Long::sum);
                perName.merge(r.event().name(), 1L, Long::sum);
            }
        }
        assertThat(m.marks())
                .isEqualTo(
                        perStream.values().stream().mapToLong(Long::longValue).sum());
        Statistics.Table t = Statistics.of(m);
        Map<String, Long> streams = new HashMap<>();
        t.rows(Statistics.Context.STREAM)
                .forEach(row -> streams.put(row.name().substring(row.name().lastIndexOf('/') + 1), row.count()));
        assertThat(streams).isEqualTo(perStream);
        Map<String, Long> names = new HashMap<>();
        t.rows(Statistics.Context.EVENT).forEach(row -> names.put(row.name(), row.count()));
        assertThat(names).isEqualTo(perName);
    }
}
