package dev.hetrace.profile.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.metric.Metric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The monitor on a real process: a JVM with a spinning thread, a sleeping one, and one that comes and goes. */
class MonitorTest {
    static final Path PROC = Path.of("/proc");
    /** Samples taken before the monitor is stopped: 2.4 s at 200 ms, while the late thread (0.5 s) comes and goes. */
    static final int BATCHES = 12;

    Process spinner;

    @AfterEach
    void stopSpinner() {
        if (spinner != null) {
            spinner.destroyForcibly();
        }
    }

    static List<Monitor.ThreadSample> named(List<Monitor.Batch> batches, String name) {
        return batches.stream()
                .flatMap(b -> b.threads().stream())
                .filter(t -> t.sample().thread().equals(name))
                .toList();
    }

    @Test
    void threadsThatRunAreActiveThreadsThatSleepAreNotAndThreadsComeAndGo(@TempDir Path dir) throws Exception {
        spinner = Spinner.start();
        MonitorSettings settings =
                new MonitorSettings(200, MonitorSettings.DEFAULT_EVENTS, MonitorSettings.DEFAULT_METRICS);
        Monitor monitor = new Monitor(PROC, spinner.pid(), settings, n -> {});
        List<Monitor.Batch> batches = new ArrayList<>();
        try (MonitorRecording rec = new MonitorRecording(dir, settings, "spinner")) {
            monitor.run(b -> {
                if (b.index() == 2) {
                    Spinner.late(spinner);
                }
                batches.add(b);
                if (batches.size() == BATCHES) {
                    monitor.stop(); // a count of samples, not a time: the same test on a loaded machine
                }
                try {
                    rec.write(b);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            rec.close(monitor.elapsed(), Map.of());
        }

        assertThat(batches).hasSize(BATCHES);
        List<Monitor.ThreadSample> spin = named(batches, "spin");
        assertThat(spin).hasSize(batches.size()).allMatch(Monitor.ThreadSample::active);
        // how much CPU the spinning thread gets depends on what else runs on the 2 cores; the metric is its formula.
        // A running thread's schedstat time is brought up to date at the scheduler's ticks (every 1 to 10 ms), so
        // over an interval of I ms a busy thread may read up to 10/I above 100 %, never more
        for (Monitor.ThreadSample t : spin) {
            Map<String, Double> c = t.sample().counters();
            assertThat(t.metrics().get("cpu"))
                    .isGreaterThan(0)
                    .isLessThanOrEqualTo(100 * (1 + 10 / c.get("interval")))
                    .isCloseTo(c.get("task-clock") * 100 / c.get("interval"), within(1e-9));
            assertThat(t.metrics().get("switches"))
                    .isCloseTo(c.get("context-switches") * 1000 / c.get("interval"), within(1e-9));
        }
        assertThat(spin)
                .allSatisfy(
                        t -> assertThat(t.sample().counters().get("interval")).isPositive());
        assertThat(named(batches, "nap"))
                .hasSize(batches.size())
                .noneMatch(Monitor.ThreadSample::active)
                .allMatch(t -> t.metrics().get("cpu") == 0.0);

        List<Monitor.ThreadSample> late = named(batches, "late");
        assertThat(late)
                .as("the late thread is seen while it lives, not before")
                .isNotEmpty()
                .hasSizeLessThan(batches.size() - 3);
        assertThat(late).anyMatch(Monitor.ThreadSample::active);
        long lateTid = late.getFirst().sample().tid();
        assertThat(batches)
                .as("the late thread's end is reported once")
                .filteredOn(b -> b.ended().stream().anyMatch(e -> e.tid() == lateTid))
                .hasSize(1);

        // saved: one CSV line per thread sample, and a campaign of one run with those samples
        int samples = batches.stream().mapToInt(b -> b.threads().size()).sum();
        List<String> csv = Files.readAllLines(dir.resolve("samples.csv"));
        assertThat(csv).hasSize(samples + 1);
        assertThat(csv.getFirst())
                .startsWith("time_s,tid,thread,cpu,active,task-clock,context-switches,cpu-migrations");
        assertThat(csv).anyMatch(l -> l.contains(",spin,") && l.contains(",true,"));
        List<String> metrics = Files.readAllLines(dir.resolve("metrics.csv"));
        assertThat(metrics.getFirst()).isEqualTo("time_s,tid,thread,active,cpu,switches,faults,migrations");
        assertThat(metrics).hasSize(samples + 1);
        Campaign campaign = CampaignFile.read(dir.resolve("campaign.json"));
        Run run = campaign.runs().getFirst();
        assertThat(run.samples()).hasSize(samples);
        double taskClock = batches.stream()
                .flatMap(b -> b.threads().stream())
                .mapToDouble(t -> t.sample().counters().get("task-clock"))
                .sum();
        assertThat(run.value("task-clock"))
                .as("the run's total, ms")
                .isGreaterThan(0)
                .isCloseTo(taskClock, within(1e-6));
        assertThat(MonitorSettings.read(dir.resolve("monitor.json"))).hasToString(settings.toString());
    }

    @Test
    void monitoringEndsWithTheProcess() throws Exception {
        spinner = Spinner.start();
        Monitor monitor = new Monitor(
                PROC, spinner.pid(), new MonitorSettings(100, List.of(), MonitorSettings.DEFAULT_METRICS), n -> {});
        List<Monitor.Batch> batches = new CopyOnWriteArrayList<>();
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(500);
                spinner.getOutputStream().close(); // the spinner exits
            } catch (Exception e) {
                // the test fails below
            }
        });
        Thread watcher = Thread.ofPlatform().start(() -> {
            try {
                monitor.run(batches::add);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        watcher.join(10_000);
        assertThat(watcher.isAlive())
                .as("the monitor returned when the process ended")
                .isFalse();
        assertThat(batches).isNotEmpty();
        assertThat(batches.getLast().threads()).isEmpty();
        // a JVM's threads end one after the other as it exits: each reported once
        List<String> ended = batches.stream()
                .flatMap(b -> b.ended().stream())
                .map(Monitor.Ended::name)
                .toList();
        assertThat(ended).containsOnlyOnce("spin", "nap");
    }

    @Test
    void perfCountsTheOtherEventsPerThreadAndNamesTheUnsupportedOnesOnce() throws Exception {
        Required.that(PerfThreads.perf() != null, "perf is not installed (apt-get install linux-perf)");
        spinner = Spinner.start();
        MonitorSettings settings = new MonitorSettings(
                250,
                List.of("task-clock", "cpu-clock", "cycles"),
                List.of(Metric.parse("cpu=cpu-clock*100/interval"), Metric.parse("c=cycles")));
        List<String> notices = new CopyOnWriteArrayList<>();
        Monitor monitor = new Monitor(PROC, spinner.pid(), settings, notices::add);
        List<Monitor.Batch> batches = new ArrayList<>();
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(1800);
            } catch (InterruptedException e) {
                return;
            }
            monitor.stop();
        });
        monitor.run(batches::add);

        assertThat(notices).filteredOn(n -> n.contains("cycles")).hasSize(1);
        assertThat(notices.getFirst()).contains("not supported");
        assertThat(monitor.unsupported()).containsExactly("cycles");
        List<Monitor.ThreadSample> spin = named(batches, "spin");
        double cpuClock = spin.stream()
                .mapToDouble(t -> t.sample().counters().get("cpu-clock"))
                .sum();
        double taskClock = spin.stream()
                .mapToDouble(t -> t.sample().counters().get("task-clock"))
                .sum();
        assertThat(cpuClock).as("perf's cpu-clock of the spinning thread, ms").isGreaterThan(0.4 * taskClock);
        assertThat(spin.getLast().metrics().get("c"))
                .as("an unsupported event's metric is a gap, not 0")
                .isNaN();
    }
}
