package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.cli.KernelTraceReference.Figures;
import dev.hetrace.cli.KernelTraceReference.Line;
import dev.hetrace.cli.KernelTraceReference.PrevStateEncoding;
import dev.hetrace.cli.KernelTraceReference.SwitchOut;
import dev.hetrace.cli.KernelTraceReference.SwitchOuts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reference computation of {@link KernelTraceReference}, on babeltrace2 lines whose figures are worked out by hand. */
class KernelTraceReferenceTest {
    private static Figures figures(PrevStateEncoding encoding, String... lines) {
        return KernelTraceReference.of(
                List.of(lines).stream().map(KernelTraceReference::parse).toList(), encoding);
    }

    /**
     * Two CPUs over 1000 ns. CPU 0: idle until its first switch at 100, thread 7 until 300, thread 8 until 400,
     * idle to the end. CPU 1: thread 8 (its first switch's prev) from the trace's first event to 200, then idle.
     */
    @Test
    void eachCpusTimeGoesToTheThreadItsSwitchesSayRanFromTheTracesFirstEventToItsLast() {
        Figures f = figures(
                PrevStateEncoding.raw(KernelTraceReference.KernelVersion.parse("4.4.3-1-ARCH")),
                "[10.000000000] wilbrod irq_handler_entry: { cpu_id = 1 }, { irq = 26, name = \"ahci, port 1\" }",
                "[10.000000100] wilbrod sched_switch: { cpu_id = 0 }, { prev_comm = \"swapper/0\", prev_tid = 0, prev_prio = 20,"
                        + " prev_state = 0, next_comm = \"a\", next_tid = 7, next_prio = 20 }",
                "[10.000000150] wilbrod syscall_entry_read: { cpu_id = 0 }, { fd = 3, buf = 140272155494592, count = 8 }",
                "[10.000000200] wilbrod sched_switch: { cpu_id = 1 }, { prev_comm = \"b\", prev_tid = 8, prev_prio = 20,"
                        + " prev_state = 2048, next_comm = \"swapper/1\", next_tid = 0, next_prio = 20 }",
                "[10.000000250] wilbrod irq_softirq_entry: { cpu_id = 1 }, { vec = 1 }",
                "[10.000000300] wilbrod sched_switch: { cpu_id = 0 }, { prev_comm = \"a\", prev_tid = 7, prev_prio = 20,"
                        + " prev_state = 1, next_comm = \"b\", next_tid = 8, next_prio = 20 }",
                "[10.000000350] wilbrod compat_syscall_entry_read: { cpu_id = 0 }, { fd = 3, buf = 1, count = 8 }",
                "[10.000000400] wilbrod sched_switch: { cpu_id = 0 }, { prev_comm = \"b\", prev_tid = 8, prev_prio = 20,"
                        + " prev_state = 64, next_comm = \"swapper/0\", next_tid = 0, next_prio = 20 }",
                "[10.000001000] wilbrod softirq_entry: { cpu_id = 1 }, { vec = 1 }");
        assertThat(f.firstNs()).isEqualTo(10_000_000_000L);
        assertThat(f.lastNs()).isEqualTo(10_000_001_000L);
        assertThat(f.busyNs()).isEqualTo(Map.of(0, 300L, 1, 200L));
        assertThat(f.idleNs()).isEqualTo(Map.of(0, 700L, 1, 800L));
        assertThat(f.runNs()).isEqualTo(Map.of(7, 200L, 8, 300L));
        assertThat(f.switchOuts()).isEqualTo(Map.of(7, new SwitchOuts(0, 1, 0), 8, new SwitchOuts(1, 0, 1)));
        assertThat(f.irqs()).isEqualTo(Map.of(1, Map.of(26L, 1L)));
        assertThat(f.irqNames()).isEqualTo(Map.of(26L, "ahci, port 1"));
        assertThat(f.softirqs()).isEqualTo(Map.of(1, Map.of(1L, 2L)));
        assertThat(f.syscalls()).isEqualTo(Map.of("read", 2L));
        assertThat(f.syscallsPerThread()).isEqualTo(Map.of(7, Map.of("read", 1L), 8, Map.of("read", 1L)));
    }

    @Test
    void perfsConvertedEventsGiveTheSameFigures() {
        Figures f = figures(
                PrevStateEncoding.raw(KernelTraceReference.KernelVersion.parse("3.10.92-stih418_family+")),
                "[00.000000100] sched:sched_switch: { perf_ip = 0x0, perf_tid = 0, perf_pid = 0, perf_id = 21, perf_cpu = 3,"
                        + " perf_period = 1, common_type = 59, common_flags = 1, common_preempt_count = 3, common_pid = 0,"
                        + " prev_comm = \"swapper/3\", prev_pid = 0, prev_prio = 120, prev_state = 0, next_comm = \"perf\","
                        + " next_pid = 1834, next_prio = 120 }",
                "[00.000000300] syscalls:sys_enter_write: { perf_cpu = 3, fd = 1 }",
                "[00.000000400] sched:sched_switch: { perf_cpu = 3, prev_comm = \"perf\", prev_pid = 1834, prev_prio = 120,"
                        + " prev_state = 1024, next_comm = \"swapper/3\", next_pid = 0, next_prio = 120 }");
        assertThat(f.busyNs()).isEqualTo(Map.of(3, 300L));
        assertThat(f.idleNs()).isEqualTo(Map.of(3, 0L));
        assertThat(f.switchOuts()).isEqualTo(Map.of(1834, new SwitchOuts(1, 0, 0)));
        assertThat(f.syscallsPerThread()).isEqualTo(Map.of(1834, Map.of("write", 1L)));
    }

    @Test
    void linesAreReadWithTheirStringsEnumerationsArraysAndStructures() {
        Line l = KernelTraceReference.parse(
                "[1565032541.344453871] host sched_switch: { cpu_id = 2 }, { vtids = [ [0] = 1, [1] = 2 ],"
                        + " s = { a = 1, b = \"x, }\" }, comm = \"a \\\"b\\\" c\", prev_state = ( \"TASK_WAKEKILL\" : container = 256 ),"
                        + " next_tid = -1 }");
        assertThat(l.ns()).isEqualTo(1_565_032_541_344_453_871L);
        assertThat(l.name()).isEqualTo("sched_switch");
        assertThat(l.fields())
                .isEqualTo(Map.of("cpu_id", "2", "comm", "a \\\"b\\\" c", "prev_state", "256", "next_tid", "-1"));
        assertThat(KernelTraceReference.parse("[1.000000001] lttng_ust_statedump:end:")
                        .name())
                .isEqualTo("lttng_ust_statedump:end");
    }

    /** The states of include/linux/sched.h over the versions, as sched_switch reports them. */
    @Test
    void prevStateIsReadForTheKernelAndTracerThatWroteIt() {
        PrevStateEncoding v38 = encoding("3.8.13", "lttng-modules", 2, 1);
        PrevStateEncoding v314 = encoding("3.14.23-WR7.0.0.0_standard", "lttng-modules", 2, 5);
        PrevStateEncoding v44 = encoding("4.4.3-1-ARCH", "lttng-modules", 2, 8);
        PrevStateEncoding v48 = encoding("4.8.0", "lttng-modules", 2, 9);
        PrevStateEncoding v415lttng210 = encoding("4.15.0-65-generic", "lttng-modules", 2, 10);
        PrevStateEncoding v415lttng211 = encoding("4.15.0-43-generic", "lttng-modules", 2, 11);
        assertThat(List.of(v38, v314, v44, v48, v415lttng210).stream().map(PrevStateEncoding::preemptedBit))
                .containsExactly(512L, 1024L, 2048L, 4096L, 4096L);
        assertThat(v415lttng211).isEqualTo(PrevStateEncoding.REPORT);
        assertThat(KernelTraceReference.PrevStateEncoding.of(
                        Map.of("release", "5.4.0", "tracer_name", "perf", "domain", "kernel")))
                .isEqualTo(PrevStateEncoding.REPORT);

        // runnable: 0 (what kernels before 3.2 report for a preemption too), or the max bit
        assertThat(v38.of(0)).isEqualTo(SwitchOut.PREEMPTED);
        assertThat(v314.of(1024)).isEqualTo(SwitchOut.PREEMPTED);
        assertThat(v415lttng210.of(4096)).isEqualTo(SwitchOut.PREEMPTED);
        assertThat(PrevStateEncoding.REPORT.of(256)).isEqualTo(SwitchOut.PREEMPTED);
        // TASK_DEAD: 64 before 4.14, 128 after; EXIT_DEAD and EXIT_ZOMBIE always
        assertThat(v44.of(64)).isEqualTo(SwitchOut.DEAD);
        assertThat(v415lttng210.of(128)).isEqualTo(SwitchOut.DEAD);
        assertThat(v415lttng210.of(64)).as("TASK_PARKED from 4.14").isEqualTo(SwitchOut.BLOCKED);
        assertThat(PrevStateEncoding.REPORT.of(32)).isEqualTo(SwitchOut.DEAD);
        assertThat(PrevStateEncoding.REPORT.of(128)).as("TASK_REPORT_IDLE").isEqualTo(SwitchOut.BLOCKED);
        // waits: TASK_KILLABLE (WAKEKILL | UNINTERRUPTIBLE), TASK_IDLE (NOLOAD | UNINTERRUPTIBLE), TASK_PARKED before
        // 4.14
        assertThat(v44.of(130)).isEqualTo(SwitchOut.BLOCKED);
        assertThat(v415lttng210.of(258)).isEqualTo(SwitchOut.BLOCKED);
        assertThat(v415lttng210.of(1026)).isEqualTo(SwitchOut.BLOCKED);
        assertThat(v314.of(512)).isEqualTo(SwitchOut.BLOCKED);
        // a value the encoding cannot produce says the trace was read with the wrong one
        assertThatThrownBy(() -> PrevStateEncoding.REPORT.of(4096)).hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> PrevStateEncoding.REPORT.of(1026)).hasMessageContaining("cannot be read");
        assertThatThrownBy(() -> v314.of(4096)).hasMessageContaining("cannot be read");
    }

    private static PrevStateEncoding encoding(String release, String tracer, int major, int minor) {
        return PrevStateEncoding.of(Map.of(
                "kernel_release",
                release,
                "tracer_name",
                tracer,
                "tracer_major",
                Integer.toString(major),
                "tracer_minor",
                Integer.toString(minor)));
    }
}
