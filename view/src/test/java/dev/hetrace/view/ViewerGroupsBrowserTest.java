package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
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
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A simulated board of 1,024 slaves (dsp700 crashing) in the viewer, in Debian's headless Chromium: at "fit" the
 * group rows are the board's layout as the traces give it (16 clusters of four 16-core chips), every group row's
 * pixels (read from the canvas) are the bars of the server's aggregate, no row with activity is blank, the group of
 * the crashed core is marked, groups open to chips, cores, tasks and calls, and idle stretches compress.
 */
class ViewerGroupsBrowserTest {
    /** The app's geometry (timeline.js): names' width, row height, the tallest bar and the shortest. */
    static final int LABEL_W = 210;

    static final int ROW_H = 18;
    static final int BAR_H = ROW_H - 3;
    static final int MIN_BAR = 3;

    @TempDir
    static Path dir;

    static StateModel model;

    @AutoClose
    static ServedPage page;

    static ViewServer server;
    static Chromium browser;
    static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        Chromium.require();
        SimConfig c = SimConfig.sobel(5)
                .withSlaves(1024)
                .withImages(4, 100_000_000L)
                .withFaults(List.of(new Fault.Crash(700, -1)));
        Simulation.Result sim = Simulation.sobel(c, dir.resolve("board"));
        StateBuilder.Input input = StateBuilder.synchronize(sim.traces(), w -> {});
        model = StateBuilder.build(input, StateBuilder.Options.of(w -> {}));
        page = ServedPage.start(dir, Timeline.of(model), input);
        server = page.server;
        browser = page.browser;
        driver = browser.driver;
    }

    @Test
    void atFitEveryGroupIsDrawnAsItsAggregateAndNoRowWithActivityIsBlank() throws Exception {
        open();
        browser.shot("groups-fit");
        JsonNode draw = browser.lastDraw();
        // the first screen: the board, the master, the DSPs in the 16 clusters their traces say they are in, closed
        List<String> clusters = new ArrayList<>();
        Timeline t = server.timeline();
        for (JsonNode r : draw.get("rows")) {
            if (r.get("kind").asText().equals("group")) {
                clusters.add(r.get("name").asText());
                // a cluster's row aggregates the cores whose traces say they are in it, and only them
                int row = r.get("id").asInt();
                String cluster = r.get("name")
                        .asText()
                        .substring(0, r.get("name").asText().indexOf(' '));
                List<String> members = new ArrayList<>();
                for (int m : t.members[row]) {
                    members.add(t.rows().get(m).name());
                }
                List<String> placed = new ArrayList<>();
                for (int k = 0; k < model.traceNames().size(); k++) {
                    if (!model.tracePlace(k).isEmpty()
                            && model.tracePlace(k).getFirst().equals(cluster)) {
                        placed.add(model.traceNames().get(k));
                    }
                }
                assertThat(members).as(cluster).hasSize(64).containsExactlyInAnyOrderElementsOf(placed);
            }
        }
        assertThat(clusters)
                .hasSize(16)
                .startsWith("cluster0 \u00b7 dsp0\u2013dsp63", "cluster1 \u00b7 dsp64\u2013dsp127")
                .endsWith("cluster15 \u00b7 dsp960\u2013dsp1023");
        for (String c : clusters) {
            assertThat(drawnColumns(draw, c)).as("%s drawn", c).isPositive();
        }
        checkPixels(draw, 1 + 16); // the board and every cluster
        // the bars painted as pixels (as a wide view's many are) and as paths (as a few are): the same
        for (String as : List.of("pixels", "paths")) {
            browser.js("window.__hetrace.view.pixelBars = " + (as.equals("pixels") ? "0" : "Infinity")
                    + "; window.__hetrace.view.draw()");
            JsonNode again = browser.lastDraw();
            assertThat(again.get("bars").get("as").asText()).isEqualTo(as);
            checkPixels(again, 1 + 16);
        }
    }

    @Test
    void theGroupOfACoreThatWentSilentIsMarked() throws Exception {
        open();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return window.__hetrace.diagnosisLoaded") == Boolean.TRUE);
        JsonNode draw = browser.lastDraw();
        int cluster = Chromium.row(draw, "cluster10 \u00b7 dsp640\u2013dsp703")
                .get("id")
                .asInt();
        int dsp700 = server.timeline().coreRow(model.core("dsp700"));
        boolean marked = false;
        for (JsonNode a : draw.get("alerts")) {
            if (a.get("row").asInt() == cluster && a.get("of").asInt() == dsp700) {
                marked = a.get("what").asText().contains("silent");
            }
            // what is marked on a row is under it
            int of = a.get("of").asInt();
            while (of >= 0 && of != a.get("row").asInt()) {
                of = server.timeline().rows().get(of).parent();
            }
            assertThat(of).isEqualTo(a.get("row").asInt());
        }
        assertThat(marked).as("dsp700 silent, marked on its cluster").isTrue();
        // hovering the mark says what it is
        JsonNode mark = null;
        for (JsonNode a : draw.get("alerts")) {
            if (a.get("of").asInt() == dsp700) {
                mark = a;
            }
        }
        var canvas = driver.findElement(By.id("canvas"));
        var box = canvas.getRect();
        double x = (mark.get("x0").asDouble() + Math.min(mark.get("x1").asDouble(), box.getWidth() - 2)) / 2;
        double y = Chromium.row(draw, "cluster10 \u00b7 dsp640\u2013dsp703")
                        .get("y")
                        .asDouble()
                + 1;
        new Actions(driver)
                .moveToElement(
                        canvas, (int) Math.round(x - box.getWidth() / 2.0), (int) Math.round(y - box.getHeight() / 2.0))
                .perform();
        var tip = driver.findElement(By.id("tooltip"));
        new WebDriverWait(driver, Duration.ofSeconds(10)).until(d -> tip.isDisplayed());
        assertThat(tip.getText()).contains("dsp700 silent");
    }

    @Test
    void aGroupOpensToItsCoresACoreToItsTasksATaskToItsCalls() throws Exception {
        open();
        JsonNode draw = browser.lastDraw();
        JsonNode cluster = Chromium.row(draw, "cluster0 \u00b7 dsp0\u2013dsp63");
        clickLabel(cluster);
        JsonNode chips = browser.lastDraw();
        List<String> inside = new ArrayList<>();
        for (JsonNode r : chips.get("rows")) {
            if (server.timeline().rows().get(r.get("id").asInt()).parent()
                    == cluster.get("id").asInt()) {
                inside.add(r.get("name").asText());
            }
        }
        assertThat(inside)
                .containsExactly(
                        "chip0 \u00b7 dsp0\u2013dsp15",
                        "chip1 \u00b7 dsp16\u2013dsp31",
                        "chip2 \u00b7 dsp32\u2013dsp47",
                        "chip3 \u00b7 dsp48\u2013dsp63");
        checkPixels(chips, 1 + 16 + 4);
        clickLabel(Chromium.row(chips, "chip0 \u00b7 dsp0\u2013dsp15"));
        JsonNode open = browser.lastDraw();
        List<String> cores = new ArrayList<>();
        for (JsonNode r : open.get("rows")) {
            if (r.get("kind").asText().equals("core")) {
                cores.add(r.get("name").asText());
            }
        }
        assertThat(cores).startsWith("dsp0", "dsp1", "dsp2", "dsp3");
        checkPixels(open, 1 + 16 + 4 + 16); // the board, the clusters, cluster0's chips, chip0's cores
        // a core's tasks, a task's call depths
        Timeline t = server.timeline();
        int calls = -1;
        for (Timeline.Row r : t.rows()) {
            if (r.kind() == Timeline.Kind.CALLS && r.core() == model.core("dsp3")) {
                calls = r.id();
                break;
            }
        }
        assertThat(calls).isNotNegative();
        browser.js("window.__hetrace.reveal(" + calls + ")");
        JsonNode deep = browser.lastDraw();
        List<String> kinds = new ArrayList<>();
        for (JsonNode r : deep.get("rows")) {
            if ("dsp3".equals(r.get("core").asText())) {
                kinds.add(r.get("kind").asText());
            }
        }
        assertThat(kinds).contains("core", "task", "calls");
        checkPixels(deep, 1 + 4 + 16);
        browser.shot("groups-open");
    }

    @Test
    void idleStretchesCompressWhereNoCoreIsBusy() throws Exception {
        open();
        JsonNode before = browser.lastDraw();
        int busyBefore = drawnColumns(before, "board");
        driver.findElement(By.id("compress")).click();
        new WebDriverWait(driver, Duration.ofSeconds(30))
                .until(d -> browser.js("return !!window.__hetrace.lastDraw.gaps") == Boolean.TRUE);
        JsonNode draw = browser.lastDraw();
        browser.shot("groups-compressed");
        assertThat(draw.get("gaps")).isNotEmpty();
        // no core is busy inside a compressed stretch
        long b = model.begin();
        for (JsonNode g : draw.get("gaps")) {
            long from = g.get("from").asLong();
            long to = g.get("to").asLong();
            assertThat(g.get("factor").asDouble()).isGreaterThan(1);
            for (int i = 0; i < model.runs().size(); i++) {
                if (model.runs().state(i) != StateModel.IDLE) {
                    assertThat(model.runs().end(i) - b <= from || model.runs().start(i) - b >= to)
                            .as("run %d in the idle stretch %d..%d", i, from, to)
                            .isTrue();
                }
            }
        }
        // the activity takes the room the idle stretches gave up; no group with activity is blank
        assertThat(drawnColumns(draw, "board")).isGreaterThan(busyBefore);
        for (JsonNode r : draw.get("rows")) {
            if (r.get("kind").asText().equals("group")) {
                assertThat(drawnColumns(draw, r.get("name").asText()))
                        .as(r.get("name").asText())
                        .isPositive();
            }
        }
        driver.findElement(By.id("compress")).click();
        browser.settle();
    }

    // ---- helpers

    @Test
    void aLargeStatisticsTableIsFilledWholeInSlicesAndASortTakesOver() throws Exception {
        open();
        driver.findElement(By.cssSelector("aside nav button[data-tab='stats']")).click();
        new WebDriverWait(driver, Duration.ofSeconds(60))
                .until(d -> browser.js("return !!window.__hetrace.lastStats") == Boolean.TRUE);
        long total = ((Number) browser.js("return Math.min(2000, window.__hetrace.lastStats.rows.length)")).longValue();
        assertThat(total).as("more rows than one slice (250)").isGreaterThan(250);
        String rows = "return [...document.querySelectorAll('#stats-table tbody tr')]"
                + ".map(tr => tr.cells[0].textContent + '|' + tr.cells[1].textContent + '|' + tr.cells[4].textContent)";
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(d -> ((List<?>) browser.js(rows)).size() == total);
        // sorted by count twice in one go, the first sort's slices still to come: the table is the last sort's rows,
        // each once
        browser.js("for (let i = 0; i < 2; i++) document.querySelector(\"#stats-table th[data-key='count']\").click()");
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(d -> ((List<?>) browser.js(rows)).size() >= total);
        Thread.sleep(300); // any slice of an earlier rendering would have come by now
        @SuppressWarnings("unchecked")
        List<String> shown = (List<String>) browser.js(rows);
        assertThat(shown).hasSize((int) total).doesNotHaveDuplicates();
        List<Long> counts = shown.stream()
                .map(r -> Long.parseLong(r.substring(r.lastIndexOf('|') + 1)))
                .toList();
        assertThat(counts).as("ascending: the second click").isSorted();
    }

    private static void open() throws Exception {
        page.open();
        // the messages off: the pixels of the rows are their activity alone
        driver.findElement(By.id("arrows")).click();
        browser.settle();
    }

    private static void clickLabel(JsonNode row) throws Exception {
        var canvas = driver.findElement(By.id("canvas"));
        var box = canvas.getRect();
        int dx = (int) Math.round(60 - box.getWidth() / 2.0);
        int dy = (int) Math.round(row.get("y").asDouble() + ROW_H / 2.0 - box.getHeight() / 2.0);
        new Actions(driver).moveToElement(canvas, dx, dy).click().perform();
        browser.settle();
    }

    /** How many pixel columns of the named row have something drawn. */
    private static int drawnColumns(JsonNode draw, String name) {
        String[] h = pixels(List.of(Chromium.row(draw, name).get("y").asInt())).getFirst();
        int n = 0;
        for (int x = LABEL_W + 1; x < h.length; x++) {
            n += h[x].startsWith("0:") ? 0 : 1;
        }
        return n;
    }

    /**
     * Every row drawn with activity in the server's answer has pixels drawn; each group row's (board, groups) are the
     * answer's columns: in each pixel column a bar as high as its busy share (at least {@link #MIN_BAR}), its bottom
     * in the color of the label that took most, and nothing where the answer has nothing.
     */
    private static void checkPixels(JsonNode draw, int atLeast) throws Exception {
        long from = (long) Math.floor(draw.get("from").asDouble());
        long to = (long) Math.ceil(draw.get("to").asDouble());
        double vFrom = draw.get("from").asDouble();
        double vTo = draw.get("to").asDouble();
        double vWidth = draw.get("width").asDouble();
        int width = (int) Math.round(vWidth);
        List<Integer> ids = new ArrayList<>();
        List<Integer> ys = new ArrayList<>();
        for (JsonNode r : draw.get("rows")) {
            ids.add(r.get("id").asInt());
            ys.add(r.get("y").asInt());
        }
        StringBuilder rows = new StringBuilder();
        for (int id : ids) {
            rows.append(rows.isEmpty() ? "" : ",").append(id);
        }
        JsonNode answer = page.get("api/view?from=" + from + "&to=" + to + "&width=" + width + "&rows=" + rows);
        JsonNode meta = page.get("api/meta");
        List<String[]> drawn = pixels(ys);
        int stride = Wire.columnStride();
        int checked = 0;
        long height = (Long) browser.js("return document.getElementById('canvas').height");
        for (int k = 0; k < ids.size(); k++) {
            if (ys.get(k) + ROW_H > height) {
                continue; // the last row, cut by the canvas's bottom
            }
            JsonNode row = answer.get("rows").get(k);
            JsonNode info = draw.get("rows").get(k);
            String kind = info.get("kind").asText();
            String name = info.get("name").asText();
            String[] px = drawn.get(k);
            boolean activity = row.has("rects") && !row.get("rects").isEmpty();
            if (row.has("cols")) {
                for (int c = 0; c < row.get("cols").size(); c += stride) {
                    activity |= row.get("cols").get(c + 2).asInt() > 0;
                }
            }
            boolean any = false;
            for (int x = LABEL_W + 1; x < px.length; x++) {
                any |= !px[x].equals("0:-");
            }
            if (activity) {
                assertThat(any).as("row %s has activity: something drawn", name).isTrue();
                checked++;
            }
            if (!(kind.equals("group") || kind.equals("board")) || !row.has("cols")) {
                continue;
            }
            // the bars the answer asks for, per canvas column (where bars meet, the higher)
            int[] bars = new int[px.length];
            String[] color = new String[px.length];
            JsonNode cols = row.get("cols");
            for (int c = 0; c < cols.size(); c += stride) {
                int cx = cols.get(c).asInt();
                int n = cols.get(c + 1).asInt();
                int busy = cols.get(c + 2).asInt();
                int starts = cols.get(c + 3).asInt();
                long x = Math.round(xAt(from + cx * (double) (to - from) / width, vFrom, vTo, vWidth));
                long w = Math.max(
                        1, Math.round(xAt(from + (cx + n) * (double) (to - from) / width, vFrom, vTo, vWidth)) - x);
                int h = busy > 0
                        ? Math.max(MIN_BAR, (int) Math.round(BAR_H * busy / 1000.0))
                        : starts > 0 ? MIN_BAR : 0;
                int label = cols.get(c + 4).asInt();
                int first = label < 0 || busy == 0
                        ? 0
                        : (int) Math.min(
                                h, Math.round(h * Math.min(1, cols.get(c + 5).asInt() / (double) busy)));
                for (long xx = Math.max(LABEL_W + 1, x); xx < Math.min(px.length, x + w); xx++) {
                    if (h >= bars[(int) xx]) {
                        bars[(int) xx] = h;
                        color[(int) xx] =
                                first >= 1 ? meta.get("colors").get(label).asText() : null;
                    }
                }
            }
            for (int x = LABEL_W + 1; x < px.length - 1; x++) {
                String[] hc = px[x].split(":");
                assertThat(Integer.parseInt(hc[0]))
                        .as("row %s, pixel column %d: bar height", name, x)
                        .isEqualTo(bars[x]);
                if (color[x] != null && bars[x] > 0) {
                    assertThat("#" + hc[1])
                            .as("row %s, pixel column %d: color", name, x)
                            .isEqualToIgnoringCase(color[x]);
                }
            }
        }
        assertThat(checked).as("rows with activity checked").isGreaterThanOrEqualTo(atLeast);
    }

    /** The app's x of a time, as timeline.js computes it. */
    private static double xAt(double t, double from, double to, double width) {
        return LABEL_W + (t - from) / (to - from) * width;
    }

    /**
     * Per row (its top y), per canvas pixel column: "height:rrggbb" of what is drawn from the bottom of the bar area up
     * (the color of its bottom pixel), "0:-" when nothing is, "0:any" when something is drawn elsewhere in the row.
     */
    @SuppressWarnings("unchecked")
    private static List<String[]> pixels(List<Integer> tops) {
        List<String> out = (List<String>)
                browser.js("""
                const c = document.getElementById('canvas');
                const ctx = c.getContext('2d');
                const W = c.width;
                const bg = (d, i) => d[i + 3] === 0 || (d[i] === d[i + 1] && d[i + 1] === d[i + 2] && d[i] >= 247);
                const hex = (d, i) => [d[i], d[i + 1], d[i + 2]].map(v => v.toString(16).padStart(2, '0')).join('');
                return arguments[0].map(top => {
                  const d = ctx.getImageData(0, top + 2, W, %d).data;
                  const out = [];
                  for (let x = 0; x < W; x++) {
                    let n = 0;
                    for (let r = %d - 1; r >= 0 && !bg(d, (r * W + x) * 4); r--) n++;
                    let any = false;
                    for (let r = 0; r < %d && !any; r++) any = !bg(d, (r * W + x) * 4);
                    out.push(n > 0 ? n + ':' + hex(d, ((%d - 1) * W + x) * 4) : any ? '0:any' : '0:-');
                  }
                  return out.join(',');
                });
                """.formatted(BAR_H, BAR_H, BAR_H, BAR_H).replace("arguments[0]", tops.toString()));
        return out.stream().map(s -> s.split(",")).toList();
    }
}
