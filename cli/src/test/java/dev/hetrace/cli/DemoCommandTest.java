package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace demo}: the simulated Sobel board, synchronized, every DSP within its bound of the truth. */
class DemoCommandTest {
    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {}

    private static Run demo(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] a = new String[args.length + 1];
        a[0] = "demo";
        System.arraycopy(args, 0, a, 1, args.length);
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), a);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theDemoSynchronizesEveryDspWithinItsBoundOfTheTruthAndSaysWhereItsOutputIs() throws Exception {
        Path out = dir.resolve("demo");
        Run run = demo("--out", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("a master and 8 DSPs")
                .contains("injected: preempt on dsp1, dsp2")
                .contains(out.resolve("synced") + "/")
                .contains("babeltrace2 " + out.resolve("synced") + "/*");
        // the diagnosis, in words: the preempted DSPs, by whom, and the master waiting for them
        String said = run.out().replaceAll("\\s+", " ");
        assertThat(said)
                .containsPattern("dsp1 and dsp2: sobel_filter took about 29\\d ms instead of about 9\\d(\\.\\d)? ms")
                .contains("task intruder preempted them")
                .contains("master/cpu0 waited for them")
                .contains("./hetrace diagnose " + out);
        Matcher m = Pattern.compile("(dsp\\d)\\s+\\S+ GHz\\s+\\S+ ppm\\s+(\\S+)\\s+([\\d.]+) µs\\s+([\\d.]+) µs")
                .matcher(run.out());
        int dsps = 0;
        while (m.find()) {
            dsps++;
            assertThat(m.group(2)).as(m.group(1)).isEqualTo("accurate");
            assertThat(Double.parseDouble(m.group(4)))
                    .as("%s: true error within the bound", m.group(1))
                    .isLessThanOrEqualTo(Double.parseDouble(m.group(3)) + 0.01);
        }
        assertThat(dsps).as(run.out()).isEqualTo(8);
        try (var synced = Files.list(out.resolve("synced"))) {
            assertThat(synced.count()).isEqualTo(9);
        }
        assertThat(out.resolve("board").resolve("ground-truth.json")).exists();
        // the report: one file, said where
        assertThat(run.out())
                .contains(out.resolve("report.html") + "     the timeline, statistics and diagnosis in one file");
        assertThat(Files.readString(out.resolve("report.html")))
                .contains("task intruder preempted")
                .doesNotContain("https://");

        // a second demo replaces the first; a directory that is not a demo's is left alone
        assertThat(demo("--out", out.toString()).status()).isZero();
        Path other = Files.createDirectories(dir.resolve("mine"));
        Files.writeString(other.resolve("notes.txt"), "keep");
        Run refused = demo("--out", other.toString());
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err())
                .isEqualTo("hetrace: " + other + " exists and was not written by 'hetrace demo': give"
                        + " another --out\n");
        assertThat(other.resolve("notes.txt")).hasContent("keep");
    }

    @Test
    void theImx8DemoSynchronizesEveryCortexMCoreWithItsRpmsgMessagesWithinItsBoundOfTheTruth() throws Exception {
        Path out = dir.resolve("imx8");
        Run run = demo("--board", "imx8", "--m-cores", "4", "--out", out.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("4 Cortex-M cores running Zephyr")
                .contains("analysed: linux (lttng-ust-cyg-profile), m0 (zephyr), m1 (zephyr), m2 (zephyr), m3 (zephyr)")
                .containsPattern("synchronized on Linux's from [\\d,]+ RPMsg messages")
                .contains(out.resolve("report.html") + "     the timeline");
        Matcher m = Pattern.compile("(m\\d)\\s+0\\.400 GHz\\s+\\S+ ppm\\s+(\\S+)\\s+([\\d.]+) µs\\s+([\\d.]+) µs")
                .matcher(run.out());
        int cores = 0;
        while (m.find()) {
            cores++;
            assertThat(m.group(2)).as(m.group(1)).isEqualTo("accurate");
            assertThat(Double.parseDouble(m.group(4)))
                    .as("%s: true error within the bound", m.group(1))
                    .isLessThanOrEqualTo(Double.parseDouble(m.group(3)) + 0.01);
        }
        assertThat(cores).as(run.out()).isEqualTo(4);
        assertThat(out.resolve("board/ground-truth.json")).exists();
        assertThat(Files.readString(out.resolve("report.html"))).contains("rpmsg_rx");
        Run refused = demo("--m-cores", "2", "--out", dir.resolve("other").toString());
        assertThat(refused.status()).isEqualTo(2);
        assertThat(refused.err()).startsWith("hetrace: --m-cores: only with --board imx8");
    }

    @Test
    void withServeTheDemoEndsByServingTheViewerOnItsBoard() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int[] status = {-1};
        Thread demo = new Thread(() ->
                status[0] = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), new String[] {
                    "demo", "--serve", "--out", dir.resolve("served").toString()
                }));
        demo.start();
        Matcher url = Pattern.compile("hetrace demo: open (http://127\\.0\\.0\\.1:\\d+/)")
                .matcher("");
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!url.reset(err.toString(StandardCharsets.UTF_8)).find()) {
            assertThat(demo.isAlive()).as(err.toString(StandardCharsets.UTF_8)).isTrue();
            assertThat(System.nanoTime())
                    .as("the viewer's URL within 2 minutes")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
        // the summary came first; the server answers with the demo's board and its diagnosis
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("a master and 8 DSPs");
        try (var client = HttpClient.newHttpClient()) {
            String meta = client.send(
                            HttpRequest.newBuilder(URI.create(url.group(1) + "api/meta"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(meta).contains("\"dsp7\"");
            String diagnosis = client.send(
                            HttpRequest.newBuilder(URI.create(url.group(1) + "api/diagnosis"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(diagnosis).contains("task intruder preempted them");
        }
        demo.interrupt();
        demo.join(10_000);
        assertThat(demo.isAlive()).isFalse();
        assertThat(status[0]).isZero();
    }
}
