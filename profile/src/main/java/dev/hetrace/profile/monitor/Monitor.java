package dev.hetrace.profile.monitor;

import dev.hetrace.profile.Sample;
import dev.hetrace.profile.metric.Metric;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Samples the threads of a live process every interval, PMCTrack's time-based sampling: per
 * thread, the counts of the interval from /proc (and perf for the other events), whether it
 * ran, and the metrics computed on them. Threads that appear are sampled from their next tick,
 * threads that end are reported once. {@link #run} returns when the process ends or on
 * {@link #stop}.
 */
public final class Monitor {

    /** A thread's sample with whether it ran in the interval (PMCTrackApp's green) and its metrics (NaN: cannot be computed). */
    public record ThreadSample(Sample sample, boolean active, Map<String, Double> metrics) {}

    /** A thread that ended since the previous tick. */
    public record Ended(long tid, String name) {}

    /**
     * One tick: the samples of every live thread, and the threads gone since the previous one.
     *
     * @param index      0 for the first tick
     * @param timeSeconds from the start of monitoring
     */
    public record Batch(int index, double timeSeconds, List<ThreadSample> threads, List<Ended> ended) {}

    private final Path proc;
    private final long pid;
    private final MonitorSettings settings;
    private final Consumer<String> notices;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Map<Long, String> names = new LinkedHashMap<>();
    private final Map<Long, Map<String, Double>> totals = new LinkedHashMap<>();
    private volatile PerfThreads perf;
    private volatile double elapsed;

    /** A monitor of process {@code pid} as {@code proc} (normally {@code /proc}) shows it; {@code notices} hears what could not be measured. */
    public Monitor(Path proc, long pid, MonitorSettings settings, Consumer<String> notices) {
        this.proc = proc;
        this.pid = pid;
        this.settings = settings;
        this.notices = notices;
    }

    /** Samples until the process ends or {@link #stop}, giving each tick's batch to {@code sink}, on the calling thread. */
    public void run(Consumer<Batch> sink) throws IOException {
        List<String> perfEvents = settings.perfEvents();
        if (!perfEvents.isEmpty()) {
            Path perfPath = PerfThreads.perf();
            if (perfPath == null) {
                notices.accept("not measured: " + String.join(", ", perfEvents)
                        + " (they need perf, which is not installed here:" + " apt-get install linux-perf; /proc gives "
                        + String.join(", ", ThreadStat.COUNTERS) + ")");
            } else {
                perf = PerfThreads.start(perfPath, pid, perfEvents, settings.intervalMs(), notices);
            }
        }
        try {
            loop(sink);
        } finally {
            if (perf != null) {
                perf.close();
            }
        }
    }

    private void loop(Consumer<Batch> sink) {
        long start = System.nanoTime();
        long last = start;
        Map<Long, ThreadStat> before = ThreadStat.threads(proc, pid);
        before.values().forEach(t -> names.put(t.tid(), t.name()));
        long periodNs = settings.intervalMs() * 1_000_000L;
        for (int index = 0; ; index++) {
            long next = start + (index + 1) * periodNs;
            try {
                if (stopped.await(Math.max(0, next - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = System.nanoTime();
            boolean ended = ThreadStat.ended(proc, pid);
            Map<Long, ThreadStat> after = ended ? Map.of() : ThreadStat.threads(proc, pid);
            boolean reporting =
                    perf != null && perf.reporting(); // before the drain: what it holds is what perf had reported
            Map<Long, Map<String, Double>> counted = perf == null ? Map.of() : perf.drain();
            double intervalMs = (now - last) / 1e6;
            double time = (now - start) / 1e9;
            elapsed = time;
            List<ThreadSample> samples = new ArrayList<>();
            for (ThreadStat t : after.values()) {
                Map<String, Double> c = t.counters(before.get(t.tid()));
                c.put(MonitorSettings.INTERVAL, t.intervalMs(before.get(t.tid()), intervalMs));
                java.util.Set<String> unsupported = unsupported();
                for (String e : settings.perfEvents()) {
                    // a thread perf has no line for did not run (<not counted>), or was created after perf attached
                    double none = perf == null || !reporting || unsupported.contains(e) ? Double.NaN : 0.0;
                    c.put(e, counted.getOrDefault(t.tid(), Map.of()).getOrDefault(e, none));
                }
                names.put(t.tid(), t.name());
                Map<String, Double> sum = totals.computeIfAbsent(t.tid(), k -> new LinkedHashMap<>());
                c.forEach((k, v) -> {
                    if (!Double.isNaN(v)) {
                        sum.merge(k, v, Double::sum);
                    }
                });
                Map<String, Double> metrics = new LinkedHashMap<>();
                for (Metric m : settings.metrics()) {
                    metrics.put(m.name(), m.formula().evaluate(n -> c.getOrDefault(n, Double.NaN)));
                }
                samples.add(new ThreadSample(
                        new Sample(time, pid, t.tid(), t.name(), t.cpu(), "tick", c),
                        c.get("task-clock") > 0,
                        metrics));
            }
            List<Ended> gone = new ArrayList<>();
            for (ThreadStat t : before.values()) {
                if (!after.containsKey(t.tid())) {
                    gone.add(new Ended(t.tid(), t.name()));
                }
            }
            sink.accept(new Batch(index, time, samples, gone));
            if (ended) {
                return;
            }
            before = after;
            last = now;
        }
    }

    /** Ends {@link #run} at its next tick (from another thread, e.g. on Ctrl-C). */
    public void stop() {
        stopped.countDown();
    }

    /** Each thread's name, by thread id, for every thread seen; read it once {@link #run} returned. */
    public Map<Long, String> names() {
        return Map.copyOf(names);
    }

    /** Each thread's counts summed over its samples; read it once {@link #run} returned. */
    public Map<Long, Map<String, Double>> totals() {
        return totals;
    }

    /** Seconds from the start to the last tick. */
    public double elapsed() {
        return elapsed;
    }

    /** The events perf said this machine cannot count (empty without perf events). */
    public java.util.Set<String> unsupported() {
        PerfThreads p = perf;
        return p == null ? java.util.Set.of() : p.unsupported();
    }
}
