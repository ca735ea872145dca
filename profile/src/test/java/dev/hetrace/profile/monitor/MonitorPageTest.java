package dev.hetrace.profile.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Acceptance point 4 of issue 8: {@code hetrace monitor}'s page in headless Chromium shows live
 * per-thread graphs of a real process, updated at least once a second, with the threads active
 * or not, pause and resume, a metric switch, a second graph, and PNG and CSV export.
 */
class MonitorPageTest {
    Process spinner;
    Chromium browser;
    MonitorServer server;
    Thread sampling;

    @AfterEach
    void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (spinner != null) {
            spinner.destroyForcibly();
        }
        if (sampling != null) {
            sampling.join(5000);
        }
        if (server != null) {
            server.close();
        }
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> graph(int i) {
        return (Map<String, Object>) browser.js("return window.__monitor.graphs()[" + i + "]");
    }

    long last(int i) {
        return ((Number) graph(i).get("last")).longValue();
    }

    long ticks() {
        return ((Number) browser.js("return window.__monitor.ticks()")).longValue();
    }

    void await(String what, java.util.function.BooleanSupplier condition) {
        new WebDriverWait(browser.driver, Duration.ofSeconds(20))
                .withMessage(what)
                .until(d -> condition.getAsBoolean());
    }

    @Test
    @Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES) // a hang guard, not a measure
    void thePageDrawsLivePerThreadGraphsOfARealProcess(@TempDir Path dir) throws Exception {
        Chromium.require();
        spinner = Spinner.start();
        MonitorSettings settings =
                new MonitorSettings(250, MonitorSettings.DEFAULT_EVENTS, MonitorSettings.DEFAULT_METRICS);
        server = new MonitorServer("spinner", spinner.pid(), settings, dir.toString()).start("127.0.0.1", 0);
        Monitor monitor = new Monitor(Path.of("/proc"), spinner.pid(), settings, server::notice);
        sampling = Thread.ofPlatform().name("sampling").start(() -> {
            try {
                monitor.run(server::publish);
                server.end("the spinner exited");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        browser = Chromium.start(dir.resolve("chromium"), false);
        browser.driver.get("http://127.0.0.1:" + server.port() + "/");
        await(
                "the page is up and has samples",
                () -> browser.js("return !!(window.__monitor && window.__monitor.ready)") == Boolean.TRUE
                        && ticks() > 1);

        // the threads, green when they ran in the last interval
        await(
                "the spinning thread is listed active",
                () -> !browser.driver
                        .findElements(
                                By.xpath("//ul[@id='threads']/li[contains(@class,'active') and contains(., 'spin ')]"))
                        .isEmpty());
        assertThat(browser.driver.findElements(
                        By.xpath("//ul[@id='threads']/li[contains(@class,'inactive') and contains(., 'nap ')]")))
                .as("the sleeping thread is listed inactive")
                .hasSize(1);
        // (the list is redrawn at each tick: read it in one go)
        assertThat(browser.js(
                        "return getComputedStyle(document.querySelector('#threads li.active .dot')).backgroundColor"))
                .as("active is green")
                .isEqualTo("rgb(43, 178, 76)");
        assertThat(browser.js(
                        "return getComputedStyle(document.querySelector('#threads li.inactive .dot')).backgroundColor"))
                .as("inactive is grey")
                .isEqualTo("rgb(170, 170, 170)");

        // live: the graph's newest tick moves on three times, and its points grow
        long seen = last(0);
        long points = ((Number) graph(0).get("points")).longValue();
        int updates = 0;
        while (updates < 3) {
            Thread.sleep(50);
            long l = last(0);
            if (l != seen) {
                seen = l;
                updates++;
            }
        }
        assertThat(((Number) graph(0).get("points")).longValue()).isGreaterThan(points);
        assertThat(graph(0).get("metric")).isEqualTo("cpu");
        browser.shot("monitor-live");

        // pause: the graph stays as it is while samples keep coming; resume: it catches up
        browser.driver.findElement(By.id("pause")).click();
        long frozen = last(0);
        long ticksAtPause = ticks();
        Thread.sleep(1200);
        assertThat(last(0)).as("no update while paused").isEqualTo(frozen);
        assertThat(ticks()).as("samples still arrive while paused").isGreaterThan(ticksAtPause);
        assertThat(browser.driver.findElement(By.id("status")).getText()).isEqualTo("paused");
        browser.driver.findElement(By.id("pause")).click();
        await("the graph catches up on resume", () -> last(0) > frozen);

        // switching the metric changes the plotted series
        String tid = browser.js("return String(window.__monitor.threads().find(t => t.name === 'spin').tid)")
                .toString();
        String pngCpu = (String) browser.js("return window.__monitor.png(0)");
        List<?> cpuSeries = (List<?>) ((Map<?, ?>) graph(0).get("series")).get(tid);
        new Select(browser.driver.findElement(By.cssSelector(".graph select.metric"))).selectByValue("switches");
        assertThat(graph(0).get("metric")).isEqualTo("switches");
        List<?> switchSeries = (List<?>) ((Map<?, ?>) graph(0).get("series")).get(tid);
        assertThat(switchSeries).isNotEmpty().isNotEqualTo(cpuSeries);
        assertThat(cpuSeries.stream()
                        .mapToDouble(v -> ((Number) v).doubleValue())
                        .max()
                        .orElseThrow())
                .as("the spinning thread's cpu %")
                .isGreaterThan(5);
        assertThat((String) browser.js("return window.__monitor.png(0)")).isNotEqualTo(pngCpu);

        // several graphs at once: the next graph shows a metric not shown yet
        browser.driver.findElement(By.id("add")).click();
        await(
                "a second graph with points",
                () -> graph(1) != null && ((Number) graph(1).get("points")).longValue() > 0);
        assertThat(graph(1).get("metric")).isEqualTo("cpu");
        assertThat(browser.driver.findElements(By.cssSelector(".graph canvas"))).hasSize(2);
        long second = last(1);
        await("both graphs update", () -> last(1) > second && last(0) > second);

        // export: a PNG of a graph, a CSV of its series
        String png = (String) browser.js("return window.__monitor.png(1)");
        assertThat(png).startsWith("data:image/png;base64,").hasSizeGreaterThan(2000);
        String csv = (String) browser.js("return window.__monitor.csv(1)");
        List<String> lines = csv.lines().toList();
        assertThat(lines.getFirst())
                .startsWith("time_s,")
                .contains("spin-" + tid)
                .contains("nap-");
        assertThat(lines.size()).isGreaterThan(10);
        browser.shot("monitor");

        // the process ends: the page says so
        spinner.getOutputStream().close();
        await(
                "the page shows the end",
                () -> "ended".equals(browser.driver.findElement(By.id("status")).getDomAttribute("class")));
        assertThat(browser.driver.findElement(By.id("status")).getText()).isEqualTo("the spinner exited");
    }
}
