package dev.hetrace.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * KPTrace's statistics table: per context (cores busy, cores idle, tasks, interrupts,
 * functions) and per element of it, the run time in a range, its share of the range, how many
 * times it was switched to (or fired, or called), the shortest, longest and mean run, and the
 * shortest, longest and mean interval between the starts of consecutive occurrences.
 * Intervals are clipped to the range; those that only partly overlap count.
 */
public final class Statistics {
    private Statistics() {}

    /** The contexts, in the table's order. */
    public enum Context {
        CORE("core"), IDLE("idle"), TASK("task"), IRQ("irq"), FUNCTION("function");

        public final String label;

        Context(String label) {
            this.label = label;
        }
    }

    /**
     * One element of a context. Intervals between occurrences are −1 (min, max) and NaN (mean)
     * when it occurred fewer than twice. {@code selfNanos} is the time spent in the function
     * itself (its callees excluded; prorated for calls the range cuts), the run time elsewhere.
     */
    public record Row(Context context, String name, long totalNanos, double percent, long count, long minNanos,
                      long maxNanos, double avgNanos, long minIntervalNanos, long maxIntervalNanos,
                      double avgIntervalNanos, long selfNanos) {}

    /** The table for {@code [begin, end]} (ns on the reference clock). */
    public record Table(long begin, long end, List<Row> rows) {
        public List<Row> rows(Context c) {
            return rows.stream().filter(r -> r.context() == c).toList();
        }

        public Row row(Context c, String name) {
            return rows.stream().filter(r -> r.context() == c && r.name().equals(name)).findFirst().orElse(null);
        }
    }

    /** The table over the whole model. */
    public static Table of(StateModel m) {
        return of(m, m.begin(), m.end());
    }

    public static Table of(StateModel m, long begin, long end) {
        if (end < begin) {
            throw new IllegalArgumentException("the range ends before it begins");
        }
        boolean several = m.traceNames().size() > 1;
        List<Row> rows = new ArrayList<>();
        long span = end - begin;
        Groups core = new Groups();
        Groups idle = new Groups();
        Groups task = new Groups();
        // names made once per element, not per interval
        String[] taskNames = new String[m.tasks().size()];
        for (int k = 0; k < taskNames.length; k++) {
            taskNames[k] = taskName(m, k, several);
        }
        Map<Long, String> pairNames = new java.util.HashMap<>();
        IntervalTable runs = m.runs();
        for (int i = 0; i < runs.size(); i++) {
            String c = m.cores().get(runs.owner(i)).name();
            if (runs.state(i) == StateModel.IDLE) {
                idle.add(c, runs, i, begin, end);
            } else {
                core.add(c, runs, i, begin, end);
                task.add(taskNames[runs.subject(i)], runs, i, begin, end);
            }
        }
        Groups irq = new Groups();
        IntervalTable irqs = m.irqs();
        for (int i = 0; i < irqs.size(); i++) {
            int owner = irqs.owner(i);
            int subject = irqs.subject(i);
            String name = pairNames.computeIfAbsent(((long) owner << 32) | subject,
                k -> m.cores().get(owner).name() + "/" + m.name(subject));
            irq.add(name, irqs, i, begin, end);
        }
        pairNames.clear();
        Groups func = new Groups();
        IntervalTable calls = m.calls();
        for (int i = 0; i < calls.size(); i++) {
            int trace = m.tasks().get(calls.owner(i)).trace();
            int subject = calls.subject(i);
            String name = pairNames.computeIfAbsent(((long) trace << 32) | subject,
                k -> (several ? m.traceNames().get(trace) + "/" : "") + m.name(subject));
            func.add(name, calls, i, begin, end);
        }
        core.rows(Context.CORE, span, rows);
        idle.rows(Context.IDLE, span, rows);
        task.rows(Context.TASK, span, rows);
        irq.rows(Context.IRQ, span, rows);
        func.rows(Context.FUNCTION, span, rows);
        return new Table(begin, end, rows);
    }

    /** A task as the table names it: its name, its id when it has one, its trace when there are several. */
    public static String taskName(StateModel m, int task, boolean withTrace) {
        StateModel.Task t = m.tasks().get(task);
        return (withTrace ? m.traceNames().get(t.trace()) + "/" : "") + t.name() + (t.id() >= 0 ? "[" + t.id() + "]" : "");
    }

    /** Accumulators per element name, in the order first seen. */
    private static final class Groups {
        final Map<String, Acc> byName = new LinkedHashMap<>();

        void add(String name, IntervalTable t, int i, long begin, long end) {
            long s = t.start(i);
            long e = t.end(i);
            long cs = Math.max(s, begin);
            long ce = Math.min(e, end);
            if (!(cs < ce || (s == e && s >= begin && s <= end))) {
                return;
            }
            Acc a = byName.computeIfAbsent(name, k -> new Acc());
            long d = ce - cs;
            a.total += d;
            a.self += e > s ? (long) ((double) t.self(i) * d / (e - s)) : 0;
            a.min = Math.min(a.min, d);
            a.max = Math.max(a.max, d);
            a.starts.add(s);
        }

        void rows(Context c, long span, List<Row> out) {
            for (Map.Entry<String, Acc> en : byName.entrySet()) {
                Acc a = en.getValue();
                int n = a.starts.size();
                long[] starts = new long[n];
                for (int i = 0; i < n; i++) {
                    starts[i] = a.starts.get(i);
                }
                Arrays.sort(starts);
                long gmin = Long.MAX_VALUE;
                long gmax = -1;
                for (int i = 1; i < n; i++) {
                    long g = starts[i] - starts[i - 1];
                    gmin = Math.min(gmin, g);
                    gmax = Math.max(gmax, g);
                }
                double gavg = n > 1 ? (double) (starts[n - 1] - starts[0]) / (n - 1) : Double.NaN;
                out.add(new Row(c, en.getKey(), a.total, span > 0 ? 100.0 * a.total / span : 0, n, a.min, a.max,
                    (double) a.total / n, n > 1 ? gmin : -1, gmax, gavg, c == Context.FUNCTION ? a.self : a.total));
            }
        }
    }

    private static final class Acc {
        long total;
        long self;
        long min = Long.MAX_VALUE;
        long max;
        final LongColumn starts = new LongColumn();
    }
}
