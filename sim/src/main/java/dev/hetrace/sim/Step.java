package dev.hetrace.sim;

/**
 * What a simulated task does next. Steps other than {@link Compute}, {@link Sleep} and a
 * {@link Get} that finds its queue empty take no time.
 */
sealed interface Step {
    /** Runs for {@code nanos} of CPU time (longer in true time when preempted or interrupted). */
    record Compute(long nanos) implements Step {}

    /** Enters a function (traced). */
    record Enter(String func) implements Step {}

    /** Leaves the function entered last (traced). */
    record Exit(String func) implements Step {}

    /** Sends a message to a queue (traced on the sender; delivered after the link's latency). */
    record Put(MessageQueue queue, int size, int tag) implements Step {}

    /** Takes the next message of one of the task's queues, waiting for it (traced when taken). */
    record Get(MessageQueue queue) implements Step {}

    /** Sleeps (blocked) for {@code nanos}. */
    record Sleep(long nanos) implements Step {}

    /** Waits until true time {@code time} (no wait if it has passed). */
    record Until(long time) implements Step {}

    /** Runs {@code action} (e.g. notes a fault in the ground truth); takes no time. */
    record Note(Runnable action) implements Step {}

    /** Ends the task. */
    record Done() implements Step {}
}
