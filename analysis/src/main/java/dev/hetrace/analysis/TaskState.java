package dev.hetrace.analysis;

import java.util.Arrays;

/**
 * A task's call stack and switched-out state. A frame is four longs side by side (function,
 * start, time in callees, loss epoch), so that a call touches one place.
 */
final class TaskState {
    static final int FUNC = 0;
    static final int START = 1;
    static final int CHILD = 2;
    static final int EPOCH = 3;
    long[] frames = new long[4 * 16];
    int depth;
    /** Time covered by completed calls at the bottom of the stack since the trace began (for calls begun before it). */
    long baseChild;

    long outSince = -1;
    int outState;
    long outEpoch;
    int lastBlockedRow = -1;
    /** The queue the task said it is about to block on (a wait event), until it runs again; −1 if none. */
    int waitQueue = -1;
    /** The core it runs on, −1 when it is not running. */
    int runningOn = -1;
    /** Whether the trace has shown its state: switched in or out, woken, or created. */
    boolean known;
    /** Created in the trace (a fork): it made no call before. */
    boolean born;
    /** Said to be exiting: its next switch out is its death. */
    boolean exiting;
    /** Dead: its id names another task from its next switch in. */
    boolean dead;
    /** The process (thread group) it belongs to, as its trace numbers them (Linux's tgid); −1 while unknown. */
    long process = -1;
    /** The hash of its name as the switches give it (tasks known by id: a new name is a rename). */
    long nameHash;

    void push(int func, long start, long epoch) {
        int o = 4 * depth;
        if (o == frames.length) {
            frames = Arrays.copyOf(frames, o * 2);
        }
        frames[o + FUNC] = func;
        frames[o + START] = start;
        frames[o + CHILD] = 0;
        frames[o + EPOCH] = epoch;
        depth++;
    }

    int func(int d) {
        return (int) frames[4 * d + FUNC];
    }
}
