package dev.hetrace.cli;

import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.monitor.Monitor;
import dev.hetrace.profile.monitor.MonitorRecording;
import dev.hetrace.profile.monitor.MonitorServer;
import dev.hetrace.profile.monitor.MonitorSettings;
import dev.hetrace.profile.monitor.ThreadStat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace monitor}: live per-thread metrics of a process in a browser, PMCTrackApp's view, saved as they come. */
@Command(
        name = "monitor",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Watch a process's threads live: per-thread metrics as graphs in a browser.",
            "",
            "Every interval, hetrace samples each thread of the process. From /proc: its",
            "time on a CPU (task-clock, ms), context switches, CPU migrations, page faults,",
            "user and system time. Through perf: any other event named in --events (hardware events",
            "when the machine's PMU has them; an unsupported event is named once).",
            "Metrics are formulas over these counters and 'interval' (the sample's length in",
            "ms), as in PMCTrackApp:",
            "  cpu=task-clock * 100 / interval     percent of one CPU (a default)",
            "  ipc=instructions / cycles           needs --events instructions,cycles",
            "",
            "The page has a graph per metric with a line per thread, the threads (green:",
            "ran in the last interval; grey: did not), pause/resume, a metric switch, more",
            "graphs, PNG and CSV export. The output folder gets, as the samples come: samples.csv,",
            "metrics.csv, monitor.json (the settings, for --config) and, at the end,",
            "campaign.json (one run with the per-thread samples, for the other analyses).",
            "Monitoring stops when the process exits (a summary per thread is printed), after",
            "--duration, or on Ctrl-C (the files are completed first).",
            "",
            "Examples:",
            "  hetrace monitor -- ./my-benchmark --size 4096",
            "  hetrace monitor --pid 1234 --interval 250",
            "  hetrace monitor --metric cpu='task-clock*100/interval' \\",
            "                  --metric cs='context-switches' -- make -j2",
            "  hetrace monitor --events cycles,instructions \\",
            "                  --metric ipc='instructions/cycles' -- ./app",
            "  hetrace monitor --no-serve --duration 5 -o run1 -- ./app   # record only",
            "  hetrace monitor --config run1/monitor.json --pid 1234      # same settings"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the process ended, or monitoring was stopped",
            "1:the process could not be started or" + " watched, or the server could not start",
            "2:usage error"
        })
final class MonitorCommand extends HetraceCommand {
    @Option(names = "--pid", paramLabel = "PID", description = "Watch this running process (instead of a command).")
    Long pid;

    @Option(
            names = "--metric",
            paramLabel = "NAME=FORMULA",
            description = "A metric (repeatable); the first one is graphed first."
                    + " Default: cpu (percent of one CPU), switches, faults and migrations (per second).")
    List<String> metrics = new ArrayList<>();

    @Option(
            names = "--events",
            split = ",",
            paramLabel = "E",
            description = "Events to count: /proc gives task-clock, context-switches, cpu-migrations, page-faults,"
                    + " minor-faults, major-faults; perf counts the others (e.g. cycles,instructions).")
    List<String> events = new ArrayList<>();

    @Option(names = "--interval", paramLabel = "MS", description = "Sampling interval in ms (default: 500).")
    Integer interval;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Settings saved by an earlier monitor (its monitor.json);"
                    + " --metric, --events and --interval override them.")
    Path config;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "DIR",
            description = "Where to save (default: a new" + " hetrace-monitor-DATE-TIME folder here).")
    Path output;

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            description = "Stop after this long (default: when the process ends).")
    double duration;

    @CommandLine.Mixin
    Serving.Options serving = new Serving.Options();

    @Option(names = "--no-serve", description = "Record only: no page.")
    boolean noServe;

    @Option(names = "--keep-serving", description = "Keep the page up after the process ended, until Ctrl-C.")
    boolean keepServing;

    @Parameters(paramLabel = "CMD", arity = "0..*", description = "The command to run and watch, after '--'.")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        if ((pid == null) == command.isEmpty()) {
            throw CommandFailure.usage(
                    "monitor: give either --pid PID or a command after '--' (e.g. hetrace monitor -- ./app)");
        }
        if (serving.invalid() != null) {
            throw CommandFailure.usage(serving.invalid());
        }
        if (duration < 0) {
            throw CommandFailure.usage("--duration " + duration + ": must not be negative");
        }
        MonitorSettings settings;
        try {
            settings = settings();
        } catch (ProfileException e) {
            throw CommandFailure.usage(e.getMessage(), e); // a setting of the command line refused
        }
        Path proc = Path.of("/proc");
        Process process = null;
        long target;
        String workload;
        if (pid != null) {
            target = pid;
            workload = "pid " + pid;
            try {
                workload = Files.readString(proc.resolve(pid + "/comm")).strip() + " (pid " + pid + ")";
            } catch (IOException e) {
                // gone: said below
            }
            if (!Files.isDirectory(proc.resolve(Long.toString(pid))) || ThreadStat.ended(proc, pid)) {
                throw new IllegalArgumentException("--pid " + pid + ": no such process");
            }
        } else {
            workload = String.join(" ", command);
            try {
                process = new ProcessBuilder(command).inheritIO().start();
            } catch (IOException e) {
                throw CommandFailure.in("cannot run '" + workload + "'", e);
            }
            target = process.pid();
        }
        Path dir = output != null ? output : freshFolder();
        MonitorRecording recording;
        try {
            recording = new MonitorRecording(dir, settings, workload);
        } catch (IOException e) {
            stop(process);
            throw CommandFailure.in("cannot save to " + dir, e);
        }
        MonitorServer server = null;
        if (!noServe) {
            try {
                server = new MonitorServer(
                                workload, target, settings, dir.toAbsolutePath().toString())
                        .start(serving.bind, serving.port);
            } catch (RuntimeException e) {
                stop(process);
                throw Serving.cannotServe(serving.bind, serving.port, e);
            }
        }
        MonitorServer page = server;
        Monitor monitor = new Monitor(proc, target, settings, n -> {
            main.err.println("hetrace monitor: " + n);
            if (page != null) {
                page.notice(n);
            }
        });
        main.err.printf(
                Locale.ROOT,
                "hetrace monitor: %s, every %d ms; saving to %s%n",
                pid != null ? workload : workload + " (pid " + target + ")",
                settings.intervalMs(),
                dir);
        if (server != null) {
            Serving.announce(main.err, "hetrace monitor", Serving.url(serving.bind, server.port()), serving.open);
        }
        main.err.flush();
        CountDownLatch saved = new CountDownLatch(1);
        boolean[] interrupted = {false};
        Thread hook = new Thread(() -> {
            interrupted[0] = true;
            monitor.stop();
            try {
                saved.await(10, TimeUnit.SECONDS); // Ctrl-C: let the files be finished before the JVM goes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        Thread timer = null;
        if (duration > 0) {
            timer = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep((long) (duration * 1000));
                    monitor.stop();
                } catch (InterruptedException e) {
                    // ended first
                }
            });
        }
        IOException failed = null;
        try {
            monitor.run(batch -> {
                try {
                    recording.write(batch);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                if (page != null) {
                    page.publish(batch);
                }
            });
        } catch (IOException e) {
            failed = e;
        } catch (UncheckedIOException e) {
            failed = e.getCause();
        }
        if (timer != null) {
            timer.interrupt();
        }
        String why;
        boolean ended = ThreadStat.ended(proc, target);
        if (interrupted[0]) {
            why = "stopped (Ctrl-C)";
        } else if (process != null && ended && waitFor(process)) {
            why = "'" + workload + "' exited with status " + process.exitValue();
        } else if (ended) {
            why = "process " + target + " ended";
        } else {
            why = "stopped after " + duration + " s";
        }
        try {
            Map<String, String> unsupported = new LinkedHashMap<>();
            monitor.unsupported()
                    .forEach(e -> unsupported.put(e, "not supported by this machine's PMU (perf: <not supported>)"));
            recording.close(monitor.elapsed(), unsupported);
        } catch (IOException e) {
            failed = failed != null ? failed : e;
        }
        if (interrupted[0]) {
            // Ctrl-C: the JVM ends as soon as the hook returns, so say it now
            main.err.println("hetrace monitor: " + why + "; saved in " + dir);
            main.err.flush();
            saved.countDown();
            return 0;
        }
        saved.countDown();
        if (!interrupted[0]) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down
            }
        }
        if (process != null && process.isAlive() && !interrupted[0]) {
            main.err.println("hetrace monitor: stopping '" + workload + "' (--duration is over)");
            stop(process);
        }
        main.err.println("hetrace monitor: " + why + "; saved in " + dir);
        if (failed != null) {
            closeServer(server, why);
            throw failed;
        }
        if (!interrupted[0]) {
            try {
                print(summary(monitor, settings));
            } catch (IOException e) {
                closeServer(server, why); // the page says the run is over, whatever became of the summary
                throw e;
            }
        }
        if (server != null) {
            server.end(why);
            if (keepServing && !interrupted[0]) {
                main.err.println("hetrace monitor: the page stays up (--keep-serving); Ctrl-C to stop");
                Serving.untilStopped(server::close);
            }
        }
        closeServer(server, why);
        return 0;
    }

    private static void closeServer(MonitorServer server, String why) {
        if (server != null) {
            server.end(why);
            server.close();
        }
    }

    private MonitorSettings settings() throws IOException {
        MonitorSettings base = config != null ? MonitorSettings.read(config) : null;
        List<Metric> ms = new ArrayList<>();
        for (String m : metrics) {
            ms.add(Metric.parse(m));
        }
        List<String> evs = new ArrayList<>();
        for (String e : events) {
            if (!e.isBlank()) {
                evs.add(e.strip());
            }
        }
        if (base == null) {
            evs.addAll(0, MonitorSettings.DEFAULT_EVENTS);
        }
        return new MonitorSettings(
                interval != null ? interval : base != null ? base.intervalMs() : 500,
                events.isEmpty() && base != null ? base.events() : evs,
                !ms.isEmpty() ? ms : base != null ? base.metrics() : MonitorSettings.DEFAULT_METRICS);
    }

    private static Path freshFolder() {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = Path.of("hetrace-monitor-" + stamp);
        for (int i = 2; Files.exists(dir); i++) {
            dir = Path.of("hetrace-monitor-" + stamp + "-" + i);
        }
        return dir;
    }

    /** Whether the process ended within a second (reaped, so that its exit status is known). */
    private static boolean waitFor(Process p) {
        try {
            return p.waitFor(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void stop(Process p) {
        if (p != null) {
            p.destroy();
        }
    }

    /** Per thread: its CPU time and share, its switches, migrations, faults and perf's events, over the whole monitoring. */
    static String summary(Monitor monitor, MonitorSettings settings) {
        double elapsed = monitor.elapsed();
        List<String> perf = settings.perfEvents();
        List<String[]> rows = new ArrayList<>();
        List<String> head =
                new ArrayList<>(List.of("thread", "tid", "cpu time (s)", "cpu %", "switches", "migrations", "faults"));
        head.addAll(perf);
        rows.add(head.toArray(String[]::new));
        Map<Long, String> names = monitor.names();
        double[] sum = new double[4 + perf.size()];
        for (var e : monitor.totals().entrySet()) {
            Map<String, Double> c = e.getValue();
            List<String> row = new ArrayList<>(List.of(names.getOrDefault(e.getKey(), ""), Long.toString(e.getKey())));
            double task = c.getOrDefault("task-clock", 0.0);
            row.add(String.format(Locale.ROOT, "%.3f", task / 1000));
            row.add(String.format(Locale.ROOT, "%.1f", elapsed > 0 ? task / 10 / elapsed : Double.NaN));
            String[] keys = {"context-switches", "cpu-migrations", "page-faults"};
            sum[0] += task;
            for (int k = 0; k < keys.length; k++) {
                double v = c.getOrDefault(keys[k], Double.NaN);
                sum[1 + k] += v;
                row.add(count(v));
            }
            for (int k = 0; k < perf.size(); k++) {
                double v = c.getOrDefault(perf.get(k), Double.NaN);
                sum[4 + k] += v;
                row.add(count(v));
            }
            rows.add(row.toArray(String[]::new));
        }
        List<String> total = new ArrayList<>(List.of("all threads", ""));
        total.add(String.format(Locale.ROOT, "%.3f", sum[0] / 1000));
        total.add(String.format(Locale.ROOT, "%.1f", elapsed > 0 ? sum[0] / 10 / elapsed : Double.NaN));
        for (int k = 1; k < sum.length; k++) {
            total.add(count(sum[k]));
        }
        rows.add(total.toArray(String[]::new));
        return String.format(
                        Locale.ROOT,
                        "%d thread(s) over %.1f s:%n",
                        monitor.totals().size(),
                        elapsed)
                + TextTable.render(rows, "  ", i -> i > 0);
    }

    private static String count(double v) {
        return Double.isNaN(v)
                ? "-"
                : v == Math.rint(v)
                        ? String.format(Locale.ROOT, "%,d", (long) v)
                        : String.format(Locale.ROOT, "%.1f", v);
    }
}
