package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * {@code hetrace view} of a real desktop kernel trace ({@code real/many-threads}: 8 CPUs, 8,000
 * threads that lived a millisecond) in Debian's headless Chromium: the page runs without a script
 * error, each CPU row is drawn where the model says a thread ran on that CPU and blank where it
 * idled, a process's row lists its threads, the short-lived threads are one row, and the CPU load
 * rows hold the model's load.
 */
class KernelViewerBrowserTest {
    /** The timeline's label column, in CSS pixels (timeline.js's LABEL_W). */
    static final int LABEL_W = 210;

    /** A row's height in CSS pixels (timeline.js's ROW_H). */
    static final int ROW_H = 18;

    @TempDir
    static Path dir;

    static StateModel model;
    static Timeline timeline;

    @AutoClose
    static ServedPage page;

    static Chromium browser;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        var input = StateBuilder.synchronize(List.of(Required.corpus("real", "many-threads")), w -> {});
        model = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        timeline = Timeline.of(model);
        page = ServedPage.start(dir, timeline, input);
        browser = page.browser;
        // every script error and rejected promise of the page, from its first script on
        browser.recordPageErrors();
    }

    private static int row(String name, int parent) {
        for (Timeline.Row r : timeline.rows()) {
            if (r.name().equals(name) && (parent < 0 || r.parent() == parent)) {
                return r.id();
            }
        }
        throw new AssertionError("no row " + name);
    }

    /** How long core {@code c} ran a task in [a, b), from the model's runs. */
    private static long busy(List<long[]> runs, long a, long b) {
        long sum = 0;
        for (long[] r : runs) {
            sum += Math.max(0, Math.min(b, r[1]) - Math.max(a, r[0]));
        }
        return sum;
    }

    private static List<long[]> runsOf(int core) {
        IntervalTable runs = model.runs();
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            if (runs.owner(i) == core && runs.state(i) == StateModel.RUNNING) {
                out.add(new long[] {runs.start(i), runs.end(i)});
            }
        }
        return out;
    }

    private static void reveal(int id) {
        browser.js("window.__hetrace.reveal(" + id + ")");
    }

    @Test
    void thePageLoadsWithoutAScriptError() throws Exception {
        page.open();
        assertThat(browser.pageErrors()).isEqualTo("");
        assertThat(browser.js("return document.getElementById('canvas') !== null"))
                .isEqualTo(true);
    }

    @Test
    void eachCpuRowIsDrawnWhereTheModelSaysAThreadRanAndBlankWhereItIdled() throws Exception {
        page.open();
        JsonNode draw = browser.lastDraw();
        browser.shot("kernel-cpus");
        long from = (long) Math.floor(draw.get("from").asDouble());
        long to = (long) Math.ceil(draw.get("to").asDouble());
        int width = (int) Math.round(draw.get("width").asDouble());
        double nsPerPx = (double) (to - from) / width;
        int checkedBusy = 0;
        int checkedIdle = 0;
        for (int c = 0; c < model.cores().size(); c++) {
            String name = model.cores().get(c).name();
            JsonNode info = Chromium.row(draw, name.substring(name.indexOf('/') + 1));
            int y = info.get("y").asInt() + ROW_H / 2;
            List<long[]> runs = runsOf(c);
            // one pixel per column, in the middle of the row: its alpha and colour
            String pixels = (String)
                    browser.js(
                            "const c = document.getElementById('canvas');"
                                    + " const d = c.getContext('2d').getImageData(" + LABEL_W + ", " + y + ", " + width
                                    + ", 1).data;"
                                    + " let s = ''; for (let i = 0; i < d.length; i += 4)"
                                    + " s += d[i + 3] > 0 && !(d[i] >= 240 && d[i + 1] >= 240 && d[i + 2] >= 240) ? '#' : '.'; return s;");
            long b = model.begin();
            for (int x = 1; x < width - 1; x++) {
                long a = b + from + (long) (x * nsPerPx);
                long e = b + from + (long) ((x + 1) * nsPerPx);
                long here = busy(runs, a, e);
                if (here * 1000 >= (e - a)) {
                    assertThat(pixels.charAt(x))
                            .as("%s at column %d: ran %d of %d ns", name, x, here, e - a)
                            .isEqualTo('#');
                    checkedBusy++;
                } else if (busy(runs, a - (long) nsPerPx, e + (long) nsPerPx) == 0) {
                    assertThat(pixels.charAt(x))
                            .as("%s at column %d: idle", name, x)
                            .isEqualTo('.');
                    checkedIdle++;
                }
            }
        }
        assertThat(checkedBusy).isGreaterThan(1000);
        assertThat(checkedIdle).isGreaterThan(10);
    }

    @Test
    void theShortLivedThreadsAreOneRowUnderTheProgramThatStartedThem() throws Exception {
        int multithread = row(KernelRows.processName("multithread", 2673, 8001), -1);
        long expected = KernelRowsTest.shortLivedFromTheModel(model).stream()
                .filter(k -> {
                    for (int i = 0; i < model.forks(); i++) {
                        if (model.forkTask(i) == k) {
                            return model.tasks().get(model.forkParent(i)).id() == 2673;
                        }
                    }
                    return false;
                })
                .count();
        assertThat(expected).isEqualTo(8000);
        page.open();
        int shortRow = row(String.format("short-lived (%,d threads)", expected), multithread);
        JsonNode meta = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree((String) browser.js("return JSON.stringify(window.__hetrace.meta.rows)"));
        assertThat(meta.get(shortRow).get("name").asText()).isEqualTo("short-lived (8,000 threads)");
        reveal(shortRow);
        JsonNode draw = browser.lastDraw();
        browser.shot("kernel-short-lived");
        JsonNode info = Chromium.row(draw, "short-lived (8,000 threads)");
        assertThat(info.get("n").asInt()).as("drawn").isPositive();
    }

    @Test
    void aProcessRowIsDrawnWithItsThreadsActivityAndListsItsThreadsWhenExpanded() throws Exception {
        int firefox = -1;
        for (Timeline.Row r : timeline.rows()) {
            if (r.kind() == Timeline.Kind.PROCESS && r.name().startsWith("firefox [851] \u00b7 ")) {
                firefox = r.id();
            }
        }
        assertThat(firefox).as("firefox's process row").isPositive();
        // the model's threads of process 851 that have rows
        List<String> threads = new ArrayList<>();
        int first = -1;
        for (Timeline.Row r : timeline.rows()) {
            if (r.kind() == Timeline.Kind.TASK && model.tasks().get(r.task()).process() == 851) {
                threads.add(r.name());
                assertThat(r.parent()).as(r.name()).isEqualTo(firefox);
                first = first < 0 ? r.id() : first;
            }
        }
        assertThat(threads).hasSizeGreaterThan(1);
        page.open();
        reveal(firefox);
        JsonNode draw = browser.lastDraw();
        JsonNode info = null;
        for (JsonNode r : draw.get("rows")) {
            if (r.get("id").asInt() == firefox) {
                info = r;
            }
        }
        assertThat(info).as("the process row drawn").isNotNull();
        assertThat(info.get("n").asInt()).as("its threads' runs drawn").isPositive();
        // collapsed at first: none of its threads shown; expanded: all of them, under it
        JsonNode meta = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree((String) browser.js("return JSON.stringify(window.__hetrace.meta.rows)"));
        List<String> shown = new ArrayList<>();
        for (JsonNode r : draw.get("rows")) {
            if (meta.get(r.get("id").asInt()).get("parent").asInt() == firefox) {
                shown.add(r.get("name").asText());
            }
        }
        assertThat(shown).isEmpty();
        reveal(first);
        draw = browser.lastDraw();
        browser.shot("kernel-process");
        shown.clear();
        for (JsonNode r : draw.get("rows")) {
            if (meta.get(r.get("id").asInt()).get("parent").asInt() == firefox) {
                shown.add(r.get("name").asText());
            }
        }
        assertThat(shown).containsExactlyElementsOf(threads);
        assertThat(browser.pageErrors()).isEqualTo("");
    }

    @Test
    void theCpuLoadRowsHoldTheModelsLoad() throws Exception {
        long span = model.end() - model.begin();
        page.open();
        for (int c : List.of(0, 5)) {
            int load = row("CPU load", timeline.coreRow(c));
            reveal(load);
            long from = span / 4;
            long to = from + span / 8;
            browser.js("window.__hetrace.zoomTo(" + from + ", " + to + ")");
            JsonNode draw = browser.lastDraw();
            JsonNode info = null;
            for (JsonNode r : draw.get("rows")) {
                if (r.get("id").asInt() == load) {
                    info = r;
                }
            }
            assertThat(info).as("the load row drawn").isNotNull();
            assertThat(info.get("mode").asText()).isEqualTo("counter");
            long f = model.begin() + (long) Math.floor(draw.get("from").asDouble());
            long e = model.begin() + (long) Math.ceil(draw.get("to").asDouble());
            int width = (int) Math.round(draw.get("width").asDouble());
            long[] values = new long[width];
            JsonNode v = info.get("values");
            for (int k = 0; k < v.size(); k += 3) {
                for (int x = v.get(k).asInt();
                        x < v.get(k).asInt() + v.get(k + 1).asInt();
                        x++) {
                    values[x] = v.get(k + 2).asLong();
                }
            }
            List<long[]> runs = runsOf(c);
            long total = 0;
            for (int x = 0; x < width; x++) {
                long a = Counters.columnStart(f, e, width, x);
                long b = Counters.columnStart(f, e, width, x + 1);
                long expected = Math.round(busy(runs, a, b) * 1000.0 / (b - a));
                assertThat(values[x]).as("cpu%d's load at column %d", c, x).isEqualTo(expected);
                total += expected;
            }
            assertThat(total).isPositive();
        }
        browser.shot("kernel-load");
    }

    @Test
    void aClickedThreadRunOnACpuShowsWhatTheModelSaysOfIt() throws Exception {
        page.open();
        // cpu0's longest run of a thread, in view with a tenth of its length on each side
        IntervalTable runs = model.runs();
        int cpu0 = -1;
        for (int c = 0; c < model.cores().size(); c++) {
            if (model.cores().get(c).name().endsWith("/cpu0")) {
                cpu0 = c;
            }
        }
        int longest = -1;
        for (int i = 0; i < runs.size(); i++) {
            if (runs.owner(i) == cpu0
                    && runs.state(i) == StateModel.RUNNING
                    && (longest < 0 || runs.duration(i) > runs.duration(longest))) {
                longest = i;
            }
        }
        long start = runs.start(longest) - model.begin();
        long end = runs.end(longest) - model.begin();
        long margin = (end - start) / 10;
        browser.js("window.__hetrace.zoomTo(" + (start - margin) + ", " + (end + margin) + ")");
        JsonNode draw = browser.lastDraw();
        JsonNode rect = null;
        for (JsonNode r : draw.get("rects")) {
            if (r.get("rowName").asText().equals("cpu0") && r.get("start").asLong() == start) {
                rect = r;
            }
        }
        assertThat(rect).as("cpu0's longest run drawn as a rectangle").isNotNull();
        WebElement canvas = browser.driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        double x = (rect.get("x0").asDouble() + rect.get("x1").asDouble()) / 2;
        double y = Chromium.row(draw, "cpu0").get("y").asDouble() + ROW_H / 2.0;
        // Selenium's offsets are from the element's middle
        new Actions(browser.driver)
                .moveToElement(
                        canvas, (int) Math.round(x - box.getWidth() / 2.0), (int) Math.round(y - box.getHeight() / 2.0))
                .click()
                .perform();
        WebElement details = browser.driver.findElement(By.id("details"));
        new WebDriverWait(browser.driver, Duration.ofSeconds(10))
                .until(d -> details.isDisplayed() && details.getDomAttribute("data-start") != null);
        assertThat(Long.parseLong(details.getDomAttribute("data-start"))).isEqualTo(start);
        assertThat(Long.parseLong(details.getDomAttribute("data-end"))).isEqualTo(end);
        assertThat(Long.parseLong(details.getDomAttribute("data-duration"))).isEqualTo(end - start);
        assertThat(details.getDomAttribute("data-core"))
                .isEqualTo(model.cores().get(cpu0).name());
        assertThat(details.getDomAttribute("data-name"))
                .contains(model.tasks().get(runs.subject(longest)).name());
        assertThat(browser.pageErrors()).isEqualTo("");
    }
}
