package dev.hetrace.cli;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.Waits;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code hetrace waits} on traces whose threads' scheduling is traced with their wake-ups (a
 * Linux kernel trace): who woke whom, and the critical path of one thread over a range.
 */
final class ThreadPaths {
    private final StateModel m;
    private final Waits w;
    private final int task;
    private final long from;
    private final long to;
    private final String what;
    private final List<Waits.Segment> path;

    private ThreadPaths(StateModel m, Waits w, int task, long from, long to, String what) {
        this.m = m;
        this.w = w;
        this.task = task;
        this.from = from;
        this.to = to;
        this.what = what;
        this.path = w.threadPath(task, from, to);
    }

    /**
     * The thread paths to show: of {@code taskName} over {@code relative} (ns from the first
     * event; null: all), of the longest call of {@code function} when its task is a thread whose
     * scheduling is traced, else (no --task, no --path) of the thread that ran longest when the
     * model has wake-ups; null when the board's message waits are what to show.
     */
    static ThreadPaths of(StateModel m, Waits w, String taskName, String function, long[] relative) {
        if (taskName != null) {
            int t = find(m, taskName);
            long from = relative == null ? m.begin() : m.begin() + relative[0];
            long to = relative == null ? m.end() : Math.min(m.end(), m.begin() + relative[1]);
            if (from > m.end()) {
                throw new IllegalArgumentException("--range starts after the traces end");
            }
            return new ThreadPaths(m, w, t, from, to, "");
        }
        if (function != null) {
            int call = longestCall(m, function);
            int t = m.calls().owner(call);
            if (!w.scheduled(t) || m.wakeups() == 0) {
                return null;
            }
            return new ThreadPaths(m, w, t, m.calls().start(call), m.calls().end(call), "'s " + function);
        }
        if (m.wakeups() == 0) {
            return null;
        }
        // the thread that ran longest, over its life in the traces
        long[] ran = new long[m.tasks().size()];
        long[] first = new long[ran.length];
        long[] last = new long[ran.length];
        Arrays.fill(first, Long.MAX_VALUE);
        IntervalTable r = m.runs();
        for (int i = 0; i < r.size(); i++) {
            int t = r.subject(i);
            if (r.state(i) == StateModel.RUNNING) {
                ran[t] += r.duration(i);
                first[t] = Math.min(first[t], r.start(i));
                last[t] = Math.max(last[t], r.end(i));
            }
        }
        int best = -1;
        for (int t = 0; t < ran.length; t++) {
            if (!m.tasks().get(t).idle() && ran[t] > 0 && (best < 0 || ran[t] > ran[best])) {
                best = t;
            }
        }
        return best < 0 ? null : new ThreadPaths(m, w, best, first[best], last[best], "");
    }

    /** The task so named: "name[tid]" as the statistics show it, a tid, or a name that only one task has. */
    private static int find(StateModel m, String name) {
        List<Integer> found = new ArrayList<>();
        for (int t = 0; t < m.tasks().size(); t++) {
            StateModel.Task k = m.tasks().get(t);
            String shown = Statistics.taskName(m, t, false);
            if (shown.equals(name)
                    || Statistics.taskName(m, t, true).equals(name)
                    || k.name().equals(name)
                    || k.id() >= 0 && Long.toString(k.id()).equals(name)) {
                found.add(t);
            }
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException("--task " + name + ": no such task in the traces");
        }
        if (found.size() > 1) {
            List<String> names = found.stream()
                    .limit(5)
                    .map(t -> Statistics.taskName(m, t, m.traceNames().size() > 1))
                    .toList();
            throw new IllegalArgumentException("--task " + name + ": " + found.size() + " tasks have that name ("
                    + String.join(", ", names) + (found.size() > 5 ? ", ..." : "") + "): give one as name[tid]");
        }
        return found.getFirst();
    }

    /** The longest complete call of {@code function}. */
    static int longestCall(StateModel m, String function) {
        int id = m.nameId(function);
        if (id < 0) {
            throw new IllegalArgumentException("--path " + function + ": no call of that function in the traces");
        }
        IntervalTable c = m.calls();
        int best = -1;
        for (int i = 0; i < c.size(); i++) {
            if (c.subject(i) == id && c.flags(i) == 0 && (best < 0 || c.duration(i) > c.duration(best))) {
                best = i;
            }
        }
        if (best < 0) {
            throw new IllegalArgumentException("--path " + function + ": no complete call of that function");
        }
        return best;
    }

    private String name(int t) {
        return t < 0 ? "-" : Statistics.taskName(m, t, m.traceNames().size() > 1);
    }

    /** What woke whom: per woken task and waker, the wake-ups and the blocked time they ended (count, total, max). */
    private Map<String[], long[]> wakers() {
        Map<List<String>, long[]> out = new LinkedHashMap<>();
        boolean[] woken = new boolean[m.tasks().size()];
        for (int i = 0; i < m.wakeups(); i++) {
            woken[m.wakeupTask(i)] = true;
        }
        for (int t = 0; t < woken.length; t++) {
            if (!woken[t]) {
                continue;
            }
            for (Diagnosis.Part p : w.wakersOf(t, Long.MIN_VALUE, Long.MAX_VALUE)) {
                long[] a = out.computeIfAbsent(List.of(name(t), p.name()), k -> new long[3]);
                a[0] += p.times();
                a[1] += p.nanos();
                a[2] = Math.max(a[2], p.nanos() / Math.max(1, p.times()));
            }
        }
        Map<String[], long[]> sorted = new LinkedHashMap<>();
        out.entrySet().stream()
                .sorted((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]))
                .forEach(e -> sorted.put(e.getKey().toArray(String[]::new), e.getValue()));
        return sorted;
    }

    /** What a stretch was about: the core, the call, who ran instead, what woke it. */
    private String detail(Waits.Segment s) {
        String call = s.call() >= 0 ? m.name(m.calls().subject(s.call())) : null;
        return switch (s.doing()) {
            case RUNNING -> m.cores().get(s.core()).name() + (call != null ? " in " + call : "");
            case WAITING_FOR_CPU ->
                (s.core() >= 0 ? m.cores().get(s.core()).name() : "")
                        + (s.by() >= 0 ? " while " + name(s.by()) + " ran" : "");
            case BLOCKED ->
                (call != null ? "in " + call + ", " : "")
                        + (s.irq() >= 0
                                ? "woken by interrupt " + m.name(s.irq())
                                : s.by() >= 0
                                        ? "woken by " + name(s.by())
                                        : "until the range ends or woken by what the traces do not show");
            case MESSAGE -> "message " + m.messages().id(s.message()) + " from " + name(s.by());
            case UNKNOWN -> "not in the traces then";
        };
    }

    /** Consecutive stretches alike (same task, doing, core, call, cause) as one. */
    private List<Waits.Segment> merged() {
        List<Waits.Segment> out = new ArrayList<>();
        for (Waits.Segment s : path) {
            if (!out.isEmpty()) {
                Waits.Segment p = out.getLast();
                if (p.end() == s.start()
                        && p.task() == s.task()
                        && p.doing() == s.doing()
                        && p.core() == s.core()
                        && p.call() == s.call()
                        && p.by() == s.by()
                        && p.irq() == s.irq()
                        && p.message() == s.message()) {
                    out.set(
                            out.size() - 1,
                            new Waits.Segment(
                                    p.doing(),
                                    p.task(),
                                    p.core(),
                                    p.start(),
                                    s.end(),
                                    p.call(),
                                    p.by(),
                                    p.irq(),
                                    p.message()));
                    continue;
                }
            }
            out.add(s);
        }
        return out;
    }

    String text(int limit) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "%,d wake-ups, %d trace(s), %.3f s%n",
                m.wakeups(),
                m.traceNames().size(),
                (m.end() - m.begin()) / 1e9));
        Map<String[], long[]> wakers = wakers();
        if (!wakers.isEmpty()) {
            int shown = limit <= 0 ? wakers.size() : Math.min(limit, wakers.size());
            sb.append(String.format(
                    Locale.ROOT,
                    "%nwho woke whom%s:%n",
                    shown < wakers.size()
                            ? " (the " + shown + " of " + wakers.size() + " that ended the most blocked time)"
                            : ""));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"woken", "by", "count", "blocked ms", "avg ms", "max ms"});
            wakers.entrySet().stream()
                    .limit(shown)
                    .forEach(e -> rows.add(new String[] {
                        e.getKey()[0],
                        e.getKey()[1],
                        Long.toString(e.getValue()[0]),
                        DiagnoseCommand.ms(e.getValue()[1]),
                        DiagnoseCommand.ms(e.getValue()[1] / e.getValue()[0]),
                        DiagnoseCommand.ms(e.getValue()[2])
                    }));
            sb.append(TextTable.render(rows, "  ", i -> i >= 2));
        }
        sb.append(String.format(
                Locale.ROOT,
                "%ncritical path of %s%s from %s s to %s s (%s ms):%n",
                name(task),
                what,
                DiagnoseCommand.sec(m, from),
                DiagnoseCommand.sec(m, to),
                DiagnoseCommand.ms(to - from)));
        // where the time went: per thread (threads of one name together: a pool's workers) and what it did
        Map<List<String>, long[]> where = new LinkedHashMap<>();
        Map<List<String>, Set<Integer>> threads = new LinkedHashMap<>();
        for (Waits.Segment s : path) {
            String cause = switch (s.doing()) {
                case WAITING_FOR_CPU ->
                    s.by() >= 0 ? "while " + m.tasks().get(s.by()).name() + " ran" : "";
                case BLOCKED ->
                    s.irq() >= 0
                            ? "woken by interrupt " + m.name(s.irq())
                            : s.by() >= 0 ? "woken by " + m.tasks().get(s.by()).name() : "";
                case MESSAGE -> "from " + m.tasks().get(s.by()).name();
                default -> "";
            };
            List<String> key = List.of(m.tasks().get(s.task()).name(), s.doing().label, cause);
            where.computeIfAbsent(key, k -> new long[1])[0] += s.duration();
            threads.computeIfAbsent(key, k -> new HashSet<>()).add(s.task());
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"thread", "doing", "", "ms", "%"});
        where.entrySet().stream()
                .sorted((x, y) -> Long.compare(y.getValue()[0], x.getValue()[0]))
                .limit(limit <= 0 ? Long.MAX_VALUE : limit)
                .forEach(e -> {
                    Set<Integer> ts = threads.get(e.getKey());
                    rows.add(new String[] {
                        ts.size() == 1
                                ? name(ts.iterator().next())
                                : e.getKey().get(0) + " (" + ts.size() + " threads)",
                        e.getKey().get(1),
                        e.getKey().get(2),
                        DiagnoseCommand.ms(e.getValue()[0]),
                        String.format(Locale.ROOT, "%.1f", to > from ? 100.0 * e.getValue()[0] / (to - from) : 0)
                    });
                });
        sb.append(TextTable.render(rows, "  ", i -> i >= 3));
        List<Waits.Segment> seq = merged();
        List<Waits.Segment> shown = seq;
        if (limit > 0 && seq.size() > limit) {
            long cut = seq.stream()
                    .mapToLong(Waits.Segment::duration)
                    .sorted()
                    .skip(seq.size() - limit)
                    .findFirst()
                    .orElse(0);
            shown = new ArrayList<>();
            for (Waits.Segment s : seq) {
                if (s.duration() >= cut && shown.size() < limit) {
                    shown.add(s);
                }
            }
        }
        sb.append(String.format(
                Locale.ROOT,
                "%n%s:%n",
                shown.size() < seq.size()
                        ? "its " + shown.size() + " longest stretches of " + seq.size()
                                + ", in time order (--limit 0 shows them all)"
                        : "its stretches, in time order"));
        List<String[]> steps = new ArrayList<>();
        steps.add(new String[] {"from s", "to s", "ms", "task", "doing", ""});
        for (Waits.Segment s : shown) {
            steps.add(new String[] {
                DiagnoseCommand.sec(m, s.start()),
                DiagnoseCommand.sec(m, s.end()),
                DiagnoseCommand.ms(s.duration()),
                name(s.task()),
                s.doing().label,
                detail(s)
            });
        }
        sb.append(TextTable.render(steps, "  ", i -> i <= 2));
        return sb.toString();
    }

    String csv() {
        StringBuilder sb = new StringBuilder("start_ns,end_ns,task,doing,core,call,by,irq,message_id\n");
        for (Waits.Segment s : path) {
            sb.append(s.start())
                    .append(',')
                    .append(s.end())
                    .append(',')
                    .append(csvText(name(s.task())))
                    .append(',')
                    .append(s.doing().label)
                    .append(',')
                    .append(s.core() >= 0 ? csvText(m.cores().get(s.core()).name()) : "")
                    .append(',')
                    .append(s.call() >= 0 ? csvText(m.name(m.calls().subject(s.call()))) : "")
                    .append(',')
                    .append(s.by() >= 0 ? csvText(name(s.by())) : "")
                    .append(',')
                    .append(s.irq() >= 0 ? csvText(m.name(s.irq())) : "")
                    .append(',')
                    .append(s.message() >= 0 ? Long.toString(m.messages().id(s.message())) : "")
                    .append('\n');
        }
        return sb.toString();
    }

    private static String csvText(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    String json() {
        StringBuilder sb = new StringBuilder("{\"wakers\": [");
        String sep = "\n  ";
        for (var e : wakers().entrySet()) {
            sb.append(sep)
                    .append("{\"woken\": ")
                    .append(TextTable.quote(e.getKey()[0]))
                    .append(", \"by\": ")
                    .append(TextTable.quote(e.getKey()[1]))
                    .append(", \"count\": ")
                    .append(e.getValue()[0])
                    .append(", \"blocked_ns\": ")
                    .append(e.getValue()[1])
                    .append(", \"max_ns\": ")
                    .append(e.getValue()[2])
                    .append('}');
            sep = ",\n  ";
        }
        sb.append("\n],\n\"critical_path\": {\"task\": ")
                .append(TextTable.quote(name(task)))
                .append(", \"start_ns\": ")
                .append(from)
                .append(", \"end_ns\": ")
                .append(to)
                .append(", \"steps\": [");
        sep = "\n  ";
        for (Waits.Segment s : merged()) {
            sb.append(sep)
                    .append("{\"task\": ")
                    .append(TextTable.quote(name(s.task())))
                    .append(", \"doing\": \"")
                    .append(s.doing().label)
                    .append("\", \"start_ns\": ")
                    .append(s.start())
                    .append(", \"end_ns\": ")
                    .append(s.end())
                    .append(", \"detail\": ")
                    .append(TextTable.quote(detail(s)))
                    .append('}');
            sep = ",\n  ";
        }
        return sb.append("\n]}}\n").toString();
    }
}
