package dev.hetrace.profile.monitor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The events /proc does not give, counted per thread by {@code perf stat -x, --per-thread -I MS
 * -e E... -p PID}: each interval line adds to the thread's pending counts, which the monitor
 * takes at its own ticks ({@link #drain}). perf's intervals and the monitor's are not aligned,
 * so a count may show one interval late; totals are exact.
 *
 * <p>perf attaches to the threads that exist when it starts: a thread created later is counted
 * in its creator's line (perf's inheritance), not in a line of its own. A thread that did not
 * run in an interval is {@code <not counted>} there, which is a count of 0; an event the PMU
 * does not have is {@code <not supported>} on every line, and is reported once ({@link #unsupported}).
 */
public final class PerfThreads implements AutoCloseable {

    /** One line of {@code perf stat -x, --per-thread -I}: the thread {@code comm-tid}, the event, its count (NaN: not counted). */
    public record Line(double time, String thread, long tid, double value, String event, boolean supported) {

        /** The line, or null when it is not an interval line (perf's errors and warnings). */
        public static Line parse(String text) {
            String[] f = text.strip().split(",", -1);
            if (f.length < 5) {
                return null;
            }
            double time;
            try {
                time = Double.parseDouble(f[0]);
            } catch (NumberFormatException e) {
                return null;
            }
            int dash = f[1].lastIndexOf('-');
            long tid;
            try {
                tid = Long.parseLong(f[1].substring(dash + 1));
            } catch (NumberFormatException e) {
                return null;
            }
            String thread = dash > 0 ? f[1].substring(0, dash) : "";
            String v = f[2];
            boolean supported = !v.equals("<not supported>");
            double value;
            if (v.startsWith("<")) {
                value = Double.NaN;
            } else {
                try {
                    value = Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    return null;
                }
            }
            return new Line(time, thread, tid, value, f[4], supported);
        }
    }

    /** Where perf is looked for, in this order. */
    static final List<Path> PERF = List.of(Path.of("/usr/bin/perf"), Path.of("/usr/local/bin/perf"));

    private final Process process;
    private final Thread reader;
    private final Map<Long, Map<String, Double>> pending = new HashMap<>();
    private final Set<String> unsupported = new LinkedHashSet<>();
    private final List<String> errors = new ArrayList<>();
    private boolean counted;

    private PerfThreads(Process process, Consumer<String> notices) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("perf-reader").start(() -> read(notices));
    }

    /** perf's path, or null when it is not installed. */
    public static Path perf() {
        return PERF.stream().filter(Files::isExecutable).findFirst().orElse(null);
    }

    /** Starts counting {@code events} on the threads of {@code pid}; {@code notices} hears of unsupported events and perf's errors. */
    public static PerfThreads start(Path perf, long pid, List<String> events, int intervalMs, Consumer<String> notices)
            throws IOException {
        List<String> cmd = List.of(
                perf.toString(),
                "stat",
                "-x,",
                "--per-thread",
                "-I",
                Integer.toString(intervalMs),
                "-e",
                String.join(",", events),
                "-p",
                Long.toString(pid));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        return new PerfThreads(p, notices);
    }

    private void read(Consumer<String> notices) {
        double lastTime = -1;
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String text; (text = r.readLine()) != null; ) {
                Line line = Line.parse(text);
                if (line == null) {
                    if (!text.isBlank()) {
                        synchronized (this) {
                            errors.add(text.strip());
                        }
                    }
                    continue;
                }
                synchronized (this) {
                    if (line.time() != lastTime && lastTime >= 0) {
                        report(notices);
                    }
                    lastTime = line.time();
                    counted = true;
                    if (!line.supported()) {
                        unsupported.add(line.event());
                        continue;
                    }
                    if (!Double.isNaN(line.value())) {
                        pending.computeIfAbsent(line.tid(), t -> new HashMap<>())
                                .merge(line.event(), line.value(), Double::sum);
                    }
                }
            }
        } catch (IOException e) {
            // perf ended
        }
        synchronized (this) {
            report(notices);
            if (!counted && !errors.isEmpty()) {
                notices.accept("perf stat could not count: "
                        + String.join(" / ", errors.subList(0, Math.min(3, errors.size()))));
            }
        }
    }

    private final Set<String> reported = new LinkedHashSet<>();

    private void report(Consumer<String> notices) {
        if (!reported.containsAll(unsupported)) {
            List<String> fresh =
                    unsupported.stream().filter(e -> !reported.contains(e)).toList();
            reported.addAll(fresh);
            notices.accept("not supported on this machine (perf: <not supported>, the PMU does not expose them): "
                    + String.join(", ", fresh));
        }
    }

    /** The counts of each thread since the previous drain. */
    public synchronized Map<Long, Map<String, Double>> drain() {
        Map<Long, Map<String, Double>> out = new LinkedHashMap<>(pending);
        pending.clear();
        return out;
    }

    /** The events perf said this machine cannot count. */
    public synchronized Set<String> unsupported() {
        return Set.copyOf(unsupported);
    }

    /** Whether perf has printed its first interval (before, a thread without counts is unknown, not idle). */
    public synchronized boolean reporting() {
        return counted;
    }

    /** Whether perf still runs. */
    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void close() {
        process.destroy(); // SIGTERM: perf prints its last interval and exits
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
    }
}
