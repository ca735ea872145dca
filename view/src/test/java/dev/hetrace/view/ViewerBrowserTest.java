package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.sim.Simulation;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.assertj.core.data.Offset;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.interactions.WheelInput;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code hetrace view} in a real headless Chromium (Debian's, driven through its chromedriver;
 * nothing downloaded) on the seeds' Sobel board with dsp1 and dsp2 preempted, against the
 * simulator's ground truth. What the app drew is read from its debug hook
 * ({@code window.__hetrace.lastDraw}: the rows, rectangles and arrows of the last frame).
 * Screenshots go to {@code target/screenshots}.
 */
class ViewerBrowserTest {

    @TempDir
    static Path dir;

    static FaultBoard board;
    static Simulation.Result sim;
    static StateBuilder.Input input;
    static StateModel model;

    @AutoClose
    static ServedPage page;

    static Chromium browser;
    static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        board = FaultBoard.make(dir.resolve("board"));
        sim = board.sim();
        input = board.input();
        model = board.model();
        page = ServedPage.start(dir, Timeline.of(model), input);
        browser = page.browser;
        driver = browser.driver;
    }

    @Test
    void everyCoreIsDrawnWithItsStatesAndTheMessagesBetweenCores() throws Exception {
        page.open();
        JsonNode draw = browser.lastDraw();
        browser.shot("overview");
        assertThat(draw.get("fresh").asBoolean()).isTrue();
        // every core has a row; what ran on it is drawn there, or on its tasks' rows when its scheduling is not traced
        Set<String> rows = new HashSet<>();
        Set<String> drawnCores = new HashSet<>();
        for (JsonNode r : draw.get("rows")) {
            if (r.get("kind").asText().equals("core")) {
                rows.add(r.get("core").asText());
            }
            if (r.get("n").asInt() > 0 && !r.get("core").isNull()) {
                drawnCores.add(r.get("core").asText());
            }
        }
        List<String> cores = model.cores().stream().map(StateModel.Core::name).toList();
        assertThat(rows).containsAll(cores);
        Set<String> busy = new HashSet<>();
        for (int i = 0; i < model.calls().size(); i++) {
            busy.add(coreNameOfTask(model.calls().owner(i)));
        }
        for (int i = 0; i < model.runs().size(); i++) {
            busy.add(model.cores().get(model.runs().owner(i)).name());
        }
        assertThat(drawnCores)
                .containsAll(busy)
                .containsAll(cores.stream().filter(n -> n.startsWith("dsp")).toList());
        // each DSP's states: the sobel task drawn (or aggregated) on its row
        assertThat(draw.get("rects").size() + draw.get("columns").asInt()).isPositive();
        // every core that sent or received a message is at one end of an arrow drawn
        Set<String> talking = new HashSet<>();
        MessageTable msg = model.messages();
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendCore(i) >= 0 && msg.receiveCore(i) >= 0) {
                talking.add(model.cores().get(msg.sendCore(i)).name());
                talking.add(model.cores().get(msg.receiveCore(i)).name());
            }
        }
        Set<String> ends = new HashSet<>();
        for (JsonNode a : draw.get("arrows")) {
            ends.add(a.get("fromCore").asText());
            ends.add(a.get("toCore").asText());
        }
        assertThat(talking).contains("master/cpu0", "dsp0", "dsp1", "dsp2", "dsp7");
        assertThat(ends).containsAll(talking);
        // the board row is the aggregated overview of every core; smoothing and adjustment reshape it
        assertThat(Chromium.row(draw, "board").get("mode").asText()).isEqualTo("columns");
        int columns = draw.get("columns").asInt();
        assertThat(columns).isPositive();
        driver.findElement(By.id("smooth")).click();
        driver.findElement(By.id("adjust")).click();
        JsonNode shaped = browser.lastDraw();
        assertThat(Chromium.row(shaped, "board").get("n").asInt()).isPositive();
        assertThat(shaped.get("columns").asInt()).isPositive();
        browser.shot("overview-smoothed");
    }

    @Test
    void zoomingIntoTheFaultShowsTheIntruderOnDsp1AndDsp2WhenTheTruthSays() throws Exception {
        page.open();
        // a 12 ms window from 1 ms before the intruder first ran: a few of its runs on each faulty core
        long[] window = board.intruderWindow();
        long from = window[0];
        long to = window[1];
        browser.js("window.__hetrace.zoomTo(" + from + ", " + to + ")");
        JsonNode draw = browser.lastDraw();
        browser.shot("fault");
        assertThat(draw.get("from").asLong()).isEqualTo(from);
        board.assertTheIntruderIsDrawnWhereTheTruthSays(draw, from, to);
    }

    @Test
    void pointEventsAreMarkedOnTheirCoreAndTheSyncHandshakesWhenAsked() throws Exception {
        page.open();
        // dsp1's events no interval is made of, read from its trace and put on the master's clock
        int trace = 2; // master, dsp0, dsp1, ...
        List<long[]> points = new ArrayList<>();
        List<Boolean> sync = new ArrayList<>();
        try (CtfReader r = CtfReader.open(List.of(sim.traces().get(trace)), w -> {})) {
            var e = r.event();
            while (r.next()) {
                String name = e.name();
                if (name.startsWith("hetrace_sync_") || name.equals("msgq_wait")) {
                    points.add(new long[] {input.maps().get(trace).apply(e.timeNanos()) - model.begin()});
                    sync.add(name.startsWith("hetrace_sync_"));
                }
            }
        }
        int at = sync.indexOf(Boolean.TRUE);
        assertThat(at).as("dsp1 traces the sync handshake").isNotNegative();
        long from = points.get(at)[0] - 200_000;
        long to = points.get(at)[0] + 200_000;
        List<Long> inWindow = new ArrayList<>();
        List<Long> syncInWindow = new ArrayList<>();
        for (int k = 0; k < points.size(); k++) {
            long t = points.get(k)[0];
            if (t >= from && t < to) {
                (sync.get(k) ? syncInWindow : inWindow).add(t);
            }
        }
        browser.js("window.__hetrace.zoomTo(" + from + ", " + to + ")");
        assertThat(marks(browser.lastDraw(), "dsp1", true))
                .as("sync marks are off by default")
                .isEmpty();
        assertThat(marks(browser.lastDraw(), "dsp1", false)).containsExactlyElementsOf(inWindow);
        driver.findElement(By.id("sync-marks")).click();
        browser.settle();
        JsonNode draw = browser.lastDraw();
        browser.shot("sync-marks");
        assertThat(syncInWindow).as("a handshake: a send and a receive").hasSizeGreaterThanOrEqualTo(2);
        assertThat(marks(draw, "dsp1", true)).containsExactlyElementsOf(syncInWindow);
        // the master's halves: its sync daemon runs on a CPU with no row of its own, so they are on the master's row
        List<Long> masterSync = new ArrayList<>();
        try (CtfReader r = CtfReader.open(List.of(sim.traces().get(0)), w -> {})) {
            var e = r.event();
            while (r.next()) {
                long t = input.maps().get(0).apply(e.timeNanos()) - model.begin();
                if (e.name().startsWith("hetrace_sync_") && t >= from && t < to) {
                    masterSync.add(t);
                }
            }
        }
        int masterRow = -1;
        for (JsonNode row : draw.get("rows")) {
            masterRow =
                    row.get("name").asText().equals("master") ? row.get("id").asInt() : masterRow;
        }
        List<Long> onMaster = new ArrayList<>(marks(draw, "master/cpu0", true));
        for (JsonNode m : draw.get("marks")) {
            if (m.get("row").asInt() == masterRow && m.get("sync").asBoolean()) {
                onMaster.add(m.get("time").asLong());
            }
        }
        assertThat(masterSync).as("the master's side of the handshake").hasSizeGreaterThanOrEqualTo(2);
        assertThat(onMaster).containsExactlyInAnyOrderElementsOf(masterSync);
        assertThat(onMaster.size() - marks(draw, "master/cpu0", true).size())
                .as("marks on the master's own row")
                .isPositive();
        for (JsonNode m : draw.get("marks")) {
            if (m.get("sync").asBoolean()) {
                assertThat(m.get("label").asText()).startsWith("hetrace_sync_");
            }
        }
        driver.findElement(By.id("sync-marks")).click();
        browser.settle();
    }

    /** The times of the marks drawn on a core's row: the sync handshake's or the others. */
    private static List<Long> marks(JsonNode draw, String core, boolean sync) {
        List<Long> out = new ArrayList<>();
        for (JsonNode m : draw.get("marks")) {
            if (m.get("core").asText().equals(core) && m.get("sync").asBoolean() == sync) {
                out.add(m.get("time").asLong());
            }
        }
        return out;
    }

    @Test
    void theDiagnosisPanelListsThePreemptionAndClickingItZoomsThere() throws Exception {
        page.open();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return window.__hetrace.diagnosisLoaded") == Boolean.TRUE);
        String findings = driver.findElements(By.cssSelector("#diagnosis .finding")).stream()
                .map(WebElement::getText)
                .collect(Collectors.joining("\n"));
        assertThat(findings).contains("dsp1 and dsp2", "sobel_filter", "task intruder preempted them");
        List<WebElement> outliers = driver.findElements(By.cssSelector("#diagnosis .outlier[data-core='dsp2']"));
        assertThat(outliers).isNotEmpty();
        WebElement o = outliers.getFirst();
        assertThat(o.getText()).contains("sobel_filter", "intruder");
        long start = Long.parseLong(o.getDomAttribute("data-start"));
        long end = Long.parseLong(o.getDomAttribute("data-end"));
        o.click();
        JsonNode draw = browser.lastDraw();
        browser.shot("diagnosis-click");
        assertThat(draw.get("from").asDouble()).isLessThanOrEqualTo(start);
        assertThat(draw.get("to").asDouble()).isGreaterThanOrEqualTo(end);
        assertThat(draw.get("to").asDouble() - draw.get("from").asDouble()).isLessThan(4.0 * (end - start));
        // the outlier's core is on screen, and the intruder that preempted it drawn on it
        JsonNode row = Chromium.row(draw, "dsp2");
        assertThat(row.get("n").asInt()).isPositive();
    }

    @Test
    void theDurationsPanelShowsTheOutliersFunctionAsHistogramBoxPlotsAndScatter() throws Exception {
        page.open();
        // nothing is asked for before the panel is shown (the answer is megabytes on a large board)
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return window.__hetrace.diagnosisLoaded") == Boolean.TRUE);
        assertThat(browser.js("return window.__hetrace.durationsLoaded")).isNull();
        assertThat(browser.js("return document.getElementById('durations-form').elements.name.value"))
                .as("no name asked for yet")
                .isEqualTo("");
        assertThat((Boolean) browser.js(
                        "return performance.getEntriesByType('resource').some(e => e.name.includes('api/durations'))"))
                .isFalse();
        // shown, it opens on the longest outlier's function
        driver.findElement(By.cssSelector("aside nav button[data-tab='durations']"))
                .click();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> "sobel_filter".equals(browser.js("return window.__hetrace.durationsLoaded")));
        List<Long> truth = new ArrayList<>();
        IntervalTable calls = model.calls();
        for (int i = 0; i < calls.size(); i++) {
            if (model.name(calls.subject(i)).equals("sobel_filter")) {
                truth.add(calls.end(i) - calls.start(i));
            }
        }
        truth.sort(null);
        assertThat(truth).hasSizeGreaterThan(8);
        WebElement hist = driver.findElement(By.cssSelector("#durations-histogram svg"));
        double median = Double.parseDouble(hist.getDomAttribute("data-median"));
        double h = (truth.size() - 1) * 0.5;
        int lo = (int) Math.floor(h);
        double expected = truth.get(lo) + (h - lo) * (truth.get(Math.min(lo + 1, truth.size() - 1)) - truth.get(lo));
        assertThat(median).isCloseTo(expected, Offset.offset(1.0));
        int barTotal = driver.findElements(By.cssSelector("#durations-histogram rect.bar")).stream()
                .mapToInt(b -> Integer.parseInt(b.getDomAttribute("data-count")))
                .sum();
        assertThat(barTotal).isEqualTo(truth.size());
        // one box per iteration; the preempted iteration's longest call is about 3x the median
        List<WebElement> boxes = driver.findElements(By.cssSelector("#durations-boxes g.box"));
        assertThat(boxes).isNotEmpty();
        WebElement scatter = driver.findElement(By.cssSelector("#durations-scatter svg"));
        assertThat(Integer.parseInt(scatter.getDomAttribute("data-points"))).isEqualTo(truth.size());
        assertThat(truth.getLast()).isGreaterThan(2 * (long) expected);
        browser.shot("durations");
        // clicking the top histogram bar zooms on the longest call
        List<WebElement> bars = driver.findElements(By.cssSelector("#durations-histogram rect.bar"));
        WebElement lastBar = bars.getLast();
        ((JavascriptExecutor) driver)
                .executeScript("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", lastBar);
        JsonNode draw = browser.lastDraw();
        assertThat(draw.get("to").asDouble() - draw.get("from").asDouble()).isLessThan(4.0 * truth.getLast());
        // another metric on the scatter's y axis redraws it
        new Select(driver.findElement(By.id("scatter-y"))).selectByValue("self");
        assertThat(driver.findElement(By.cssSelector("#durations-scatter svg")).getText())
                .contains("self time vs start");
    }

    @Test
    void theKeysZoomAndPanAndTheStatisticsTableSorts() throws Exception {
        page.open();
        JsonNode before = browser.lastDraw();
        double span = before.get("to").asDouble() - before.get("from").asDouble();
        driver.findElement(By.tagName("body")).sendKeys("+");
        JsonNode zoomed = browser.lastDraw();
        assertThat(zoomed.get("to").asDouble() - zoomed.get("from").asDouble())
                .isCloseTo(span / 2, Percentage.withPercentage(1));
        driver.findElement(By.tagName("body")).sendKeys(Keys.ARROW_RIGHT);
        JsonNode panned = browser.lastDraw();
        assertThat(panned.get("from").asDouble())
                .isGreaterThan(zoomed.get("from").asDouble());
        // the statistics are asked for when their tab is first shown
        assertThat(browser.js("return window.__hetrace.lastStats")).isNull();
        driver.findElement(By.cssSelector("aside nav button[data-tab='stats']")).click();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return !!window.__hetrace.lastStats") == Boolean.TRUE);
        List<WebElement> rows = driver.findElements(By.cssSelector("#stats-table tbody tr"));
        assertThat(rows).isNotEmpty();
        assertThat(driver.findElement(By.id("stats-table")).getText()).contains("intruder", "sobel_filter");
        browser.shot("statistics");
    }

    @Test
    void thePatternPanelFindsWhatThePatternSearchFinds() throws Exception {
        page.open();
        driver.findElement(By.cssSelector("aside nav button[data-tab='pattern']"))
                .click();
        driver.findElement(By.name("first")).sendKeys("msgq_put");
        driver.findElement(By.name("then")).sendKeys("msgq_get");
        driver.findElement(By.name("where")).sendKeys("msg_id=msg_id");
        driver.findElement(By.cssSelector("#pattern-form button")).click();
        WebElement summary = new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> d.findElements(By.id("pattern-summary")).stream()
                        .findFirst()
                        .orElse(null));
        PatternSearch.Result r = PatternSearch.run(
                input,
                new PatternSearch.Spec(
                        "msgq_put", "msgq_get", List.<String[]>of(new String[] {"msg_id", "msg_id"}), false),
                w -> {});
        assertThat(r.occurrences()).isNotEmpty();
        assertThat(Integer.parseInt(summary.getDomAttribute("data-count")))
                .isEqualTo(r.occurrences().size());
        assertThat(driver.findElements(By.cssSelector("#pattern-result .event")))
                .isNotEmpty();
        browser.shot("pattern");
    }

    @Test
    void searchingClickingHoveringAndTheWheelWorkOnTheCanvas() throws Exception {
        page.open();
        // search: the first intruder run comes into view, outlined
        WebElement search = driver.findElement(By.id("search"));
        search.sendKeys("intruder", Keys.ENTER);
        new WebDriverWait(driver, Duration.ofSeconds(30))
                .until(d -> driver.findElement(By.id("found")).getText().startsWith("1 of "));
        JsonNode draw = browser.lastDraw();
        int first = firstRun("intruder");
        long start = model.runs().start(first) - model.begin();
        assertThat(draw.get("from").asDouble()).isLessThanOrEqualTo(start);
        assertThat(draw.get("to").asDouble())
                .isGreaterThanOrEqualTo(model.runs().end(first) - model.begin());
        assertThat(draw.get("to").asDouble() - draw.get("from").asDouble()).isLessThan(model.end() - model.begin());
        // hover and click on the middle of an intruder rectangle drawn on dsp2
        JsonNode rect = null;
        for (JsonNode r : draw.get("rects")) {
            if (r.get("rowName").asText().equals("dsp2")
                    && r.get("label").asText().equals("intruder")
                    && r.get("x1").asDouble() - r.get("x0").asDouble() > 6) {
                rect = r;
                break;
            }
        }
        assertThat(rect)
                .as("an intruder rectangle on dsp2 wide enough to point at")
                .isNotNull();
        double x = (rect.get("x0").asDouble() + rect.get("x1").asDouble()) / 2;
        double y = Chromium.row(draw, "dsp2").get("y").asDouble() + 9;
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        int dx = (int) Math.round(x - box.getWidth() / 2.0);
        int dy = (int) Math.round(y - box.getHeight() / 2.0);
        new Actions(driver).moveToElement(canvas, dx, dy).perform();
        WebElement tip = driver.findElement(By.id("tooltip"));
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> tip.isDisplayed());
        assertThat(tip.getText()).contains("intruder", "duration");
        new Actions(driver).moveToElement(canvas, dx, dy).click().perform();
        WebElement events = driver.findElement(By.id("events"));
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(d -> events.isDisplayed() && events.getText().contains("intruder"));
        assertThat(events.getText()).contains("dsp2");
        browser.shot("click");
        // the wheel over the timeline zooms in around the pointer
        double span = draw.get("to").asDouble() - draw.get("from").asDouble();
        new Actions(driver)
                .scrollFromOrigin(WheelInput.ScrollOrigin.fromElement(canvas, dx, dy), 0, -400)
                .perform();
        JsonNode zoomed = browser.lastDraw();
        assertThat(zoomed.get("to").asDouble() - zoomed.get("from").asDouble()).isLessThan(span * 0.9);
    }

    private static int firstRun(String task) {
        int best = -1;
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.tasks().get(model.runs().subject(i)).name().equals(task)
                    && (best < 0 || model.runs().start(i) < model.runs().start(best))) {
                best = i;
            }
        }
        return best;
    }

    // ---- helpers

    private static String coreNameOfTask(int task) {
        // tasks not scheduled by a traced scheduler are the master's: named after their trace's cores
        int trace = model.tasks().get(task).trace();
        for (int i = 0; i < model.runs().size(); i++) {
            if (model.runs().subject(i) == task) {
                return model.cores().get(model.runs().owner(i)).name();
            }
        }
        return model.cores().stream()
                .filter(c -> c.trace() == trace)
                .findFirst()
                .orElseThrow()
                .name();
    }
}
