package dev.hetrace.profile.imports;

import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Probe exports in the manner of METrICS (probes linked into the application read the
 * timestamp register and the counter registers, with the thread id, at chosen points; a
 * collector exports them): a CSV file defined by hetrace (docs/profiling.md, "Probe CSV").
 *
 * <pre>
 * # hetrace probes 1
 * run,config,time_ns,pid,tid,cpu,probe,l2_read_access,inst_retired
 * 0,stress=0,1000,100,100,0,begin,0,0
 * 0,stress=0,91000,100,100,0,end,1200,45000
 * </pre>
 *
 * Required columns: {@code run} (what tells runs apart), {@code time_ns} (the timestamp in ns),
 * {@code tid} and {@code probe} (the probe's name); optional {@code config} (labels
 * {@code key=value} separated by {@code ;}), {@code pid}, {@code cpu}, {@code thread} (a name)
 * and {@code workload}; every other column is a counter, whose cells are the register's
 * cumulative reading (empty: not read by that probe). Lines starting with {@code #} are
 * comments. A run's runtime is its last probe's time minus its first's; each probe after a
 * thread's first is a sample of the counts since that thread's previous probe; a run's counter
 * is the sum over its threads of last minus first reading. A reading lower than the previous
 * one of the same thread is an error (a register that wrapped must be widened by the exporter).
 */
public final class ProbeImport {

    private static final Set<String> KNOWN =
            Set.of("run", "config", "time_ns", "pid", "tid", "cpu", "probe", "thread", "workload");

    private ProbeImport() {}

    public static List<Run> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String[] header = null;
        Map<String, Integer> col = new HashMap<>();
        List<Integer> counterCols = new ArrayList<>();
        Map<String, RunBuilder> runs = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            int no = i + 1;
            String line = lines.get(i);
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (header == null) {
                header = f;
                for (int c = 0; c < f.length; c++) {
                    String name = f[c].strip();
                    if (name.isEmpty()) {
                        throw Importer.malformed(file, no, "column " + (c + 1) + " of the header has no name");
                    }
                    if (col.put(name, c) != null) {
                        throw Importer.malformed(file, no, "column '" + name + "' appears twice in the header");
                    }
                    if (!KNOWN.contains(name)) {
                        counterCols.add(c);
                    }
                }
                for (String need : List.of("run", "time_ns", "tid", "probe")) {
                    if (!col.containsKey(need)) {
                        throw Importer.malformed(
                                file,
                                no,
                                "the probe CSV header lacks the '" + need
                                        + "' column (needs run, time_ns, tid, probe)");
                    }
                }
                continue;
            }
            if (f.length != header.length) {
                throw Importer.malformed(
                        file, no, "expected " + header.length + " fields as in the header, found " + f.length);
            }
            String runId = f[col.get("run")].strip();
            RunBuilder r = runs.computeIfAbsent(runId, k -> new RunBuilder());
            if (r.firstLine == 0) {
                r.firstLine = no;
                r.config = col.containsKey("config") ? labels(file, no, f[col.get("config")]) : Map.of();
                r.workload = col.containsKey("workload") ? f[col.get("workload")].strip() : "";
            }
            double t = Importer.number(file, no, f[col.get("time_ns")], "time_ns");
            long tid = (long) Importer.number(file, no, f[col.get("tid")], "tid");
            long pid = col.containsKey("pid") ? (long) Importer.number(file, no, f[col.get("pid")], "pid") : tid;
            int cpu = col.containsKey("cpu") && !f[col.get("cpu")].isBlank()
                    ? (int) Importer.number(file, no, f[col.get("cpu")], "cpu")
                    : -1;
            String thread = col.containsKey("thread") ? f[col.get("thread")].strip() : "";
            String probe = f[col.get("probe")].strip();
            r.first = Math.min(r.first, t);
            r.last = Math.max(r.last, t);
            Map<String, Double> readings = new LinkedHashMap<>();
            for (int c : counterCols) {
                if (!f[c].isBlank()) {
                    readings.put(header[c].strip(), Importer.number(file, no, f[c], header[c].strip()));
                }
            }
            Map<String, Double> previous = r.lastReading.get(tid);
            if (previous != null) {
                Map<String, Double> delta = new LinkedHashMap<>();
                for (var e : readings.entrySet()) {
                    Double p = previous.get(e.getKey());
                    if (p == null) {
                        continue;
                    }
                    if (e.getValue() < p) {
                        throw Importer.malformed(
                                file,
                                no,
                                "counter " + e.getKey() + " of thread " + tid + " went backwards (" + fmt(p) + " then "
                                        + fmt(e.getValue()) + "): readings must be cumulative");
                    }
                    delta.put(e.getKey(), e.getValue() - p);
                }
                r.samples.add(new double[] {t}, new Sample(Double.NaN, pid, tid, thread, cpu, probe, delta));
                for (var e : delta.entrySet()) {
                    r.totals.merge(e.getKey(), e.getValue(), Double::sum);
                }
                previous.putAll(readings);
            } else {
                r.lastReading.put(tid, new LinkedHashMap<>(readings));
            }
        }
        if (header == null || runs.isEmpty()) {
            throw Importer.malformed(
                    file,
                    Math.max(1, lines.size()),
                    header == null ? "no probe CSV header" : "no probe rows after the header");
        }
        List<Run> out = new ArrayList<>();
        for (RunBuilder r : runs.values()) {
            String workload = r.workload.isEmpty() ? String.valueOf(file.getFileName()) : r.workload;
            out.add(new Run(
                    workload,
                    r.config,
                    0,
                    (r.last - r.first) / 1e9,
                    Double.NaN,
                    Double.NaN,
                    r.totals,
                    Map.of(),
                    r.samples.relativeTo(r.first)));
        }
        return out;
    }

    private static Map<String, String> labels(Path file, int no, String text) {
        Map<String, String> out = new TreeMap<>();
        for (String kv : text.split(";")) {
            if (kv.isBlank()) {
                continue;
            }
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw Importer.malformed(file, no, "config label '" + kv.strip() + "' is not key=value");
            }
            out.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
        }
        return out;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static final class RunBuilder {
        int firstLine;
        Map<String, String> config;
        String workload;
        double first = Double.POSITIVE_INFINITY;
        double last = Double.NEGATIVE_INFINITY;
        final Map<Long, Map<String, Double>> lastReading = new HashMap<>();
        final Map<String, Double> totals = new TreeMap<>();
        final Timed samples = new Timed();
    }

    /** Samples with their absolute time, given times from the run's start at the end. */
    private static final class Timed {
        final List<double[]> times = new ArrayList<>();
        final List<Sample> samples = new ArrayList<>();

        void add(double[] t, Sample s) {
            times.add(t);
            samples.add(s);
        }

        List<Sample> relativeTo(double start) {
            List<Sample> out = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                Sample s = samples.get(i);
                out.add(new Sample(
                        (times.get(i)[0] - start) / 1e9,
                        s.pid(),
                        s.tid(),
                        s.thread(),
                        s.cpu(),
                        s.trigger(),
                        s.counters()));
            }
            return out;
        }
    }
}
