package dev.hetrace.sim;

import java.util.ArrayDeque;

/** A task of a simulated core: a name, a fixed priority, and a program of {@link Step}s. */
final class Task {
    /** The program of a task, asked for one step at a time. */
    @FunctionalInterface
    interface Program {
        /** The next step; {@code task.received()} holds the message the last {@link Step.Get} took. */
        Step next(Task task);
    }

    enum State {
        READY,
        BLOCKED,
        DONE
    }

    final String name;
    final int priority;
    final Program program;
    State state = State.READY;
    /** CPU time left in the current computation. */
    long remaining;
    /** When the current computation last resumed; −1 when not computing. */
    long runningSince = -1;
    /** The queue of a Get that found it empty, to take from when the task runs again. */
    MessageQueue pendingGet;

    MessageQueue.Message received;
    /** A function entered and not yet left. */
    record Call(String func, long entered) {}

    /** Functions entered and not left, innermost first. */
    final ArrayDeque<Call> calls = new ArrayDeque<>();

    Task(String name, int priority, Program program) {
        this.name = name;
        this.priority = priority;
        this.program = program;
    }

    MessageQueue.Message received() {
        return received;
    }
}
