package dev.hetrace.sim;

/**
 * The tracepoints of a simulated core, called at the true time of the traced instant. A
 * tracer records what its real counterpart would (an LTTng-UST application does not see task
 * switches or interrupts; a bare-metal RTOS's hooks do).
 */
interface CoreTracer {
    void taskSwitch(long t, String prev, int prevPrio, String next, int nextPrio);

    void msgqPut(long t, int queue, int size, int msgId);

    void msgqGet(long t, int queue, int size, int msgId);

    /** The task is about to block on {@code queue}: nothing is there (an RTOS traces it; an LTTng-UST application does not). */
    default void msgqWait(long t, int queue) {}

    /** @param caller the function that calls {@code func}, or null for the task's entry point */
    void funcEntry(long t, String func, String caller);

    void funcExit(long t, String func, String caller);

    void irqEntry(long t, int irq, String name);

    void irqExit(long t, int irq);

    void syncSend(long t, int seq, int core, int peer);

    void syncRecv(long t, int seq, int core, int peer);

    /** The core crashed: nothing more is traced. */
    void stop();
}
