package dev.hetrace.analysis;

/** A core's state in a trace pass: the task running, since when, and its interrupts in progress. */
final class CoreState {
    int task = -1;
    long since;
    long epoch;
    int[] irqs = new int[8];
    long[] irqNumbers = new long[8];
    long[] irqStarts = new long[8];
    long[] irqEpochs = new long[8];
    int[] irqClasses = new int[8];
    int irqDepth;
    int unknownTask = -1;
    /** The core's own idle task when each core has one, −1 until met. */
    int idleTask = -1;
    /** The CPU number the trace gives the core (−1: none). */
    long cpu = -1;
}
