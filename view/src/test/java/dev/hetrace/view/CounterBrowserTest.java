package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.Mapping;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.testing.PerfCounterTrace;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
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
 * {@code hetrace view} of a kernel trace with LTTng perf counter contexts and a mapping's counter
 * rules, in Debian's headless Chromium: each counter series' row, once shown, is drawn where the
 * series has values, with the columns the model gives (least, greatest and average value), and
 * its tooltip names the series and its unit.
 */
class CounterBrowserTest {
    static final int LABEL_W = KernelViewerBrowserTest.LABEL_W;
    static final int ROW_H = KernelViewerBrowserTest.ROW_H;

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
        Path trace = PerfCounterTrace.write(dir.resolve("kernel"));
        var input = StateBuilder.synchronize(List.of(trace), w -> {});
        model = StateBuilder.build(
                input,
                StateBuilder.Options.of(w -> {}).withMapping(Mapping.parse(CounterRowsTest.MAPPING, "app.yaml")));
        timeline = Timeline.of(model);
        page = ServedPage.start(dir, timeline, input);
        browser = page.browser;
        browser.recordPageErrors();
    }

    private static int series(String name, String coreOrTask) {
        for (int s = 0; s < model.counters().size(); s++) {
            StateModel.Counter c = model.counters().get(s);
            String owner = c.core() >= 0
                    ? model.cores().get(c.core()).name()
                    : model.tasks().get(c.task()).name();
            if (c.name().equals(name) && owner.equals(coreOrTask)) {
                return s;
            }
        }
        throw new AssertionError("no series " + name + " of " + coreOrTask);
    }

    private static JsonNode drawn(JsonNode draw, int row) {
        for (JsonNode r : draw.get("rows")) {
            if (r.get("id").asInt() == row) {
                return r;
            }
        }
        throw new AssertionError("row " + row + " not drawn");
    }

    /** Which columns of the row at {@code y} have a drawn pixel: '#' where any has, '.' elsewhere. */
    private static String inked(int y, int width) {
        return (String) browser.js("const c = document.getElementById('canvas').getContext('2d');"
                + " const d = c.getImageData(" + LABEL_W + ", " + y + ", " + width + ", " + (ROW_H - 2) + ").data;"
                + " let s = ''; for (let x = 0; x < " + width + "; x++) { let any = false;"
                + " for (let r = 0; r < " + (ROW_H - 2) + "; r++) { const i = 4 * (r * " + width + " + x);"
                + " if (d[i + 3] > 0 && !(d[i] >= 235 && d[i + 1] >= 235 && d[i + 2] >= 235)) any = true; }"
                + " s += any ? '#' : '.'; } return s;");
    }

    @Test
    void aCounterRowIsDrawnWithTheColumnsTheModelGivesAndItsTooltipSaysItsUnit() throws Exception {
        page.open();
        int sCycles = series("perf:cpu:cycles", "kernel/cpu0");
        int sDepth = series("queue depth", "worker");
        int cyclesRow = CounterRowsTest.seriesRow(timeline, model, sCycles);
        int depthRow = CounterRowsTest.seriesRow(timeline, model, sDepth);
        JsonNode meta =
                new ObjectMapper().readTree((String) browser.js("return JSON.stringify(window.__hetrace.meta.rows)"));
        assertThat(meta.get(cyclesRow).get("counter").asText()).isEqualTo("total");
        assertThat(meta.get(cyclesRow).get("unit").asText()).isEqualTo("cycles/s");
        assertThat(meta.get(depthRow).get("counter").asText()).isEqualTo("value");
        assertThat(meta.get(depthRow).get("unit").asText()).isEqualTo("messages");
        browser.js("window.__hetrace.reveal(" + cyclesRow + ")");
        browser.js("window.__hetrace.reveal(" + depthRow + ")");
        JsonNode draw = browser.lastDraw();
        browser.shot("counter-rows");
        int checked = 0;
        for (int[] rs : new int[][] {{cyclesRow, sCycles}, {depthRow, sDepth}}) {
            JsonNode info = drawn(draw, rs[0]);
            assertThat(info.get("mode").asText()).isEqualTo("samples");
            assertThat(info.get("n").asInt()).as("runs drawn").isPositive();
            JsonNode part = info.get("part");
            long from = part.get("from").asLong();
            long to = part.get("to").asLong();
            int width = part.get("width").asInt();
            double[][] cols = CounterRowsTest.samples(info.get("samples"), width);
            String ink = inked(
                    info.get("y").asInt(), (int) Math.round(draw.get("width").asDouble()));
            long b = model.begin();
            for (int x = 0; x < width; x++) {
                double[] want = CounterRowsTest.expected(
                        model,
                        rs[1],
                        Counters.columnStart(b + from, b + to, width, x),
                        Counters.columnStart(b + from, b + to, width, x + 1));
                if (want == null) {
                    assertThat(cols[x]).as("column %d", x).isNull();
                    continue;
                }
                assertThat(cols[x]).as("column %d", x).isNotNull();
                assertThat(cols[x][0]).as("min of column %d", x).isEqualTo(want[0]);
                assertThat(cols[x][1]).as("max of column %d", x).isEqualTo(want[1]);
                assertThat(cols[x][2])
                        .as("average of column %d", x)
                        .isCloseTo(want[2], org.assertj.core.data.Offset.offset(Math.abs(want[2]) * 1e-9));
                if (width == ink.length() && x > 0 && x < width - 1) {
                    assertThat(ink.charAt(x))
                            .as("column %d of row %d drawn", x, rs[0])
                            .isEqualTo('#');
                }
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(100);

        // the tooltip over the cycles row: the series, its unit, its value there
        JsonNode info = drawn(draw, cyclesRow);
        WebElement canvas = browser.driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        double x = LABEL_W + draw.get("width").asDouble() / 2;
        double y = info.get("y").asDouble() + ROW_H / 2.0;
        new Actions(browser.driver)
                .moveToElement(canvas, (int) Math.round(x - box.width / 2.0), (int) Math.round(y - box.height / 2.0))
                .perform();
        WebElement tip = browser.driver.findElement(By.id("tooltip"));
        new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(d -> tip.isDisplayed());
        assertThat(tip.getText()).contains("perf:cpu:cycles").contains("cycles/s");
        assertThat(browser.pageErrors()).isEqualTo("");
    }

    @Test
    void aReportDrawsTheCounterRowsFromTheColumnsItEmbeds() throws Exception {
        Report.Written report = Report.write(timeline, dir.resolve("counters.html"));
        browser.driver.get(report.file().toUri().toString());
        browser.settle();
        int s = series("perf:cpu:cycles", "kernel/cpu1");
        int row = CounterRowsTest.seriesRow(timeline, model, s);
        browser.js("window.__hetrace.reveal(" + row + ")");
        JsonNode draw = browser.lastDraw();
        browser.shot("counter-report");
        JsonNode info = drawn(draw, row);
        assertThat(info.get("mode").asText()).isEqualTo("samples");
        int width = info.get("part").get("width").asInt();
        double[][] cols = CounterRowsTest.samples(info.get("samples"), width);
        // the series' rates over the whole span bound every column's
        double[] all = CounterRowsTest.expected(model, s, model.begin(), model.end() + 1);
        int covered = 0;
        for (int x = 0; x < width; x++) {
            if (cols[x] == null) {
                continue;
            }
            covered++;
            assertThat(cols[x][0]).as("min of column %d", x).isGreaterThanOrEqualTo(all[0]);
            assertThat(cols[x][1]).as("max of column %d", x).isLessThanOrEqualTo(all[1]);
            assertThat(cols[x][2]).as("average of column %d", x).isBetween(cols[x][0], cols[x][1]);
        }
        assertThat(covered).as("columns drawn of %d", width).isGreaterThan(width * 9 / 10);
        String ink =
                inked(info.get("y").asInt(), (int) Math.round(draw.get("width").asDouble()));
        assertThat(ink.chars().filter(c -> c == '#').count()).isGreaterThan(width * 9L / 10);
        assertThat(browser.pageErrors()).isEqualTo("");
    }
}
