package dev.hetrace.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What went wrong, found and explained: calls (and interrupts) that took more than k times the
 * median of the same function on every core, each with what happened meanwhile on its core
 * (which task preempted it and for how long, whom it waited for, interrupts, lost events) and
 * who waited for its result; cores that went silent; tasks stuck until the end of the traces,
 * with the requests nobody answered.
 */
public final class Diagnosis {
    /** What an outlier is: a call of a function, an interrupt, or a task's activation (from a wake-up to its next wait). */
    public enum Kind {
        CALL("call"),
        INTERRUPT("irq"),
        ACTIVATION("activation");

        public final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * An interval that took more than k× the median {@code median} of the {@code peers} complete
     * intervals of the same kind and name: a call (row of {@link StateModel#calls()}, name a
     * function), an interrupt (row of {@link StateModel#irqs()}), or an activation of task
     * {@code task} (row −1, name −1: its peers are the activations of the tasks so named on every
     * core); what took its time; the waits of other tasks for the messages its task sent at its
     * end; the outliers nested in it (not listed apart).
     *
     * <p>A call of an OS thread ({@link StateModel#osThreads}) is compared with the same thread's
     * calls of the same function ({@code ownPeers}), and, when its scheduling is traced, by the
     * time it was not blocked ({@code measured}): a system call that waits for I/O or a lock is
     * not slow for its wait alone. Otherwise {@code measured} is the duration.
     *
     * @param running      the time its task ran on a core within it (−1: its scheduling is not traced)
     * @param runnable     the time it waited for a core after a wake-up (in {@code preempted} too)
     * @param interruptedBy the interrupts on its core while its task ran, by name, longest first
     * @param wokenBy      what ended the stretches it was blocked in (a task or an interrupt), longest first
     */
    public record Outlier(
            int row,
            Kind kind,
            int name,
            int task,
            int core,
            long start,
            long end,
            long median,
            int peers,
            long preempted,
            List<Waits.Share> preemptedBy,
            long blocked,
            List<Waits.Wait> waits,
            long irqNanos,
            boolean eventsLost,
            List<Waits.Wait> waitedForIt,
            int nested,
            long measured,
            boolean ownPeers,
            long running,
            long runnable,
            List<Part> interruptedBy,
            List<Part> wokenBy) {
        public long duration() {
            return end - start;
        }

        /** How many times the median it took; infinite when the median is 0 (then it took longer than ever usual). */
        public double ratio() {
            return median == 0 ? Double.POSITIVE_INFINITY : (double) measured / median;
        }
    }

    /** A share of an outlier's time: what (a task or an interrupt, by name), how long, how many times. */
    public record Part(String name, long nanos, int times) {}

    /** A trace whose events stop at {@code last}, long before the others end: a core that went silent. */
    public record Silent(int trace, int core, long last, long longestGap, List<Integer> openCalls) {}

    /**
     * A task stuck until the end of the traces: since {@code since}, in call {@code call} (or −1),
     * blocked when its scheduler says so, else silent; the requests it sent that were never
     * answered ({@code noReply}, rows of {@link StateModel#messages()}), and for each, the core it
     * went to ({@code to}, −1 when unknown).
     */
    public record Stuck(
            int task,
            int core,
            long since,
            int call,
            boolean blocked,
            long queue,
            List<Integer> noReply,
            List<Integer> to) {}

    /** The findings, with the model and waits they refer to. */
    public record Report(
            double k, List<Outlier> outliers, List<Silent> silent, List<Stuck> stuck, StateModel model, Waits waits) {}

    private Diagnosis() {}

    /** The default threshold: more than twice the median. */
    public static final double DEFAULT_K = 2.0;

    /** Findings with threshold {@code k} (an outlier lasts more than k × the median of its peers). */
    public static Report of(StateModel m, double k) {
        if (!(k > 1)) {
            throw new IllegalArgumentException("the outlier threshold must be more than 1 (the median itself)");
        }
        Waits w = Waits.of(m);
        List<Silent> silent = silent(m);
        boolean[] silentTrace = new boolean[m.traceNames().size()];
        for (Silent s : silent) {
            silentTrace[s.trace()] = true;
        }
        long[] callMedians = medians(m.calls(), m.names.size());
        List<Outlier> outliers = new ArrayList<>();
        outliers(m, w, k, Kind.CALL, m.calls(), outliers);
        outliers(m, w, k, Kind.INTERRUPT, m.irqs(), outliers);
        activations(m, w, k, outliers);
        outliers.sort((a, b) -> Long.compare(a.start(), b.start()));
        List<Stuck> stuck = stuck(m, w, k, callMedians, silentTrace);
        return new Report(k, List.copyOf(outliers), silent, stuck, m, w);
    }

    /** Per name, the median duration of the complete intervals, −1 with fewer than 3. */
    private static long[] medians(IntervalTable t, int names) {
        int[] counts = new int[names];
        for (int i = 0; i < t.size(); i++) {
            if (complete(t, i)) {
                counts[t.subject(i)]++;
            }
        }
        long[][] d = new long[names][];
        for (int n = 0; n < names; n++) {
            d[n] = new long[counts[n]];
        }
        Arrays.fill(counts, 0);
        for (int i = 0; i < t.size(); i++) {
            if (complete(t, i)) {
                int n = t.subject(i);
                d[n][counts[n]++] = t.duration(i);
            }
        }
        long[] out = new long[names];
        for (int n = 0; n < names; n++) {
            out[n] = d[n].length < 3 ? -1 : median(d[n]);
        }
        return out;
    }

    static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static boolean complete(IntervalTable t, int i) {
        return (t.flags(i) & (StateModel.START_UNKNOWN | StateModel.END_UNKNOWN)) == 0;
    }

    /** Whether interval {@code i} of {@code t} belongs to an OS thread's trace: a task of it, or a core of it for interrupts. */
    private static boolean ofOsThreads(StateModel m, Kind kind, IntervalTable t, int i) {
        int trace = kind == Kind.INTERRUPT
                ? m.cores().get(t.owner(i)).trace()
                : m.tasks().get(t.owner(i)).trace();
        return m.osThreads(trace);
    }

    /**
     * The intervals of {@code t} that stand out among their peers: a function's calls on every
     * core (an interrupt's occurrences), or an OS thread's own calls of the function, compared by
     * the time it was not blocked when its scheduling is traced. Among an OS's intervals, an
     * outlier must also lie beyond the far fence of their distribution (the third quartile plus
     * three times the interquartile range): their durations vary widely, and k× the median alone
     * would find hundreds in any busy system.
     */
    private static void outliers(StateModel m, Waits w, double k, Kind kind, IntervalTable t, List<Outlier> out) {
        int n = t.size();
        long[] measured = new long[n];
        long[] key = new long[n];
        for (int i = 0; i < n; i++) {
            boolean os = ofOsThreads(m, kind, t, i);
            int task = kind == Kind.INTERRUPT ? -1 : t.owner(i);
            measured[i] = os && task >= 0 && w.scheduled(task)
                    ? t.duration(i) - w.timeIn(task, StateModel.BLOCKED, t.start(i), t.end(i))
                    : t.duration(i);
            // peers: the same name, and for an OS thread's call the same thread
            key[i] = os && task >= 0 ? ((long) task << 32) | t.subject(i) : (1L << 62) | t.subject(i);
        }
        // the peer groups, numbered by key, and their complete intervals' values
        LongIntMap groupOf = new LongIntMap();
        int[] group = new int[n];
        int groups = 0;
        for (int i = 0; i < n; i++) {
            int g = groupOf.get(key[i]);
            if (g == LongIntMap.ABSENT) {
                g = groups++;
                groupOf.put(key[i], g);
            }
            group[i] = g;
        }
        int[] counts = new int[groups];
        for (int i = 0; i < n; i++) {
            if (complete(t, i)) {
                counts[group[i]]++;
            }
        }
        long[][] values = new long[groups][];
        for (int g = 0; g < groups; g++) {
            values[g] = new long[counts[g]];
        }
        Arrays.fill(counts, 0);
        for (int i = 0; i < n; i++) {
            if (complete(t, i)) {
                values[group[i]][counts[group[i]]++] = measured[i];
            }
        }
        // per group: the median, the far fence for an OS's intervals, the number of peers (0: too few to judge)
        long[] medianOf = new long[groups];
        long[] fenceOf = new long[groups];
        int[] peersOf = new int[groups];
        boolean[] osGroup = new boolean[groups];
        for (int i = 0; i < n; i++) {
            osGroup[group[i]] = (key[i] >>> 62) == 0;
        }
        for (int g = 0; g < groups; g++) {
            long[] v = values[g];
            if (v.length < (osGroup[g] ? 5 : 3)) {
                continue;
            }
            Arrays.sort(v);
            medianOf[g] = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            long q1 = v[v.length / 4];
            long q3 = v[(3 * v.length) / 4];
            fenceOf[g] = osGroup[g] ? q3 + 3 * (q3 - q1) : Long.MIN_VALUE;
            peersOf[g] = v.length;
        }
        Map<Integer, List<Integer>> found = new HashMap<>();
        for (int i = 0; i < n; i++) {
            int g = group[i];
            if (peersOf[g] == 0 || !complete(t, i)) {
                continue;
            }
            long med = medianOf[g];
            if (measured[i] > k * med && measured[i] - med >= 1_000 && measured[i] > fenceOf[g]) {
                found.computeIfAbsent(t.owner(i), x -> new ArrayList<>()).add(i);
            }
        }
        for (List<Integer> ofOwner : found.values()) {
            // an outlier inside an outlier of the same owner (a slow tile in a slow filter) is part of its story
            ofOwner.sort((a, b) -> t.start(a) != t.start(b)
                    ? Long.compare(t.start(a), t.start(b))
                    : Integer.compare(t.depth(a), t.depth(b)));
            Map<Integer, Integer> inside = new HashMap<>();
            Set<Integer> inner = new HashSet<>();
            ArrayDeque<Integer> open = new ArrayDeque<>();
            for (int i : ofOwner) {
                while (!open.isEmpty() && t.end(open.peek()) < t.end(i)) {
                    open.pop();
                }
                // calls (interrupts) nest: what is still open and ends after this one holds it
                if (!open.isEmpty() && t.depth(open.peek()) < t.depth(i)) {
                    inside.merge(open.peekLast(), 1, Integer::sum);
                    inner.add(i);
                } else {
                    open.push(i);
                }
            }
            for (int i : ofOwner) {
                if (inner.contains(i)) {
                    continue;
                }
                int g = group[i];
                int task = kind == Kind.INTERRUPT ? -1 : t.owner(i);
                int core = kind == Kind.INTERRUPT ? t.owner(i) : w.coreOf(task, t.start(i), t.end(i));
                out.add(explain(
                        m,
                        w,
                        kind,
                        i,
                        t.subject(i),
                        task,
                        core,
                        t.start(i),
                        t.end(i),
                        medianOf[g],
                        peersOf[g],
                        (t.flags(i) & StateModel.EVENTS_LOST) != 0,
                        inside.getOrDefault(i, 0),
                        measured[i],
                        (key[i] >>> 62) == 0));
            }
        }
    }

    /** An outlier, with what took its time on its core and who waited for it. */
    private static Outlier explain(
            StateModel m,
            Waits w,
            Kind kind,
            int row,
            int name,
            int task,
            int core,
            long s,
            long e,
            long median,
            int peers,
            boolean lost,
            int nested,
            long measured,
            boolean ownPeers) {
        boolean scheduled = task >= 0 && w.scheduled(task);
        List<Waits.Share> by = task >= 0 ? w.preemptedBy(task, core, s, e) : List.of();
        long runnable = scheduled ? w.timeIn(task, StateModel.RUNNABLE, s, e) : 0;
        long preempted = task >= 0 ? w.timeIn(task, StateModel.PREEMPTED, s, e) + runnable : 0;
        List<Waits.Wait> waits = task >= 0 ? w.of(task, s, e) : List.of();
        long blocked = task < 0
                ? 0
                : scheduled
                        ? w.timeIn(task, StateModel.BLOCKED, s, e) + w.timeIn(task, StateModel.WAITING, s, e)
                        : union(waits, s, e);
        long running = scheduled ? w.runningTime(task, s, e) : -1;
        List<Part> irqsBy = kind == Kind.INTERRUPT
                ? List.of()
                : scheduled ? w.interruptsOf(task, s, e) : core >= 0 ? w.interruptsOn(core, s, e) : List.of();
        long irqNanos = irqsBy.stream().mapToLong(Part::nanos).sum();
        List<Part> wokenBy = scheduled ? w.wakersOf(task, s, e) : List.of();
        List<Waits.Wait> waitedForIt = task >= 0 ? waitedFor(m, w, row, task, s, e) : List.of();
        return new Outlier(
                row,
                kind,
                name,
                task,
                core,
                s,
                e,
                median,
                peers,
                preempted,
                by,
                blocked,
                waits,
                irqNanos,
                lost,
                waitedForIt,
                nested,
                measured,
                ownPeers,
                running,
                runnable,
                irqsBy,
                wokenBy);
    }

    /**
     * Activations that took more than k× the median of the activations of the tasks of the same
     * name (the same task on each iteration, on each core): from the moment a task runs again
     * after a wait to its next wait, preemptions included. One that holds a slow call of its task
     * is told by that call.
     */
    private static void activations(StateModel m, Waits w, double k, List<Outlier> out) {
        IntervalTable st = m.taskStates();
        Map<String, List<long[]>> byName = new LinkedHashMap<>();
        for (int t = 0; t < m.tasks().size(); t++) {
            // an OS thread's activations are its own, told by its calls
            if (!w.scheduled(t)
                    || m.tasks().get(t).idle()
                    || m.osThreads(m.tasks().get(t).trace())) {
                continue;
            }
            long since = Long.MIN_VALUE;
            for (int row : w.states.rows(t)) {
                if (st.state(row) == StateModel.PREEMPTED) {
                    continue;
                }
                // a wait ends the activation begun at the end of the previous one (the first began before the trace)
                if (since != Long.MIN_VALUE && st.start(row) > since) {
                    byName.computeIfAbsent(m.tasks().get(t).name(), x -> new ArrayList<>())
                            .add(new long[] {t, since, st.start(row), st.flags(row) & StateModel.EVENTS_LOST});
                }
                since = (st.flags(row) & StateModel.END_UNKNOWN) != 0 ? Long.MIN_VALUE : st.end(row);
            }
        }
        // the calls found so far, by task, to tell the activations that hold one
        Map<Integer, List<Outlier>> callsByTask = new HashMap<>();
        for (Outlier o : out) {
            if (o.kind() == Kind.CALL) {
                callsByTask.computeIfAbsent(o.task(), x -> new ArrayList<>()).add(o);
            }
        }
        for (List<long[]> acts : byName.values()) {
            if (acts.size() < 3) {
                continue;
            }
            long median = median(acts.stream().mapToLong(a -> a[2] - a[1]).toArray());
            for (long[] a : acts) {
                int task = (int) a[0];
                long d = a[2] - a[1];
                if (d > k * median && d - median >= 1_000 && !holdsOutlier(callsByTask.get(task), a[1], a[2])) {
                    out.add(explain(
                            m,
                            w,
                            Kind.ACTIVATION,
                            -1,
                            -1,
                            task,
                            w.coreOf(task, a[1], a[2]),
                            a[1],
                            a[2],
                            median,
                            acts.size(),
                            a[3] != 0,
                            0,
                            d,
                            false));
                }
            }
        }
    }

    private static boolean holdsOutlier(List<Outlier> callsOfTask, long start, long end) {
        if (callsOfTask != null) {
            for (Outlier o : callsOfTask) {
                if (o.start() < end && o.end() > start) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The time covered by the waits, clipped to {@code [from, to]} (waits for several messages overlap). */
    private static long union(List<Waits.Wait> waits, long from, long to) {
        long[][] v = waits.stream()
                .map(x -> new long[] {Math.max(from, x.start()), Math.min(to, x.end())})
                .filter(x -> x[1] > x[0])
                .sorted((a, b) -> Long.compare(a[0], b[0]))
                .toArray(long[][]::new);
        long sum = 0;
        long reach = Long.MIN_VALUE;
        for (long[] x : v) {
            long start = Math.max(x[0], reach);
            if (x[1] > start) {
                sum += x[1] - start;
            }
            reach = Math.max(reach, x[1]);
        }
        return sum;
    }

    /** The waits of other tasks for the messages {@code task} sent during its call or right after it (before its next call). */
    private static List<Waits.Wait> waitedFor(StateModel m, Waits w, int call, int task, long start, long end) {
        int[] rows = w.calls.rows(task);
        int next = w.calls.after(task, end - 1);
        long limit = next < rows.length ? m.calls().start(rows[next]) : Long.MAX_VALUE;
        List<Waits.Wait> out = new ArrayList<>();
        MessageTable msg = m.messages();
        for (int i : w.sent(task, start, limit)) {
            // a message sent at the call's first instant belongs to it only if the sender says it was in it
            if (msg.sendTime(i) > start || w.sentIn(i) == call) {
                Waits.Wait x = w.ofMessage(i);
                if (x != null && x.task() != task) {
                    out.add(x);
                }
            }
        }
        return out;
    }

    /** Traces whose events stop long before the others' end: more than 3× their longest silence before, and 5 % of the span. */
    private static List<Silent> silent(StateModel m) {
        List<Silent> out = new ArrayList<>();
        long span = m.end() - m.begin();
        for (int trace = 0; trace < m.traceNames().size(); trace++) {
            long last = m.traceEnd(trace);
            if (m.traceBegin(trace) == Long.MIN_VALUE) {
                continue;
            }
            long quiet = m.end() - last;
            if (quiet > 3 * m.traceLongestGap(trace) && quiet > span / 20) {
                List<Integer> open = new ArrayList<>();
                IntervalTable c = m.calls();
                for (int i = 0; i < c.size(); i++) {
                    if ((c.flags(i) & StateModel.END_UNKNOWN) != 0
                            && m.tasks().get(c.owner(i)).trace() == trace) {
                        open.add(i);
                    }
                }
                int core = -1;
                for (int k = 0; k < m.cores().size() && core < 0; k++) {
                    if (m.cores().get(k).trace() == trace) {
                        core = k;
                    }
                }
                out.add(new Silent(trace, core, last, m.traceLongestGap(trace), open));
            }
        }
        return out;
    }

    private static List<Stuck> stuck(StateModel m, Waits w, double k, long[] medians, boolean[] silentTrace) {
        List<Stuck> out = new ArrayList<>();
        IntervalTable st = m.taskStates();
        IntervalTable c = m.calls();
        boolean[] scheduled = new boolean[m.tasks().size()];
        for (int i = 0; i < m.runs().size(); i++) {
            scheduled[m.runs().subject(i)] = true;
        }
        // the innermost call of each task still open at the end
        int[] open = new int[m.tasks().size()];
        int[] outer = new int[m.tasks().size()];
        Arrays.fill(open, -1);
        Arrays.fill(outer, -1);
        for (int i = 0; i < c.size(); i++) {
            if ((c.flags(i) & StateModel.END_UNKNOWN) != 0
                    && c.end(i) == m.traceEnd(m.tasks().get(c.owner(i)).trace())) {
                int t = c.owner(i);
                if (open[t] < 0 || c.depth(i) > c.depth(open[t])) {
                    open[t] = i;
                }
                if (outer[t] < 0 || c.depth(i) < c.depth(outer[t])) {
                    outer[t] = i;
                }
            }
        }
        for (int t = 0; t < m.tasks().size(); t++) {
            int trace = m.tasks().get(t).trace();
            if (open[t] < 0 || silentTrace[trace] || m.tasks().get(t).idle()) {
                continue;
            }
            int call = open[t];
            long since;
            boolean blocked;
            long queue = -1;
            if (scheduled[t]) {
                int last = -1;
                for (int row : w.states.rows(t)) {
                    if ((st.flags(row) & StateModel.END_UNKNOWN) != 0 && st.state(row) != StateModel.PREEMPTED) {
                        last = row;
                    }
                }
                if (last < 0 || st.start(last) < c.start(call)) {
                    continue; // running or preempted at the end, or switched out before the call: not stuck in it
                }
                since = st.start(last);
                blocked = st.state(last) == StateModel.BLOCKED;
                queue = st.subject(last);
            } else {
                since = lastActivity(m, w, t, c.start(call));
                blocked = false;
            }
            long med = medians[c.subject(call)];
            long openFor = m.traceEnd(trace) - c.start(call);
            if (med >= 0 && openFor <= k * med) {
                continue;
            }
            List<Integer> noReply = new ArrayList<>();
            List<Integer> to = new ArrayList<>();
            unanswered(m, t, c.start(outer[t]), noReply, to);
            if ((!scheduled[t] || m.osThreads(trace)) && noReply.isEmpty()) {
                // an application silent at the end, or an OS thread blocked in a system call (a daemon in
                // poll), with nothing outstanding: it may just have nothing to do
                continue;
            }
            out.add(new Stuck(t, w.coreOf(t, since, m.traceEnd(trace)), since, call, blocked, queue, noReply, to));
        }
        return out;
    }

    /** The last time {@code task} did anything at or after {@code from}: a call's entry, a send or a receive. */
    private static long lastActivity(StateModel m, Waits w, int task, long from) {
        long last = from;
        IntervalTable c = m.calls();
        for (int row : w.calls.rows(task)) {
            if (c.start(row) > last) {
                last = c.start(row);
            }
            if ((c.flags(row) & StateModel.END_UNKNOWN) == 0 && c.end(row) > last) {
                last = c.end(row);
            }
        }
        MessageTable msg = m.messages();
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendTask(i) == task && msg.sendTime(i) > last) {
                last = msg.sendTime(i);
            }
            if (msg.receiveTask(i) == task && msg.receiveTime(i) > last) {
                last = msg.receiveTime(i);
            }
        }
        return last;
    }

    /**
     * The messages {@code task} sent from {@code from} on that got no answer: their receiver never
     * took them, or never sent {@code task} anything after taking them. {@code to}: the core each went to.
     */
    private static void unanswered(StateModel m, int task, long from, List<Integer> noReply, List<Integer> to) {
        MessageTable msg = m.messages();
        Map<Long, Integer> queueCore = new HashMap<>();
        for (int i = 0; i < msg.size(); i++) {
            if (msg.receiveCore(i) >= 0 && msg.queue(i) >= 0) {
                queueCore.putIfAbsent(msg.queue(i), msg.receiveCore(i));
            }
        }
        // per task, the last time it sent {@code task} a message that {@code task} took
        Map<Integer, Long> lastAnswer = new HashMap<>();
        for (int j = 0; j < msg.size(); j++) {
            if (msg.receiveTask(j) == task && msg.sendTask(j) >= 0) {
                lastAnswer.merge(msg.sendTask(j), msg.sendTime(j), Math::max);
            }
        }
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendTask(i) != task || msg.sendTime(i) < from) {
                continue;
            }
            int receiver = msg.receiveTask(i);
            boolean answered = receiver >= 0 && lastAnswer.getOrDefault(receiver, Long.MIN_VALUE) >= msg.receiveTime(i);
            if (!answered) {
                noReply.add(i);
                int core = msg.receiveCore(i) >= 0 ? msg.receiveCore(i) : queueCore.getOrDefault(msg.queue(i), -1);
                to.add(core);
            }
        }
    }

    // ---------------------------------------------------------------- in words

    /** The findings in sentences, the most important first: what a user reads first. */
    public static List<String> summary(Report r) {
        return DiagnosisText.summary(r);
    }
}
