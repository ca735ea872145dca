package dev.hetrace.profile.imports;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.EventClass;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CTF traces whose events carry perf counter context fields, as LTTng writes them after
 * {@code lttng add-context -t perf:thread:instructions} (fields {@code perf_thread_NAME}: the
 * thread's own counter) or {@code -t perf:cpu:cache-misses} ({@code perf_cpu_NAME}: the CPU's),
 * in the stream event context or the event context. The values are free-running counts, so a
 * sample is the difference with the previous event of the same thread ({@code perf_thread_*}) or
 * of the same CPU ({@code perf_cpu_*}, charged to the thread the event belongs to). The counter's
 * name is the field's without the prefix, underscores turned into perf's dashes
 * ({@code perf_thread_cache_misses} is {@code cache-misses}).
 *
 * <p>The thread is the context's {@code vtid} or {@code tid} (its process {@code vpid} or
 * {@code pid}, its name {@code procname}); without them, the thread a {@code sched_switch} last
 * switched to on the event's CPU ({@code next_tid}, {@code next_comm}). The CPU is the packet
 * context's {@code cpu_id}. One trace (all its streams) is one run: its runtime is from its
 * first event to its last; each sample is named after the event that took it.
 */
public final class CtfCounterImport {

    private record Counter(String path, String name, boolean perCpu) {}

    private record Fields(List<Counter> counters, String tid, String pid, String comm, String cpu, boolean sched) {}

    private CtfCounterImport() {}

    public static List<Run> read(Path trace) throws IOException {
        try (CtfReader reader = CtfReader.open(List.of(trace), w -> {})) {
            return List.of(read(trace, reader));
        } catch (MetadataException | StreamDecodingException e) {
            throw new ProfileException(trace + ": " + e.getMessage(), e);
        }
    }

    private static Run read(Path trace, CtfReader reader) throws StreamDecodingException {
        Map<EventClass, Fields> plans = new IdentityHashMap<>();
        Map<Long, Map<String, Double>> lastThread = new HashMap<>();
        Map<Integer, Map<String, Double>> lastCpu = new HashMap<>();
        Map<Integer, Long> running = new HashMap<>();
        Map<Integer, String> runningComm = new HashMap<>();
        Map<String, Double> totals = new TreeMap<>();
        List<Sample> samples = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        boolean anyCounter = false;
        while (reader.next()) {
            Event e = reader.event();
            Fields f = plans.computeIfAbsent(e.eventClass(), k -> plan(e));
            long time = e.hasTime() ? e.timeNanos() : Long.MIN_VALUE;
            if (e.hasTime()) {
                first = Math.min(first, time);
                last = Math.max(last, time);
            }
            int cpu = f.cpu == null ? -1 : (int) e.getLong(f.cpu);
            if (f.sched) {
                running.put(cpu, e.getLong("payload.next_tid"));
                runningComm.put(cpu, e.getString("payload.next_comm"));
            }
            if (f.counters.isEmpty()) {
                continue;
            }
            anyCounter = true;
            long tid;
            String comm = "";
            if (f.tid != null) {
                tid = e.getLong(f.tid);
                comm = f.comm == null ? "" : e.getString(f.comm);
            } else if (running.containsKey(cpu)) {
                tid = running.get(cpu);
                comm = runningComm.getOrDefault(cpu, "");
            } else {
                // no thread known yet on that CPU: the counts still belong to the CPU's history
                tid = -1;
            }
            long pid = f.pid == null ? tid : e.getLong(f.pid);
            Map<String, Double> delta = new LinkedHashMap<>();
            Map<String, Double> threadNow = lastThread.computeIfAbsent(tid, k -> new HashMap<>());
            Map<String, Double> cpuNow = lastCpu.computeIfAbsent(cpu, k -> new HashMap<>());
            for (Counter c : f.counters) {
                double v = unsigned(e.getLong(c.path));
                Map<String, Double> prev = c.perCpu ? cpuNow : threadNow;
                Double p = prev.put(c.name, v);
                if (p != null && v >= p) {
                    delta.put(c.name, v - p);
                }
            }
            if (!delta.isEmpty() && tid >= 0) {
                delta.forEach((k, v) -> totals.merge(k, v, Double::sum));
                samples.add(new Sample(Double.NaN, pid, tid, comm, cpu, e.name(), delta));
                times.add(time);
            }
        }
        if (!anyCounter) {
            throw new ProfileException(trace + ": no event carries perf counter context fields (perf_thread_* or"
                    + " perf_cpu_*; LTTng adds them with 'lttng add-context -t perf:thread:NAME')");
        }
        long start = first;
        List<Sample> relative = new ArrayList<>();
        for (int i = 0; i < samples.size(); i++) {
            Sample s = samples.get(i);
            long t = times.get(i);
            relative.add(new Sample(
                    t == Long.MIN_VALUE ? Double.NaN : (t - start) / 1e9,
                    s.pid(),
                    s.tid(),
                    s.thread(),
                    s.cpu(),
                    s.trigger(),
                    s.counters()));
        }
        double runtime = first == Long.MAX_VALUE ? Double.NaN : (last - first) / 1e9;
        return new Run(
                String.valueOf(trace.toAbsolutePath().normalize().getFileName()),
                Map.of(),
                0,
                runtime,
                Double.NaN,
                Double.NaN,
                totals,
                Map.of(),
                relative);
    }

    private static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2 + (v & 1);
    }

    /** Where an event class keeps its counters, thread and CPU. */
    private static Fields plan(Event e) {
        List<Counter> counters = new ArrayList<>();
        String tid = null;
        String pid = null;
        String comm = null;
        String cpu = null;
        for (String path : e.fieldNames()) {
            int dot = path.indexOf('.');
            String scope = path.substring(0, dot);
            String name = path.substring(dot + 1);
            String bare = name.startsWith("_") ? name.substring(1) : name;
            boolean context = scope.equals("context") || scope.equals("stream_context");
            if (context && bare.startsWith("perf_thread_")) {
                counters.add(new Counter(
                        path, bare.substring("perf_thread_".length()).replace('_', '-'), false));
            } else if (context && bare.startsWith("perf_cpu_")) {
                counters.add(
                        new Counter(path, bare.substring("perf_cpu_".length()).replace('_', '-'), true));
            } else if (context && (bare.equals("vtid") || bare.equals("tid") && tid == null)) {
                tid = path;
            } else if (context && (bare.equals("vpid") || bare.equals("pid") && pid == null)) {
                pid = path;
            } else if (context && bare.equals("procname")) {
                comm = path;
            } else if (scope.equals("packet_context") && bare.equals("cpu_id")) {
                cpu = path;
            }
        }
        boolean sched = e.name().equals("sched_switch") && e.has("payload.next_tid") && e.has("payload.next_comm");
        return new Fields(counters, tid, pid, comm, cpu, sched);
    }
}
