package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the synchronizer composes pairs of traces and checks every message against the result. */
class SynchronizerTest {
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.sys.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
        clock { name = sys; freq = 1000000000; offset_s = 100; offset = 0; };
        stream { event.header := struct { uint32_t id; uint64_clock_t timestamp; }; };
        event { name = "put"; id = 0; fields := struct { uint32_t msg; }; };
        event { name = "get"; id = 1; fields := struct { uint32_t msg; }; };
        """;

    @TempDir
    Path dir;

    /** Writes a trace of {time, class, msg} events (the three clocks are the same). */
    private Path trace(String name, List<long[]> events) throws Exception {
        events.sort((a, b) -> Long.compare(a[0], b[0]));
        Path p = dir.resolve(name);
        try (CtfWriter w = CtfWriter.create(p, METADATA)) {
            StreamWriter s = w.stream(0);
            for (long[] e : events) {
                s.event(e[1], e[0], List.of(e[2]));
            }
        }
        return p;
    }

    @Test
    void messagesBetweenTwoTracesRelatedThroughAThirdAreCheckedAndTheAcausalOnesCounted() throws Exception {
        // A → B only and C → A only, each at least 100 µs: both pairs incomplete, each offset set
        // as if its fastest message took no time, which moves B 100 µs earlier and C 100 µs later;
        // then C → B messages of 50 µs arrive before they leave
        List<long[]> a = new ArrayList<>();
        List<long[]> b = new ArrayList<>();
        List<long[]> c = new ArrayList<>();
        int msg = 0;
        for (long t = 1_000_000; t < 1_000_000_000; t += 10_000_000) {
            a.add(new long[] {t, 0, msg});
            b.add(new long[] {t + 100_000 + (msg % 7) * 1_000, 1, msg++});
            c.add(new long[] {t + 1_000_000, 0, msg});
            a.add(new long[] {t + 1_100_000 + (msg % 5) * 1_000, 1, msg++});
            c.add(new long[] {t + 2_000_000, 0, msg});
            b.add(new long[] {t + 2_050_000, 1, msg++});
        }
        List<Path> traces = List.of(trace("a", a), trace("b", b), trace("c", c));
        Synchronizer.Report report = Synchronizer.run(
                traces, MatchRules.parse("messages:put,get,msg"), ConvexHullSync.Method.BISECTOR, 0, w -> {});

        assertThat(report.traces().get(1).quality()).isEqualTo(SyncQuality.INCOMPLETE);
        assertThat(report.traces().get(2).quality()).isEqualTo(SyncQuality.INCOMPLETE);
        assertThat(report.traces().get(1).via()).isZero();
        assertThat(report.traces().get(2).via()).isZero();
        assertThat(report.traces().get(1).transform().apply(1_000_000_000L)).isEqualTo(1_000_000_000L - 100_000);
        assertThat(report.traces().get(2).transform().apply(1_000_000_000L)).isEqualTo(1_000_000_000L + 100_000);
        int rounds = 100;
        assertThat(report.traces().get(0).violations()).isZero();
        assertThat(report.traces().get(1).violations()).isEqualTo(rounds);
        assertThat(report.traces().get(2).violations()).isEqualTo(rounds);
        assertThat(report.rules().getFirst().matched()).isEqualTo(3L * rounds);
    }

    @Test
    void theTreeGoesThroughTheMostAccuratePairs() throws Exception {
        // A–B and B–C exchange both ways with 1 µs latencies, A–C with 5 ms ones: C goes through B
        List<long[]> a = new ArrayList<>();
        List<long[]> b = new ArrayList<>();
        List<long[]> c = new ArrayList<>();
        int msg = 0;
        for (long t = 1_000_000; t < 1_000_000_000; t += 20_000_000) {
            a.add(new long[] {t, 0, msg});
            b.add(new long[] {t + 1_000, 1, msg++});
            b.add(new long[] {t + 2_000, 0, msg});
            a.add(new long[] {t + 3_000, 1, msg++});
            b.add(new long[] {t + 4_000, 0, msg});
            c.add(new long[] {t + 5_000, 1, msg++});
            c.add(new long[] {t + 6_000, 0, msg});
            b.add(new long[] {t + 7_000, 1, msg++});
            a.add(new long[] {t + 8_000, 0, msg});
            c.add(new long[] {t + 5_008_000, 1, msg++});
            c.add(new long[] {t + 5_009_000, 0, msg});
            a.add(new long[] {t + 10_009_000, 1, msg++});
        }
        List<Path> traces = List.of(trace("a", a), trace("b", b), trace("c", c));
        Synchronizer.Report report = Synchronizer.run(
                traces, MatchRules.parse("messages:put,get,msg"), ConvexHullSync.Method.BISECTOR, 0, w -> {});
        Synchronizer.TraceSync tc = report.traces().get(2);
        assertThat(tc.via()).isEqualTo(1);
        assertThat(tc.quality()).isEqualTo(SyncQuality.ACCURATE);
        assertThat(tc.accuracyNanos().orElseThrow()).isLessThan(10_000);
        assertThat(tc.violations()).isZero();
        assertThat(report.pairs()).hasSize(3);
    }

    @Test
    void tracesReadWholeByTheFirstLookSynchronizeAsTracesTheMatchingPassReadsAgain() throws Exception {
        // more messages than a sample holds, so that the sample ends before the traces do; and
        // an attribute in b's metadata that its reader warns of
        List<long[]> a = new ArrayList<>();
        List<long[]> b = new ArrayList<>();
        List<long[]> c = new ArrayList<>();
        int msg = 0;
        for (long t = 1_000_000; msg < 3 * FirstLook.SAMPLE_MESSAGES; t += 100_000) {
            a.add(new long[] {t, 0, msg});
            b.add(new long[] {t + 3_000 + (msg % 7) * 100, 1, msg++});
            b.add(new long[] {t + 20_000, 0, msg});
            c.add(new long[] {t + 24_000 + (msg % 5) * 100, 1, msg++});
            c.add(new long[] {t + 40_000, 0, msg});
            a.add(new long[] {t + 45_000 + (msg % 3) * 100, 1, msg++});
        }
        b.sort((x, y) -> Long.compare(x[0], y[0]));
        Path bPath = dir.resolve("b");
        try (CtfWriter w = CtfWriter.create(bPath, METADATA.replace("id = 1;", "id = 1; colour = 3;"))) {
            StreamWriter s = w.stream(0);
            for (long[] e : b) {
                s.event(e[1], e[0], List.of(e[2]));
            }
        }
        List<Path> traces = List.of(trace("a", a), bPath, trace("c", c));
        Synchronizer.Options options = new Synchronizer.Options(
                MatchRules.parse("messages:put,get,msg"), ConvexHullSync.Method.BISECTOR, 0, 0);

        assertThat(Arrays.stream(FirstLook.of(traces, options.rules(), FirstLook.KEPT_RECORDS)))
                .allMatch(FirstLook::whole);
        assertThat(Arrays.stream(FirstLook.of(traces, options.rules(), 0))).noneMatch(FirstLook::whole);
        List<String> keptWarnings = Collections.synchronizedList(new ArrayList<>());
        Synchronizer.Report kept = Synchronizer.run(
                traces, options, keptWarnings::add, Synchronizer.Progress.NONE, true, FirstLook.KEPT_RECORDS);
        List<String> readWarnings = Collections.synchronizedList(new ArrayList<>());
        Synchronizer.Report read =
                Synchronizer.run(traces, options, readWarnings::add, Synchronizer.Progress.NONE, true, 0);

        assertThat(described(kept)).isEqualTo(described(read));
        assertThat(kept.rules()).isEqualTo(read.rules());
        assertThat(kept.rules().getFirst().matched()).isEqualTo(msg);
        assertThat(kept.traces().get(2).via()).isEqualTo(0);
        assertThat(kept.matches().size()).isEqualTo(read.matches().size());
        for (int i = 0; i < kept.matches().size(); i++) {
            assertThat(List.of(
                            kept.matches().send(i),
                            kept.matches().receive(i),
                            (long) kept.matches().from(i),
                            (long) kept.matches().to(i)))
                    .isEqualTo(List.of(
                            read.matches().send(i),
                            read.matches().receive(i),
                            (long) read.matches().from(i),
                            (long) read.matches().to(i)));
        }
        assertThat(keptWarnings).hasSize(1).first().asString().startsWith(bPath.toString());
        assertThat(keptWarnings).isEqualTo(readWarnings);
    }

    /** A report's traces and pairs as values that compare (a map by its knots and values). */
    private static List<List<Object>> described(Synchronizer.Report r) {
        List<List<Object>> out = new ArrayList<>();
        for (Synchronizer.TraceSync t : r.traces()) {
            out.add(List.of(
                    t.path(),
                    Arrays.toString(t.map().knots()),
                    Arrays.toString(t.map().values()),
                    t.transform(),
                    t.quality(),
                    t.via(),
                    t.matchesOut(),
                    t.matchesIn(),
                    t.accuracyNanos(),
                    t.violations()));
        }
        for (Synchronizer.PairSync p : r.pairs()) {
            out.add(List.of(
                    p.reference(),
                    p.other(),
                    p.result(),
                    Arrays.toString(p.map().knots()),
                    Arrays.toString(p.map().values())));
        }
        return out;
    }
}
