package dev.hetrace.analysis;

import dev.hetrace.analysis.Waits.Doing;
import dev.hetrace.analysis.Waits.Segment;
import dev.hetrace.analysis.Waits.Share;
import dev.hetrace.analysis.Waits.Step;
import dev.hetrace.analysis.Waits.Wait;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The critical paths through a board's waits ({@link Waits}): a request's, back through the
 * message each waiter got ({@link Waits#criticalPath}), and a thread's, back through what it ran,
 * waited for and was woken by ({@link Waits#threadPath}).
 */
final class CriticalPaths {
    private final Waits ws;
    private final StateModel m;

    CriticalPaths(Waits ws) {
        this.ws = ws;
        this.m = ws.model();
    }

    /**
     * The critical path of what {@code task} did on {@code core} from {@code from} to {@code to}
     * (a request): from its end, back through the last wait of each task, to the message that
     * ended it and its sender, until a stretch begins before {@code from}. In time order.
     */
    List<Step> request(int task, int core, long from, long to) {
        List<Step> out = new ArrayList<>();
        int t = task;
        int c = core;
        long at = to;
        int via = -1;
        // each jump goes strictly back in time, so the walk ends; the bound only caps a pathological board
        for (int guard = 0; guard < 1_000_000; guard++) {
            Wait w = lastWait(t, from, at);
            if (w == null
                    || m.messages().sendTime(w.message()) < 0
                    || m.messages().sendTask(w.message()) < 0) {
                out.add(step(t, c, from, at, via, -1));
                break;
            }
            out.add(step(t, c, w.end(), at, via, w.message()));
            int msg = w.message();
            long send = m.messages().sendTime(msg);
            via = msg;
            t = m.messages().sendTask(msg);
            c = m.messages().sendCore(msg);
            if (send <= from || send >= at) {
                out.add(step(t, c, Math.min(send, at), Math.min(send, at), via, -1));
                break;
            }
            at = send;
        }
        Collections.reverse(out);
        return out;
    }

    /** The most stretches a path is followed through: a bound on a pathological board, not a limit of real traces. */
    private static final int MAX_SEGMENTS = 1_000_000;

    /**
     * The critical path of {@code task} from {@code from} to {@code to}, as Trace Compass's OS
     * critical path: followed back from {@code to}, each stretch is what the task then did
     * (running, waiting for a CPU), and when it was blocked, what it waited for: the task that
     * woke it (its path, followed back from the wake-up to the start of the block), the sender of
     * the message it then got (the message's transit, and the sender's path before it sent), or
     * the interrupt that woke it (a device, a timer: the block stays, named with the
     * interrupt); before a task created in the traces existed, its creator's path. In time
     * order, covering {@code [from, to]} without gaps.
     */
    List<Segment> thread(int task, long from, long to) {
        List<Segment> out = new ArrayList<>();
        ArrayDeque<long[]> frames = new ArrayDeque<>();
        frames.push(new long[] {task, from, to});
        IntervalTable st = m.taskStates();
        IntervalTable r = m.runs();
        while (!frames.isEmpty() && out.size() < MAX_SEGMENTS) {
            long[] f = frames.pop();
            int t = (int) f[0];
            long lo = f[1];
            long at = f[2];
            while (at > lo && out.size() < MAX_SEGMENTS) {
                int run = covering(ws.taskRuns, t, at);
                if (run >= 0) {
                    long s = Math.max(lo, r.start(run));
                    out.add(new Segment(Doing.RUNNING, t, r.owner(run), s, at, ws.activity(t, s, at), -1, -1, -1));
                    at = s;
                    continue;
                }
                int row = covering(ws.states, t, at);
                if (row < 0) {
                    int fork = ws.forkOf[t];
                    long born = fork < 0 ? Long.MIN_VALUE : m.forkTime(fork);
                    if (fork >= 0 && born <= at && born > lo && m.forkParent(fork) >= 0) {
                        // before it was made, what led here is its creator's work
                        if (born < at) {
                            out.add(new Segment(Doing.UNKNOWN, t, -1, born, at, -1, -1, -1, -1));
                        }
                        frames.push(new long[] {m.forkParent(fork), lo, born});
                        break;
                    }
                    out.add(new Segment(Doing.UNKNOWN, t, -1, lo, at, -1, -1, -1, -1));
                    break;
                }
                long s = Math.max(lo, st.start(row));
                int state = st.state(row);
                if (state == StateModel.PREEMPTED || state == StateModel.RUNNABLE) {
                    int core = ws.nextCore(t, st.end(row), -1);
                    List<Share> by = core < 0 ? List.of() : ws.preemptedBy(t, core, s, at);
                    out.add(new Segment(
                            Doing.WAITING_FOR_CPU,
                            t,
                            core,
                            s,
                            at,
                            ws.activity(t, s, at),
                            by.isEmpty() ? -1 : by.get(0).task(),
                            -1,
                            -1));
                    at = s;
                    continue;
                }
                if (state == StateModel.DEAD) {
                    out.add(new Segment(Doing.UNKNOWN, t, -1, s, at, -1, -1, -1, -1));
                    at = s;
                    continue;
                }
                // blocked: what ended it, when the path reaches its end
                int call = ws.activity(t, s, at);
                int wake = at == st.end(row) ? wakeupAt(t, at) : -1;
                int waker = wake < 0 ? -1 : m.wakerTask(wake);
                int irq = wake < 0 ? -1 : m.wakerIrq(wake);
                if (wake >= 0
                        && irq < 0
                        && waker >= 0
                        && waker != t
                        && !m.tasks().get(waker).idle()) {
                    // the waker's work up to the wake-up is what this task waited for
                    frames.push(new long[] {t, lo, s});
                    frames.push(new long[] {waker, s, at});
                    break;
                }
                Wait w = at == st.end(row) ? blockedWait(t, st.start(row)) : null;
                int msg = w == null ? -1 : w.message();
                long sent = msg < 0 ? -1 : m.messages().sendTime(msg);
                int sender = msg < 0 ? -1 : m.messages().sendTask(msg);
                if (sender >= 0 && sender != t && sent > s && sent < at) {
                    out.add(new Segment(Doing.MESSAGE, t, w.core(), sent, at, call, sender, -1, msg));
                    frames.push(new long[] {t, lo, s});
                    frames.push(new long[] {sender, s, sent});
                    break;
                }
                out.add(new Segment(Doing.BLOCKED, t, -1, s, at, call, wake >= 0 && irq < 0 ? waker : -1, irq, -1));
                at = s;
            }
        }
        Collections.reverse(out);
        return out;
    }

    /** The row of {@code owner} in {@code index} that covers the instant just before {@code at} (start < at ≤ end), or −1. */
    private static int covering(RowIndex index, int owner, long at) {
        int[] rows = index.rows(owner);
        IntervalTable t = index.table();
        // a task's rows follow each other: the last one starting before it covers it, or none does
        // (a few more are looked at for rows that a lost switch made overlap)
        int last = index.after(owner, at - 1) - 1;
        for (int k = last; k >= 0 && k > last - 4; k--) {
            int row = rows[k];
            if (t.start(row) < at && t.end(row) >= at) {
                return row;
            }
        }
        return -1;
    }

    /** The wake-up of {@code task} at time {@code at}, or −1. */
    private int wakeupAt(int task, long at) {
        int[] w = ws.wakeupsByTask[task];
        int lo = RowIndex.firstAfter(w, m::wakeupTime, at - 1);
        return lo < w.length && m.wakeupTime(w[lo]) == at ? w[lo] : -1;
    }

    /** The wait for a message of {@code task} that began with its block at {@code start}, or null. */
    private Wait blockedWait(int task, long start) {
        for (int k : ws.waitsByTask[task]) {
            Wait w = ws.waits.get(k);
            if (w.start() == start && w.blocked()) {
                return w;
            }
        }
        return null;
    }

    private Wait lastWait(int task, long from, long to) {
        int[] byTask = ws.waitsByTask[task];
        int lo = ws.endingAfter(byTask, to);
        // among the waits ending last, the one whose message was sent last: what the task waited longest for
        Wait best = null;
        for (int k = lo - 1; k >= 0; k--) {
            Wait w = ws.waits.get(byTask[k]);
            if (w.end() <= from) {
                break;
            }
            if (best != null && w.end() < best.end()) {
                break;
            }
            best = w;
        }
        return best;
    }

    private Step step(int task, int core, long start, long end, int sent, int received) {
        int call = -1;
        if (start == end) {
            call = sent >= 0 ? ws.sentIn(sent) : received >= 0 ? ws.receivedIn(received) : -1;
        }
        return new Step(task, core, start, end, call >= 0 ? call : ws.activity(task, start, end), sent);
    }
}
