package dev.hetrace.cli;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.testing.TraceWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace whose time goes back inside a stream (babeltrace2 refuses it): {@code print} shows every
 * event as recorded with one warning line for the stream and exit status 0; the analyses take the
 * event that goes back at the time of the event before it, so no call, interval or statistic has
 * a negative duration.
 */
class TimeGoingBackTest {
    private static final int ENTRY = 0;
    private static final int EXIT = 1;

    @TempDir
    Path dir;

    /**
     * chan_0: a call of work from 10,000 whose exit is recorded at 5,100 (4,900 ns back), then a
     * second call whose exit goes back 1,000 ns, then a call in order; chan_1's calls are in order.
     * Times are ns after 2023-11-14 22:13:20 UTC.
     */
    private Path trace() throws Exception {
        return new TraceWriter(dir.resolve("back"))
                .eventNames("work_entry", "work_exit").stream("chan_0", 0)
                        .packet(
                                1_000,
                                50_000,
                                0,
                                0,
                                event(ENTRY, 10_000, 1, "a"),
                                event(EXIT, 5_100, 2, "b"),
                                event(ENTRY, 20_000, 3, "c"),
                                event(EXIT, 19_000, 4, "d"),
                                event(ENTRY, 30_000, 5, "e"),
                                event(EXIT, 31_000, 6, "f"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(1_000, 50_000, 0, 0, event(ENTRY, 2_000, 10, "x"), event(EXIT, 8_000, 11, "y"))
                        .done()
                        .write();
    }

    private static String warning(Path trace) {
        return "hetrace: warning: " + trace.resolve("chan_0") + ": packet 0 (at byte 0), event at byte 102: time goes"
                + " back, from 2023-11-14 22:13:20.000010000 UTC (the event before) to 2023-11-14 22:13:20.000005100 UTC"
                + " (4,900 ns earlier); events are printed as recorded and analysed at the time of the event before (said"
                + " once per stream)";
    }

    @Test
    void printShowsEveryEventAsRecordedWithOneWarningLineAndExitsZero() throws Exception {
        Path trace = trace();
        String one = null;
        for (String threads : new String[] {"1", "2"}) {
            Cli.Run run = Cli.run("print", "--threads", threads, trace.toString());
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.err().lines()).containsExactly(warning(trace));
            // the time, the delta to the line before (negative where time goes back), the payload
            assertThat(run.out()
                            .lines()
                            .map(l -> l.substring(1, l.indexOf(')') + 1).replace("] ", " ") + " "
                                    + l.substring(l.lastIndexOf('{'))))
                    .containsExactly(
                            "22:13:20.000002000 (+?.?????????) { n = 10, msg = \"x\" }",
                            "22:13:20.000008000 (+0.000006000) { n = 11, msg = \"y\" }",
                            "22:13:20.000010000 (+0.000002000) { n = 1, msg = \"a\" }",
                            "22:13:20.000005100 (-0.000004900) { n = 2, msg = \"b\" }",
                            "22:13:20.000020000 (+0.000014900) { n = 3, msg = \"c\" }",
                            "22:13:20.000019000 (-0.000001000) { n = 4, msg = \"d\" }",
                            "22:13:20.000030000 (+0.000011000) { n = 5, msg = \"e\" }",
                            "22:13:20.000031000 (+0.000001000) { n = 6, msg = \"f\" }");
            if (one == null) {
                one = run.out();
            } else {
                assertThat(run.out()).as("the same order on worker threads").isEqualTo(one);
            }
        }
    }

    @Test
    void noCallHasANegativeDurationAndTheWarningSaysWhatTheAnalysisDid() throws Exception {
        Path trace = trace();
        Cli.Run run = Cli.run(
                "query",
                "--cache",
                dir.resolve("cache").toString(),
                "--format",
                "csv",
                trace.toString(),
                "select min(duration_ns) as shortest, count(*) filter (where duration_ns < 0 or self_ns < 0) as negative,"
                        + " count(*) as calls from calls");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.err().lines()).contains("hetrace: " + warning(trace).substring("hetrace: ".length()));
        assertThat(run.out()).isEqualTo("shortest,negative,calls\n0,0,4\n");

        Cli.Run intervals = Cli.run(
                "query",
                "--cache",
                dir.resolve("cache").toString(),
                "--format",
                "csv",
                trace.toString(),
                "select count(*) as negative from intervals where end_ns < start_ns");
        assertThat(intervals.status()).as(intervals.err()).isZero();
        assertThat(intervals.out()).isEqualTo("negative\n0\n");
    }

    @Test
    void statisticsShowNoNegativeDuration() throws Exception {
        Path trace = trace();
        Cli.Run run = Cli.run("stats", trace.toString());
        assertThat(run.status()).as(run.err()).isZero();
        // the reader's warning, told as the traces' store is built (after its note)
        assertThat(run.said().lines()).containsExactly(warning(trace));
        // 4 calls of 0, 0, 1,000 and 6,000 ns: 0.007 ms in all (0.001 had the times been taken as recorded)
        assertThat(run.out())
                .containsPattern("\\n  work +0\\.007 +[0-9.]+ +4 +0\\.000 +0\\.006 ")
                .doesNotContainPattern("(^|[\\s(])-\\d");
    }

    /**
     * An LTTng kernel trace (lttng-modules 2.0) whose 8 streams have 179 packets beginning up to
     * 2.6 µs before the previous one ends: one line per stream, not per packet.
     */
    @Test
    void aRealLttngTraceWithOverlappingPacketsGivesOneWarningLinePerStream() throws Exception {
        Path trace = Corpus.trace("ctf-testsuite/regression/stream/pass/lttng-modules-trace");
        String first = null;
        for (String threads : new String[] {"1", "2"}) {
            Cli.Run run = Cli.run("print", "--threads", threads, trace.toString());
            assertThat(run.status()).as(run.err()).isZero();
            List<String> lines = run.err().lines().sorted().toList();
            assertThat(lines).hasSize(8);
            IntStream.range(0, 8)
                    .forEach(i -> assertThat(lines.get(i))
                            .startsWith("hetrace: warning: " + trace.resolve("channel0_" + i) + ": packet ")
                            .contains(
                                    " before the previous packet ends at ",
                                    " ns earlier); read as it is (said once per stream)"));
            if (first == null) {
                first = run.out();
                assertThat(first.lines().count()).isGreaterThan(1000);
            } else {
                assertThat(run.out()).isEqualTo(first);
            }
        }
    }
}
