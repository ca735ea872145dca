package dev.hetrace.analysis;

import dev.hetrace.ctf.IndexHeap;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The traces' passes put together: cores, tasks and names numbered as one pass over the
 * merged events would number them (in the order they were first met on the reference clock;
 * at equal times, the trace given first), the messages linked in the merged order of their
 * send and receive events, as that pass would link them. The interval tables are the
 * traces' one after the other (each owner's rows in the order its trace closed them).
 */
final class PassCombiner {
    final TracePass[] passes;
    final StateModel model = new StateModel();
    final int[][] coreIds;
    final int[][] taskIds;
    final int[][] nameIds;

    PassCombiner(TracePass[] passes) {
        this.passes = passes;
        int n = passes.length;
        model.traceFirst = new long[n];
        model.traceLast = new long[n];
        model.traceLongestGap = new long[n];
        model.osThreads = new boolean[n];
        for (int t = 0; t < n; t++) {
            model.places.add(List.of());
        }
        for (TracePass p : passes) {
            model.places.set(p.trace, p.place);
            model.traceNames.add(p.traceName);
            model.mappingNames.add(p.mapping.name());
            model.osThreads[p.trace] = p.mapping.states() == Mapping.States.LINUX || userThreads(p);
            model.traceFirst[p.trace] = p.first;
            model.traceLast[p.trace] = p.last;
            model.traceLongestGap[p.trace] = p.gap;
            model.begin = Math.min(model.begin, p.begin);
            model.end = Math.max(model.end, p.end);
            model.events += p.events;
            model.untimed += p.untimed;
            model.discarded += p.discarded;
            model.binaries.addAll(p.binaries);
        }
        coreIds = number(p -> p.coreBorn, (p, k) -> {
            model.cores.add(p.cores.get(k));
            return model.cores.size() - 1;
        });
        taskIds = number(p -> p.taskBorn, (p, k) -> {
            model.tasks.add(p.tasks.get(k));
            return model.tasks.size() - 1;
        });
        threadsOnTheirKernel();
        Map<String, Integer> names = new HashMap<>();
        nameIds = number(
                p -> p.nameBorn,
                (p, k) -> names.computeIfAbsent(p.names.get(k), s -> {
                    model.names.add(s);
                    return model.names.size() - 1;
                }));
    }

    /**
     * The model: the traces' tables one after the other, renumbered, and the messages, marks,
     * wake-ups and forks put together, on up to {@code workers} threads.
     */
    StateModel model(int workers) throws IOException, MetadataException, StreamDecodingException {
        List<Runnable> copies = new ArrayList<>();
        model.runs = IntervalTable.concat(tables(p -> p.runs), coreIds, taskIds, copies);
        model.taskStates = IntervalTable.concat(tables(p -> p.taskStateRows), taskIds, null, copies);
        model.calls = IntervalTable.concat(tables(p -> p.calls), taskIds, nameIds, copies);
        model.irqs = IntervalTable.concat(tables(p -> p.irqs), coreIds, nameIds, copies);
        List<Parallel.Work> work = new ArrayList<>();
        work.add(this::messages); // the longest first
        work.add(this::marks);
        work.add(this::wakeups);
        work.add(this::forks);
        work.add(this::counters);
        copies.forEach(c -> work.add(c::run));
        Parallel.run(work, workers, () -> {});
        return model;
    }

    interface Numbering {
        int id(TracePass p, int local);
    }

    /** Whether a pass reads user-space threads: its events' task from a context thread id, no switches. */
    private static boolean userThreads(TracePass p) {
        return p.mapping.taskId() != null
                && p.mapping.states() != Mapping.States.LINUX
                && p.mapping.rules().stream().noneMatch(r -> r.does() == Mapping.Action.SWITCH);
    }

    /**
     * User-space threads traced beside their host's kernel (LTTng-UST and LTTng kernel traces
     * of one host: the same {@code hostname}) are the kernel's tasks of the same thread id:
     * their calls become calls of the task the kernel ran on its CPUs, so that the analyses
     * see when they ran, waited for a CPU or blocked. Of the kernel's tasks with that id (an id
     * is reused once its thread is gone), the last one created before the user-space thread's
     * first event. The user-space trace's own tasks are then left out of the model.
     */
    private void threadsOnTheirKernel() {
        boolean[] dropped = new boolean[model.tasks.size()];
        boolean any = false;
        for (TracePass u : passes) {
            if (!userThreads(u) || u.host == null) {
                continue;
            }
            for (TracePass k : passes) {
                if (k.linux == null || !u.host.equals(k.host)) {
                    continue;
                }
                Map<Long, List<Integer>> byId = new HashMap<>();
                for (int t = 0; t < k.tasks.size(); t++) {
                    if (k.tasks.get(t).id() > 0 && !k.tasks.get(t).idle()) {
                        byId.computeIfAbsent(k.tasks.get(t).id(), x -> new ArrayList<>())
                                .add(t);
                    }
                }
                for (int t = 0; t < u.tasks.size(); t++) {
                    List<Integer> same = byId.get(u.tasks.get(t).id());
                    if (same == null) {
                        continue;
                    }
                    long born = u.taskBorn.get(t);
                    int best = same.getFirst();
                    for (int c : same) {
                        if (k.taskBorn.get(c) <= born) {
                            best = c; // created in order: the last before it
                        }
                    }
                    dropped[taskIds[u.trace][t]] = true;
                    taskIds[u.trace][t] = taskIds[k.trace][best];
                    any = true;
                }
                break;
            }
        }
        if (!any) {
            return;
        }
        int[] renumbered = new int[dropped.length];
        List<StateModel.Task> kept = new ArrayList<>();
        for (int g = 0; g < dropped.length; g++) {
            if (!dropped[g]) {
                renumbered[g] = kept.size();
                kept.add(model.tasks.get(g));
            }
        }
        model.tasks.clear();
        model.tasks.addAll(kept);
        for (int[] ids : taskIds) {
            for (int j = 0; j < ids.length; j++) {
                ids[j] = renumbered[ids[j]];
            }
        }
    }

    /** Global ids of what the passes made, given in the merged order of their birth times. */
    private int[][] number(Function<TracePass, LongColumn> born, Numbering numbering) {
        int n = passes.length;
        int[][] ids = new int[n][];
        long[] keys = new long[n];
        int[] at = new int[n];
        IndexHeap heap = new IndexHeap(n, keys);
        for (TracePass p : passes) {
            LongColumn b = born.apply(p);
            ids[p.trace] = new int[b.size()];
            if (b.size() > 0) {
                keys[p.trace] = b.get(0);
                heap.push(p.trace);
            }
        }
        while (heap.size() > 0) {
            int i = heap.peek();
            LongColumn b = born.apply(passes[i]);
            ids[i][at[i]] = numbering.id(passes[i], at[i]);
            if (++at[i] < b.size()) {
                keys[i] = b.get(at[i]);
                heap.topChanged();
            } else {
                heap.pop();
            }
        }
        return ids;
    }

    /** A table of every pass, by trace. */
    IntervalTable[] tables(Function<TracePass, IntervalTable> table) {
        IntervalTable[] out = new IntervalTable[passes.length];
        for (TracePass p : passes) {
            out[p.trace] = table.apply(p);
        }
        return out;
    }

    /**
     * The messages: sends and receives in their merged order, each receive linked to the send
     * it follows. A trace's events are taken in a run while they stay before the next
     * trace's, without reordering the heap for each.
     */
    void messages() {
        int n = passes.length;
        long[] keys = new long[n];
        int[] at = new int[n];
        IndexHeap heap = new IndexHeap(n, keys);
        for (TracePass p : passes) {
            if (p.messageEvents.size() > 0) {
                keys[p.trace] = p.messageEvents.get(0, TracePass.M_TIME);
                heap.push(p.trace);
            }
        }
        LongIntMap pending = new LongIntMap();
        while (heap.size() > 0) {
            int i = heap.peek();
            int second = heap.peekSecond();
            LongRows r = passes[i].messageEvents;
            int size = r.size();
            int k = at[i];
            long t = keys[i];
            do {
                message(i, t, r.chunk(k), r.offset(k), pending);
                k++;
                t = k < size ? r.get(k, TracePass.M_TIME) : Long.MAX_VALUE;
            } while (k < size && (second < 0 || heap.before(i, t, second)));
            at[i] = k;
            if (k < size) {
                keys[i] = t;
                heap.topChanged();
            } else {
                heap.pop();
            }
        }
    }

    /** Message event {@code o} of {@code m}, of trace {@code i}, at {@code t}: a send kept pending, or a receive linked to its send. */
    private void message(int i, long t, MemorySegment m, int o, LongIntMap pending) {
        MessageTable out = model.messages;
        long who = m.getAtIndex(LongRows.L, o + TracePass.M_WHO);
        int core = coreIds[i][LongRows.high(who)];
        int task = taskIds[i][LongRows.low(who)];
        long callKind = m.getAtIndex(LongRows.L, o + TracePass.M_CALL_KIND);
        int localCall = LongRows.high(callKind);
        int call = localCall < 0 ? -1 : nameIds[i][localCall];
        long queue = m.getAtIndex(LongRows.L, o + TracePass.M_QUEUE);
        long id = m.getAtIndex(LongRows.L, o + TracePass.M_ID);
        long key = messageKey(queue, id);
        if (LongRows.low(callKind) == 0) {
            pending.put(key, out.send(t, core, task, call, queue, id));
            return;
        }
        int row = pending.remove(key);
        if (row == LongIntMap.ABSENT) {
            out.receiveOnly(t, core, task, call, queue, id);
        } else {
            out.received(row, t, core, task, call);
        }
    }

    private static long messageKey(long queue, long id) {
        return Math.max(queue, 0) * 0x100000001B3L ^ id;
    }

    /** The tasks created, trace after trace, renumbered. */
    void forks() {
        for (TracePass p : passes) {
            LongRows r = p.forks;
            int[] task = taskIds[p.trace];
            for (int k = 0; k < r.size(); k++) {
                long who = r.get(k, 1);
                int parent = LongRows.low(who);
                model.addFork(r.get(k, 0), task[LongRows.high(who)], parent < 0 ? -1 : task[parent]);
            }
        }
    }

    /** The counter series and their samples, trace after trace, their cores and tasks renumbered. */
    void counters() {
        for (TracePass p : passes) {
            int base = model.counters.size();
            for (StateModel.Counter c : p.counters) {
                model.counters.add(new StateModel.Counter(
                        c.name(),
                        c.unit(),
                        c.kind(),
                        c.trace(),
                        c.core() < 0 ? -1 : coreIds[p.trace][c.core()],
                        c.task() < 0 ? -1 : taskIds[p.trace][c.task()]));
            }
            LongRows r = p.samples;
            for (int k = 0; k < r.size(); k++) {
                MemorySegment m = r.chunk(k);
                int o = r.offset(k);
                int out = model.samples.append();
                MemorySegment to = model.samples.lastChunk();
                to.setAtIndex(LongRows.L, out, m.getAtIndex(LongRows.L, o));
                to.setAtIndex(LongRows.L, out + 1, base + m.getAtIndex(LongRows.L, o + 1));
                to.setAtIndex(LongRows.L, out + 2, m.getAtIndex(LongRows.L, o + 2));
            }
        }
    }

    /** The wake-ups, trace after trace, renumbered. */
    void wakeups() {
        for (TracePass p : passes) {
            LongRows r = p.wakeups;
            int[] task = taskIds[p.trace];
            for (int k = 0; k < r.size(); k++) {
                MemorySegment m = r.chunk(k);
                int o = r.offset(k);
                long who = m.getAtIndex(LongRows.L, o + 1);
                long where = m.getAtIndex(LongRows.L, o + 2);
                int waker = LongRows.low(who);
                int irq = LongRows.low(where);
                model.addWakeup(
                        m.getAtIndex(LongRows.L, o),
                        task[LongRows.high(who)],
                        waker < 0 ? -1 : task[waker],
                        coreIds[p.trace][LongRows.high(where)],
                        irq < 0 ? -1 : nameIds[p.trace][irq]);
            }
        }
    }

    /**
     * The point events, trace after trace, on the cores the passes made; those of a CPU no
     * mapped event named (or of no CPU) on their trace (core −1 − trace).
     */
    void marks() {
        Map<String, Integer> names = new HashMap<>();
        for (TracePass p : passes) {
            int[] name = new int[p.markNames.size()];
            for (int k = 0; k < name.length; k++) {
                name[k] = names.computeIfAbsent(p.markNames.get(k), x -> {
                    model.eventNames.add(x);
                    return model.eventNames.size() - 1;
                });
            }
            LongRows r = p.marks;
            for (int k = 0; k < r.size(); k++) {
                MemorySegment m = r.chunk(k);
                int o = r.offset(k);
                int local = p.coreByCpu.get(m.getAtIndex(LongRows.L, o + 1));
                model.addMark(
                        m.getAtIndex(LongRows.L, o),
                        local == LongIntMap.ABSENT ? -1 - p.trace : coreIds[p.trace][local],
                        name[(int) m.getAtIndex(LongRows.L, o + 2)]);
            }
        }
    }
}
