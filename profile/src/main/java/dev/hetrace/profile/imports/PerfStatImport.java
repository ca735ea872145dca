package dev.hetrace.profile.imports;

import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * {@code perf stat -x,} output (what {@code -o FILE} or stderr holds), one run per file. Each
 * line is {@code [TIME,][THREAD-TID,|CPUn,]VALUE,UNIT,EVENT,[STDDEV%,]RUNTIME,PERCENT[,METRIC,METRIC-UNIT]}:
 * {@code TIME} with {@code -I} (intervals), {@code comm-tid} with {@code --per-thread},
 * {@code CPUn} with {@code -A}, and the relative standard deviation with {@code -r} (the value is
 * then the mean over the repeats). {@code <not supported>} and {@code <not counted>} values are
 * kept as unsupported events with that reason. Lines starting with {@code #} and blank lines
 * are skipped.
 *
 * <p>Values keep perf's units ({@code task-clock} in msec). The run's runtime is the
 * {@code duration_time} event when measured (ns), else the last interval's time with
 * {@code -I}; user and system times come from the {@code user_time} and {@code system_time}
 * events (ns). With {@code -I} or {@code --per-thread}, each interval of each thread is a
 * sample (per-thread totals without {@code -I} have no time), and the run's counters are the
 * sums over them.
 */
public final class PerfStatImport {

    private static final Pattern NUMBER = Pattern.compile("\\s*[-+]?\\d+(\\.\\d+)?([eE][-+]?\\d+)?\\s*");
    private static final Pattern THREAD = Pattern.compile("(.+)-(\\d+)");
    private static final Pattern CPU = Pattern.compile("CPU(\\d+)");

    private PerfStatImport() {}

    public static List<Run> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Map<String, Double> totals = new TreeMap<>();
        Map<String, String> unsupported = new TreeMap<>();
        // samples keyed by (time, thread/cpu): one sample holds every event of that interval and thread
        Map<String, SampleBuilder> samples = new LinkedHashMap<>();
        double lastTime = Double.NaN;
        boolean any = false;
        for (int i = 0; i < lines.size(); i++) {
            int no = i + 1;
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            int at = 0;
            double time = Double.NaN;
            String thread = null;
            long tid = -1;
            int cpu = -1;
            // an interval's time is a number followed by a value or a thread: never by a unit
            if (f.length > 3
                    && NUMBER.matcher(f[0]).matches()
                    && (value(f[1])
                            || THREAD.matcher(f[1].strip()).matches()
                            || CPU.matcher(f[1].strip()).matches())) {
                time = Importer.number(file, no, f[0], "the interval's time");
                at = 1;
            }
            if (at < f.length && !value(f[at])) {
                var t = THREAD.matcher(f[at].strip());
                var c = CPU.matcher(f[at].strip());
                if (c.matches()) {
                    cpu = Integer.parseInt(c.group(1));
                    at++;
                } else if (t.matches()) {
                    thread = t.group(1);
                    tid = Long.parseLong(t.group(2));
                    at++;
                }
            }
            if (f.length < at + 3 || !value(f[at])) {
                throw Importer.malformed(
                        file,
                        no,
                        "not a perf stat -x, line (expected [TIME,][THREAD-TID,]VALUE,UNIT,EVENT,...): '" + line.strip()
                                + "'");
            }
            String v = f[at].strip();
            String event = f[at + 2].strip();
            if (event.isEmpty()) {
                throw Importer.malformed(file, no, "no event name in the third field after the value");
            }
            any = true;
            if (v.startsWith("<")) {
                unsupported.put(event, v.substring(1, v.length() - 1));
                continue;
            }
            double x = Importer.number(file, no, v, "the value of " + event);
            totals.merge(event, x, Double::sum);
            if (!Double.isNaN(time)) {
                lastTime = Double.isNaN(lastTime) ? time : Math.max(lastTime, time);
            }
            if (!Double.isNaN(time) || thread != null || cpu >= 0) {
                String key = time + "|" + tid + "|" + cpu;
                SampleBuilder s = samples.computeIfAbsent(key, k -> new SampleBuilder());
                s.time = time;
                s.tid = tid;
                s.thread = thread == null ? "" : thread;
                s.cpu = cpu;
                s.counters.put(event, x);
            }
        }
        if (!any) {
            throw Importer.malformed(file, Math.max(1, lines.size()), "no perf stat -x, counter lines in the file");
        }
        double runtime = seconds(totals.remove("duration_time"), lastTime);
        double user = seconds(totals.remove("user_time"), Double.NaN);
        double system = seconds(totals.remove("system_time"), Double.NaN);
        if (unsupported.containsKey("system_time") && !Double.isNaN(user)) {
            // perf says <not counted> for a system time that was zero
            system = 0;
            unsupported.remove("system_time");
        }
        List<Sample> list = new ArrayList<>();
        for (SampleBuilder s : samples.values()) {
            s.counters.keySet().removeAll(List.of("duration_time", "user_time", "system_time"));
            list.add(new Sample(s.time, s.tid, s.tid, s.thread, s.cpu, "tick", s.counters));
        }
        return List.of(new Run(
                String.valueOf(file.getFileName()), Map.of(), 0, runtime, user, system, totals, unsupported, list));
    }

    private static double seconds(Double ns, double otherwise) {
        return ns == null ? otherwise : ns / 1e9;
    }

    /** A counter value: a number or {@code <not supported>}/{@code <not counted>}. */
    private static boolean value(String s) {
        String t = s.strip();
        return NUMBER.matcher(t).matches() || t.startsWith("<not ");
    }

    private static final class SampleBuilder {
        double time;
        long tid;
        String thread;
        int cpu;
        final Map<String, Double> counters = new LinkedHashMap<>();
    }
}
