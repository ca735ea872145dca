package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.testing.Corpus;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace diagnose}, {@code waits} and {@code pattern} on simulated boards and a real kernel trace; errors in one line. */
class AnalysisCommandsTest {
    @TempDir
    static Path dir;

    static Path preempted;
    static Path hung;

    @BeforeAll
    static void boards() {
        preempted = dir.resolve("preempted");
        Cli.Run a = Cli.run(
                "sim", "--cores", "6", "--inject", "preempt:dsp4", "--seed", "11", "--out", preempted.toString());
        assertThat(a.status()).as(a.err()).isZero();
        hung = dir.resolve("hung");
        Cli.Run b =
                Cli.run("sim", "--cores", "5", "--inject", "hang:dsp3@0.9s", "--seed", "12", "--out", hung.toString());
        assertThat(b.status()).as(b.err()).isZero();
    }

    @Test
    void diagnoseNamesThePreemptedCoreItsIntruderAndTheWaitingMasterInTextAndJson() throws Exception {
        Cli.Run text = Cli.run("diagnose", preempted.toString());
        assertThat(text.status()).as(text.err()).isZero();
        String said = text.out().replaceAll("\\s+", " ");
        assertThat(said)
                .containsPattern("dsp4: sobel_filter took about [\\d.]+ ms instead of about [\\d.]+ ms")
                .contains("task intruder preempted it")
                .contains("master/cpu0 waited for it")
                .contains("in join_results");
        assertThat(text.out()).containsPattern("\\n  dsp4\\s+sobel\\s+sobel_filter\\s+[\\d.]+");

        Cli.Run json = Cli.run("diagnose", "--format", "json", preempted.toString());
        assertThat(json.status()).as(json.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.get("findings").get(0).asText()).startsWith("dsp4: sobel_filter took about");
        JsonNode first = j.get("outliers").get(0);
        assertThat(first.get("core").asText()).isEqualTo("dsp4");
        assertThat(first.get("preempted_by").get(0).get("task").asText()).isEqualTo("intruder");
        assertThat(first.get("duration_ns").asLong())
                .isGreaterThan(2 * first.get("median_ns").asLong());
        assertThat(j.get("silent")).isEmpty();

        assertThat(Cli.run("diagnose", "--check", preempted.toString()).status())
                .isEqualTo(3);
    }

    @Test
    void aCallWhoseMedianIsNothingIsToldWithoutARatio() {
        // wait_image usually returns at once (a median of 0 ns); once it waited 1 ms
        Path board = dir.resolve("thirty");
        Cli.Run s = Cli.run(
                "sim",
                "--cores",
                "8",
                "--images",
                "30",
                "--image-period",
                "100ms",
                "--inject",
                "preempt:dsp1",
                "--seed",
                "4",
                "--out",
                board.toString());
        assertThat(s.status()).as(s.err()).isZero();
        Cli.Run r = Cli.run("diagnose", "--limit", "0", board.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out().replaceAll("\\s+", " "))
                .contains("wait_image took 1000 µs instead of about 0 ns (the median of its")
                .doesNotContain("Infinity");
        assertThat(r.out())
                .containsPattern("\\n  master/cpu0\\s+sobel\\s+wait_image\\s+[\\d.]+\\s+1\\.000\\s+0\\.000\\s+-\\s");
    }

    @Test
    void diagnoseNamesAHungCoreAndTheReplyTheMasterWaitsFor() throws Exception {
        Cli.Run r = Cli.run("diagnose", "--format", "json", hung.toString());
        assertThat(r.status()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("stuck")).hasSize(2);
        JsonNode worker = j.get("stuck").get(0);
        assertThat(worker.get("core").asText()).isEqualTo("dsp3");
        assertThat(worker.get("in").asText()).isEqualTo("sobel_filter");
        assertThat(worker.get("blocked").asBoolean()).isTrue();
        JsonNode master = j.get("stuck").get(1);
        assertThat(master.get("in").asText()).isEqualTo("join_results");
        assertThat(master.get("no_reply").get(0).get("to").asText()).isEqualTo("dsp3");
        String words = j.get("findings").toString();
        assertThat(words)
                .contains("dsp3: task sobel has been blocked since")
                .contains("dsp3, which never answered its message");
    }

    @Test
    void waitsShowsWhoWaitedForWhomAndTheCriticalPathThroughThePreemptedCore() {
        Cli.Run r = Cli.run("waits", "--path", "process_image", preempted.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).containsPattern("master/cpu0/sobel\\s+join_results\\s+dsp4/sobel\\s+sobel_filter\\s+5\\s");
        assertThat(r.out())
                .contains("critical path of master/cpu0/sobel's process_image")
                .containsPattern("dsp4/sobel\\s+sobel_filter\\s+[\\d.]+\\s+intruder");
        Cli.Run csv = Cli.run("waits", "--format", "csv", preempted.toString());
        assertThat(csv.status()).as(csv.err()).isZero();
        assertThat(csv.out().lines().findFirst().orElseThrow()).startsWith("waiter_core,waiter_task,start_ns,end_ns");
        assertThat(Cli.run("waits", "--path", "no_such_function", preempted.toString())
                        .err())
                .isEqualTo("hetrace: --path no_such_function: no call of that function in the traces\n");
    }

    @Test
    void patternPairsEachMessageSendWithItsReceiveAcrossCores() throws Exception {
        Cli.Run r = Cli.run(
                "pattern",
                "--first",
                "msgq_put",
                "--then",
                "msgq_get",
                "--where",
                "msg_id=msg_id",
                preempted.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .containsPattern("occurrences \\d+ {3}As ignored 0 {3}Bs ignored 0")
                .contains("duration histogram")
                .containsPattern("master/cpu0\\s+[\\d.]+\\s+dsp4");
        JsonNode j = new ObjectMapper()
                .readTree(Cli.run(
                                "pattern",
                                "--format",
                                "json",
                                "--first",
                                "msgq_put",
                                "--then",
                                "msgq_get",
                                "--where",
                                "msg_id=msg_id",
                                preempted.toString())
                        .out());
        assertThat(j.get("occurrences")).hasSize(j.get("count").asInt());
        long sum = 0;
        for (JsonNode h : j.get("histogram")) {
            sum += h.asLong();
        }
        assertThat(sum).isEqualTo(j.get("count").asLong());
    }

    @Test
    void theAnalysesRunOnARealLttngKernelTrace() {
        Path trace = Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation");
        Cli.Run d = Cli.run("diagnose", trace.toString());
        assertThat(d.status()).as(d.err()).isZero();
        assertThat(d.out()).contains("findings");
        Cli.Run p = Cli.run(
                "pattern", "--first", "sched_switch", "--then", "sched_switch", "--same-core", trace.toString());
        assertThat(p.status()).as(p.err()).isZero();
        assertThat(p.out()).containsPattern("occurrences [1-9]\\d*");
        Cli.Run w = Cli.run("waits", trace.toString());
        assertThat(w.status()).as(w.err()).isZero();
    }

    @Test
    void exportWritesTheTimelineAsChromesTraceEventJson() throws Exception {
        Path file = dir.resolve("out").resolve("board.json");
        Cli.Run r = Cli.run("export", "--format", "chrome-json", "-o", file.toString(), preempted.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).startsWith(file + ": ").contains(" slices, ");
        JsonNode j = new ObjectMapper().readTree(file.toFile());
        assertThat(j.get("traceEvents").size()).isGreaterThan(1000);
        assertThat(j.get("traceEvents").findValuesAsText("name")).contains("intruder", "sobel_filter");
        assertThat(Cli.run("export", "--format", "chrome-json", preempted.toString())
                        .status())
                .isEqualTo(2);
        Cli.Run bad = Cli.run("export", "--format", "svg", "-o", file.toString(), preempted.toString());
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("'svg': expected chrome-json or perfetto");
    }

    @Test
    void errorsAreOneLine() {
        Cli.Run bad = Cli.run("pattern", "--first", "a", "--then", "b", "--where", "x", preempted.toString());
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("--where x: expected FIELD_OF_A=FIELD_OF_B");
        Cli.Run missing = Cli.run(
                "pattern", "--first", "msgq_put", "--then", "msgq_get", "--where", "nope=msg_id", preempted.toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err()).matches("hetrace: --where nope=msg_id: event msgq_put has no field nope\\n");
        Cli.Run k = Cli.run("diagnose", "--k", "1", preempted.toString());
        assertThat(k.status()).isEqualTo(2);
        assertThat(k.err().lines().count()).isEqualTo(1);
        Cli.Run none = Cli.run("diagnose", dir.resolve("nothing").toString());
        assertThat(none.status()).isEqualTo(1);
        assertThat(none.err()).isEqualTo("hetrace: " + dir.resolve("nothing") + ": no such file or directory\n");
    }
}
