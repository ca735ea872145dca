package dev.hetrace.analysis;

import dev.hetrace.ctf.CtfTrace;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How Linux's {@code sched_switch} tells why the previous task left its CPU ({@code prev_state}),
 * which depends on the kernel's version and on the tracer: 0 ({@code TASK_RUNNING}: it gave up
 * its CPU while runnable, as when it yields or is rescheduled on its way back to user space, and
 * when preempted on kernels before 3.19 built without {@code CONFIG_PREEMPT}) or the "preempted"
 * value means the task is still runnable; the exit states mean it died; anything else, it blocked.
 *
 * <ul>
 *   <li>The kernel's own tracepoint (perf) since 4.14, and lttng-modules since 2.11 on those
 *       kernels, report a preempted task as {@code TASK_REPORT_MAX}, 0x100, and the other states
 *       as one bit per letter of {@code ps} ({@code S}=1, {@code D}=2, {@code T}=4, {@code t}=8,
 *       {@code X}=16, {@code Z}=32, {@code P}=64, {@code I}=128): dead is 16 or 32.</li>
 *   <li>Before 4.14, and lttng-modules before 2.11 on any kernel, report the raw task state, with
 *       a preempted task as {@code TASK_RUNNING | TASK_STATE_MAX}, whose value grew with the
 *       states added: 0x1000 from 4.8 ({@code TASK_NEW}), 2048 from 4.2 ({@code TASK_NOLOAD}),
 *       1024 from 3.9 ({@code TASK_PARKED}), 512 from 2.6.32 ({@code TASK_WAKING}); dead is
 *       {@code EXIT_DEAD} or {@code EXIT_ZOMBIE} (16, 32) or {@code TASK_DEAD} (64 before 4.14,
 *       128 since, when {@code TASK_PARKED} took 64).</li>
 * </ul>
 *
 * The version is the trace's: the metadata's {@code kernel_release} and {@code tracer_major} and
 * {@code tracer_minor} for LTTng, {@code release} for perf. When the trace does not say it, a lone
 * bit from 0x100 to 0x1000 is taken as preempted (each is the preempted value of some version,
 * and none a state a task blocks in alone but {@code TASK_PARKED}, 512 from 3.9 to 4.13), and
 * only 16 and 32 as dead. A task's death is also told by {@code sched_process_exit}, which the
 * state pass uses when the version is unknown.
 *
 * @param preempted the bits that say "preempted" (0: none but the value 0)
 * @param dead      the bits that say the task died
 * @param kernel    the kernel release it was chosen for, or null when the trace does not say
 */
public record LinuxTaskStates(long preempted, long dead, String kernel) {
    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");
    private static final long LONE_PREEMPTED_BITS = 0x100 | 0x200 | 0x400 | 0x800 | 0x1000;

    /** The encoding of the kernel and tracer of {@code traces} (the first that names its kernel's release). */
    public static LinuxTaskStates of(List<CtfTrace> traces) {
        for (CtfTrace t : traces) {
            var env = t.metadata().env();
            for (String key : List.of("kernel_release", "release")) {
                if (env.get(key) instanceof String release) {
                    boolean rawLttng = "lttng-modules".equals(env.get("tracer_name"))
                            && env.get("tracer_major") instanceof Long major
                            && env.get("tracer_minor") instanceof Long minor
                            && major * 1000 + minor < 2011;
                    LinuxTaskStates s = forRelease(release, rawLttng);
                    if (s != null) {
                        return s;
                    }
                }
            }
        }
        return new LinuxTaskStates(LONE_PREEMPTED_BITS, 16 | 32, null);
    }

    /** The encoding of kernel {@code release} ("4.4.3-1-ARCH") as the kernel's own tracepoint reports it, or null. */
    public static LinuxTaskStates forRelease(String release) {
        return forRelease(release, false);
    }

    /**
     * The encoding of kernel {@code release}, or null when it is not a version; {@code rawState}:
     * reported as the raw task state whatever the version (lttng-modules before 2.11).
     */
    public static LinuxTaskStates forRelease(String release, boolean rawState) {
        Matcher m = VERSION.matcher(release);
        if (!m.find()) {
            return null;
        }
        int v = Integer.parseInt(m.group(1)) * 1000 + Integer.parseInt(m.group(2));
        if (v >= 4014) {
            // the raw state's TASK_STATE_MAX (0x1000) says preempted too: lttng-modules before 2.11 wrote it
            return rawState
                    ? new LinuxTaskStates(0x1000, 16 | 32 | 128, release)
                    : new LinuxTaskStates(0x100 | 0x1000, 16 | 32, release);
        }
        long max = v >= 4008 ? 4096 : v >= 4002 ? 2048 : v >= 3009 ? 1024 : 512;
        return new LinuxTaskStates(max, 16 | 32 | 64, release);
    }

    /** {@link StateModel#PREEMPTED}, {@link StateModel#BLOCKED} or {@link StateModel#DEAD} for a {@code prev_state}. */
    public int of(long prevState) {
        if (prevState == 0) {
            return StateModel.PREEMPTED;
        }
        if (kernel == null
                ? Long.bitCount(prevState) == 1 && (prevState & preempted) != 0
                : (prevState & preempted) != 0) {
            return StateModel.PREEMPTED;
        }
        return (prevState & dead) != 0 ? StateModel.DEAD : StateModel.BLOCKED;
    }
}
