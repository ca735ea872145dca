package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Simulation;
import dev.hetrace.web.Chromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code hetrace report}'s file opened from disk in a real headless Chromium with networking
 * blocked, on the Sobel board with dsp1 and dsp2 preempted: the diagnosis is the same as
 * {@code hetrace diagnose}'s, every core is drawn, the statistics are there, and zooming into
 * the fault shows the intruder where the simulator's ground truth says. The same board's report
 * as a large board's (summaries, not every interval) opens too and says what it holds.
 * Screenshots go to {@code target/screenshots/report-*.png}.
 */
class ReportBrowserTest {

    @TempDir
    static Path dir;

    static FaultBoard board;
    static Simulation.Result sim;
    static StateBuilder.Input input;
    static StateModel model;
    static Timeline timeline;
    static Report.Written report;
    static Report.Written summaries;
    static Report.Written windowed;

    @AutoClose
    static Chromium browser;

    static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        board = FaultBoard.make(dir.resolve("board"));
        sim = board.sim();
        input = board.input();
        model = board.model();
        timeline = Timeline.of(model);
        report = Report.write(timeline, dir.resolve("report.html"));
        // as a large board's: columns as narrow as they come (256 over the trace), without and with windows
        summaries = Report.write(timeline, dir.resolve("large.html"), 1000, 0, 1);
        windowed = Report.write(timeline, dir.resolve("large-windows.html"), 1000, 100_000, 1);

        // no network: no host resolves, no proxy, no background or component traffic; the DevTools
        // network log keeps every request the page makes, whatever made it
        browser = Chromium.start(
                dir.resolve("chromium-profile"),
                true,
                "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost",
                "--proxy-server=http://0.0.0.0:1",
                "--disable-default-apps",
                "--disable-extensions",
                "--disable-domain-reliability",
                "--no-pings");
        driver = browser.driver;
    }

    @Test
    void theFileRefersToNothingOutsideItself() throws Exception {
        String html = Files.readString(report.file());
        assertThat(html).doesNotContain("http://", "https://");
        assertThat(Pattern.compile("\\s(src|href)\\s*=", Pattern.CASE_INSENSITIVE)
                        .matcher(html)
                        .find())
                .as("no src or href attribute: the scripts and the style are inline")
                .isFalse();
        assertThat(report.everyInterval()).isTrue();
        assertThat(report.intervals()).isEqualTo(timeline.intervals());
        assertThat(summaries.everyInterval()).isFalse();
        assertThat(summaries.width()).isEqualTo(Report.MIN_WIDTH);
    }

    @Test
    void theReportOpensWithoutNetworkAndShowsTheSameDiagnosis() throws Exception {
        open(report);
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return window.__hetrace.diagnosisLoaded") == Boolean.TRUE);
        List<String> shown = driver.findElements(By.cssSelector("#diagnosis .finding")).stream()
                .map(WebElement::getText)
                .toList();
        List<String> expected = Diagnosis.summary(Diagnosis.of(model, Diagnosis.DEFAULT_K));
        assertThat(expected).isNotEmpty();
        assertThat(shown).containsExactlyElementsOf(expected);
        assertThat(String.join("\n", shown)).contains("dsp1 and dsp2", "sobel_filter", "task intruder preempted them");
        assertThat(driver.findElements(By.cssSelector("#diagnosis .outlier[data-core='dsp2']")))
                .isNotEmpty();
        assertThat(driver.findElement(By.id("report-note")).getText()).contains("every interval");
        browser.shot("report-diagnosis");
        noRequests();
    }

    @Test
    void everyCoreIsDrawnAndTheStatisticsAreThere() throws Exception {
        open(report);
        JsonNode draw = browser.lastDraw();
        browser.shot("report-overview");
        Set<String> rows = new HashSet<>();
        Set<String> drawn = new HashSet<>();
        for (JsonNode r : draw.get("rows")) {
            if (r.get("kind").asText().equals("core")) {
                rows.add(r.get("core").asText());
            }
            if (r.get("n").asInt() > 0 && !r.get("core").isNull()) {
                drawn.add(r.get("core").asText());
            }
        }
        List<String> cores = model.cores().stream().map(StateModel.Core::name).toList();
        assertThat(rows).containsAll(cores);
        assertThat(drawn)
                .containsAll(cores.stream().filter(n -> n.startsWith("dsp")).toList())
                .contains("master/cpu0");
        assertThat(Chromium.row(draw, "board").get("mode").asText()).isEqualTo("columns");
        assertThat(Chromium.row(draw, "board").get("n").asInt()).isPositive();
        assertThat(draw.get("arrows").size()).isPositive();
        driver.findElement(By.cssSelector("aside nav button[data-tab='stats']")).click();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return !!window.__hetrace.lastStats") == Boolean.TRUE);
        String stats = driver.findElement(By.id("stats-table")).getText();
        assertThat(stats).contains("intruder", "sobel_filter");
        assertThat(driver.findElements(By.cssSelector("#stats-table tbody tr")).size())
                .isGreaterThan(10);
        browser.shot("report-stats");
        noRequests();
    }

    @Test
    void zoomingIntoTheFaultShowsTheIntruderOnDsp1AndDsp2WhenTheTruthSays() throws Exception {
        open(report);
        long[] window = board.intruderWindow();
        long from = window[0];
        long to = window[1];
        browser.js("window.__hetrace.zoomTo(" + from + ", " + to + ")");
        JsonNode draw = browser.lastDraw();
        browser.shot("report-fault");
        board.assertTheIntruderIsDrawnWhereTheTruthSays(draw, from, to);
        // clicking the diagnosis' dsp2 outlier zooms there
        WebElement o = driver.findElements(By.cssSelector("#diagnosis .outlier[data-core='dsp2']"))
                .getFirst();
        long start = Long.parseLong(o.getDomAttribute("data-start"));
        long end = Long.parseLong(o.getDomAttribute("data-end"));
        o.click();
        JsonNode at = browser.lastDraw();
        assertThat(at.get("from").asDouble()).isLessThanOrEqualTo(start);
        assertThat(at.get("to").asDouble()).isGreaterThanOrEqualTo(end);
        noRequests();
    }

    @Test
    void aLargeBoardsReportShowsSummariesAndSaysSo() throws Exception {
        open(summaries);
        JsonNode draw = browser.lastDraw();
        browser.shot("report-large-overview");
        assertThat(driver.findElement(By.id("report-note")).getText()).contains("summaries", "not every interval");
        Set<String> drawn = new HashSet<>();
        for (JsonNode r : draw.get("rows")) {
            if (r.get("n").asInt() > 0 && !r.get("core").isNull()) {
                drawn.add(r.get("core").asText());
            }
        }
        assertThat(drawn)
                .containsAll(model.cores().stream()
                        .map(StateModel.Core::name)
                        .filter(n -> n.startsWith("dsp"))
                        .toList());
        // deeper than the embedded columns: the finest summary, labelled
        long span = model.end() - model.begin();
        browser.js("window.__hetrace.zoomTo(" + span / 2 + ", " + (span / 2 + span / 100_000 + 10) + ")");
        browser.lastDraw();
        WebElement zoom = driver.findElement(By.id("report-zoom"));
        assertThat(zoom.isDisplayed()).isTrue();
        assertThat(zoom.getText()).contains("not in this report");
        browser.shot("report-large-deep");
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return window.__hetrace.diagnosisLoaded") == Boolean.TRUE);
        assertThat(driver.findElements(By.cssSelector("#diagnosis .finding")).stream()
                        .map(WebElement::getText)
                        .toList())
                .containsExactlyElementsOf(Diagnosis.summary(Diagnosis.of(model, Diagnosis.DEFAULT_K)));
        noRequests();
    }

    @Test
    void aLargeBoardsReportHoldsEveryIntervalAroundTheOutliers() throws Exception {
        open(windowed);
        assertThat(windowed.note()).contains("summaries", "around the longest outliers");
        long[] window = board.intruderWindow();
        long from = window[0];
        long to = window[1];
        browser.js("window.__hetrace.zoomTo(" + from + ", " + to + ")");
        JsonNode draw = browser.lastDraw();
        browser.shot("report-large-fault");
        board.assertTheIntruderIsDrawnWhereTheTruthSays(draw, from, to);
        // every core row interval by interval; the board and trace rows from the window's own columns (the
        // server's, 8,192 over the window), far finer than the whole trace's 256
        for (JsonNode r : draw.get("rows")) {
            if (r.get("kind").asText().equals("core")) {
                assertThat(r.get("mode").asText()).as(r.get("name").asText()).isIn("rects", "none");
            }
        }
        WebElement zoom = driver.findElement(By.id("report-zoom"));
        if (zoom.isDisplayed()) {
            long span = model.end() - model.begin();
            double finest = ((Number) browser.js("return window.__hetrace.lastAnswerFinest")).doubleValue();
            assertThat(finest).isLessThan(span / 256.0 / 20);
        }
        noRequests();
    }

    @Test
    void theDurationsPanelAnswersForEveryNameItOffers() throws Exception {
        open(report);
        new WebDriverWait(driver, Duration.ofSeconds(30))
                .until(d -> browser.js("return !!window.__hetrace.durationNames") == Boolean.TRUE);
        JsonNode offered = new ObjectMapper()
                .readTree((String) browser.js("return JSON.stringify(window.__hetrace.durationNames)"));
        // every name of a task run, an interrupt or a call, with how many there are
        java.util.Map<String, Integer> expected = new java.util.TreeMap<>();
        for (Timeline.Row r : timeline.rows()) {
            boolean durationRow = r.core() >= 0
                    && (r.kind() == Timeline.Kind.CORE
                            || r.kind() == Timeline.Kind.IRQ
                            || r.kind() == Timeline.Kind.CALLS);
            for (int i = timeline.offset[r.id()]; durationRow && i < timeline.offset[r.id() + 1]; i++) {
                expected.merge(timeline.labels().name(timeline.labelOf(i)), 1, Integer::sum);
            }
        }
        List<String> names = new ArrayList<>();
        offered.forEach(n -> names.add(n.asText()));
        assertThat(names).containsExactlyInAnyOrderElementsOf(expected.keySet());
        assertThat(names).contains("intruder", "sobel", "sobel_filter", "convolve_tile");
        for (String name : names) {
            Object count =
                    browser.js("return window.__hetrace.showDurations(" + new ObjectMapper().writeValueAsString(name)
                            + ").then(() => document.getElementById('durations-count').textContent)");
            assertThat((String) count).as(name).startsWith(expected.get(name) + " intervals");
            assertThat(driver.findElements(By.cssSelector("#durations-histogram svg")))
                    .as(name)
                    .isNotEmpty();
            // the intervals the page shows are the server's answer for that name
            assertThat(plain((String) browser.js("return JSON.stringify(window.__hetrace.lastDurations)")))
                    .as(name)
                    .isEqualTo(plain(durationsOf(name)));
        }
        noRequests();
    }

    // ---- helpers

    /** {@code /api/durations}' answer for name, at most the intervals a report holds. */
    private static String durationsOf(String name) throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        try (ViewServer api = new ViewServer(timeline, (StateBuilder.Input) null);
                var g = new com.fasterxml.jackson.core.JsonFactory().createGenerator(out)) {
            api.durations(name, Report.MAX_DURATIONS, g);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** JSON as maps, lists, longs and doubles: equal whatever the order of the fields. */
    private static Object plain(String json) throws Exception {
        return new ObjectMapper()
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_LONG_FOR_INTS)
                .readValue(json, Object.class);
    }

    private static void open(Report.Written w) {
        driver.manage().logs().get(LogType.PERFORMANCE); // what came before: the browser's own pages
        driver.get(w.file().toUri().toString());
        browser.settle();
    }

    /**
     * The page loaded the file itself and nothing else: the DevTools network log since it was
     * opened has no request but the file's (and the browser's own chrome:// resources; the browser's own pages
     * are left out), and Resource Timing lists no fetch, script, style or image.
     */
    private static void noRequests() throws Exception {
        List<String> urls = new ArrayList<>();
        for (var entry : driver.manage().logs().get(LogType.PERFORMANCE)) {
            JsonNode m = new ObjectMapper().readTree(entry.getMessage()).path("message");
            // what the report's page asked for, not the browser's own pages (its new-tab page's chrome://
            // and chrome-untrusted:// requests, which a new Chromium makes before the report is opened)
            if (m.path("method").asText().equals("Network.requestWillBeSent")
                    && !m.path("params")
                            .path("documentURL")
                            .asText()
                            .matches("(chrome|chrome-untrusted|devtools):.*")) {
                urls.add(m.path("params").path("request").path("url").asText());
            }
        }
        // chrome:// is the browser's own resources (the search field's clear icon), data: is inline bytes
        // (the browser's own pages use a 1-pixel GIF): neither is the network
        assertThat(urls.stream()
                        .filter(u -> !u.startsWith("chrome://") && !u.startsWith("data:"))
                        .distinct()
                        .toList())
                .as("requests in the DevTools network log: %s", urls)
                .containsExactly(driver.getCurrentUrl());
        Object resources =
                browser.js("return JSON.stringify(performance.getEntriesByType('resource').map(e => e.name))");
        assertThat(resources).isEqualTo("[]");
        Object nav = browser.js("return performance.getEntriesByType('navigation').map(e => e.name).join(',')");
        assertThat((String) nav).startsWith("file:").doesNotContain(",");
    }
}
