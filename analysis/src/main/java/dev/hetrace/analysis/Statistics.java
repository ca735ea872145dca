package dev.hetrace.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
        CORE("core"),
        IDLE("idle"),
        TASK("task"),
        IRQ("irq"),
        FUNCTION("function"),
        /** Point events (those no interval is made of), per event name: how many, how far apart. */
        EVENT("event"),
        /** Point events per core (a stream of its own in an events-only trace) or trace: how many, how far apart. */
        STREAM("stream");

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
    public record Row(
            Context context,
            String name,
            long totalNanos,
            double percent,
            long count,
            long minNanos,
            long maxNanos,
            double avgNanos,
            long minIntervalNanos,
            long maxIntervalNanos,
            double avgIntervalNanos,
            long selfNanos) {}

    /** The table for {@code [begin, end]} (ns on the reference clock). */
    public record Table(long begin, long end, List<Row> rows) {
        public List<Row> rows(Context c) {
            return rows.stream().filter(r -> r.context() == c).toList();
        }

        public Row row(Context c, String name) {
            return rows.stream()
                    .filter(r -> r.context() == c && r.name().equals(name))
                    .findFirst()
                    .orElse(null);
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
        Scan scan = new Scan(m, begin, end, several);
        scan.run(false);
        if (scan.unsorted()) {
            // a few elements' starts came out of order: read again, for them only
            scan.run(true);
        }
        Groups core = scan.core;
        Groups idle = scan.idle;
        Groups task = scan.task;
        Groups irq = scan.irq;
        Groups func = scan.func;
        core.rows(Context.CORE, span, rows);
        idle.rows(Context.IDLE, span, rows);
        task.rows(Context.TASK, span, rows);
        irq.rows(Context.IRQ, span, rows);
        func.rows(Context.FUNCTION, span, rows);
        points(m, begin, end, several, rows);
        return new Table(begin, end, rows);
    }

    /**
     * The point events in the range, per event name and per core (or trace, for those on no
     * core): their count and the intervals between consecutive ones; no duration (min, max and
     * total are −1, −1 and 0).
     */
    private static void points(StateModel m, long begin, long end, boolean several, List<Row> out) {
        Map<String, Acc> byName = new LinkedHashMap<>();
        Map<String, Acc> byCore = new LinkedHashMap<>();
        Acc[] names = new Acc[m.eventNames.size()];
        Map<Integer, Acc> cores = new HashMap<>();
        // each trace's marks are in time order, trace after trace: an element's times are sorted
        // unless it spans traces, which the accumulator notices; then they are gathered in a second pass
        for (boolean collect : new boolean[] {false, true}) {
            boolean unsorted = false;
            for (int i = 0; i < m.marks(); i++) {
                long t = m.markTime(i);
                if (t < begin || t > end) {
                    continue;
                }
                int n = (int) m.marks.get(i, 1);
                Acc a = names[n];
                if (a == null) {
                    a = byName.computeIfAbsent(m.markName(i), k -> new Acc());
                    names[n] = a;
                }
                int c = m.markCore(i);
                Acc b = cores.computeIfAbsent(
                        c,
                        k -> byCore.computeIfAbsent(
                                k >= 0
                                        ? m.cores().get(k).name()
                                        : m.traceNames().get(-1 - k),
                                x -> new Acc()));
                for (Acc x : new Acc[] {a, b}) {
                    if (!collect) {
                        x.add(t, t, 0, begin, end);
                        unsorted |= !x.sorted;
                    } else if (!x.sorted) {
                        x.starts.add(t);
                    }
                }
            }
            if (!unsorted && !collect) {
                break;
            }
        }
        for (var g : List.of(Map.entry(Context.EVENT, byName), Map.entry(Context.STREAM, byCore))) {
            Groups groups = new Groups();
            groups.byName.putAll(g.getValue());
            List<Row> rows = new ArrayList<>();
            groups.rows(g.getKey(), end - begin, rows);
            for (Row r : rows) {
                out.add(new Row(
                        r.context(),
                        r.name(),
                        0,
                        0,
                        r.count(),
                        -1,
                        -1,
                        Double.NaN,
                        r.minIntervalNanos(),
                        r.maxIntervalNanos(),
                        r.avgIntervalNanos(),
                        0));
            }
        }
    }

    /** A task as the table names it: its name, its id when it has one, its trace when there are several. */
    public static String taskName(StateModel m, int task, boolean withTrace) {
        StateModel.Task t = m.tasks().get(task);
        return (withTrace ? m.traceNames().get(t.trace()) + "/" : "")
                + t.name()
                + (t.id() >= 0 ? "[" + t.id() + "]" : "");
    }

    /**
     * One pass over the tables, each interval in the range taken by its element's accumulator,
     * found by id (its name is made and looked up once per id). With {@code collect}, only the
     * starts of the elements whose starts came out of order are gathered, to be sorted.
     */
    private static final class Scan {
        final StateModel m;
        final long begin;
        final long end;
        final boolean several;
        final Groups core = new Groups();
        final Groups idle = new Groups();
        final Groups task = new Groups();
        final Groups irq = new Groups();
        final Groups func = new Groups();
        final Acc[] coreAcc;
        final Acc[] idleAcc;
        final Acc[] taskAcc;
        final int[] traceOfTask;
        /** Per core and interrupt; per trace and function. */
        final ByPair irqAcc;

        final ByPair funcAcc;

        Scan(StateModel m, long begin, long end, boolean several) {
            this.m = m;
            this.begin = begin;
            this.end = end;
            this.several = several;
            irqAcc = new ByPair((c, n) -> irq.acc(m.cores().get(c).name() + "/" + m.name(n)));
            funcAcc = new ByPair((t, n) -> func.acc((several ? m.traceNames().get(t) + "/" : "") + m.name(n)));
            int cores = m.cores().size();
            coreAcc = new Acc[cores];
            idleAcc = new Acc[cores];
            taskAcc = new Acc[m.tasks().size()];
            traceOfTask = new int[m.tasks().size()];
            for (int k = 0; k < traceOfTask.length; k++) {
                traceOfTask[k] = m.tasks().get(k).trace();
            }
        }

        boolean unsorted() {
            for (Groups g : List.of(core, idle, task, irq, func)) {
                for (Acc a : g.byName.values()) {
                    if (!a.sorted) {
                        return true;
                    }
                }
            }
            return false;
        }

        private void take(Acc a, IntervalTable.Block b, int j, boolean collect) {
            if (!collect) {
                a.add(b.start(j), b.end(j), b.self(j), begin, end);
            } else if (!a.sorted) {
                a.starts.add(b.start(j));
            }
        }

        /**
         * Each table read a block of rows at a time ({@link IntervalTable#read}), each in a method
         * of its own: one method with the three loops, and their accumulators inlined, took the
         * JIT's compiler a third of a second.
         */
        void run(boolean collect) {
            IntervalTable.Block b = new IntervalTable.Block();
            runs(b, collect);
            irqs(b, collect);
            calls(b, collect);
        }

        private void runs(IntervalTable.Block b, boolean collect) {
            IntervalTable runs = m.runs();
            for (int i = 0, n; (n = runs.read(i, Integer.MAX_VALUE, b)) > 0; i += n) {
                for (int j = 0; j < n; j++) {
                    if (inRange(b, j, begin, end)) {
                        run(b, j, collect);
                    }
                }
            }
        }

        private void irqs(IntervalTable.Block b, boolean collect) {
            IntervalTable irqs = m.irqs();
            for (int i = 0, n; (n = irqs.read(i, Integer.MAX_VALUE, b)) > 0; i += n) {
                for (int j = 0; j < n; j++) {
                    if (inRange(b, j, begin, end)) {
                        take(irqAcc.of(b.owner(j), b.subject(j)), b, j, collect);
                    }
                }
            }
        }

        private void calls(IntervalTable.Block b, boolean collect) {
            IntervalTable calls = m.calls();
            for (int i = 0, n; (n = calls.read(i, Integer.MAX_VALUE, b)) > 0; i += n) {
                for (int j = 0; j < n; j++) {
                    if (inRange(b, j, begin, end)) {
                        take(funcAcc.of(traceOfTask[b.owner(j)], b.subject(j)), b, j, collect);
                    }
                }
            }
        }

        /** A run: its core's (busy or idle) and, when busy, its task's. */
        private void run(IntervalTable.Block b, int j, boolean collect) {
            int owner = b.owner(j);
            if (b.state(j) == StateModel.IDLE) {
                Acc a = idleAcc[owner];
                if (a == null) {
                    a = idle.acc(m.cores().get(owner).name());
                    idleAcc[owner] = a;
                }
                take(a, b, j, collect);
                return;
            }
            Acc a = coreAcc[owner];
            if (a == null) {
                a = core.acc(m.cores().get(owner).name());
                coreAcc[owner] = a;
            }
            take(a, b, j, collect);
            int subject = b.subject(j);
            Acc t = taskAcc[subject];
            if (t == null) {
                t = task.acc(taskName(m, subject, several));
                taskAcc[subject] = t;
            }
            take(t, b, j, collect);
        }
    }

    /** Whether interval {@code j} of the block counts in the range: it overlaps it, or is an instant in it. */
    private static boolean inRange(IntervalTable.Block b, int j, long begin, long end) {
        long s = b.start(j);
        long e = b.end(j);
        return Math.max(s, begin) < Math.min(e, end) || (s == e && s >= begin && s <= end);
    }

    /** Accumulators by a pair of ids (a core and an interrupt, a trace and a function), each found once by its name. */
    private static final class ByPair {
        interface Make {
            Acc acc(int a, int b);
        }

        final LongIntMap index = new LongIntMap();
        final List<Acc> accs = new ArrayList<>();
        final Make make;

        ByPair(Make make) {
            this.make = make;
        }

        Acc of(int a, int b) {
            long key = LongRows.pair(a, b);
            int k = index.get(key);
            if (k == LongIntMap.ABSENT) {
                k = accs.size();
                accs.add(make.acc(a, b));
                index.put(key, k);
            }
            return accs.get(k);
        }
    }

    /** Accumulators per element name, in the order first seen (elements of one name share one). */
    private static final class Groups {
        final Map<String, Acc> byName = new LinkedHashMap<>();

        Acc acc(String name) {
            return byName.computeIfAbsent(name, k -> new Acc());
        }

        void rows(Context c, long span, List<Row> out) {
            for (Map.Entry<String, Acc> en : byName.entrySet()) {
                Acc a = en.getValue();
                int n = (int) a.count;
                long gmin = a.gapMin;
                long gmax = a.gapMax;
                long first = a.firstStart;
                long last = a.lastStart;
                if (!a.sorted) {
                    // starts that came out of order (calls of one function that overlap): sorted here
                    long[] starts = new long[n];
                    for (int i = 0; i < n; i++) {
                        starts[i] = a.starts.get(i);
                    }
                    Arrays.sort(starts);
                    gmin = Long.MAX_VALUE;
                    gmax = -1;
                    for (int i = 1; i < n; i++) {
                        long g = starts[i] - starts[i - 1];
                        gmin = Math.min(gmin, g);
                        gmax = Math.max(gmax, g);
                    }
                    first = starts[0];
                    last = starts[n - 1];
                }
                double gavg = n > 1 ? (double) (last - first) / (n - 1) : Double.NaN;
                out.add(new Row(
                        c,
                        en.getKey(),
                        a.total,
                        span > 0 ? 100.0 * a.total / span : 0,
                        n,
                        a.min,
                        a.max,
                        (double) a.total / n,
                        n > 1 ? gmin : -1,
                        gmax,
                        gavg,
                        c == Context.FUNCTION ? a.self : a.total));
            }
        }
    }

    private static final class Acc {
        long total;
        long self;
        long min = Long.MAX_VALUE;
        long max;
        long count;
        /** The starts, gathered only when they came out of order. */
        final LongColumn starts = new LongColumn();
        /** Whether the starts came in order (the usual case): then the gaps are known as they come. */
        boolean sorted = true;

        long firstStart;
        long lastStart;
        long gapMin = Long.MAX_VALUE;
        long gapMax = -1;

        /**
         * The interval from {@code s} to {@code e} with self time {@code selfTime}, which
         * {@link #inRange} took, clipped to the range (its self time prorated when it is cut).
         */
        void add(long s, long e, long selfTime, long begin, long end) {
            long d = Math.min(e, end) - Math.max(s, begin);
            total += d;
            if (e > s) {
                self += d == e - s ? selfTime : (long) ((double) selfTime * d / (e - s));
            }
            min = Math.min(min, d);
            max = Math.max(max, d);
            if (count == 0) {
                firstStart = s;
            } else if (s >= lastStart) {
                gapMin = Math.min(gapMin, s - lastStart);
                gapMax = Math.max(gapMax, s - lastStart);
            } else {
                sorted = false;
            }
            lastStart = s;
            count++;
        }
    }
}
