package dev.hetrace.view;

import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.sync.MatchRule;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.view.Timeline.Kind;
import dev.hetrace.view.Timeline.Row;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lays a state model out as a {@link Timeline}: the rows ({@link Layout}), each row's intervals
 * sorted by start with the running maximum of their ends ({@link Fill}), the summaries of the
 * dense rows, the messages by send time and the point events by row and time.
 */
final class TimelineBuilder {
    private TimelineBuilder() {}

    /** Builds the rows, their intervals and their summaries from {@code m}, its cores placed by {@code board} first. */
    static Timeline build(StateModel m, BoardLayout board) {
        Timeline t = new Timeline(m);
        Layout layout = new Layout(m, board, t.labels);
        t.begin = m.begin();
        t.end = m.end();
        t.events = m.events();
        t.traceNames = List.copyOf(m.traceNames());
        t.coreNames = m.cores().stream().map(StateModel.Core::name).toList();
        t.taskNames = m.tasks().stream().map(StateModel.Task::name).toList();
        t.rows.addAll(layout.rows);
        t.derive();
        new Fill(t, layout).run();
        summarize(t);
        sortMessages(t);
        marks(t, layout);
        t.lost();
        return t;
    }

    /** Places every interval of the model in its row, sorted; the columns are heap arrays. */
    private static final class Fill {
        private final Timeline t;
        private final Layout layout;
        private final StateModel model;
        private final Labels labels;
        private int[] offset;
        private long[] start;
        private long[] end_;
        private int[] label;
        private byte[] state;
        private byte[] flags;
        private long[] extra;
        private long[] maxEnd;

        Fill(Timeline t, Layout layout) {
            this.t = t;
            this.layout = layout;
            this.model = t.model;
            this.labels = t.labels;
        }

        void run() {
            fill(layout);
            t.offset = offset;
            t.start = MemorySegment.ofArray(start);
            t.end_ = MemorySegment.ofArray(end_);
            t.maxEnd = MemorySegment.ofArray(maxEnd);
            t.label = MemorySegment.ofArray(label);
            t.state = MemorySegment.ofArray(state);
            t.flags = MemorySegment.ofArray(flags);
            t.extra = MemorySegment.ofArray(extra);
        }

        /** Counts, then places every interval in its row, then sorts each row by start. */
        private void fill(Layout layout) {
            StateModel m = model;
            int n = t.rows.size();
            int[] count = new int[n + 1];
            IntervalTable runs = m.runs();
            IntervalTable states = m.taskStates();
            IntervalTable calls = m.calls();
            IntervalTable irqs = m.irqs();
            for (int i = 0; i < runs.size(); i++) {
                if (runs.state(i) != StateModel.IDLE) {
                    count[t.coreRow[runs.owner(i)]]++;
                    if (layout.taskRow[runs.subject(i)] >= 0) {
                        count[layout.taskRow[runs.subject(i)]]++;
                    }
                    if (layout.shortRow[runs.subject(i)] >= 0) {
                        count[layout.shortRow[runs.subject(i)]]++;
                    }
                    if (layout.processRow[runs.subject(i)] >= 0) {
                        count[layout.processRow[runs.subject(i)]]++;
                    }
                }
            }
            for (int i = 0; i < states.size(); i++) {
                if (layout.taskRow[states.owner(i)] >= 0) {
                    count[layout.taskRow[states.owner(i)]]++;
                }
            }
            for (int i = 0; i < calls.size(); i++) {
                int cr = layout.callRow(calls.owner(i), calls.depth(i));
                if (cr >= 0) {
                    count[cr]++;
                }
            }
            for (int i = 0; i < irqs.size(); i++) {
                count[layout.irqRow[irqs.owner(i)]]++;
                int line = layout.irqLine(irqs.owner(i), irqs.subject(i));
                if (line >= 0) {
                    count[line]++;
                }
            }
            for (int w = 0; w < layout.waiting.size(); w++) {
                count[layout.waitingRow.get(w)] += layout.waiting.get(w).times().length - 1;
            }
            for (int i = 0; i < m.samples(); i++) {
                count[layout.counterRow[m.sampleSeries(i)]]++;
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
            flags = new byte[total];
            extra = new long[total];
            int[] at = offset.clone();
            int[] taskLabel = new int[m.tasks().size()];
            for (int k = 0; k < taskLabel.length; k++) {
                taskLabel[k] = labels.id(m.tasks().get(k).name());
            }
            int[] nameLabel = new int[0];
            int[] stateLabel = new int[StateModel.STATES];
            for (int s = 0; s < StateModel.STATES; s++) {
                stateLabel[s] = labels.id(Labels.state(s));
            }
            for (int i = 0; i < runs.size(); i++) {
                if (runs.state(i) != StateModel.IDLE) {
                    put(
                            at,
                            t.coreRow[runs.owner(i)],
                            runs.start(i),
                            runs.end(i),
                            taskLabel[runs.subject(i)],
                            runs.state(i),
                            runs.flags(i),
                            0);
                    int task = runs.subject(i);
                    // the task's own row shows it running; its process's row and the short-lived
                    // threads' row show which task ran
                    putRun(at, layout.taskRow[task], runs, i, stateLabel[StateModel.RUNNING]);
                    putRun(at, layout.processRow[task], runs, i, taskLabel[task]);
                    putRun(at, layout.shortRow[task], runs, i, taskLabel[task]);
                }
            }
            for (int i = 0; i < states.size(); i++) {
                int tr = layout.taskRow[states.owner(i)];
                if (tr >= 0) {
                    put(
                            at,
                            tr,
                            states.start(i),
                            states.end(i),
                            stateLabel[states.state(i)],
                            states.state(i),
                            states.flags(i),
                            states.subject(i));
                }
            }
            for (int i = 0; i < calls.size(); i++) {
                int cr = layout.callRow(calls.owner(i), calls.depth(i));
                if (cr < 0) {
                    continue;
                }
                nameLabel = nameLabel(nameLabel, calls.subject(i));
                put(
                        at,
                        cr,
                        calls.start(i),
                        calls.end(i),
                        nameLabel[calls.subject(i)],
                        StateModel.RUNNING,
                        calls.flags(i),
                        calls.self(i));
            }
            for (int i = 0; i < irqs.size(); i++) {
                nameLabel = nameLabel(nameLabel, irqs.subject(i));
                put(
                        at,
                        layout.irqRow[irqs.owner(i)],
                        irqs.start(i),
                        irqs.end(i),
                        nameLabel[irqs.subject(i)],
                        StateModel.RUNNING,
                        irqs.flags(i),
                        0);
                int line = layout.irqLine(irqs.owner(i), irqs.subject(i));
                if (line >= 0) {
                    put(
                            at,
                            line,
                            irqs.start(i),
                            irqs.end(i),
                            nameLabel[irqs.subject(i)],
                            StateModel.RUNNING,
                            irqs.flags(i),
                            0);
                }
            }
            // a step of the waiting threads' count: its level in extra until the area is known (below)
            for (int w = 0; w < layout.waiting.size(); w++) {
                long[] times = layout.waiting.get(w).times();
                int[] levels = layout.waiting.get(w).levels();
                for (int k = 0; k + 1 < times.length; k++) {
                    put(
                            at,
                            layout.waitingRow.get(w),
                            times[k],
                            times[k + 1],
                            labels.id(Counters.waitingLabel(levels[k])),
                            StateModel.RUNNABLE,
                            0,
                            levels[k]);
                }
            }
            // a counter sample: its value's bits in extra; its end, the next sample's time, once sorted (below)
            for (int i = 0; i < m.samples(); i++) {
                int cr = layout.counterRow[m.sampleSeries(i)];
                put(
                        at,
                        cr,
                        m.sampleTime(i),
                        m.sampleTime(i),
                        t.rows.get(cr).task(),
                        StateModel.RUNNING,
                        0,
                        Double.doubleToRawLongBits(m.sampleValue(i)));
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
                Row row = t.rows.get(r);
                if (row.kind() == Kind.COUNTER && Counters.sampled(row.depth())) {
                    // a value holds until the next sample, the last one until its trace's end; a running
                    // total's step is its rate up to the next; events lost are points
                    for (int i = lo; i < hi; i++) {
                        end_[i] = i + 1 < hi
                                ? start[i + 1]
                                : row.depth() == Counters.VALUE ? Math.max(start[i], t.end) : start[i];
                    }
                    if (row.depth() == Counters.LOST) {
                        for (int i = lo; i < hi; i++) {
                            end_[i] = start[i];
                        }
                    }
                }
                long mx = Long.MIN_VALUE;
                for (int i = lo; i < hi; i++) {
                    mx = Math.max(mx, end_[i]);
                    maxEnd[i] = mx;
                }
                if (row.kind() == Kind.COUNTER && row.depth() == Counters.LEVEL) {
                    // a step function: the area under it up to each step's end (thread × ns)
                    long area = 0;
                    for (int i = lo; i < hi; i++) {
                        area += extra[i] * (end_[i] - start[i]);
                        extra[i] = area;
                    }
                }
                if (row.kind() == Kind.CORE) {
                    // a core runs one task at a time: the busy time before each run is a sum
                    long busy = 0;
                    for (int i = lo; i < hi; i++) {
                        extra[i] = busy;
                        busy += end_[i] - start[i];
                    }
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
                t = Arrays.copyOf(t, Math.max(name + 1, old * 2));
                Arrays.fill(t, old, t.length, -1);
            }
            t[name] = labels.id(model.name(name));
            return t;
        }

        /** Run {@code i} of {@code runs} on {@code row} (nothing when −1), running, labelled {@code lab}. */
        private void putRun(int[] at, int row, IntervalTable runs, int i, int lab) {
            if (row >= 0) {
                put(at, row, runs.start(i), runs.end(i), lab, StateModel.RUNNING, runs.flags(i), runs.owner(i));
            }
        }

        private void put(int[] at, int row, long s, long e, int lab, int st, int fl, long x) {
            int k = at[row]++;
            start[k] = s;
            end_[k] = e;
            label[k] = lab;
            state[k] = (byte) st;
            flags[k] = (byte) fl;
            extra[k] = x;
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
                keys[k] = extra[perm[k]];
            }
            System.arraycopy(keys, 0, extra, lo, len);
            byte[] b = new byte[len];
            for (int k = 0; k < len; k++) {
                b[k] = state[perm[k]];
            }
            System.arraycopy(b, 0, state, lo, len);
            for (int k = 0; k < len; k++) {
                b[k] = flags[perm[k]];
            }
            System.arraycopy(b, 0, flags, lo, len);
        }
    }

    /** A summary per row with many intervals; a group's (board, trace) from all its cores' intervals. */
    static void summarize(Timeline t) {
        t.summaries = new RowSummary[t.rows.size()];
        for (int r = 0; r < t.rows.size(); r++) {
            int[] from = t.members[r].length > 0 ? t.members[r] : new int[] {r};
            int n = 0;
            for (int m : from) {
                n += t.size(m);
            }
            // a counter is answered from its own columns (Counters), never from a summary
            if (n > Timeline.SUMMARY_MIN && t.rows.get(r).kind() != Kind.COUNTER) {
                RowSummary.Builder b = new RowSummary.Builder(t.begin, t.end, n);
                for (int m : from) {
                    for (int i = t.offset[m]; i < t.offset[m + 1]; i++) {
                        b.add(t.startOf(i), t.endOf(i), t.labelOf(i), t.stateOf(i) != StateModel.IDLE);
                    }
                }
                t.summaries[r] = b.build();
            }
        }
    }

    static void sortMessages(Timeline t) {
        MessageTable msg = t.model.messages();
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
                n++;
            }
        }
        if (!inOrder) {
            idx = Arrays.stream(idx)
                    .boxed()
                    .sorted((a, b) -> Long.compare(msg.sendTime(a), msg.sendTime(b)))
                    .mapToInt(Integer::intValue)
                    .toArray();
        }
        long[] send = new long[n];
        long[] receive = new long[n];
        long[] maxReceive = new long[n];
        int[] sendCore = new int[n];
        int[] receiveCore = new int[n];
        int[] sendTask = new int[n];
        int[] receiveTask = new int[n];
        long[] queue = new long[n];
        long[] id = new long[n];
        for (int k = 0; k < n; k++) {
            int i = idx[k];
            send[k] = msg.sendTime(i);
            receive[k] = msg.receiveTime(i);
            maxReceive[k] = Math.max(receive[k], k == 0 ? Long.MIN_VALUE : maxReceive[k - 1]);
            sendCore[k] = msg.sendCore(i);
            receiveCore[k] = msg.receiveCore(i);
            sendTask[k] = msg.sendTask(i);
            receiveTask[k] = msg.receiveTask(i);
            queue[k] = msg.queue(i);
            id[k] = msg.id(i);
        }
        t.msgRow = MemorySegment.ofArray(idx);
        t.msgSend = MemorySegment.ofArray(send);
        t.msgReceive = MemorySegment.ofArray(receive);
        t.msgMaxReceive = MemorySegment.ofArray(maxReceive);
        t.msgSendCore = MemorySegment.ofArray(sendCore);
        t.msgReceiveCore = MemorySegment.ofArray(receiveCore);
        t.msgSendTask = MemorySegment.ofArray(sendTask);
        t.msgReceiveTask = MemorySegment.ofArray(receiveTask);
        t.msgQueue = MemorySegment.ofArray(queue);
        t.msgId = MemorySegment.ofArray(id);
    }

    /**
     * The point events by row and time, labelled by their event names: a core's on its row; a
     * trace's on no core it has (the sync daemon's CPU of a Linux trace, say) on the trace's row.
     */
    static void marks(Timeline t, Layout layout) {
        StateModel m = t.model;
        int n = m.marks();
        int[] row = new int[n];
        t.markOff = new int[t.rows.size() + 1];
        for (int i = 0; i < n; i++) {
            int c = m.markCore(i);
            row[i] = c >= 0 ? t.coreRow[c] : layout.traceRow[-1 - c];
            t.markOff[row[i] + 1]++;
        }
        for (int r = 0; r < t.rows.size(); r++) {
            t.markOff[r + 1] += t.markOff[r];
        }
        Set<String> sync = new HashSet<>();
        for (MatchRule r : MatchRules.HETRACE_SYNC) {
            sync.add(r.sendEvent());
            sync.add(r.receiveEvent());
        }
        // by row, keeping each trace's order (already by time on each of its cores); sorted only if not
        int[] at = t.markOff.clone();
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[at[row[i]]++] = i;
        }
        for (int r = 0; r < t.rows.size(); r++) {
            int lo = t.markOff[r];
            int hi = t.markOff[r + 1];
            boolean sorted = true;
            for (int k = lo + 1; k < hi && sorted; k++) {
                sorted = m.markTime(order[k - 1]) <= m.markTime(order[k]);
            }
            if (!sorted) {
                int[] byTime = Arrays.stream(order, lo, hi)
                        .boxed()
                        .sorted((a, b) -> Long.compare(m.markTime(a), m.markTime(b)))
                        .mapToInt(Integer::intValue)
                        .toArray();
                System.arraycopy(byTime, 0, order, lo, byTime.length);
            }
        }
        long[] time = new long[n];
        int[] lab = new int[n];
        byte[] isSync = new byte[n];
        Map<String, Integer> labelOf = new HashMap<>();
        for (int k = 0; k < n; k++) {
            int i = order[k];
            time[k] = m.markTime(i);
            String name = m.markName(i);
            lab[k] = labelOf.computeIfAbsent(name, t.labels::id);
            isSync[k] = (byte) (sync.contains(name) ? 1 : 0);
        }
        t.markTime = MemorySegment.ofArray(time);
        t.markLabel = MemorySegment.ofArray(lab);
        t.markSync = MemorySegment.ofArray(isSync);
    }

    /** A type of core (dsp) with more cores than this gets a row of its own, the group of its cores. */
    static final int GROUP_MIN = 16;

    /** A group of more cores than this shows them in clusters of 16. */
    static final int CLUSTER_MIN = 32;

    /** A group of more cores than this shows them in clusters of 64. */
    static final int CLUSTER_64 = 256;

    /**
     * Where each core and task goes: the board, the traces with several cores, the groups of many cores of a type
     * (in clusters when they are very many), cores, interrupts, tasks, depths; a kernel trace's CPUs and threads as
     * {@link KernelRows} lays them out.
     */
    static final class Layout {
        final StateModel m;
        final List<Row> rows = new ArrayList<>();
        final int[] coreRow;
        /** Per trace, the row of its point events on no core: its own row, else its one core's. */
        final int[] traceRow;

        final int[] irqRow;
        final int[] taskRow;
        /** Per task, the row of each call depth (a short-lived thread's: its group's; null: its calls are not shown). */
        final int[][] depthRow;
        /** Per task, the row its runs are gathered in with other short-lived threads' (−1: its own row). */
        final int[] shortRow;
        /** Per task, the row of its process, which aggregates its threads' runs (−1: none). */
        final int[] processRow;
        /** Per core, per interrupt name, the row of that line's rate (null or −1: none). */
        final int[][] irqLineRow;

        final int[] maxDepth;
        final boolean[] hasStates;
        final boolean[] hasIrqs;
        final int[] home;
        /** The waiting-for-a-CPU step functions of the kernel traces, and their rows. */
        final List<KernelRows.Waiting> waiting = new ArrayList<>();

        final List<Integer> waitingRow = new ArrayList<>();

        Layout(StateModel m, BoardLayout board, Labels labels) {
            this.m = m;
            this.labels = labels;
            int cores = m.cores().size();
            int tasks = m.tasks().size();
            coreRow = new int[cores];
            traceRow = new int[m.traceNames().size()];
            irqRow = new int[cores];
            Arrays.fill(irqRow, -1);
            irqLineRow = new int[cores][];
            taskRow = new int[tasks];
            Arrays.fill(taskRow, -1);
            shortRow = new int[tasks];
            Arrays.fill(shortRow, -1);
            processRow = new int[tasks];
            Arrays.fill(processRow, -1);
            depthRow = new int[tasks][];
            maxDepth = new int[tasks];
            Arrays.fill(maxDepth, -1);
            IntervalTable calls = m.calls();
            for (int i = 0; i < calls.size(); i++) {
                maxDepth[calls.owner(i)] = Math.max(maxDepth[calls.owner(i)], calls.depth(i));
            }
            hasStates = new boolean[tasks];
            for (int i = 0; i < m.taskStates().size(); i++) {
                hasStates[m.taskStates().owner(i)] = true;
            }
            hasIrqs = new boolean[cores];
            for (int i = 0; i < m.irqs().size(); i++) {
                hasIrqs[m.irqs().owner(i)] = true;
            }
            home = homes(m);
            boolean[] scheduled = new boolean[m.traceNames().size()];
            for (int i = 0; i < m.runs().size(); i++) {
                scheduled[m.cores().get(m.runs().owner(i)).trace()] = true;
            }
            rows.add(new Row(0, Kind.BOARD, "board", -1, 0, -1, -1, 0));
            // the cores of one-core traces where the board's layout places them (the layout file, else their
            // trace's environment); the others by type (their names without the number): many of a type are grouped
            Map<String, List<Integer>> byType = new HashMap<>();
            Place placed = new Place("");
            List<String>[] place = placeOf(board);
            for (int t = 0; t < m.traceNames().size(); t++) {
                int only = onlyCore(t);
                if (only >= 0 && !(m.osThreads(t) && scheduled[t])) {
                    if (!place[t].isEmpty()) {
                        placed.add(place[t], only);
                    } else {
                        byType.computeIfAbsent(type(m.cores().get(only).name()), k -> new ArrayList<>())
                                .add(only);
                    }
                }
            }
            Set<String> grouped = new HashSet<>();
            for (int t = 0; t < m.traceNames().size(); t++) {
                List<Integer> cs = coresOf(t);
                int only = onlyCore(t);
                boolean kernel = m.osThreads(t) && scheduled[t];
                if (only >= 0 && !kernel && !place[t].isEmpty()) {
                    Place top = placed.groups.get(place[t].getFirst());
                    if (!top.laid) {
                        addPlace(top, 0, 1);
                    }
                    traceRow[t] = coreRow[only];
                    continue;
                }
                if (only >= 0 && !kernel) {
                    String type = type(m.cores().get(only).name());
                    List<Integer> same = byType.get(type);
                    if (same.size() > GROUP_MIN) {
                        if (grouped.add(type)) {
                            addGroup(type, same);
                        }
                    } else {
                        addCore(only, m.cores().get(only).name(), 0, 1);
                    }
                    traceRow[t] = coreRow[only];
                    continue;
                }
                int parent = 0;
                int level = 1;
                if (only < 0) {
                    parent = add(Kind.TRACE, m.traceNames().get(t), 0, 1, -1, -1, 0);
                    level = 2;
                }
                if (kernel) {
                    KernelRows.lay(this, t, cs, parent, level);
                } else {
                    String prefix = m.traceNames().get(t) + "/";
                    for (int c : cs) {
                        addCore(c, coreName(c, parent, prefix), parent, level);
                    }
                }
                // the trace's row (its point events on no core of its own go there), or its one core's
                traceRow[t] = parent != 0 ? parent : coreRow[cs.getFirst()];
            }
            counterRow = counterRows(m.counters());
        }

        /** Per counter series of the model, its row. */
        int[] counterRow;

        /**
         * A COUNTER row per counter series, under its owner: its task's row (a task without one: its
         * core's, named after the task), its core's, or its trace's. Its measure is the series' kind
         * ({@link Counters#measureOf}), its task the label of its unit (the file of a kept timeline has
         * no model to ask).
         */
        private int[] counterRows(List<StateModel.Counter> counters) {
            int[] out = new int[counters.size()];
            for (int s = 0; s < out.length; s++) {
                StateModel.Counter c = counters.get(s);
                String name = c.name();
                int parent;
                int core = c.core();
                if (c.task() >= 0) {
                    parent = taskRow[c.task()];
                    core = home[c.task()];
                    if (parent < 0) {
                        parent = core >= 0 ? coreRow[core] : traceRow[c.trace()];
                        name = m.tasks().get(c.task()).name() + ": " + name;
                    }
                } else {
                    parent = core >= 0 ? coreRow[core] : traceRow[c.trace()];
                }
                out[s] = add(
                        Kind.COUNTER,
                        name,
                        parent,
                        rows.get(parent).level() + 1,
                        core,
                        unitLabel(c),
                        Counters.measureOf(c.kind()));
            }
            return out;
        }

        /** What a counter's values are in: its unit, per second for a running total's rate. */
        private int unitLabel(StateModel.Counter c) {
            String unit = c.kind() == StateModel.COUNTER_TOTAL ? (c.unit().isEmpty() ? "" : c.unit()) + "/s" : c.unit();
            return labels.id(unit);
        }

        /** The labels the layout names (counter units), given to the timeline. */
        final Labels labels;

        /**
         * The row of a type of core with many ({@link #GROUP_MIN}) of them, "dsp ×1024", and under it the cores, by
         * number; past {@link #CLUSTER_MIN} cores, in clusters of 16, and of 64 past {@link #CLUSTER_64}: "dsp0–dsp63".
         */
        private void addGroup(String type, List<Integer> cores) {
            List<Integer> sorted = new ArrayList<>(cores);
            sorted.sort((a, b) ->
                    compareNames(m.cores().get(a).name(), m.cores().get(b).name()));
            int g = add(Kind.GROUP, type + " \u00d7" + sorted.size(), 0, 1, -1, -1, 0);
            int size = sorted.size() > CLUSTER_64 ? 64 : sorted.size() > CLUSTER_MIN ? 16 : sorted.size();
            for (int i = 0; i < sorted.size(); i += size) {
                List<Integer> part = sorted.subList(i, Math.min(sorted.size(), i + size));
                int parent = g;
                int level = 2;
                if (size < sorted.size()) {
                    String first = m.cores().get(part.getFirst()).name();
                    String last = m.cores().get(part.getLast()).name();
                    parent = add(Kind.GROUP, first + "\u2013" + last, g, 2, -1, -1, 0);
                    level = 3;
                }
                for (int c : part) {
                    addCore(c, m.cores().get(c).name(), parent, level);
                }
            }
        }

        /** A group of the board's layout: its groups and its cores, by name. */
        static final class Place {
            final String name;
            final Map<String, Place> groups = new LinkedHashMap<>();
            final List<Integer> cores = new ArrayList<>();
            boolean laid;

            Place(String name) {
                this.name = name;
            }

            void add(List<String> path, int core) {
                Place p = this;
                for (String g : path) {
                    p = p.groups.computeIfAbsent(g, Place::new);
                }
                p.cores.add(core);
            }

            void all(List<Integer> out) {
                groups.values().forEach(g -> g.all(out));
                out.addAll(cores);
            }
        }

        /** Per trace, where its core sits: the layout file's place for it, else its trace's environment's. */
        @SuppressWarnings("unchecked")
        private List<String>[] placeOf(BoardLayout board) {
            List<String>[] out = new List[m.traceNames().size()];
            for (int t = 0; t < out.length; t++) {
                int only = onlyCore(t);
                List<String> file = only >= 0 ? board.place(m.cores().get(only).name()) : List.of();
                out[t] = !file.isEmpty() ? file : m.tracePlace(t);
            }
            return out;
        }

        /**
         * The rows of a group of the board's layout, "chip3 · dsp48–dsp63", under {@code parent}: its groups
         * (by name, numbers by value), then its cores by name; past {@link #CLUSTER_MIN} cores of its own, in
         * clusters as a type's are.
         */
        private void addPlace(Place p, int parent, int level) {
            p.laid = true;
            List<Integer> all = new ArrayList<>();
            p.all(all);
            all.sort((a, b) ->
                    compareNames(m.cores().get(a).name(), m.cores().get(b).name()));
            String span = all.size() == 1
                    ? m.cores().get(all.getFirst()).name()
                    : m.cores().get(all.getFirst()).name() + "\u2013"
                            + m.cores().get(all.getLast()).name();
            int g = add(Kind.GROUP, p.name + " \u00b7 " + span, parent, level, -1, -1, 0);
            List<Place> inner = new ArrayList<>(p.groups.values());
            inner.sort((a, b) -> compareNames(a.name, b.name));
            for (Place q : inner) {
                addPlace(q, g, level + 1);
            }
            List<Integer> own = new ArrayList<>(p.cores);
            own.sort((a, b) ->
                    compareNames(m.cores().get(a).name(), m.cores().get(b).name()));
            int size = own.size() > CLUSTER_64 ? 64 : own.size() > CLUSTER_MIN ? 16 : own.size();
            for (int i = 0; i < own.size(); i += size) {
                List<Integer> part = own.subList(i, Math.min(own.size(), i + size));
                int at = g;
                int l = level + 1;
                if (size < own.size()) {
                    at = add(
                            Kind.GROUP,
                            m.cores().get(part.getFirst()).name() + "\u2013"
                                    + m.cores().get(part.getLast()).name(),
                            g,
                            level + 1,
                            -1,
                            -1,
                            0);
                    l = level + 2;
                }
                for (int c : part) {
                    addCore(c, m.cores().get(c).name(), at, l);
                }
            }
        }

        /** A core's row, its interrupts' and its tasks' (each with its call depths). */
        private void addCore(int c, String name, int parent, int level) {
            int cr = add(Kind.CORE, name, parent, level, c, -1, 0);
            coreRow[c] = cr;
            if (hasIrqs[c]) {
                irqRow[c] = add(Kind.IRQ, "interrupts", cr, level + 1, c, -1, 0);
            }
            for (int k = 0; k < m.tasks().size(); k++) {
                if (home[k] == c && shown(k)) {
                    addTask(k, cr, level + 1, c);
                }
            }
        }

        private List<Integer> coresOf(int trace) {
            List<Integer> cs = new ArrayList<>();
            for (int c = 0; c < m.cores().size(); c++) {
                if (m.cores().get(c).trace() == trace) {
                    cs.add(c);
                }
            }
            return cs;
        }

        /** The one core of a trace that is that core (a DSP's: named as its trace), else −1. */
        private int onlyCore(int trace) {
            List<Integer> cs = coresOf(trace);
            return cs.size() == 1
                            && m.cores()
                                    .get(cs.getFirst())
                                    .name()
                                    .equals(m.traceNames().get(trace))
                    ? cs.getFirst()
                    : -1;
        }

        /** A core's type: its name without the number at its end ("dsp" for dsp12). */
        static String type(String name) {
            int e = name.length();
            while (e > 0 && Character.isDigit(name.charAt(e - 1))) {
                e--;
            }
            return e == 0 ? name : name.substring(0, e);
        }

        /** Names in order, the numbers in them by value: dsp2 before dsp10. */
        static int compareNames(String a, String b) {
            String ta = type(a);
            String tb = type(b);
            if (!ta.equals(tb) || ta.length() == a.length() || tb.length() == b.length()) {
                return a.compareTo(b);
            }
            String na = a.substring(ta.length());
            String nb = b.substring(tb.length());
            return na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
        }

        /** Under its trace's row, a core is named without the trace: cpu0. */
        String coreName(int c, int parent, String prefix) {
            String name = m.cores().get(c).name();
            if (parent != 0 && name.startsWith(prefix) && name.length() > prefix.length()) {
                name = name.substring(prefix.length());
            }
            return name;
        }

        /** Whether task {@code k} has a row: an idle task only for its calls (work done in interrupts while the core idled). */
        boolean shown(int k) {
            StateModel.Task task = m.tasks().get(k);
            return !(task.idle() && maxDepth[k] < 0 || !hasStates[k] && maxDepth[k] < 0);
        }

        /** Adds task {@code k}'s row under {@code parent}, and its calls' rows by depth under it. */
        int addTask(int k, int parent, int level, int core) {
            StateModel.Task task = m.tasks().get(k);
            taskRow[k] = add(
                    Kind.TASK, task.name() + (task.id() >= 0 ? " [" + task.id() + "]" : ""), parent, level, core, k, 0);
            depthRow[k] = new int[maxDepth[k] + 1];
            for (int d = 0; d <= maxDepth[k]; d++) {
                depthRow[k][d] = add(Kind.CALLS, "depth " + d, taskRow[k], level + 1, core, k, d);
            }
            return taskRow[k];
        }

        /** The row of interrupt {@code name}'s rate on core {@code core}, or −1. */
        int irqLine(int core, int name) {
            int[] lines = irqLineRow[core];
            return lines != null && name < lines.length ? lines[name] : -1;
        }

        /** The row of task {@code task}'s calls at {@code depth}: its own, its short-lived group's, or −1. */
        int callRow(int task, int depth) {
            int[] d = depthRow[task];
            return d != null && depth < d.length ? d[depth] : -1;
        }

        int add(Kind kind, String name, int parent, int level, int core, int task, int depth) {
            rows.add(new Row(rows.size(), kind, name, parent, level, core, task, depth));
            return rows.size() - 1;
        }

        /**
         * The core each task is shown under: where it ran longest; for a task whose scheduling is
         * not traced, the core of most of its messages; else its trace's first core.
         */
        private static int[] homes(StateModel m) {
            int tasks = m.tasks().size();
            Map<Long, Long> time = new HashMap<>();
            for (int i = 0; i < m.runs().size(); i++) {
                time.merge(
                        ((long) m.runs().subject(i) << 32) | m.runs().owner(i),
                        m.runs().duration(i),
                        Long::sum);
            }
            MessageTable msg = m.messages();
            for (int i = 0; i < msg.size(); i++) {
                if (msg.sendTask(i) >= 0 && msg.sendCore(i) >= 0) {
                    time.merge(((long) msg.sendTask(i) << 32) | msg.sendCore(i), 0L, Long::sum);
                }
            }
            int[] home = new int[tasks];
            long[] best = new long[tasks];
            Arrays.fill(home, -1);
            Arrays.fill(best, -1);
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
