package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.web.Chromium;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opt-in (a benchmark: a big board takes minutes to make): a running {@code hetrace view} in
 * headless Chromium, as a user meets it. How long from asking for the page to the first drawn
 * view, how long each zoom or pan takes to be drawn again, and whether the page's main thread
 * stays free (Chromium's long tasks: any script, layout or paint over 50 ms). Run against the
 * server (see BENCHMARKS.md, "Viewer requests"), {@code -Dhetrace.verbose} for the details (each
 * zoom's answer, the long tasks, and the scripts of each long frame), {@code -Dhetrace.profile}
 * for where the page's time went in its zooms ({@code =k}: in zoom k alone):
 *
 * <pre>
 * ./hetrace view --port 8765 big/ &amp;
 * ./mvnw -B -q verify -pl ctf,tracer,sync,sim,analysis,view -Dtest=ViewerScaleBrowserTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dhetrace.url=http://127.0.0.1:8765/
 * </pre>
 */
@EnabledIfSystemProperty(named = "hetrace.url", matches = ".+")
class ViewerScaleBrowserTest {
    /** Calls back with what {@code f} gives once the app has drawn what it was last asked, looking every 2 ms. */
    static final String SETTLED = "const done = arguments[arguments.length - 1];"
            + " const poll = f => window.__hetrace && window.__hetrace.settled() ? done(f()) : setTimeout(() => poll(f), 2);";

    @TempDir
    Path dir;

    @Test
    void aLargeBoardIsDrawnWithinTwoSecondsAndEveryZoomOrPanKeepsThePageResponsive() throws Exception {
        Chromium.require();
        try (Chromium browser = Chromium.start(dir.resolve("profile"), false)) {
            // every long task of the page, from its first script on
            browser.driver.executeCdpCommand(
                    "Page.addScriptToEvaluateOnNewDocument",
                    Map.of(
                            "source",
                            "window.__long = []; new PerformanceObserver(l => { for (const e of l.getEntries())"
                                    + " window.__long.push([e.startTime, e.duration]); }).observe({type: 'longtask', buffered: true});"
                                    // and what ran in each frame that took long: its scripts, by what called them
                                    + " window.__frames = []; new PerformanceObserver(l => { for (const e of l.getEntries())"
                                    + " window.__frames.push(Math.round(e.startTime) + '+' + Math.round(e.duration) + ' ms: '"
                                    + " + e.scripts.map(s => s.invoker + ' ' + (s.sourceFunctionName || '') + ' '"
                                    + " + s.sourceURL.replace(/^.*\\//, '') + ':' + s.sourceCharPosition + ' ' + Math.round(s.duration)"
                                    + " + ' (forced layout ' + Math.round(s.forcedStyleAndLayoutDuration) + ')').join(', ')"
                                    + " + ' (render ' + Math.round(e.duration - (e.renderStart ? e.renderStart - e.startTime : e.duration)) + ')'); })"
                                    + ".observe({type: 'long-animation-frame', buffered: true});"));
            browser.driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
            browser.driver.get(System.getProperty("hetrace.url"));
            // from the navigation's start (the page's time origin) to the first view drawn
            double firstView = ((Number) browser.driver.executeAsyncScript(SETTLED + "poll(() => performance.now());"))
                    .doubleValue();
            JsonNode first = browser.lastDraw();
            browser.shot("scale-first-view");
            boolean verbose = System.getProperty("hetrace.verbose") != null;
            if (verbose) {
                System.out.println("loading: "
                        + browser.js("return performance.getEntriesByType('resource').map(e =>"
                                + " e.name.replace(/^.*\\//, '').slice(0, 40) + ' ' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd)"
                                + " + ' (' + e.transferSize + ' B)').join('; ')"));
            }
            // the page's profile of its zooms, or of zoom k alone (-Dhetrace.profile=k): apart from the timings, as
            // starting the profiler slows the page down
            String profiled = System.getProperty("hetrace.profile");
            boolean profile = profiled != null;
            int profiledZoom = profile && profiled.matches("\\d+") ? Integer.parseInt(profiled) : 0;
            if (profile) {
                browser.driver.executeCdpCommand("Profiler.enable", Map.of());
                browser.driver.executeCdpCommand("Profiler.setSamplingInterval", Map.of("interval", 100));
                if (profiledZoom == 0) browser.driver.executeCdpCommand("Profiler.start", Map.of());
            }
            long span = ((Number) browser.js("return window.__hetrace.meta.span")).longValue();
            long rows = ((Number) browser.js("return window.__hetrace.meta.rows.length")).longValue();
            long events = ((Number) browser.js("return window.__hetrace.meta.events")).longValue();
            SplittableRandom rnd = new SplittableRandom(1);
            int n = 40;
            double[] took = new double[n];
            double[] spans = new double[n];
            double[][] answered = new double[n][];
            double[] starts = new double[n];
            browser.js("performance.setResourceTimingBufferSize(100000)");
            double from = 0;
            double to = span;
            for (int i = 0; i < n; i++) {
                double w = to - from;
                if (i % 3 == 2) { // pan a fifth
                    from += w / 5;
                    to += w / 5;
                } else if (w > 2e4 && i % 6 != 5) { // zoom in around a random time
                    double c = from + rnd.nextDouble() * w;
                    from = c - w / 6;
                    to = c + w / 6;
                } else {
                    from = 0;
                    to = span;
                }
                if (i + 1 == profiledZoom) browser.driver.executeCdpCommand("Profiler.start", Map.of());
                spans[i] = to - from;
                starts[i] = from;
                // the time to the frame drawn; the view's answer: received after (ms), bytes, made in (ms)
                @SuppressWarnings("unchecked")
                List<Number> got = (List<Number>) browser.driver.executeAsyncScript(SETTLED
                        + String.format(
                                Locale.ROOT,
                                "const t0 = performance.now(); window.__hetrace.zoomTo(%.0f, %.0f);"
                                        + " poll(() => { const e = performance.getEntriesByType('resource')"
                                        + ".filter(e => e.name.includes('api/view') && e.startTime >= t0).pop();"
                                        + " return [performance.now() - t0, e ? e.responseEnd - t0 : -1, e ? e.encodedBodySize : 0,"
                                        + " e && e.serverTiming.length ? e.serverTiming[0].duration : -1]; });",
                                from,
                                to));
                if (i + 1 == profiledZoom) printProfile(browser);
                took[i] = got.get(0).doubleValue();
                answered[i] = got.subList(1, 4).stream()
                        .mapToDouble(Number::doubleValue)
                        .toArray();
            }
            browser.shot("scale-after-zooms");
            if (profile && profiledZoom == 0) printProfile(browser);
            @SuppressWarnings("unchecked")
            List<List<Number>> longTasks = (List<List<Number>>) browser.js("return window.__long");
            double[] lt = longTasks.stream()
                    .mapToDouble(e -> e.get(1).doubleValue())
                    .sorted()
                    .toArray();
            if (verbose) {
                System.out.println("long tasks (start ms, duration ms): " + longTasks);
                @SuppressWarnings("unchecked")
                List<String> frames = (List<String>) browser.js("return window.__frames");
                System.out.println("long frames:\n  " + String.join("\n  ", frames));
                for (int i = 0; i < n; i++) {
                    System.out.printf(
                            Locale.ROOT,
                            "zoom %d: %s from %.0f drawn in %.0f ms (answer received after %.0f ms, %,.0f bytes, made in %.1f ms)%n",
                            i + 1,
                            Report.duration(spans[i]),
                            starts[i],
                            took[i],
                            answered[i][0],
                            answered[i][1],
                            answered[i][2]);
                }
            }
            double[] sorted = took.clone();
            Arrays.sort(sorted);
            System.out.printf(
                    Locale.ROOT,
                    "viewer in Chromium: %d rows, %,d events; first view drawn %.0f ms after the page"
                            + " was asked for (%d rows drawn); %d zooms and pans drawn again in median %.0f ms, max %.0f ms;"
                            + " %d long tasks (over 50 ms) on the page's main thread, longest %.0f ms%n",
                    rows,
                    events,
                    firstView,
                    first.get("rows").size(),
                    n,
                    sorted[n / 2],
                    sorted[n - 1],
                    lt.length,
                    lt.length == 0 ? 0.0 : lt[lt.length - 1]);
            assertThat(first.get("rows").size()).as("rows drawn").isPositive();
            assertThat(firstView).as("first view drawn (ms)").isLessThan(2000);
            assertThat(sorted[n - 1]).as("slowest zoom or pan drawn (ms)").isLessThan(1000);
            assertThat(lt.length == 0 ? 0.0 : lt[lt.length - 1])
                    .as("longest task on the page's main thread (ms)")
                    .isLessThan(500);
        }
    }

    /** Stops the page's profiler and prints where its time went: self time per function, most first. */
    private static void printProfile(Chromium browser) {
        Map<String, Object> p = browser.driver.executeCdpCommand("Profiler.stop", Map.of());
        JsonNode profile = new ObjectMapper().valueToTree(p).get("profile");
        Map<String, Integer> self = new HashMap<>();
        for (JsonNode nd : profile.get("nodes")) {
            JsonNode f = nd.get("callFrame");
            String url = f.get("url").asText();
            self.merge(
                    f.get("functionName").asText() + " " + url.substring(url.lastIndexOf('/') + 1) + ":"
                            + (f.get("lineNumber").asInt() + 1),
                    nd.path("hitCount").asInt(),
                    Integer::sum);
        }
        double ms = (profile.get("endTime").asLong() - profile.get("startTime").asLong()) / 1000.0;
        System.out.printf(Locale.ROOT, "profile of %.0f ms, samples per function (100 µs each):%n", ms);
        self.entrySet().stream()
                .sorted((a, b) -> b.getValue() - a.getValue())
                .limit(20)
                .forEach(e -> System.out.println("profile: " + e.getValue() + " " + e.getKey()));
    }
}
