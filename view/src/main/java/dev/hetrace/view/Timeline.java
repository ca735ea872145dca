package dev.hetrace.view;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the viewer shows, laid out for drawing: rows in a hierarchy (board, trace, core, its
 * interrupts and tasks, each task's calls by depth), each row's intervals sorted by start (with
 * a running maximum of their ends, so that the intervals under any time range are found by two
 * binary searches), a {@link RowSummary} for the rows too dense to draw interval by interval,
 * and the messages between cores sorted by send time. Built from a state model once; a view
 * request ({@link ViewQuery}) then reads only what its pixels need.
 */
public final class Timeline {
    /** What a row shows. BOARD and TRACE rows are groups: they show the aggregate of their cores. */
    public enum Kind { BOARD, TRACE, CORE, IRQ, TASK, CALLS }

    /**
     * A row: its place in the hierarchy (parent row, −1 for the board; level 0 for the board),
     * the core it belongs to (−1 for the board and traces), its task (−1 unless TASK or CALLS),
     * the call depth of a CALLS row.
     */
    public record Row(int id, Kind kind, String name, int parent, int level, int core, int task, int depth) {}

    /** Rows with more intervals than this get a summary; the others are aggregated from their intervals when needed. */
    static final int SUMMARY_MIN = 1024;

    final StateModel model;
    final long begin;
    final long end;
    final List<Row> rows = new ArrayList<>();
    final Labels labels = new Labels();
    /** Per core, its row. */
    final int[] coreRow;
    /** Per BOARD or TRACE row, the CORE rows it aggregates (empty for others). */
    final int[][] members;
    /** Per row, whether it has children. */
    boolean[] group;

    // intervals of row r in [offset[r], offset[r + 1]), sorted by start
    int[] offset;
    long[] start;
    long[] end_;
    long[] maxEnd;
    int[] label;
    byte[] state;
    /** The row in the model's table: runs and calls and irqs by index; a TASK row's runs as −1 − index, its states as index. */
    int[] source;
    RowSummary[] summaries;

    // point events per core, by time: core c's in [markOff[c], markOff[c + 1]); whether each is the sync handshake's
    int[] markOff;
    long[] markTime;
    int[] markLabel;
    boolean[] markSync;

    // messages with both sides known, sorted by send time
    int[] msgRow;
    long[] msgSend;
    long maxLatency;

    private Timeline(StateModel m, int[][] members) {
        model = m;
        begin = m.begin();
        end = m.end();
        coreRow = new int[m.cores().size()];
        this.members = members;
    }

    public StateModel model() {
        return model;
    }

    public List<Row> rows() {
        return rows;
    }

    public Labels labels() {
        return labels;
    }

    /** The first and last event times, ns on the reference clock. */
    public long begin() {
        return begin;
    }

    public long end() {
        return end;
    }

    /** The row of core {@code core}. */
    public int coreRow(int core) {
        return coreRow[core];
    }

    /** How many intervals row {@code r} has. */
    public int size(int r) {
        return offset[r + 1] - offset[r];
    }

    /** Builds the rows, their intervals and their summaries from {@code m}. */
    public static Timeline of(StateModel m) {
        Layout layout = new Layout(m);
        Timeline t = new Timeline(m, layout.members());
        t.rows.addAll(layout.rows);
        System.arraycopy(layout.coreRow, 0, t.coreRow, 0, layout.coreRow.length);
        t.group = new boolean[t.rows.size()];
        for (Row r : t.rows) {
            if (r.parent() >= 0) {
                t.group[r.parent()] = true;
            }
        }
        t.fill(layout);
        t.summarize();
        t.messages();
        t.marks();
        return t;
    }

    /** Counts, then places every interval in its row, then sorts each row by start. */
    private void fill(Layout layout) {
        StateModel m = model;
        int n = rows.size();
        int[] count = new int[n + 1];
        IntervalTable runs = m.runs();
        IntervalTable states = m.taskStates();
        IntervalTable calls = m.calls();
        IntervalTable irqs = m.irqs();
        for (int i = 0; i < runs.size(); i++) {
            if (runs.state(i) != StateModel.IDLE) {
                count[coreRow[runs.owner(i)]]++;
                if (layout.taskRow[runs.subject(i)] >= 0) {
                    count[layout.taskRow[runs.subject(i)]]++;
                }
            }
        }
        for (int i = 0; i < states.size(); i++) {
            if (layout.taskRow[states.owner(i)] >= 0) {
                count[layout.taskRow[states.owner(i)]]++;
            }
        }
        for (int i = 0; i < calls.size(); i++) {
            count[layout.callRow(calls.owner(i), calls.depth(i))]++;
        }
        for (int i = 0; i < irqs.size(); i++) {
            count[layout.irqRow[irqs.owner(i)]]++;
        }
        offset = new int[n + 1];
        for (int r = 0; r < n; r++) {
            offset[r + 1] = offset[r] + count[r];
        }
        int total = offset[n];
        start = new long[total];
        end_ = new long[total];
        label = new int[total];
        state = new byte[total];
        source = new int[total];
        int[] at = offset.clone();
        int[] taskLabel = new int[m.tasks().size()];
        for (int k = 0; k < taskLabel.length; k++) {
            taskLabel[k] = labels.id(m.tasks().get(k).name());
        }
        int[] nameLabel = new int[0];
        int[] stateLabel = new int[5];
        for (int s = 0; s < 5; s++) {
            stateLabel[s] = labels.id(Labels.state(s));
        }
        for (int i = 0; i < runs.size(); i++) {
            if (runs.state(i) != StateModel.IDLE) {
                put(at, coreRow[runs.owner(i)], runs.start(i), runs.end(i), taskLabel[runs.subject(i)], runs.state(i), i);
                int tr = layout.taskRow[runs.subject(i)];
                if (tr >= 0) {
                    put(at, tr, runs.start(i), runs.end(i), stateLabel[StateModel.RUNNING], StateModel.RUNNING, -1 - i);
                }
            }
        }
        for (int i = 0; i < states.size(); i++) {
            int tr = layout.taskRow[states.owner(i)];
            if (tr >= 0) {
                put(at, tr, states.start(i), states.end(i), stateLabel[states.state(i)], states.state(i), i);
            }
        }
        for (int i = 0; i < calls.size(); i++) {
            nameLabel = nameLabel(nameLabel, calls.subject(i));
            put(at, layout.callRow(calls.owner(i), calls.depth(i)), calls.start(i), calls.end(i), nameLabel[calls.subject(i)],
                StateModel.RUNNING, i);
        }
        for (int i = 0; i < irqs.size(); i++) {
            nameLabel = nameLabel(nameLabel, irqs.subject(i));
            put(at, layout.irqRow[irqs.owner(i)], irqs.start(i), irqs.end(i), nameLabel[irqs.subject(i)], StateModel.RUNNING, i);
        }
        maxEnd = new long[total];
        long[] keys = new long[0];
        int[] perm = new int[0];
        int[] tmp = new int[0];
        for (int r = 0; r < n; r++) {
            int lo = offset[r];
            int hi = offset[r + 1];
            if (!sorted(lo, hi)) {
                int len = hi - lo;
                if (perm.length < len) {
                    perm = new int[len];
                    tmp = new int[len];
                    keys = new long[len];
                }
                for (int k = 0; k < len; k++) {
                    perm[k] = lo + k;
                }
                mergeSort(perm, tmp, len);
                permute(lo, perm, len, keys, tmp);
            }
            long mx = Long.MIN_VALUE;
            for (int i = lo; i < hi; i++) {
                mx = Math.max(mx, end_[i]);
                maxEnd[i] = mx;
            }
        }
    }

    /** The label of function or interrupt name {@code name}, looked up once (−1: not yet). */
    private int[] nameLabel(int[] table, int name) {
        if (name < table.length && table[name] >= 0) {
            return table;
        }
        int[] t = table;
        if (name >= t.length) {
            int old = t.length;
            t = java.util.Arrays.copyOf(t, Math.max(name + 1, old * 2));
            java.util.Arrays.fill(t, old, t.length, -1);
        }
        t[name] = labels.id(model.name(name));
        return t;
    }

    private void put(int[] at, int row, long s, long e, int lab, int st, int src) {
        int k = at[row]++;
        start[k] = s;
        end_[k] = e;
        label[k] = lab;
        state[k] = (byte) st;
        source[k] = src;
    }

    private boolean sorted(int lo, int hi) {
        for (int i = lo + 1; i < hi; i++) {
            if (start[i] < start[i - 1]) {
                return false;
            }
        }
        return true;
    }

    /** Sorts positions by (start, end descending: outer first), stable. */
    private void mergeSort(int[] a, int[] tmp, int n) {
        for (int w = 1; w < n; w *= 2) {
            for (int lo = 0; lo < n - w; lo += 2 * w) {
                int mid = lo + w;
                int hi = Math.min(lo + 2 * w, n);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    tmp[k++] = before(a[j], a[i]) ? a[j++] : a[i++];
                }
                while (i < mid) {
                    tmp[k++] = a[i++];
                }
                while (j < hi) {
                    tmp[k++] = a[j++];
                }
                System.arraycopy(tmp, lo, a, lo, hi - lo);
            }
        }
    }

    private boolean before(int x, int y) {
        return start[x] < start[y] || start[x] == start[y] && end_[x] > end_[y];
    }

    /** Reorders the columns of [lo, lo + len) after {@code perm} (absolute positions). */
    private void permute(int lo, int[] perm, int len, long[] keys, int[] tmp) {
        for (int k = 0; k < len; k++) {
            keys[k] = start[perm[k]];
        }
        System.arraycopy(keys, 0, start, lo, len);
        for (int k = 0; k < len; k++) {
            keys[k] = end_[perm[k]];
        }
        System.arraycopy(keys, 0, end_, lo, len);
        for (int k = 0; k < len; k++) {
            tmp[k] = label[perm[k]];
        }
        System.arraycopy(tmp, 0, label, lo, len);
        for (int k = 0; k < len; k++) {
            tmp[k] = source[perm[k]];
        }
        System.arraycopy(tmp, 0, source, lo, len);
        byte[] b = new byte[len];
        for (int k = 0; k < len; k++) {
            b[k] = state[perm[k]];
        }
        System.arraycopy(b, 0, state, lo, len);
    }

    /** A summary per row with many intervals; a group's (board, trace) from all its cores' intervals. */
    private void summarize() {
        summaries = new RowSummary[rows.size()];
        for (int r = 0; r < rows.size(); r++) {
            if (members[r].length > 0) {
                int n = 0;
                for (int m : members[r]) {
                    n += size(m);
                }
                if (n > SUMMARY_MIN) {
                    RowSummary.Builder b = new RowSummary.Builder(begin, end, n);
                    for (int m : members[r]) {
                        for (int i = offset[m]; i < offset[m + 1]; i++) {
                            b.add(start[i], end_[i], label[i], state[i] != StateModel.IDLE);
                        }
                    }
                    summaries[r] = b.build();
                }
                continue;
            }
            int lo = offset[r];
            int hi = offset[r + 1];
            if (hi - lo > SUMMARY_MIN) {
                RowSummary.Builder b = new RowSummary.Builder(begin, end, hi - lo);
                for (int i = lo; i < hi; i++) {
                    b.add(start[i], end_[i], label[i], state[i] != StateModel.IDLE);
                }
                summaries[r] = b.build();
            }
        }
    }

    private void messages() {
        MessageTable msg = model.messages();
        int n = 0;
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendCore(i) >= 0 && msg.receiveCore(i) >= 0) {
                n++;
            }
        }
        int[] idx = new int[n];
        n = 0;
        boolean inOrder = true;
        for (int i = 0; i < msg.size(); i++) {
            if (msg.sendCore(i) >= 0 && msg.receiveCore(i) >= 0) {
                idx[n] = i;
                inOrder &= n == 0 || msg.sendTime(i) >= msg.sendTime(idx[n - 1]);
                maxLatency = Math.max(maxLatency, msg.receiveTime(i) - msg.sendTime(i));
                n++;
            }
        }
        if (!inOrder) {
            idx = java.util.Arrays.stream(idx).boxed().sorted((a, b) -> Long.compare(msg.sendTime(a), msg.sendTime(b)))
                .mapToInt(Integer::intValue).toArray();
        }
        msgRow = idx;
        msgSend = new long[n];
        for (int k = 0; k < n; k++) {
            msgSend[k] = msg.sendTime(idx[k]);
        }
    }

    /** The point events by core and time, labelled by their event names. */
    private void marks() {
        StateModel m = model;
        int cores = m.cores().size();
        int n = m.marks();
        markOff = new int[cores + 1];
        for (int i = 0; i < n; i++) {
            markOff[m.markCore(i) + 1]++;
        }
        for (int c = 0; c < cores; c++) {
            markOff[c + 1] += markOff[c];
        }
        java.util.Set<String> sync = new java.util.HashSet<>();
        for (dev.hetrace.sync.MatchRule r : dev.hetrace.sync.MatchRules.HETRACE_SYNC) {
            sync.add(r.sendEvent());
            sync.add(r.receiveEvent());
        }
        // by core, keeping each trace's order (already by time on each of its cores); sorted only if not
        int[] at = markOff.clone();
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[at[m.markCore(i)]++] = i;
        }
        for (int c = 0; c < cores; c++) {
            int lo = markOff[c];
            int hi = markOff[c + 1];
            boolean sorted = true;
            for (int k = lo + 1; k < hi && sorted; k++) {
                sorted = m.markTime(order[k - 1]) <= m.markTime(order[k]);
            }
            if (!sorted) {
                int[] byTime = java.util.Arrays.stream(order, lo, hi).boxed()
                    .sorted((a, b) -> Long.compare(m.markTime(a), m.markTime(b))).mapToInt(Integer::intValue).toArray();
                System.arraycopy(byTime, 0, order, lo, byTime.length);
            }
        }
        markTime = new long[n];
        markLabel = new int[n];
        markSync = new boolean[n];
        Map<String, Integer> labelOf = new HashMap<>();
        for (int k = 0; k < n; k++) {
            int i = order[k];
            markTime[k] = m.markTime(i);
            String name = m.markName(i);
            markLabel[k] = labelOf.computeIfAbsent(name, labels::id);
            markSync[k] = sync.contains(name);
        }
    }

    /** The position of core {@code core}'s first point event at or after {@code t}. */
    int firstMarkFrom(int core, long t) {
        int lo = markOff[core];
        int hi = markOff[core + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (markTime[mid] >= t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The first interval of row {@code r} that may end after {@code t} (all before it end at or before t). */
    int firstEndingAfter(int r, long t) {
        int lo = offset[r];
        int hi = offset[r + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (maxEnd[mid] > t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The first interval of row {@code r} that starts at or after {@code t}. */
    int firstStartingFrom(int r, long t) {
        int lo = offset[r];
        int hi = offset[r + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (start[mid] >= t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The first message sent at or after {@code t}. */
    int firstMessageFrom(long t) {
        int lo = 0;
        int hi = msgSend.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (msgSend[mid] >= t) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The row of interval position {@code i}. */
    int rowOf(int i) {
        int lo = 0;
        int hi = rows.size() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (offset[mid] <= i) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** Where each core and task goes: the board, the traces with several cores, cores, interrupts, tasks, depths. */
    private static final class Layout {
        final StateModel m;
        final List<Row> rows = new ArrayList<>();
        final int[] coreRow;
        final int[] irqRow;
        final int[] taskRow;
        /** Per task, the row of each call depth. */
        final int[][] depthRow;

        Layout(StateModel m) {
            this.m = m;
            int cores = m.cores().size();
            int tasks = m.tasks().size();
            coreRow = new int[cores];
            irqRow = new int[cores];
            java.util.Arrays.fill(irqRow, -1);
            taskRow = new int[tasks];
            java.util.Arrays.fill(taskRow, -1);
            depthRow = new int[tasks][];
            int[] maxDepth = new int[tasks];
            java.util.Arrays.fill(maxDepth, -1);
            IntervalTable calls = m.calls();
            for (int i = 0; i < calls.size(); i++) {
                maxDepth[calls.owner(i)] = Math.max(maxDepth[calls.owner(i)], calls.depth(i));
            }
            boolean[] hasStates = new boolean[tasks];
            for (int i = 0; i < m.taskStates().size(); i++) {
                hasStates[m.taskStates().owner(i)] = true;
            }
            boolean[] hasIrqs = new boolean[cores];
            for (int i = 0; i < m.irqs().size(); i++) {
                hasIrqs[m.irqs().owner(i)] = true;
            }
            int[] home = homes(m);
            rows.add(new Row(0, Kind.BOARD, "board", -1, 0, -1, -1, 0));
            for (int t = 0; t < m.traceNames().size(); t++) {
                List<Integer> cs = new ArrayList<>();
                for (int c = 0; c < cores; c++) {
                    if (m.cores().get(c).trace() == t) {
                        cs.add(c);
                    }
                }
                int parent = 0;
                int level = 1;
                if (!(cs.size() == 1 && m.cores().get(cs.getFirst()).name().equals(m.traceNames().get(t)))) {
                    parent = add(Kind.TRACE, m.traceNames().get(t), 0, 1, -1, -1, 0);
                    level = 2;
                }
                String prefix = m.traceNames().get(t) + "/";
                for (int c : cs) {
                    // under its trace's row, a core is named without the trace: cpu0
                    String name = m.cores().get(c).name();
                    if (parent != 0 && name.startsWith(prefix) && name.length() > prefix.length()) {
                        name = name.substring(prefix.length());
                    }
                    int cr = add(Kind.CORE, name, parent, level, c, -1, 0);
                    coreRow[c] = cr;
                    if (hasIrqs[c]) {
                        irqRow[c] = add(Kind.IRQ, "interrupts", cr, level + 1, c, -1, 0);
                    }
                    for (int k = 0; k < tasks; k++) {
                        StateModel.Task task = m.tasks().get(k);
                        if (home[k] != c || task.idle() || !hasStates[k] && maxDepth[k] < 0) {
                            continue;
                        }
                        taskRow[k] = add(Kind.TASK, task.name() + (task.id() >= 0 ? " [" + task.id() + "]" : ""), cr,
                            level + 1, c, k, 0);
                        depthRow[k] = new int[maxDepth[k] + 1];
                        for (int d = 0; d <= maxDepth[k]; d++) {
                            depthRow[k][d] = add(Kind.CALLS, "depth " + d, taskRow[k], level + 2, c, k, d);
                        }
                    }
                }
            }
        }

        int callRow(int task, int depth) {
            return depthRow[task][depth];
        }

        private int add(Kind kind, String name, int parent, int level, int core, int task, int depth) {
            rows.add(new Row(rows.size(), kind, name, parent, level, core, task, depth));
            return rows.size() - 1;
        }

        /** Per BOARD and TRACE row, its CORE rows. */
        int[][] members() {
            int[][] out = new int[rows.size()][];
            Map<Integer, List<Integer>> by = new HashMap<>();
            for (Row r : rows) {
                if (r.kind() == Kind.CORE) {
                    by.computeIfAbsent(0, k -> new ArrayList<>()).add(r.id());
                    if (rows.get(r.parent()).kind() == Kind.TRACE) {
                        by.computeIfAbsent(r.parent(), k -> new ArrayList<>()).add(r.id());
                    }
                }
            }
            for (Row r : rows) {
                List<Integer> l = by.get(r.id());
                out[r.id()] = l == null ? new int[0] : l.stream().mapToInt(Integer::intValue).toArray();
            }
            return out;
        }

        /**
         * The core each task is shown under: where it ran longest; for a task whose scheduling is
         * not traced, the core of most of its messages; else its trace's first core.
         */
        private static int[] homes(StateModel m) {
            int tasks = m.tasks().size();
            Map<Long, Long> time = new HashMap<>();
            for (int i = 0; i < m.runs().size(); i++) {
                time.merge(((long) m.runs().subject(i) << 32) | m.runs().owner(i), m.runs().duration(i), Long::sum);
            }
            MessageTable msg = m.messages();
            for (int i = 0; i < msg.size(); i++) {
                if (msg.sendTask(i) >= 0 && msg.sendCore(i) >= 0) {
                    time.merge(((long) msg.sendTask(i) << 32) | msg.sendCore(i), 0L, Long::sum);
                }
            }
            int[] home = new int[tasks];
            long[] best = new long[tasks];
            java.util.Arrays.fill(home, -1);
            java.util.Arrays.fill(best, -1);
            for (var e : time.entrySet()) {
                int task = (int) (e.getKey() >>> 32);
                int core = (int) (long) e.getKey();
                if (e.getValue() > best[task]) {
                    best[task] = e.getValue();
                    home[task] = core;
                }
            }
            for (int k = 0; k < tasks; k++) {
                if (home[k] < 0) {
                    int trace = m.tasks().get(k).trace();
                    for (int c = 0; c < m.cores().size(); c++) {
                        if (m.cores().get(c).trace() == trace) {
                            home[k] = c;
                            break;
                        }
                    }
                }
            }
            return home;
        }
    }
}
