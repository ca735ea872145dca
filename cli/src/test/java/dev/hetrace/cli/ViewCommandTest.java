package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Comparator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace view}: serves a simulated board (measured with --bench, which asks the server over HTTP); errors in one line. */
class ViewCommandTest {
    @TempDir
    static Path dir;

    static Path board;

    private record Run(int status, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @BeforeAll
    static void sim() {
        board = dir.resolve("board");
        Run r = run("sim", "--cores", "4", "--inject", "preempt:dsp2", "--out", board.toString());
        assertThat(r.status()).as(r.err()).isZero();
    }

    @Test
    void theServerAnswersTheViewRequestsOfABoardOnTheLoopback() {
        Run r = run("view", "--no-cache", "--bench", "12", board.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err())
                .contains("hetrace view: 5 trace(s), 5 cores")
                .containsPattern("measuring http://127\\.0\\.0\\.1:\\d+/")
                .contains("first view: meta and the whole span for 7 rows")
                .contains("; diagnosis ")
                .contains("first view and diagnosis answered")
                .contains("12 zoom/pan requests at 2000 px")
                .containsPattern("statistics of everything \\(their tab shown\\): [\\d.]+ ms, [\\d,]+ bytes")
                // each answer says how long the server took to make it
                .containsPattern("of which the server's making of the answer \\(its Server-Timing\\): median \\d")
                .doesNotContain("made in -")
                .doesNotContain("kept");
    }

    @Test
    void aServerTimingSaysItsDurationInNanoseconds() {
        assertThat(ViewBench.duration("answer;dur=12.5")).isEqualTo(12_500_000L);
        assertThat(ViewBench.duration("answer; dur=0.1")).isEqualTo(100_000L);
        assertThat(ViewBench.duration("answer")).isEqualTo(-1L);
        assertThat(ViewBench.duration("answer;dur=x")).isEqualTo(-1L);
    }

    @Test
    void theFirstViewKeepsTheTimelineTheNextOpensItAndAChangedTraceIsReadAgain() throws Exception {
        Path copy = dir.resolve("kept-board");
        try (var files = Files.walk(board)) {
            for (Path p : files.toList()) {
                Files.copy(p, copy.resolve(board.relativize(p).toString()));
            }
        }
        Path cache = dir.resolve("cache");
        Run first = run("view", "--cache", cache.toString(), "--bench", "2", copy.toString());
        assertThat(first.status()).as(first.err()).isZero();
        // the traces read once: for the index, whose model the timeline is laid out from
        assertThat(first.err())
                .contains("hetrace view: indexing 5 traces into ")
                .contains("the traces read once, for the index")
                .doesNotContain("reading 5 trace(s)")
                .containsPattern("keeping the timeline in .*\\.timeline")
                .contains("kept the timeline (");
        try (var kept = Files.list(cache)) {
            assertThat(kept.map(p -> p.getFileName().toString().replaceAll(".*\\.", "")))
                    .containsExactlyInAnyOrder("index", "timeline");
        }

        Run second = run("view", "--cache", cache.toString(), "--bench", "2", copy.toString());
        assertThat(second.status()).as(second.err()).isZero();
        assertThat(second.err())
                .contains("hetrace view: 5 trace(s), 5 cores")
                .contains("opened the timeline kept in")
                .doesNotContain("read in")
                .doesNotContain("indexing")
                .contains("2 zoom/pan requests");

        // the index changed since it was written (checked while the kept timeline opens): built
        // again, the timeline still opened from its file, every answer given
        Path intervals;
        try (var kept = Files.list(cache)) {
            intervals = kept.filter(p -> p.toString().endsWith(".index"))
                    .findFirst()
                    .orElseThrow()
                    .resolve("intervals.parquet");
        }
        byte[] bytes = Files.readAllBytes(intervals);
        bytes[bytes.length / 2] ^= 1;
        Files.write(intervals, bytes);
        Run changed = run("view", "--cache", cache.toString(), "--bench", "2", copy.toString());
        assertThat(changed.status()).as(changed.err()).isZero();
        assertThat(changed.err())
                .contains("is not as it was written (intervals.parquet changed): building it again")
                .contains("indexing 5 traces")
                .contains("opened the timeline kept in")
                .doesNotContain("kept the timeline (")
                .contains("first view and diagnosis answered")
                .contains("statistics of everything (their tab shown)")
                .contains("2 zoom/pan requests");

        // a trace touched: its timeline is built again, and replaces the old one
        Path stream = Files.list(copy.resolve("dsp1"))
                .filter(p -> !p.getFileName().toString().equals("metadata"))
                .findFirst()
                .orElseThrow();
        Files.setLastModifiedTime(stream, FileTime.fromMillis(System.currentTimeMillis() + 5000));
        Run touched = run("view", "--cache", cache.toString(), "--bench", "1", copy.toString());
        assertThat(touched.err())
                .contains("indexing 5 traces")
                .contains("kept the timeline (")
                .contains("removed the timeline kept for an earlier state of these traces")
                .contains("removed the index of an earlier state of these traces");
        try (var kept = Files.list(cache)) {
            assertThat(kept.map(p -> p.getFileName().toString().replaceAll(".*\\.", "")))
                    .as("the earlier state's files are gone")
                    .containsExactlyInAnyOrder("index", "timeline");
        }

        // a damaged file: said in one line, then built again
        Path file;
        try (var kept = Files.list(cache)) {
            file = kept.filter(p -> p.toString().endsWith(".timeline"))
                    .max(Comparator.comparing(p -> p.toFile().lastModified()))
                    .orElseThrow();
        }
        Files.write(file, Arrays.copyOf(Files.readAllBytes(file), 100));
        Run damaged = run("view", "--cache", cache.toString(), "--bench", "1", copy.toString());
        assertThat(damaged.status()).as(damaged.err()).isZero();
        assertThat(damaged.err())
                .contains("hetrace view: warning: " + file + ": cut short")
                .containsOnlyOnce("building the timeline again")
                .contains("reading 5 trace(s)")
                .doesNotContain("indexing")
                .contains("kept the timeline (")
                .doesNotContain("\tat ");
    }

    @Test
    void aMissingTraceABadPortAndAPortInUseAreOneLineErrors() throws Exception {
        Run missing = run("view", dir.resolve("nothing").toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err().strip())
                .isEqualTo("hetrace: " + dir.resolve("nothing") + ": no such file or directory");

        Run port = run("view", "--no-cache", "--port", "70000", board.toString());
        assertThat(port.status()).isEqualTo(2);
        assertThat(port.err().strip()).isEqualTo("hetrace: --port 70000: must be within 0..65535");

        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Run busy = run(
                    "view",
                    "--no-cache",
                    "--port",
                    Integer.toString(taken.getLocalPort()),
                    "--bench",
                    "1",
                    board.toString());
            assertThat(busy.status()).isEqualTo(1);
            assertThat(busy.err())
                    .contains("hetrace: cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .doesNotContain("\tat ");
        }
    }
}
