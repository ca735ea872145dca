package dev.hetrace.profile.monitor;

import dev.hetrace.profile.ProfileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What Linux says about one thread in {@code /proc/PID/task/TID}: its name, the CPU it last ran
 * on, and its counts since it started. Every field is a running total; a sample is the
 * difference of two reads ({@link #counters}).
 *
 * <p>Sources: {@code stat} (name, minor and major faults, user and system time in clock ticks,
 * the CPU), {@code schedstat} (time on a CPU in ns, precise where {@code stat}'s times are in
 * ticks of 10 ms), {@code status} (voluntary and involuntary context switches) and {@code sched}
 * ({@code se.nr_migrations}; -1 when the kernel does not have that file).
 */
public record ThreadStat(
        long tid,
        String name,
        char state,
        int cpu,
        long runNs,
        long utimeTicks,
        long stimeTicks,
        long minorFaults,
        long majorFaults,
        long voluntarySwitches,
        long involuntarySwitches,
        long migrations,
        long readNanos) {

    /** A thread as its files tell it, read at no particular time. */
    public ThreadStat(
            long tid,
            String name,
            char state,
            int cpu,
            long runNs,
            long utimeTicks,
            long stimeTicks,
            long minorFaults,
            long majorFaults,
            long voluntarySwitches,
            long involuntarySwitches,
            long migrations) {
        this(
                tid,
                name,
                state,
                cpu,
                runNs,
                utimeTicks,
                stimeTicks,
                minorFaults,
                majorFaults,
                voluntarySwitches,
                involuntarySwitches,
                migrations,
                0);
    }

    /** The same, read at {@code nanos} ({@link System#nanoTime()} right after its run time was read). */
    ThreadStat readAt(long nanos) {
        return new ThreadStat(
                tid,
                name,
                state,
                cpu,
                runNs,
                utimeTicks,
                stimeTicks,
                minorFaults,
                majorFaults,
                voluntarySwitches,
                involuntarySwitches,
                migrations,
                nanos);
    }

    /**
     * The ms from {@code before}'s read to this one: the interval this thread's counts cover (the
     * threads of a process are read one after the other, so a busy machine delays some reads more
     * than others); {@code fallbackMs} when either read time is unknown.
     */
    public double intervalMs(ThreadStat before, double fallbackMs) {
        return before != null && before.readNanos > 0 && readNanos > 0
                ? (readNanos - before.readNanos) / 1e6
                : fallbackMs;
    }

    /** USER_HZ: the unit of {@code stat}'s times, 100 on every Linux architecture hetrace runs on. */
    static final double TICK_MS = 10;

    /** The counters a sample of a thread holds when read from /proc, in the order they are saved. */
    public static final List<String> COUNTERS = List.of(
            "task-clock",
            "context-switches",
            "cpu-migrations",
            "page-faults",
            "minor-faults",
            "major-faults",
            "voluntary-switches",
            "involuntary-switches",
            "user-time",
            "system-time");

    /**
     * The counts from {@code before} (null: the thread's start) to this read, by the names of
     * {@link #COUNTERS}: {@code task-clock}, {@code user-time} and {@code system-time} in ms as perf
     * gives task-clock, the others as counts.
     */
    public Map<String, Double> counters(ThreadStat before) {
        ThreadStat b = before != null ? before : new ThreadStat(tid, name, state, cpu, 0, 0, 0, 0, 0, 0, 0, 0);
        Map<String, Double> c = new LinkedHashMap<>();
        c.put("task-clock", (runNs - b.runNs) / 1e6);
        c.put("context-switches", (double)
                (voluntarySwitches - b.voluntarySwitches + involuntarySwitches - b.involuntarySwitches));
        c.put("cpu-migrations", migrations < 0 ? Double.NaN : (double) (migrations - Math.max(0, b.migrations)));
        c.put("page-faults", (double) (minorFaults - b.minorFaults + majorFaults - b.majorFaults));
        c.put("minor-faults", (double) (minorFaults - b.minorFaults));
        c.put("major-faults", (double) (majorFaults - b.majorFaults));
        c.put("voluntary-switches", (double) (voluntarySwitches - b.voluntarySwitches));
        c.put("involuntary-switches", (double) (involuntarySwitches - b.involuntarySwitches));
        c.put("user-time", (utimeTicks - b.utimeTicks) * TICK_MS);
        c.put("system-time", (stimeTicks - b.stimeTicks) * TICK_MS);
        return c;
    }

    /** Whether the process is gone: no {@code /proc/PID}, or a zombie (exited, not yet reaped). */
    public static boolean ended(Path proc, long pid) {
        try {
            String stat = Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state == 'Z' || state == 'X';
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * The threads of process {@code pid} as {@code proc} (normally {@code /proc}) shows them now,
     * by thread id; a thread that ends while it is read is left out, a gone process has none.
     */
    public static Map<Long, ThreadStat> threads(Path proc, long pid) {
        Path tasks = proc.resolve(Long.toString(pid)).resolve("task");
        List<Long> tids = new ArrayList<>();
        try (Stream<Path> s = Files.list(tasks)) {
            s.forEach(p -> {
                try {
                    tids.add(Long.parseLong(p.getFileName().toString()));
                } catch (NumberFormatException e) {
                    // not a thread
                }
            });
        } catch (IOException e) {
            return Map.of();
        }
        tids.sort(null);
        Map<Long, ThreadStat> threads = new LinkedHashMap<>();
        for (long tid : tids) {
            ThreadStat t = read(tasks.resolve(Long.toString(tid)), tid);
            if (t != null) {
                threads.put(tid, t);
            }
        }
        return threads;
    }

    /** One thread's files in {@code dir}; null when the thread ended meanwhile. */
    static ThreadStat read(Path dir, long tid) {
        try {
            String stat = Files.readString(dir.resolve("stat"));
            String schedstat = Files.readString(dir.resolve("schedstat"));
            long at = System.nanoTime();
            String status = Files.readString(dir.resolve("status"));
            String sched;
            try {
                sched = Files.readString(dir.resolve("sched"));
            } catch (NoSuchFileException e) {
                sched = "";
            }
            return parse(tid, stat, schedstat, status, sched).readAt(at);
        } catch (IOException e) {
            return null; // ended between the listing and the read (ESRCH reads as an IOException)
        }
    }

    /** A thread from the text of its {@code stat}, {@code schedstat}, {@code status} and {@code sched} files. */
    public static ThreadStat parse(long tid, String stat, String schedstat, String status, String sched) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new ProfileException("/proc/.../task/" + tid + "/stat: no '(name)' in: " + first(stat));
        }
        String name = stat.substring(open + 1, close);
        // after the name: field 3 (state) onwards, so field N is f[N - 3]
        String[] f = stat.substring(close + 1).strip().split(" +");
        if (f.length < 37) {
            throw new ProfileException(
                    "/proc/.../task/" + tid + "/stat: " + (f.length + 2) + " fields, expected at least 39");
        }
        String[] ss = schedstat.strip().split(" +");
        long runNs = ss.length >= 1 && !ss[0].isEmpty() ? Long.parseLong(ss[0]) : 0;
        return new ThreadStat(
                tid,
                name,
                f[0].charAt(0),
                Integer.parseInt(f[36]),
                runNs,
                Long.parseLong(f[11]),
                Long.parseLong(f[12]),
                Long.parseLong(f[7]),
                Long.parseLong(f[9]),
                field(status, "voluntary_ctxt_switches:"),
                field(status, "nonvoluntary_ctxt_switches:"),
                field(sched, "se.nr_migrations"));
    }

    /** The number after {@code key} (and a ':' or spaces) on its line of {@code text}; -1 when absent. */
    private static long field(String text, String key) {
        for (String line : text.split("\n")) {
            if (line.startsWith(key)) {
                String v = line.substring(key.length()).replace(":", " ").strip();
                try {
                    return Long.parseLong(v);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }

    private static String first(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s.strip();
    }
}
