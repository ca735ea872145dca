package dev.hetrace.profile.perf;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Makes the runs of a campaign on this host: a workload under perf stat, N times, alone or
 * against a stressing co-runner on other cores ({@link #run}), or against each level of a
 * stressor after measuring what each level does alone ({@link #sweep}, METrICS' steps 1 and 2).
 * The workload's output goes to {@code workload.log} in the output folder.
 *
 * @param workload    the command to measure
 * @param label       what the runs call the workload (the command line, or the built-in kernel's spec)
 * @param events      the perf events to count
 * @param repeat      repetitions per configuration
 * @param cpu         the CPU the workload runs on, -1 for anywhere
 * @param stressCpus  the CPUs of the co-runner, one kernel per CPU
 * @param output      the output folder
 * @param kernel      the compiled memory kernel (the co-runner, and the waiter of the workload), empty
 *                    without gcc: the Java fallback co-runner, and sh as the waiter
 * @param progress    where progress lines go (stderr)
 */
public record CampaignRunner(
        List<String> workload,
        String label,
        List<String> events,
        int repeat,
        int cpu,
        List<Integer> stressCpus,
        Path output,
        Optional<MemoryKernel> kernel,
        Consumer<String> progress) {

    /** The log of the workload's own output. */
    public Path log() {
        return output.resolve("workload.log");
    }

    /** {@code repeat} runs, against the stressor at {@code level} when {@code stressor} is given. */
    public Campaign run(String name, StressorSpec stressor, int level) {
        resetLog();
        Map<String, String> config = new LinkedHashMap<>();
        if (stressor != null) {
            config.put("stress", Integer.toString(level));
            config.put("stressor", stressor.toString());
        }
        List<Run> runs = new ArrayList<>();
        for (int r = 0; r < repeat; r++) {
            runs.add(once(config, r, stressor, level, "repetition " + (r + 1) + "/" + repeat));
        }
        return new Campaign(name, host(stressor), runs, List.of());
    }

    /**
     * Step 1: the stressor alone at each level for {@code hardwareSeconds}; step 2: the workload
     * {@code repeat} times against each level, in rounds (every level once per round) so that a
     * drift of the machine spreads over all levels rather than biasing the last ones.
     */
    public Campaign sweep(String name, StressorSpec stressor, List<Integer> levels, double hardwareSeconds) {
        return sweep(name, stressor, levels, hardwareSeconds, null);
    }

    /**
     * As {@link #sweep(String, StressorSpec, List, double)}, the campaign recording how its slowdown
     * curve is drawn ({@code curve}, null for the defaults) for every later analysis of it.
     */
    public Campaign sweep(
            String name, StressorSpec stressor, List<Integer> levels, double hardwareSeconds, Campaign.Curve curve) {
        levels.forEach(Stressor::duty);
        resetLog();
        List<Map<String, String>> hardware = new ArrayList<>();
        for (int level : levels) {
            progress.accept(String.format(
                    Locale.ROOT,
                    "step 1: stressor %s alone at level %d for %.1f s",
                    stressor,
                    level,
                    level == 0 ? 0.0 : hardwareSeconds));
            StressReport r;
            try (Stressor s = Stressor.start(stressor, level, stressCpus, hardwareSeconds, kernel)) {
                r = s.awaitEnd();
            }
            Map<String, String> h = new LinkedHashMap<>();
            h.put("level", Integer.toString(level));
            h.put("duty_asked", String.format(Locale.ROOT, "%.4f", Stressor.duty(level)));
            h.putAll(r.fields());
            if (level == 0) {
                h.put("engine", "none");
            }
            hardware.add(h);
        }
        List<Run> runs = new ArrayList<>();
        int total = repeat * levels.size();
        int done = 0;
        for (int r = 0; r < repeat; r++) {
            for (int level : levels) {
                Map<String, String> config = new LinkedHashMap<>();
                config.put("stress", Integer.toString(level));
                config.put("stressor", stressor.toString());
                done++;
                runs.add(once(config, r, stressor, level, "step 2: run " + done + "/" + total + ", level " + level));
            }
        }
        runs.sort(java.util.Comparator.comparingInt(
                        (Run x) -> Integer.parseInt(x.config().get("stress")))
                .thenComparingInt(Run::repetition));
        return new Campaign(name, host(stressor), runs, hardware, curve);
    }

    private Run once(Map<String, String> config, int repetition, StressorSpec stressor, int level, String what) {
        PerfStat.Measurement m;
        if (stressor == null || level == 0) {
            m = PerfStat.measure(workload, events, cpu, log(), config, repetition, kernel);
        } else {
            try (Stressor s = Stressor.start(stressor, level, stressCpus, 0, kernel)) {
                m = PerfStat.measure(workload, events, cpu, log(), config, repetition, kernel);
                s.stop();
            }
        }
        if (m.exitStatus() != 0) {
            throw new ProfileException("the workload " + m.describe() + " (" + what
                    + (config.isEmpty() ? "" : ", " + config) + "); its output is in " + log());
        }
        progress.accept(String.format(Locale.ROOT, "%s: %.3f s", what, m.run().runtimeSeconds()));
        Run r = m.run();
        return new Run(
                label,
                r.config(),
                r.repetition(),
                r.runtimeSeconds(),
                r.userSeconds(),
                r.systemSeconds(),
                r.counters(),
                r.unsupported(),
                r.samples());
    }

    private void resetLog() {
        try {
            Files.createDirectories(output);
            Files.deleteIfExists(log());
        } catch (IOException e) {
            throw new ProfileException("cannot write in " + output + ": " + e.getMessage(), e);
        }
    }

    /** What the campaign ran on and how it was placed. */
    private Map<String, String> host(StressorSpec stressor) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("cpu_model", cpuModel());
        h.put("cpus", Integer.toString(Runtime.getRuntime().availableProcessors()));
        h.put("kernel", read("/proc/sys/kernel/osrelease"));
        h.put("perf_event_paranoid", read("/proc/sys/kernel/perf_event_paranoid"));
        CacheSizes c = CacheSizes.ofThisMachine();
        h.put(
                "caches",
                "l1d=" + CacheSizes.format(c.l1()) + " l2=" + CacheSizes.format(c.l2()) + " llc="
                        + CacheSizes.format(c.llc()));
        h.put("workload_cpu", cpu < 0 ? "any" : Integer.toString(cpu));
        h.put("workload_command", String.join(" ", workload));
        if (stressor != null) {
            h.put(
                    "stress_cpus",
                    stressCpus.stream()
                            .map(String::valueOf)
                            .reduce((a, b) -> a + "," + b)
                            .orElse(""));
            h.put("stressor_engine", kernel.isPresent() ? "gcc" : "java (gcc not installed)");
            h.put("stressor_bytes", Long.toString(stressor.bytes()));
            h.put("max_level", Integer.toString(Stressor.MAX_LEVEL));
        }
        return h;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
