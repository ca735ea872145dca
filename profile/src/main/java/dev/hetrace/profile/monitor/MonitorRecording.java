package dev.hetrace.profile.monitor;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import dev.hetrace.profile.metric.Metric;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A monitoring session on disk, written as it runs so that Ctrl-C loses nothing: {@code
 * monitor.json} (the settings, to monitor again the same way with {@code --config}), {@code
 * samples.csv} (the raw counts per thread and interval), {@code metrics.csv} (the metrics
 * computed on them), and at the end {@code campaign.json}, one {@link Run} whose samples are the
 * per-thread samples, for {@code hetrace report} and the other analyses.
 */
public final class MonitorRecording implements AutoCloseable {

    private final Path dir;
    private final MonitorSettings settings;
    private final String workload;
    private final BufferedWriter samples;
    private final BufferedWriter metrics;
    private final List<Sample> all = new ArrayList<>();
    private boolean closed;

    public MonitorRecording(Path dir, MonitorSettings settings, String workload) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.settings = settings;
        this.workload = workload;
        settings.write(dir.resolve("monitor.json"));
        samples = Files.newBufferedWriter(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
        metrics = Files.newBufferedWriter(dir.resolve("metrics.csv"), StandardCharsets.UTF_8);
        samples.write("time_s,tid,thread,cpu,active," + String.join(",", settings.counters()) + "\n");
        metrics.write("time_s,tid,thread,active,"
                + String.join(",", settings.metrics().stream().map(Metric::name).toList()) + "\n");
        samples.flush();
        metrics.flush();
    }

    public Path dir() {
        return dir;
    }

    /** Appends a tick's samples and metrics, flushed. */
    public synchronized void write(Monitor.Batch batch) throws IOException {
        for (Monitor.ThreadSample t : batch.threads()) {
            Sample s = t.sample();
            all.add(s);
            String head = String.format(Locale.ROOT, "%.3f,%d,%s,", s.timeSeconds(), s.tid(), csv(s.thread()));
            samples.write(head + s.cpu() + "," + t.active());
            for (String c : settings.counters()) {
                samples.write("," + number(s.counters().getOrDefault(c, Double.NaN)));
            }
            samples.write("\n");
            metrics.write(head + t.active());
            for (Metric m : settings.metrics()) {
                metrics.write("," + number(t.metrics().get(m.name())));
            }
            metrics.write("\n");
        }
        samples.flush();
        metrics.flush();
    }

    /** Closes the CSV files and writes {@code campaign.json}: one run, its counters the totals over all threads. */
    public synchronized void close(double runtimeSeconds, Map<String, String> unsupported) throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        samples.close();
        metrics.close();
        Map<String, Double> totals = new LinkedHashMap<>();
        for (Sample s : all) {
            s.counters().forEach((k, v) -> {
                if (!k.equals(MonitorSettings.INTERVAL) && !Double.isNaN(v)) {
                    totals.merge(k, v, Double::sum);
                }
            });
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put("interval_ms", Integer.toString(settings.intervalMs()));
        config.put("events", String.join(",", settings.events()));
        config.put(
                "metrics",
                String.join(
                        "; ", settings.metrics().stream().map(Metric::toString).toList()));
        Run run = new Run(
                workload,
                config,
                0,
                runtimeSeconds,
                totals.getOrDefault("user-time", Double.NaN) / 1000,
                totals.getOrDefault("system-time", Double.NaN) / 1000,
                totals,
                unsupported,
                all);
        CampaignFile.write(Campaign.of("monitor " + workload, List.of(run)), dir.resolve("campaign.json"));
    }

    @Override
    public void close() throws IOException {
        close(Double.NaN, Map.of());
    }

    static String number(Double v) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            return "";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString(v.longValue());
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }

    static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
