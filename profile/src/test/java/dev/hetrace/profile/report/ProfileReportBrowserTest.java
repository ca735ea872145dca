package dev.hetrace.profile.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.stats.CampaignStats;
import dev.hetrace.profile.stats.CoreTypes;
import dev.hetrace.profile.stats.Distribution;
import dev.hetrace.profile.stats.SlowdownCurve;
import dev.hetrace.profile.stats.ThreadMetrics;
import dev.hetrace.web.Chromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The profile report opened from disk in Debian's headless Chromium with networking blocked:
 * the charts are drawn with as many bars, points, levels and boxes as the statistics say, the
 * markers sit at the computed best, median and worst, and the knee is labelled. Screenshots go
 * to {@code target/screenshots/profile-report*.png}.
 */
class ProfileReportBrowserTest {

    @TempDir
    static Path dir;

    static Chromium browser;

    /** A sweep: 5 stress levels × 6 runs, runtime growing past 10 % at level 3, task-clock following it, page-faults not. */
    static Campaign sweep() {
        double[] factor = {1, 1.03, 1.06, 1.25, 1.6};
        double[] jitter = {0, 0.01, -0.01, 0.02, -0.02, 0.15};
        List<Run> runs = new ArrayList<>();
        for (int level = 0; level < factor.length; level++) {
            for (int k = 0; k < jitter.length; k++) {
                double rt = 0.8 * factor[level] * (1 + jitter[k]);
                runs.add(new Run(
                        "./stream",
                        Map.of("stress", Integer.toString(level)),
                        k,
                        rt,
                        rt * 0.93,
                        rt * 0.04,
                        Map.of("task-clock", rt * 970, "page-faults", 2000.0 + 13 * ((k * 7 + level) % 5)),
                        Map.of("cycles", "not supported"),
                        List.of()));
            }
        }
        List<Map<String, String>> hw = new ArrayList<>();
        for (int level = 1; level < factor.length; level++) {
            hw.add(Map.of("level", Integer.toString(level), "bytes_per_second", Double.toString(level * 1.5e9)));
        }
        return new Campaign("stream <sweep>", Map.of("cpu", "2 cores"), runs, hw);
    }

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        browser = Chromium.start(
                dir.resolve("chromium-profile"),
                false,
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost",
                "--proxy-server=http://0.0.0.0:1");
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.close();
        }
    }

    long count(String css) {
        return (Long) browser.js("return document.querySelectorAll(" + quote(css) + ").length");
    }

    String text(String css) {
        return (String)
                browser.js("const e = document.querySelector(" + quote(css) + "); return e ? e.textContent : null");
    }

    static String quote(String s) {
        return "'" + s.replace("'", "\\'") + "'";
    }

    void open(Path report) {
        browser.driver.get(report.toUri().toString());
        new WebDriverWait(browser.driver, Duration.ofSeconds(20))
                .until(d -> browser.js("return !!(window.__hetraceProfile && window.__hetraceProfile.ready)")
                        == Boolean.TRUE);
    }

    String notes() {
        return (String) browser.js(
                "return [...document.querySelectorAll('#slowdown-notes p')].map(p => p.textContent)" + ".join('\\n')");
    }

    @Test
    void aCurveSweptOfTheCpuTimeIsDrawnOfItAndWithoutABudgetSaysWhyRatherThanStressZero() throws Exception {
        // recorded as a sweep records it: task-clock, 2 %; level 1 (×1.03) is already past it
        Campaign c = sweep().withCurve(new Campaign.Curve("task-clock", 0.02));
        Path out = dir.resolve("strict.html");
        ProfileReport.write(c, CampaignStats.of(c), List.of(), out);
        open(out);
        browser.shot("profile-report-no-budget");
        assertThat(browser.js("return document.querySelector('svg[data-chart=slowdown]').parentNode"
                        + ".querySelector('figcaption').textContent"))
                .isEqualTo("slowdown of task-clock vs stress level");
        assertThat(text("svg[data-chart=slowdown] text.knee")).isEqualTo("knee: stress 1 (×1.03)");
        assertThat(text("svg[data-chart=slowdown] text.budget")).isEqualTo("no extra-access budget (below)");
        assertThat(notes())
                .isEqualTo("slowdown of task-clock (as swept), threshold 2 % (as swept)\n"
                        + "knee: level 1, slowdown 1.030 (past 1.020)\n"
                        + "extra-access budget: none: the lowest stress level measured, 1 (1500.0 MB/s), already slows the"
                        + " workload past the threshold; a budget, if any, lies below it");
        assertThat(
                        browser.js(
                                "return [...document.querySelectorAll('th')].some(t => t.textContent === 'median task-clock ms')"))
                .isEqualTo(true);
    }

    @Test
    void theSweepsReportDrawsEveryChartWithTheComputedNumbers() throws Exception {
        Campaign c = sweep();
        List<Metric> metrics = List.of(Metric.parse("faults_per_ms=page-faults / task-clock"));
        Path out = dir.resolve("report.html");
        ProfileReport.Written w = ProfileReport.write(c, metrics, "stress", 0.10, out);
        assertThat(w.bytes()).isPositive();
        String html = Files.readString(out);
        // nothing fetched: the only address is SVG's namespace name
        assertThat(html.replace("'http://www.w3.org/2000/svg'", "")).doesNotContain("http://", "https://", "src=");
        assertThat(html).contains("\"stream \\u003Csweep>\"");
        open(out);
        browser.shot("profile-report");

        CampaignStats s = CampaignStats.of(c, metrics, "stress", 0.10);
        Distribution rt = s.quantities().get("runtime");
        assertThat(count("svg[data-chart=histogram][data-of=runtime] rect.bar"))
                .isEqualTo(rt.histogram().counts().length);
        long drawnRuns = (Long) browser.js(
                "return [...document.querySelectorAll('svg[data-chart=histogram][data-of=runtime] rect.bar')]"
                        + ".reduce((a, r) => a + Number(r.dataset.count), 0)");
        assertThat(drawnRuns).isEqualTo(30);
        for (String mark : List.of("best", "median", "worst")) {
            double v = ((Number) browser.js("return Number(document.querySelector('svg[data-of=runtime] line[data-mark="
                            + mark + "]').dataset.value)"))
                    .doubleValue();
            assertThat(v)
                    .isEqualTo(
                            switch (mark) {
                                case "best" -> rt.min();
                                case "median" -> rt.median();
                                default -> rt.max();
                            });
        }
        // a histogram per counter and metric, a scatter with its line per counter and metric
        for (String q : List.of("task-clock", "page-faults", "faults_per_ms")) {
            assertThat(count("svg[data-chart=histogram][data-of=" + q + "] rect.bar"))
                    .isEqualTo(s.quantities().get(q).histogram().counts().length);
            assertThat(count("svg[data-chart=scatter][data-of=" + q + "] circle.point"))
                    .isEqualTo(30);
        }
        assertThat(count("svg[data-chart=scatter][data-of=task-clock] line.regression"))
                .isEqualTo(1);
        assertThat(text("svg[data-chart=scatter][data-of=task-clock] text.fit")).contains("r 1", "R² 1");
        // the ranking: task-clock first
        assertThat(text("#ranking tr:nth-child(2) td")).isEqualTo("task-clock");

        // the slowdown curve: five levels, the threshold, the knee at 3, the budget at 2 (3 GB/s)
        assertThat(count("svg[data-chart=slowdown] circle.level")).isEqualTo(5);
        assertThat(count("svg[data-chart=slowdown] circle.level.unacceptable")).isEqualTo(2);
        assertThat(count("svg[data-chart=slowdown] line.threshold")).isEqualTo(1);
        assertThat(text("svg[data-chart=slowdown] text.threshold-label")).isEqualTo("threshold +10 %");
        assertThat(text("svg[data-chart=slowdown] text.knee")).isEqualTo("knee: stress 3 (×1.25)");
        assertThat(text("svg[data-chart=slowdown] text.budget")).isEqualTo("extra-access budget: stress 2 = 3000 MB/s");
        // under the chart, the sentences 'hetrace profile stats' prints
        SlowdownCurve curve = s.slowdown().orElseThrow();
        assertThat(notes()).isEqualTo(curve.basis() + "\n" + curve.kneeText() + "\n" + curve.budgetText());
        assertThat(notes()).startsWith("slowdown of runtime (the default: ");

        // user vs system per run, box plots per stress level (each level's 15 % run is an outlier)
        assertThat(count("svg[data-chart=split] rect.user")).isEqualTo(30);
        assertThat(count("svg[data-chart=split] rect.system")).isEqualTo(30);
        assertThat(count("svg[data-chart=boxes] g.box")).isEqualTo(5);
        assertThat(count("svg[data-chart=boxes] circle.outlier"))
                .isEqualTo(s.groups().stream()
                        .mapToLong(g -> g.box().outliers().size())
                        .sum());
        assertThat(text("#unsupported")).isEqualTo("Not counted: cycles (not supported)");
        assertThat(browser.driver.getTitle()).isEqualTo("stream <sweep> — hetrace profile");
    }

    @Test
    void metricsPerThreadAndCoreTypeAreDrawnFromTheSamples() throws Exception {
        // two threads: 11 on a big core at IPC 1.5, 12 on a LITTLE core at IPC 0.75 (the seeds' Odroid XU4 figures)
        List<Sample> samples = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            samples.add(new Sample(
                    k, 10, 11, "worker", 5, "tick", Map.of("instructions", 3000.0 + k, "cycles", 2000.0 + k / 1.5)));
            samples.add(new Sample(k, 10, 12, "helper", 1, "tick", Map.of("instructions", 1500.0, "cycles", 2000.0)));
        }
        Run run = new Run(
                "./app",
                Map.of(),
                0,
                4,
                Double.NaN,
                Double.NaN,
                Map.of("instructions", 18006.0, "cycles", 16004.0),
                Map.of(),
                samples);
        Campaign c = Campaign.of("threads", List.of(run));
        Metric ipc = Metric.parse("ipc=instructions / cycles");
        ThreadMetrics.Table t = ThreadMetrics.of(c, ipc, CoreTypes.parse("0-3=LITTLE,4-7=big"));
        Path out = dir.resolve("threads.html");
        ProfileReport.write(c, List.of(ipc), "", 0.10, List.of(t), out);
        open(out);
        browser.shot("profile-report-threads");
        assertThat(count("svg[data-chart=threads] rect.bar")).isEqualTo(2);
        assertThat(count("svg[data-chart=coretypes] rect.bar")).isEqualTo(2);
        double big = ((Number)
                        browser.js(
                                "return Number(document.querySelector('svg[data-chart=coretypes] rect[data-key=big]').dataset.value)"))
                .doubleValue();
        assertThat(big).isCloseTo(1.5, org.assertj.core.api.Assertions.within(1e-9));
        double little = ((Number)
                        browser.js(
                                "return Number(document.querySelector('svg[data-chart=coretypes] rect[data-key=LITTLE]').dataset.value)"))
                .doubleValue();
        assertThat(little).isEqualTo(0.75);
        // each thread over time: four timed samples each
        assertThat(count("svg[data-chart=timeline] polyline.series")).isEqualTo(2);
        assertThat(
                        browser.js(
                                "return document.querySelector('svg[data-chart=timeline] polyline[data-key=\"12 (helper)\"]').dataset.points"))
                .isEqualTo("4");
    }

    @Test
    void aCampaignWithoutStressLevelsHasNoSlowdownCurve() throws Exception {
        List<Run> runs = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            runs.add(new Run(
                    "./w",
                    Map.of(),
                    k,
                    1 + k * 0.01,
                    Double.NaN,
                    Double.NaN,
                    Map.of("task-clock", 900.0 + k),
                    Map.of(),
                    List.of()));
        }
        Path out = dir.resolve("plain.html");
        ProfileReport.write(Campaign.of("plain", runs), List.of(), "", 0.10, out);
        open(out);
        browser.shot("profile-report-plain");
        assertThat(count("svg[data-chart=slowdown]")).isZero();
        assertThat(count("svg[data-chart=histogram][data-of=runtime]")).isEqualTo(1);
        assertThat(count("svg[data-chart=scatter][data-of=task-clock] circle.point"))
                .isEqualTo(8);
        assertThat(count("svg[data-chart=split]")).isZero();
        assertThat(count("svg[data-chart=boxes] g.box")).isEqualTo(1);
    }
}
