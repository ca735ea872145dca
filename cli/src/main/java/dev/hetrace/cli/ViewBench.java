package dev.hetrace.cli;

import dev.hetrace.view.Report;
import dev.hetrace.view.Timeline;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * {@code hetrace view --bench N}: what the viewer's server costs, measured as the app uses it:
 * over HTTP, the first view (meta, then the whole span at 2,000 px for the rows on a first
 * screen, then the diagnosis), then N requests that zoom in and out around random times, pan,
 * and scroll to random rows, each timed from the request to the last byte of its answer (read
 * and thrown away), then the statistics of everything, which the app asks for when their tab
 * is first shown.
 */
final class ViewBench {
    static final int WIDTH = 2000;
    static final int ROWS_ON_SCREEN = 45;
    /** The app asks for views' arrays in binary. */
    static final String AS_THE_APP_ASKS = "&format=binary";

    private ViewBench() {}

    /**
     * Measures the server at {@code url}, serving {@code t}; {@code started}: the command's start
     * (System.nanoTime), to tell how long after it the first view was there.
     */
    static int run(String url, Timeline t, int n, long started, PrintStream out) throws IOException {
        long span = t.end() - t.begin();
        // the rows of a first screen: the board, then traces, groups of cores and cores (their children closed)
        List<Integer> top = new ArrayList<>();
        for (Timeline.Row r : t.rows()) {
            if (r.kind() == Timeline.Kind.BOARD
                    || r.kind() == Timeline.Kind.TRACE
                    || r.kind() == Timeline.Kind.GROUP
                    || r.kind() == Timeline.Kind.CORE) {
                top.add(r.id());
            }
        }
        long t0 = System.nanoTime();
        long metaBytes = get(url + "api/meta").bytes();
        long t1 = System.nanoTime();
        long viewBytes = get(url + "api/view?from=0&to=" + span + "&width=" + WIDTH + "&rows=" + rows(top, 0)
                        + AS_THE_APP_ASKS)
                .bytes();
        long t2 = System.nanoTime();
        // the panel the app fills at once: the diagnosis (the statistics wait for their tab, asked for at the end)
        long panelBytes = get(url + "api/diagnosis").bytes();
        long t3 = System.nanoTime();
        long jvm = ManagementFactory.getRuntimeMXBean().getUptime();
        out.printf(
                Locale.ROOT,
                "first view: meta and the whole span for %d rows in %.1f ms (meta %.1f ms, %,d bytes;"
                        + " view %.1f ms, %,d bytes); diagnosis %.1f ms (%,d bytes)%n",
                Math.min(ROWS_ON_SCREEN, top.size()),
                (t2 - t0) / 1e6,
                (t1 - t0) / 1e6,
                metaBytes,
                (t2 - t1) / 1e6,
                viewBytes,
                (t3 - t2) / 1e6,
                panelBytes);
        out.printf(
                Locale.ROOT,
                "first view and diagnosis answered %.2f s after the command started (%.2f s after the JVM did)%n",
                (t3 - started) / 1e9,
                jvm / 1e3);
        SplittableRandom random = new SplittableRandom(1);
        double from = 0;
        double to = span;
        long[] lat = new long[n];
        long[] server = new long[n];
        long[] bytes = new long[n];
        double[] spans = new double[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            double w = to - from;
            switch (i % 4) {
                case 0, 1 -> { // zoom in around a random time
                    double c = from + random.nextDouble() * w;
                    from = c - w / 4;
                    to = c + w / 4;
                }
                case 2 -> { // pan a fifth
                    from += w / 5;
                    to += w / 5;
                }
                default -> { // zoom out, back to the whole span when small enough
                    if (w < 1e4) {
                        from = 0;
                        to = span;
                    } else {
                        from -= w / 2;
                        to += w / 2;
                    }
                }
            }
            if (to - from < 1000) {
                from = 0;
                to = span;
            }
            int scroll = random.nextInt(Math.max(1, top.size() - ROWS_ON_SCREEN + 1));
            long s = System.nanoTime();
            Answer a = get(url + "api/view?from=" + (long) from + "&to=" + (long) Math.ceil(to) + "&width=" + WIDTH
                    + "&rows=" + rows(top, scroll) + AS_THE_APP_ASKS);
            lat[i] = System.nanoTime() - s;
            bytes[i] = a.bytes();
            server[i] = a.madeNanos();
            total += bytes[i];
            spans[i] = to - from;
        }
        Integer[] slow = new Integer[n];
        Arrays.setAll(slow, i -> i);
        Arrays.sort(slow, (a, b) -> Long.compare(lat[b], lat[a]));
        StringBuilder worst = new StringBuilder();
        for (int k = 0; k < Math.min(5, n); k++) {
            int i = slow[k];
            worst.append(String.format(
                    Locale.ROOT,
                    "%s#%d %.1f ms (%s, %,d bytes, made in %.1f ms)",
                    k == 0 ? "" : "; ",
                    i + 1,
                    lat[i] / 1e6,
                    Report.duration(spans[i]),
                    bytes[i],
                    server[i] / 1e6));
        }
        Arrays.sort(lat);
        Arrays.sort(server);
        out.printf(
                Locale.ROOT,
                "%d zoom/pan requests at %d px, %d rows each: median %.1f ms, p95 %.1f ms, max %.1f ms;"
                        + " %,d bytes per answer on average%n",
                n,
                WIDTH,
                Math.min(ROWS_ON_SCREEN, top.size()),
                lat[n / 2] / 1e6,
                lat[Math.min(n - 1, (int) Math.ceil(n * 0.95) - 1)] / 1e6,
                lat[n - 1] / 1e6,
                total / n);
        out.printf(
                Locale.ROOT,
                "of which the server's making of the answer (its Server-Timing): median %.1f ms, p95 %.1f ms, max %.1f ms%n",
                server[n / 2] / 1e6,
                server[Math.min(n - 1, (int) Math.ceil(n * 0.95) - 1)] / 1e6,
                server[n - 1] / 1e6);
        out.println("slowest: " + worst);
        // the statistics of everything, as their tab asks for them when first shown
        long s = System.nanoTime();
        long statsBytes = get(url + "api/stats").bytes();
        out.printf(
                Locale.ROOT,
                "statistics of everything (their tab shown): %.1f ms, %,d bytes%n",
                (System.nanoTime() - s) / 1e6,
                statsBytes);
        return 0;
    }

    private static String rows(List<Integer> top, int scroll) {
        List<Integer> on = new ArrayList<>();
        on.add(top.getFirst());
        on.addAll(top.subList(Math.min(top.size(), 1 + scroll), Math.min(top.size(), 1 + scroll + ROWS_ON_SCREEN - 1)));
        return on.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Where answers are read into, and thrown away: the measure is the server's, not the copying of megabytes here. */
    private static final byte[] SINK = new byte[1 << 16];

    /** An answer: how many bytes it had, and how long the server took to make it (its {@code Server-Timing}; −1 if not said). */
    record Answer(long bytes, long madeNanos) {}

    /**
     * Asks for {@code url} and reads its answer to the last byte, on a kept-alive connection. The
     * client runs in the server's JVM: {@link HttpURLConnection} reads into {@link #SINK} and
     * allocates next to nothing there, as a browser, in a process of its own, allocates nothing
     * (java.net.http's client allocated a buffer per read: 70 MB in a run, whose collections
     * fell on the server's answers).
     */
    private static Answer get(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
        int status = c.getResponseCode();
        if (status != 200) {
            try (InputStream err = c.getErrorStream()) {
                throw new IOException(url + ": HTTP " + status + ": "
                        + (err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        try (InputStream in = c.getInputStream()) {
            long n = 0;
            for (int k; (k = in.read(SINK)) >= 0; ) {
                n += k;
            }
            String timing = c.getHeaderField("Server-Timing");
            return new Answer(n, timing == null ? -1 : duration(timing));
        }
    }

    /** The {@code dur} of a {@code Server-Timing} value such as {@code answer;dur=12.5}, ns (−1 if none). */
    static long duration(String timing) {
        for (String part : timing.split(";")) {
            String p = part.trim();
            if (p.startsWith("dur=")) {
                try {
                    return Math.round(Double.parseDouble(p.substring(4)) * 1e6);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
