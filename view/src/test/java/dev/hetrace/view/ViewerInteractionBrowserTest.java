package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The viewer's interaction in a real headless Chromium, served from the trace set's store as
 * {@code hetrace view} serves it, on the Sobel board with dsp1 and dsp2 preempted: the details of
 * a clicked interval and point event against the model and the trace, the W/S/A/D keys, a
 * selection on the ruler and its statistics against {@code /api/stats}, markers, the legend
 * against what is drawn, the search's "n of m", the tooltip and the page's title.
 */
class ViewerInteractionBrowserTest {
    /** The app's layout: the names' column and the ruler's height (timeline.js). */
    static final int LABEL_W = 210;

    static final int RULER_H = 26;

    @TempDir
    static Path dir;

    static Simulation.Result sim;
    static StateBuilder.Input input;
    static StateModel model;
    static TraceIndex index;

    @AutoClose
    static ServedPage page;

    static Chromium browser;
    static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        SimConfig c = SimConfig.sobel(1).withFaults(List.of(new Fault.Preempt(List.of(1, 2), -1)));
        sim = Simulation.sobel(c, dir.resolve("board"));
        index = TraceIndex.open(
                dir.resolve("cache"), sim.traces(), StateBuilder.Clocks.DEFAULT, null, Map.of(), n -> {}, true);
        StateBuilder.Built b = index.takeBuiltFrom();
        input = b.input();
        model = b.model();
        page = ServedPage.start(dir, new ViewServer(Timeline.of(model), TraceAnswers.of(index)));
        browser = page.browser;
        driver = browser.driver;
    }

    @Test
    void clickingAnIntervalShowsWhatTheModelSaysOfIt() throws Exception {
        page.open();
        zoomOnTheIntruder();
        JsonNode draw = browser.lastDraw();
        JsonNode rect = wideRect(draw, "dsp2", "intruder");
        click(draw, rect);
        WebElement details = driver.findElement(By.id("details"));
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(d -> details.isDisplayed() && "intruder".equals(details.getDomAttribute("data-name")));
        long start = Long.parseLong(details.getDomAttribute("data-start"));
        long end = Long.parseLong(details.getDomAttribute("data-end"));
        // the model's run of the intruder on dsp2 with those times
        IntervalTable runs = model.runs();
        int found = -1;
        for (int i = 0; i < runs.size(); i++) {
            if (runs.start(i) - model.begin() == start && runs.end(i) - model.begin() == end) {
                found = i;
            }
        }
        assertThat(found).as("a run of the model at the times shown").isNotNegative();
        assertThat(model.cores().get(runs.owner(found)).name()).isEqualTo("dsp2");
        assertThat(model.tasks().get(runs.subject(found)).name()).isEqualTo("intruder");
        assertThat(details.getDomAttribute("data-core")).isEqualTo("dsp2");
        assertThat(details.getDomAttribute("data-task")).isEqualTo("intruder");
        assertThat(Long.parseLong(details.getDomAttribute("data-duration"))).isEqualTo(end - start);
        assertThat(start).isEqualTo(rect.get("start").asLong());
        assertThat(details.getText()).contains("duration", "task run", "dsp2");
        browser.shot("details-interval");
    }

    @Test
    void clickingAPointEventShowsItsFieldsAsTheTraceHasThem() throws Exception {
        page.open();
        // dsp1's first msgq_wait, from its trace, on the master's clock, and its field
        int trace = 2; // master, dsp0, dsp1, ...
        long time = -1;
        long queue = -1;
        try (CtfReader r = CtfReader.open(List.of(sim.traces().get(trace)), w -> {})) {
            var e = r.event();
            while (r.next() && time < 0) {
                if (e.name().equals("msgq_wait")) {
                    time = input.maps().get(trace).apply(e.timeNanos()) - model.begin();
                    queue = e.getLong("queue");
                }
            }
        }
        assertThat(time).as("dsp1 waits on a queue").isNotNegative();
        browser.js("window.__hetrace.zoomTo(" + (time - 200_000) + ", " + (time + 200_000) + ")");
        JsonNode draw = browser.lastDraw();
        JsonNode mark = null;
        for (JsonNode m : draw.get("marks")) {
            if (m.get("core").asText().equals("dsp1") && m.get("time").asLong() == time) {
                mark = m;
            }
        }
        assertThat(mark).as("dsp1's msgq_wait marked").isNotNull();
        double y = Chromium.row(draw, "dsp1").get("y").asDouble() + 2;
        clickAt(mark.get("x").asDouble(), y);
        WebElement details = driver.findElement(By.id("details"));
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(d -> details.getDomAttribute("data-fields") != null);
        assertThat(details.getDomAttribute("data-name")).isEqualTo("msgq_wait");
        assertThat(Long.parseLong(details.getDomAttribute("data-time"))).isEqualTo(time);
        // the events of that name at that time (several may be: dsp0 waits on two queues at once), dsp1's first
        JsonNode events = new ObjectMapper().readTree(details.getDomAttribute("data-fields"));
        assertThat(events.get(0).get("core").asText()).isEqualTo("dsp1");
        List<Long> queues = new java.util.ArrayList<>();
        for (JsonNode e : events) {
            if (e.get("core").asText().equals("dsp1")) {
                queues.add(e.get("fields").get("payload").get("queue").asLong());
            }
        }
        assertThat(queues).contains(queue);
        assertThat(details.getText()).contains("payload.queue " + queue);
        browser.shot("details-point-event");
    }

    @Test
    void wAndSZoomAroundTheMiddleAndAAndDPan() throws Exception {
        page.open();
        long span = model.end() - model.begin();
        browser.js("window.__hetrace.zoomTo(" + span / 4 + ", " + span / 2 + ")");
        JsonNode before = browser.lastDraw();
        double from = before.get("from").asDouble();
        double to = before.get("to").asDouble();
        WebElement body = driver.findElement(By.tagName("body"));
        body.sendKeys("w");
        JsonNode in = browser.lastDraw();
        assertThat(in.get("to").asDouble() - in.get("from").asDouble())
                .isCloseTo((to - from) * 0.8, Offset.offset(2.0));
        assertThat((in.get("to").asDouble() + in.get("from").asDouble()) / 2)
                .isCloseTo((to + from) / 2, Offset.offset(2.0));
        body.sendKeys("s");
        JsonNode out = browser.lastDraw();
        assertThat(out.get("from").asDouble()).isCloseTo(from, Offset.offset(2.0));
        assertThat(out.get("to").asDouble()).isCloseTo(to, Offset.offset(2.0));
        body.sendKeys("d");
        JsonNode right = browser.lastDraw();
        assertThat(right.get("from").asDouble()).isCloseTo(from + (to - from) * 0.1, Offset.offset(2.0));
        assertThat(right.get("to").asDouble() - right.get("from").asDouble()).isCloseTo(to - from, Offset.offset(2.0));
        body.sendKeys("a", "a");
        JsonNode left = browser.lastDraw();
        assertThat(left.get("from").asDouble()).isCloseTo(from - (to - from) * 0.1, Offset.offset(2.0));
        body.sendKeys("W");
        assertThat(browser.lastDraw().get("to").asDouble()
                        - browser.lastDraw().get("from").asDouble())
                .isCloseTo((to - from) * 0.8, Offset.offset(2.0));
    }

    @Test
    void aSelectionOnTheRulerShowsItsDurationAndTheStatisticsOfItsRange() throws Exception {
        page.open();
        JsonNode draw = browser.lastDraw();
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        double x0 = LABEL_W + draw.get("width").asDouble() * 0.3;
        double x1 = LABEL_W + draw.get("width").asDouble() * 0.55;
        new Actions(driver)
                .moveToElement(canvas, dx(box, x0), dy(box, RULER_H / 2.0))
                .clickAndHold()
                .moveByOffset((int) Math.round(x1 - x0) / 2, 0)
                .moveByOffset((int) Math.round(x1 - x0) - (int) Math.round(x1 - x0) / 2, 0)
                .release()
                .perform();
        WebElement note = driver.findElement(By.id("selection-note"));
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(d -> note.getDomAttribute("data-loaded") != null);
        long from = Long.parseLong(note.getDomAttribute("data-from"));
        long to = Long.parseLong(note.getDomAttribute("data-to"));
        double nsPerPx = (draw.get("to").asDouble() - draw.get("from").asDouble())
                / draw.get("width").asDouble();
        // the range under the pointer's path (to the pixel), the view unchanged
        assertThat((double) from)
                .isCloseTo(
                        draw.get("from").asDouble() + (dx(box, x0) + box.getWidth() / 2.0 - LABEL_W) * nsPerPx,
                        Offset.offset(1.5 * nsPerPx));
        assertThat((double) (to - from)).isCloseTo((x1 - x0) * nsPerPx, Offset.offset(2 * nsPerPx));
        assertThat(Long.parseLong(note.getDomAttribute("data-duration"))).isEqualTo(to - from);
        assertThat(browser.lastDraw().get("from").asDouble())
                .isEqualTo(draw.get("from").asDouble());
        String shown = (String) browser.js("return document.getElementById('selection-text').textContent");
        assertThat(shown).startsWith("selection " + formatTime(to - from));
        // the table is /api/stats of that range, row for row
        JsonNode expected = page.get("api/stats?from=" + from + "&to=" + to);
        JsonNode table =
                new ObjectMapper().readTree((String) browser.js("return JSON.stringify(window.__hetrace.lastStats)"));
        assertThat(numbers(table)).isEqualTo(numbers(expected));
        assertThat(expected.get("rows").size()).isPositive();
        assertThat(driver.findElements(By.cssSelector("#stats-table tbody tr")))
                .hasSize(expected.get("rows").size());
        Set<String> names = new HashSet<>();
        for (WebElement tr : driver.findElements(By.cssSelector("#stats-table tbody tr td:nth-child(2)"))) {
            names.add(tr.getText());
        }
        Set<String> expectedNames = new HashSet<>();
        expected.get("rows").forEach(r -> expectedNames.add(r.get("name").asText()));
        assertThat(names).isEqualTo(expectedNames);
        browser.shot("selection");
    }

    @Test
    void aClickOnTheRulerDropsAMarkerThatTheListJumpsTo() throws Exception {
        page.open();
        JsonNode draw = browser.lastDraw();
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        double x = LABEL_W + draw.get("width").asDouble() * 0.4;
        new Actions(driver)
                .moveToElement(canvas, dx(box, x), dy(box, RULER_H / 2.0))
                .click()
                .perform();
        JsonNode markers =
                new ObjectMapper().readTree((String) browser.js("return JSON.stringify(window.__hetrace.markers)"));
        assertThat(markers).hasSize(1);
        double nsPerPx = (draw.get("to").asDouble() - draw.get("from").asDouble())
                / draw.get("width").asDouble();
        double at = draw.get("from").asDouble() + (dx(box, x) + box.getWidth() / 2.0 - LABEL_W) * nsPerPx;
        assertThat(markers.get(0).get("time").asDouble()).isCloseTo(at, Offset.offset(1.5 * nsPerPx));
        // listed; zoomed in elsewhere, clicking it in the list centres the view on it
        driver.findElement(By.cssSelector("aside nav button[data-tab='markers']"))
                .click();
        List<WebElement> listed = driver.findElements(By.cssSelector("#marker-list .marker"));
        assertThat(listed).hasSize(1);
        browser.js("window.__hetrace.zoomTo(0, 1000000)");
        browser.settle();
        listed.getFirst().click();
        JsonNode moved = browser.lastDraw();
        assertThat((moved.get("from").asDouble() + moved.get("to").asDouble()) / 2)
                .isCloseTo(markers.get(0).get("time").asDouble(), Offset.offset(2.0));
        assertThat(moved.get("to").asDouble() - moved.get("from").asDouble()).isCloseTo(1_000_000, Offset.offset(2.0));
        browser.shot("markers");
    }

    @Test
    void theLegendListsExactlyTheNamesDrawnAndNoTwoShareAColor() throws Exception {
        page.open();
        checkLegend();
        // its height is its own, whatever it lists: the timeline under it keeps its size (a change of size redraws
        // the view, and asks for it again when rows come into sight)
        long canvas = ((Number) browser.js("return document.getElementById('canvas').clientHeight")).longValue();
        long filled = ((Number) browser.js("return document.getElementById('legend').offsetHeight")).longValue();
        zoomOnTheIntruder();
        browser.js("window.__hetrace.reveal(" + taskRow("dsp1") + ")");
        checkLegend();
        browser.shot("legend");
        assertThat(((Number) browser.js("return document.getElementById('canvas').clientHeight")).longValue())
                .isEqualTo(canvas);
        long empty = ((Number) browser.js(
                        "const l = document.getElementById('legend'); l.replaceChildren(); return l.offsetHeight"))
                .longValue();
        assertThat(empty).as("the legend's height, empty and filled").isEqualTo(filled);
    }

    @Test
    void searchSaysWhichOfItsResultsItShowsAndStepsThroughThem() throws Exception {
        page.open();
        WebElement search = driver.findElement(By.id("search"));
        search.sendKeys("intruder", org.openqa.selenium.Keys.ENTER);
        WebElement found = driver.findElement(By.id("found"));
        long runs = 0;
        for (int i = 0; i < model.runs().size(); i++) {
            runs += model.tasks().get(model.runs().subject(i)).name().contains("intruder") ? 1 : 0;
        }
        JsonNode all = page.get("api/find?q=intruder&after=0&dir=next");
        long matches = all.get("matches").asLong();
        assertThat(matches).isGreaterThanOrEqualTo(runs);
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(d -> found.getText().equals("1 of " + matches));
        driver.findElement(By.id("next")).click();
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(d -> found.getText().equals("2 of " + matches));
        driver.findElement(By.id("prev")).click();
        new WebDriverWait(driver, Duration.ofSeconds(10))
                .until(d -> found.getText().equals("1 of " + matches));
        assertThat(driver.getTitle()).contains("master").contains("hetrace view");
    }

    @Test
    void aViewIsAskedForAtOnceOneAtATimeAndTheLastAskedIsTheOneDrawn() throws Exception {
        page.open();
        long span = ((Number) browser.js("return window.__hetrace.meta.span")).longValue();
        // every request the app makes, and how many are on their way at most
        browser.js("window.__asked = []; window.__inFlight = 0; window.__mostInFlight = 0; const f = window.fetch;"
                + " window.fetch = u => { window.__asked.push(String(u)); window.__inFlight++;"
                + " window.__mostInFlight = Math.max(window.__mostInFlight, window.__inFlight);"
                + " return f(u).then(r => r.clone().text().then(() => { window.__inFlight--; return r; })); };");
        // a single zoom: its request is on its way before anything else runs (no delay to wait out)
        @SuppressWarnings("unchecked")
        List<String> asked = (List<String>) driver.executeAsyncScript("const done = arguments[0];"
                + " window.__hetrace.zoomTo(" + span / 4 + ", " + span / 2 + ");"
                + " Promise.resolve().then(() => done(window.__asked.slice()));");
        assertThat(asked).as("requests made once the zoom's code is done").hasSize(1);
        assertThat(asked.getFirst()).contains("api/view?from=" + span / 4 + "&to=" + span / 2);
        browser.settle();
        // a burst of 40 zooms 2 ms apart, as a wheel gives them: one request at a time, and the last zoom drawn
        browser.js("window.__asked = []; window.__mostInFlight = 0; let k = 0; const step = () => {"
                + " k++; window.__hetrace.zoomTo(" + span + " * k / 200, " + span + " * (1 - k / 200));"
                + " if (k < 40) setTimeout(step, 2); }; step();");
        new WebDriverWait(driver, Duration.ofSeconds(20))
                .until(d -> browser.js("return window.__hetrace.view.to") instanceof Number n
                        && Math.abs(n.doubleValue() - span * (1 - 40 / 200.0)) < 1
                        && browser.js("return window.__hetrace.settled()") == Boolean.TRUE);
        JsonNode last = browser.lastDraw();
        assertThat(last.get("fresh").asBoolean()).isTrue();
        assertThat(last.get("from").asDouble()).isCloseTo(span * 40 / 200.0, Offset.offset(1.0));
        assertThat(last.get("to").asDouble()).isCloseTo(span * (1 - 40 / 200.0), Offset.offset(1.0));
        assertThat(((Number) browser.js("return window.__mostInFlight")).intValue())
                .as("requests on their way at once")
                .isEqualTo(1);
        @SuppressWarnings("unchecked")
        List<String> burst = (List<String>) browser.js("return window.__asked");
        assertThat(burst).as("requests for 40 zooms").isNotEmpty().hasSizeLessThanOrEqualTo(40);
        assertThat(burst.getLast()).contains("api/view?from=" + (long) Math.floor(span * 40 / 200.0) + "&");
    }

    @Test
    void theTooltipLeavesWithThePointer() throws Exception {
        page.open();
        zoomOnTheIntruder();
        JsonNode draw = browser.lastDraw();
        JsonNode rect = wideRect(draw, "dsp2", "intruder");
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        double x = (rect.get("x0").asDouble() + rect.get("x1").asDouble()) / 2;
        double y = Chromium.row(draw, "dsp2").get("y").asDouble() + 9;
        new Actions(driver).moveToElement(canvas, dx(box, x), dy(box, y)).perform();
        WebElement tip = driver.findElement(By.id("tooltip"));
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> tip.isDisplayed());
        new Actions(driver).moveToElement(driver.findElement(By.id("fit"))).perform();
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> !tip.isDisplayed());
        new Actions(driver).moveToElement(canvas, dx(box, x), dy(box, y)).perform();
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> tip.isDisplayed());
        driver.findElement(By.tagName("body")).sendKeys("w");
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> !tip.isDisplayed());
    }

    @Test
    void theRulersLabelsAreAllReadable() throws Exception {
        page.open();
        long span = model.end() - model.begin();
        for (long[] r : new long[][] {
            {0, span}, {span / 3, span / 3 + 1_234_567}, {span - 777_777, span}, {-span / 20, span / 7}
        }) {
            browser.js("window.__hetrace.zoomTo(" + r[0] + ", " + r[1] + ")");
            JsonNode draw = browser.lastDraw();
            assertThat(draw.get("ticks").size()).isGreaterThanOrEqualTo(2);
            for (JsonNode t : draw.get("ticks")) {
                assertThat(t.get("left").asDouble()).as(t.get("text").asText()).isGreaterThanOrEqualTo(LABEL_W);
                assertThat(t.get("right").asDouble())
                        .as(t.get("text").asText())
                        .isLessThanOrEqualTo(draw.get("cssWidth").asDouble());
            }
        }
    }

    // ---- helpers

    private static void checkLegend() throws Exception {
        JsonNode draw = browser.lastDraw();
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> legendMatches(draw));
        JsonNode meta = page.get("api/meta");
        Set<String> drawn = new HashSet<>();
        for (JsonNode l : draw.get("labels")) {
            drawn.add(meta.get("labels").get(l.asInt()).asText());
        }
        Set<String> listed = new HashSet<>();
        Set<String> colors = new HashSet<>();
        for (JsonNode e : legend()) {
            listed.add(e.get("label").asText());
            if (!e.get("label").asText().startsWith("(")) {
                assertThat(colors.add(e.get("color").asText()))
                        .as(
                                "%s's color is another name's on screen",
                                e.get("label").asText())
                        .isTrue();
            }
        }
        assertThat(listed).isEqualTo(drawn);
        // the rectangles drawn are among them
        for (JsonNode r : draw.get("rects")) {
            assertThat(listed).contains(r.get("label").asText());
        }
    }

    /** The values of a JSON answer as text, its numbers as doubles (JavaScript writes 9.6E7 as 96000000). */
    private static List<String> numbers(JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        if (n.isContainerNode()) {
            var names = n.fieldNames();
            while (names.hasNext()) {
                out.add(names.next());
            }
            n.forEach(c -> out.addAll(numbers(c)));
        } else {
            out.add(n.isNumber() ? Double.toString(n.asDouble()) : n.asText());
        }
        return out;
    }

    private static boolean legendMatches(JsonNode draw) {
        try {
            return legend().size() > 0 && legend().size() == draw.get("labels").size();
        } catch (Exception e) {
            return false;
        }
    }

    private static JsonNode legend() throws Exception {
        return new ObjectMapper().readTree((String) browser.js("return JSON.stringify(window.__hetrace.legend)"));
    }

    private static int taskRow(String core) throws Exception {
        for (JsonNode r : page.get("api/meta").get("rows")) {
            if (r.get("kind").asText().equals("task")
                    && core.equals(r.get("core").asText(null))) {
                return r.get("id").asInt();
            }
        }
        throw new AssertionError("no task row on " + core);
    }

    /** The 12 ms from 1 ms before the intruder first ran on dsp1. */
    private static void zoomOnTheIntruder() {
        long[] window = FaultBoard.intruderWindow(sim, model.begin());
        browser.js("window.__hetrace.zoomTo(" + window[0] + ", " + window[1] + ")");
    }

    private static JsonNode wideRect(JsonNode draw, String row, String label) {
        for (JsonNode r : draw.get("rects")) {
            if (r.get("rowName").asText().equals(row)
                    && r.get("label").asText().equals(label)
                    && r.get("x1").asDouble() - r.get("x0").asDouble() > 6) {
                return r;
            }
        }
        throw new AssertionError("no " + label + " rectangle on " + row + " wide enough to point at");
    }

    private static void click(JsonNode draw, JsonNode rect) {
        double x = (rect.get("x0").asDouble() + rect.get("x1").asDouble()) / 2;
        double y = Chromium.row(draw, rect.get("rowName").asText()).get("y").asDouble() + 9;
        clickAt(x, y);
    }

    private static void clickAt(double x, double y) {
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        new Actions(driver)
                .moveToElement(canvas, dx(box, x), dy(box, y))
                .click()
                .perform();
    }

    /** Selenium's offsets are from the element's middle. */
    private static int dx(Rectangle box, double x) {
        return (int) Math.round(x - box.getWidth() / 2.0);
    }

    private static int dy(Rectangle box, double y) {
        return (int) Math.round(y - box.getHeight() / 2.0);
    }

    /** timeline.js's formatTime. */
    static String formatTime(double ns) {
        double a = Math.abs(ns) == 0 ? 1 : Math.abs(ns);
        double unit;
        String name;
        if (a >= 0.99995e9) {
            unit = 1e9;
            name = "s";
        } else if (a >= 0.99995e6) {
            unit = 1e6;
            name = "ms";
        } else if (a >= 0.99995e3) {
            unit = 1e3;
            name = "µs";
        } else {
            unit = 1;
            name = "ns";
        }
        int digits = (int) Math.max(0, Math.min(6, 3 - Math.floor(Math.log10(Math.max(1, a / unit)))));
        return String.format(java.util.Locale.ROOT, "%." + digits + "f %s", ns / unit, name);
    }

    @Test
    void aViewReadFromItsBinaryAnswerIsItsJsonAnswer() throws Exception {
        page.open();
        long span = ((Number) browser.js("return window.__hetrace.meta.span")).longValue();
        int rows = ((Number) browser.js("return window.__hetrace.meta.rows.length")).intValue();
        String all = String.join(
                ",",
                java.util.stream.IntStream.range(0, rows)
                        .mapToObj(Integer::toString)
                        .toList());
        List<String> views = List.of(
                "api/view?from=0&to=" + span + "&width=1800&rows=" + all,
                "api/view?from=" + span / 3 + "&to=" + (span / 3 + span / 40) + "&width=900&rows=" + all,
                "api/view?from=" + span / 2 + "&to=" + (span / 2 + 2000) + "&width=300&rows=" + all);
        String got = (String) driver.executeAsyncScript(
                "const done = arguments[arguments.length - 1]; const views = arguments[0];"
                        + " (async () => {"
                        + "   const {readBinaryView} = await import('./wire.js');"
                        + "   const typed = (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v;"
                        + "   const same = [], types = new Set();"
                        + "   for (const v of views) {"
                        + "     const json = await (await fetch(v)).json();"
                        + "     const bin = readBinaryView(await (await fetch(v + '&format=binary')).arrayBuffer());"
                        + "     JSON.stringify(bin, (k, x) => { if (ArrayBuffer.isView(x)) types.add(x.constructor.name); return x; });"
                        + "     same.push(JSON.stringify(json) === JSON.stringify(bin, typed));"
                        + "   }"
                        + "   done(JSON.stringify({same, types: [...types].sort()}));"
                        + " })().catch(e => done(JSON.stringify({error: String(e)})));",
                views);
        JsonNode r = new ObjectMapper().readTree(got);
        assertThat(r.path("error").asText()).isEmpty();
        assertThat(r.get("same").toString()).isEqualTo("[true,true,true]");
        // the narrowest and the widest arrays were read: small counts, and times past 2^31 ns
        assertThat(r.get("types").toString()).contains("Int16Array", "Float64Array");
    }
}
