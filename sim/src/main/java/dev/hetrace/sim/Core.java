package dev.hetrace.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * One simulated core and its scheduler: fixed priorities with preemption (the highest-priority
 * ready task runs; an idle task when none is ready), and, on a bare-metal core, interrupts that
 * suspend whatever runs. Tasks and interrupt handlers call the core's tracer as the RTOS hooks
 * would, and the ground truth records what really ran and when.
 */
final class Core {
    /** Interrupt lines of the simulated slaves. */
    static final int IRQ_SYNC = 5;

    static final int IRQ_IPC = 6;

    final int id;
    final String name;
    final ClockModel clock;
    final CoreTracer tracer;
    /** Whether message arrivals are interrupts (a bare-metal core) or just wake the reader (Linux). */
    final boolean bareMetal;

    private final Board board;
    private final EventLoop loop;
    private final List<Task> tasks = new ArrayList<>();
    private final ArrayDeque<Runnable> pendingIrqs = new ArrayDeque<>();

    private Task running;
    private long runningFrom;
    private boolean inIsr;
    private boolean crashed;
    /** Bumped whenever the running computation is suspended, which voids its scheduled completion. */
    private long generation;

    Core(Board board, int id, String name, ClockModel clock, CoreTracer tracer, boolean bareMetal) {
        this.board = board;
        this.loop = board.loop;
        this.id = id;
        this.name = name;
        this.clock = clock;
        this.tracer = tracer;
        this.bareMetal = bareMetal;
    }

    /** Adds a task; tasks of equal priority run in the order they were added. */
    Task addTask(String taskName, int priority, Task.Program program) {
        Task t = new Task(taskName, priority, program);
        int i = 0;
        while (i < tasks.size() && tasks.get(i).priority >= priority) {
            i++;
        }
        tasks.add(i, t);
        return t;
    }

    void start() {
        loop.at(loop.now(), this::dispatch);
    }

    boolean crashed() {
        return crashed;
    }

    /** The core stops dead: it runs, traces and answers nothing more. */
    void crash() {
        crashed = true;
        generation++;
        tracer.stop();
    }

    private void dispatch() {
        if (inIsr || crashed) {
            return;
        }
        long now = loop.now();
        Task best = null;
        for (Task t : tasks) {
            if (t.state == Task.State.READY) {
                best = t;
                break;
            }
        }
        if (best != null
                && running != null
                && running != best
                && running.state == Task.State.READY
                && running.priority == best.priority) {
            best = running;
        }
        if (best == running) {
            if (running != null && running.runningSince < 0) {
                advance(running);
            }
            return;
        }
        if (running != null) {
            suspend(running);
            board.truth.run(this, running.name, runningFrom, now);
        }
        tracer.taskSwitch(
                now,
                running == null ? "idle" : running.name,
                running == null ? 0 : running.priority,
                best == null ? "idle" : best.name,
                best == null ? 0 : best.priority);
        running = best;
        runningFrom = now;
        if (best != null) {
            advance(best);
        }
    }

    private void suspend(Task t) {
        if (t.runningSince >= 0) {
            t.remaining -= loop.now() - t.runningSince;
            t.runningSince = -1;
        }
        generation++;
    }

    /** Runs {@code t}'s steps from now until it computes or blocks. */
    private void advance(Task t) {
        long now = loop.now();
        while (true) {
            if (t.pendingGet != null) {
                MessageQueue q = t.pendingGet;
                MessageQueue.Message m = q.waiting.poll();
                if (m == null) {
                    q.reader = t;
                    tracer.msgqWait(now, q.id);
                    block(t);
                    return;
                }
                q.reader = null;
                t.pendingGet = null;
                t.received = m;
                tracer.msgqGet(now, q.id, m.size(), m.id());
            }
            if (t.remaining > 0) {
                t.runningSince = now;
                long g = ++generation;
                loop.at(now + t.remaining, () -> {
                    if (g == generation && !crashed) {
                        t.remaining = 0;
                        t.runningSince = -1;
                        advance(t);
                    }
                });
                return;
            }
            switch (t.program.next(t)) {
                case Step.Compute c -> t.remaining = Math.max(1, c.nanos());
                case Step.Enter e -> {
                    tracer.funcEntry(now, e.func(), caller(t));
                    t.calls.push(new Task.Call(e.func(), now));
                }
                case Step.Exit e -> {
                    Task.Call call = t.calls.pop();
                    if (!call.func().equals(e.func())) {
                        throw new IllegalStateException(
                                name + "/" + t.name + " leaves " + e.func() + " inside " + call.func());
                    }
                    tracer.funcExit(now, e.func(), caller(t));
                    board.truth.function(this, t.name, e.func(), call.entered(), now);
                }
                case Step.Put p -> board.send(this, p.queue(), p.size(), p.tag());
                case Step.Get g -> t.pendingGet = g.queue();
                case Step.Sleep s -> {
                    sleepUntil(t, now + s.nanos());
                    return;
                }
                case Step.Until u -> {
                    if (u.time() > now) {
                        sleepUntil(t, u.time());
                        return;
                    }
                }
                case Step.Note n -> n.action().run();
                case Step.Done d -> {
                    t.state = Task.State.DONE;
                    dispatch();
                    return;
                }
            }
        }
    }

    private static String caller(Task t) {
        return t.calls.isEmpty() ? null : t.calls.peek().func();
    }

    private void block(Task t) {
        t.state = Task.State.BLOCKED;
        dispatch();
    }

    private void sleepUntil(Task t, long time) {
        loop.at(time, () -> wake(t));
        block(t);
    }

    private void wake(Task t) {
        if (crashed || t.state != Task.State.BLOCKED) {
            return;
        }
        t.state = Task.State.READY;
        dispatch();
    }

    /** A message reaches one of this core's queues: through an interrupt on a bare-metal core. */
    void deliver(MessageQueue q, MessageQueue.Message m) {
        if (crashed) {
            return;
        }
        Runnable arrive = () -> {
            q.waiting.add(m);
            if (q.reader != null) {
                wake(q.reader);
            }
        };
        if (bareMetal) {
            interrupt(IRQ_IPC, "ipc", 600, t -> arrive.run());
        } else {
            arrive.run();
        }
    }

    /**
     * Takes an interrupt now (or when the current handler returns): the running task is
     * suspended for {@code duration} ns, during which {@code handler} runs; it gets the
     * handler's start time and may trace at later instants within the duration.
     */
    void interrupt(int irq, String irqName, long duration, LongConsumer handler) {
        if (crashed) {
            return;
        }
        if (inIsr) {
            pendingIrqs.add(() -> interrupt(irq, irqName, duration, handler));
            return;
        }
        long now = loop.now();
        if (running != null) {
            suspend(running);
        }
        inIsr = true;
        tracer.irqEntry(now, irq, irqName);
        handler.accept(now);
        loop.at(now + duration, () -> {
            if (crashed) {
                return;
            }
            tracer.irqExit(now + duration, irq);
            inIsr = false;
            Runnable next = pendingIrqs.poll();
            if (next != null) {
                next.run();
            } else {
                dispatch();
            }
        });
    }

    /** Closes the running task's interval at the end of the run. */
    void finish(long end) {
        if (running != null && !crashed) {
            board.truth.run(this, running.name, runningFrom, end);
        }
    }
}
