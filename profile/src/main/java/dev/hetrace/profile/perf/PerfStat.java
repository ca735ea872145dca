package dev.hetrace.profile.perf;

import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs a workload once under {@code perf stat -x,} and turns perf's CSV into a {@link Run}: the
 * counters, the runtime and the user/system split (perf's tool events {@code duration_time},
 * {@code user_time}, {@code system_time}), and every event perf could not count with the reason.
 * The workload's own output goes to a log file, never to hetrace's output. Pinning to a CPU runs
 * perf (and so the workload it starts) under {@code taskset}.
 */
public final class PerfStat {

    /** Software events every Linux kernel counts: asked for when no events are given. */
    public static final List<String> SOFTWARE_EVENTS =
            List.of("task-clock", "page-faults", "context-switches", "cpu-migrations");

    /** perf's tool events that give the runtime and the user/system split, in nanoseconds. */
    static final List<String> TIME_EVENTS = List.of("duration_time", "user_time", "system_time");

    /** The reason recorded for an event perf prints as {@code <not supported>}. */
    public static final String NOT_SUPPORTED =
            "not supported here (perf: <not supported>: the PMU, or the VM, does not expose it)";
    /** The reason recorded for an event perf prints as {@code <not counted>}. */
    public static final String NOT_COUNTED =
            "not counted (perf: <not counted>: no counter was free for it, or the workload ended first)";

    /** The waiter without the memory kernel: $0 is the status file, "$@" the workload. */
    private static final String SH_WAITER = "\"$@\"; s=$?; "
            + "if [ $s -gt 128 ]; then echo \"signal $((s - 128))\"; else echo \"exit $s\"; fi > \"$0\"; exit $s";

    private PerfStat() {}

    /**
     * One run's result: the run, and how the workload ended.
     *
     * @param exitStatus the workload's exit status, 128 + N when signal N ended it
     * @param ending     {@code exit N} or {@code signal N}
     */
    public record Measurement(Run run, int exitStatus, String ending) {
        /** "exited with status 3", "was killed by signal 9". */
        public String describe() {
            return ending.startsWith("signal ")
                    ? "was killed by signal " + ending.substring(7)
                    : "exited with status " + exitStatus;
        }
    }

    /** What perf's CSV says: counters, unsupported events, and the three times in seconds (NaN when absent). */
    public record Counts(
            Map<String, Double> counters,
            Map<String, String> unsupported,
            double runtimeSeconds,
            double userSeconds,
            double systemSeconds) {}

    /** Throws the one line to show when perf is not installed. */
    public static void requireInstalled() {
        if (!onPath("perf")) {
            throw new ProfileException("perf is not installed: install linux-perf (Debian: apt-get install linux-perf; "
                    + "Ubuntu: linux-tools-generic)");
        }
    }

    /**
     * Runs {@code command} once under perf stat with {@code events} (and the time events), pinned
     * to {@code cpu} unless it is negative, appending its output to {@code log}. The workload runs
     * under a waiter that records its exit status, perf's being unreliable: the memory kernel's
     * {@code mode=exec} when given (a fork and a wait), else {@code sh}; their own few page faults
     * and context switches are counted with the workload's.
     */
    public static Measurement measure(
            List<String> command,
            List<String> events,
            int cpu,
            Path log,
            Map<String, String> config,
            int repetition,
            Optional<MemoryKernel> waiter) {
        requireInstalled();
        requireCommand(command);
        List<String> asked = new ArrayList<>(new LinkedHashSet<>(events));
        List<String> all = new ArrayList<>(asked);
        TIME_EVENTS.stream().filter(e -> !all.contains(e)).forEach(all::add);
        List<String> cmd = new ArrayList<>();
        if (cpu >= 0) {
            if (!onPath("taskset")) {
                throw new ProfileException(
                        "--cpu needs taskset, which is not installed (Debian: apt-get install util-linux)");
            }
            cmd.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
        }
        Path csv;
        Path statusFile;
        try {
            Path parent = log.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            csv = Files.createTempFile(parent, "perf-stat", ".csv");
            statusFile = Files.createTempFile(parent, "status", ".txt");
            Files.writeString(
                    log,
                    "=== repetition " + (repetition + 1) + " " + config + ": " + String.join(" ", command) + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new ProfileException("cannot write " + log + ": " + e.getMessage(), e);
        }
        cmd.addAll(List.of("perf", "stat", "-x,", "-o", csv.toString(), "-e", String.join(",", all), "--"));
        if (waiter.isPresent()) {
            cmd.addAll(List.of(waiter.get().binary().toString(), "mode=exec", "status=" + statusFile, "--"));
        } else {
            cmd.addAll(List.of("sh", "-c", SH_WAITER, statusFile.toString()));
        }
        cmd.addAll(command);
        try {
            long logStart = Files.size(log);
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
            int status;
            try {
                status = p.waitFor();
            } catch (InterruptedException e) {
                p.descendants().forEach(ProcessHandle::destroy);
                p.destroy();
                Thread.currentThread().interrupt();
                throw new ProfileException("interrupted: the workload was stopped");
            }
            String text = Files.readString(csv);
            String ending = Files.readString(statusFile).strip();
            Files.deleteIfExists(csv);
            Files.deleteIfExists(statusFile);
            if (ending.isEmpty()) {
                ending = "exit " + status;
            } else {
                int n = Integer.parseInt(ending.substring(ending.indexOf(' ') + 1));
                status = ending.startsWith("signal") ? 128 + n : n;
            }
            if (text.lines().noneMatch(l -> !l.isBlank() && !l.startsWith("#"))) {
                throw new ProfileException(
                        "perf stat failed (exit status " + status + "): " + perfMessage(log, logStart));
            }
            Counts c = parse(text);
            Map<String, Double> counters = new LinkedHashMap<>(c.counters());
            Map<String, String> unsupported = new LinkedHashMap<>(c.unsupported());
            for (String t : TIME_EVENTS) {
                if (!asked.contains(t)) {
                    counters.remove(t);
                    unsupported.remove(t);
                }
            }
            Run run = new Run(
                    String.join(" ", command),
                    config,
                    repetition,
                    c.runtimeSeconds(),
                    c.userSeconds(),
                    c.systemSeconds(),
                    counters,
                    unsupported,
                    List.of());
            return new Measurement(run, status, ending);
        } catch (IOException e) {
            throw new ProfileException("cannot run perf: " + e.getMessage(), e);
        }
    }

    /**
     * Parses {@code perf stat -x,} output: {@code value,unit,event,run time,% enabled,metric,metric
     * unit} per event, comment lines ignored. Values are kept as perf prints them (task-clock in
     * msec); {@code <not supported>} and {@code <not counted>} events go to {@code unsupported},
     * except user_time and system_time, which perf prints as not counted when they are zero, and
     * duration_time, whose absence leaves the runtime unknown (NaN).
     */
    public static Counts parse(String csv) {
        Map<String, Double> counters = new LinkedHashMap<>();
        Map<String, String> unsupported = new LinkedHashMap<>();
        int n = 0;
        for (String line : csv.split("\n")) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length < 3) {
                throw new ProfileException("perf stat output line " + n + ": expected value,unit,event,...: " + line);
            }
            String value = f[0].strip();
            String event = f[2].strip();
            if (value.equals("<not supported>") || value.equals("<not counted>")) {
                if (event.equals("user_time") || event.equals("system_time")) {
                    counters.put(event, 0.0);
                } else if (event.equals("duration_time")) {
                    continue;
                } else {
                    unsupported.put(event, value.equals("<not supported>") ? NOT_SUPPORTED : NOT_COUNTED);
                }
                continue;
            }
            try {
                counters.merge(event, Double.parseDouble(value), Double::sum);
            } catch (NumberFormatException e) {
                throw new ProfileException("perf stat output line " + n + ": '" + value + "' is not a count: " + line);
            }
        }
        return new Counts(
                counters,
                unsupported,
                seconds(counters.get("duration_time")),
                seconds(counters.get("user_time")),
                seconds(counters.get("system_time")));
    }

    private static double seconds(Double nanos) {
        return nanos == null ? Double.NaN : nanos / 1e9;
    }

    /** The first lines perf wrote this repetition, in one line, with what they usually mean. */
    private static String perfMessage(Path log, long from) throws IOException {
        String text;
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            f.seek(from);
            byte[] b = new byte[(int) Math.min(4096, f.length() - from)];
            f.readFully(b);
            text = new String(b, StandardCharsets.UTF_8);
        }
        List<String> lines = text.lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .limit(3)
                .toList();
        String joined = String.join(" ", lines);
        if (joined.contains("perf_event_paranoid")) {
            return "this user may not measure (kernel.perf_event_paranoid is " + paranoid()
                    + "; 2 or less lets a user measure their own processes: sysctl kernel.perf_event_paranoid=2)";
        }
        if (joined.contains("event syntax error")) {
            return lines.getFirst() + " (see 'perf list' for the events this machine knows)";
        }
        return joined.isEmpty() ? "no message" : joined;
    }

    private static String paranoid() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid"))
                    .strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** A command that does not exist is one clear line here rather than perf's "Workload failed". */
    static void requireCommand(List<String> command) {
        if (command.isEmpty()) {
            throw new ProfileException("no workload: give the command after '--' (e.g. -- ./my-benchmark 512)");
        }
        String c = command.getFirst();
        if (c.contains("/")) {
            Path p = Path.of(c);
            if (!Files.exists(p)) {
                throw new ProfileException("workload '" + c + "': no such file");
            }
            if (!Files.isExecutable(p) || Files.isDirectory(p)) {
                throw new ProfileException("workload '" + c + "': not an executable file");
            }
        } else if (!onPath(c)) {
            throw new ProfileException("workload '" + c + "': no such command on the PATH");
        }
    }

    static boolean onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p) && !Files.isDirectory(p)) {
                return true;
            }
        }
        return false;
    }
}
