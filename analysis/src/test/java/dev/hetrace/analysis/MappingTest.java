package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mappings: read from YAML with errors at their line, presets detected from the events a trace declares. */
class MappingTest {
    @TempDir
    Path dir;

    @Test
    void presetsApplyWhenTheTraceDeclaresTheirEventsAndOnlyForThoseEvents() {
        Mapping rtos = Mapping.detect(Set.of("task_switch", "func_entry", "func_exit", "hetrace_sync_send"));
        assertThat(rtos.name()).isEqualTo("rtos");
        assertThat(rtos.rules())
                .extracting(Mapping.Rule::event)
                .containsExactly("task_switch", "func_entry", "func_exit");

        Mapping kernel = Mapping.detect(Set.of(
                "sched_switch",
                "irq_handler_entry",
                "irq_handler_exit",
                "softirq_entry",
                "softirq_exit",
                "sched_wakeup"));
        assertThat(kernel.name()).isEqualTo("lttng-kernel");
        assertThat(kernel.core()).isEqualTo("packet_context.cpu_id");
        assertThat(kernel.states()).isEqualTo(Mapping.States.LINUX);
        assertThat(kernel.rules())
                .extracting(r -> r.event() + " " + r.does())
                .containsExactly(
                        "sched_switch SWITCH",
                        "sched_wakeup WAKE",
                        "irq_handler_entry IRQ_ENTRY",
                        "irq_handler_exit IRQ_EXIT",
                        "softirq_entry IRQ_ENTRY",
                        "softirq_exit IRQ_EXIT");

        assertThat(Mapping.detect(Set.of("sample_component:message"))).isNull();

        // system calls: one pattern rule per direction, a function per call
        Mapping syscalls = Mapping.detect(Set.of(
                "sched_switch",
                "syscall_entry_read",
                "syscall_exit_read",
                "syscall_entry_openat",
                "syscall_exit_openat"));
        assertThat(syscalls.name()).isEqualTo("lttng-kernel");
        assertThat(syscalls.rules())
                .extracting(r -> r.event() + " " + r.does() + " " + r.field("func"))
                .contains("syscall_entry_read ENTER =read", "syscall_exit_openat EXIT =openat");
    }

    @Test
    void aPatternsStarMayStandInsideTheNameAndPerfAndFastFunctionTracingAreDetected() {
        Mapping kernel = Mapping.detect(Set.of(
                "sched_switch",
                "x86_irq_vectors_local_timer_entry",
                "x86_irq_vectors_local_timer_exit",
                "x86_irq_vectors_reschedule_entry"));
        assertThat(kernel.rules())
                .extracting(r -> r.event() + " " + r.does() + " " + r.field("name"))
                .contains(
                        "x86_irq_vectors_local_timer_entry IRQ_ENTRY =local_timer",
                        "x86_irq_vectors_local_timer_exit IRQ_EXIT null",
                        "x86_irq_vectors_reschedule_entry IRQ_ENTRY =reschedule");
        assertThat(Mapping.detect(Set.of("sched:sched_switch", "sched:sched_waking"))
                        .name())
                .isEqualTo("perf-kernel");
        Mapping fast = Mapping.detect(
                Set.of("lttng_ust_cyg_profile_fast:func_entry", "lttng_ust_cyg_profile_fast:func_exit"),
                Set.of("vpid", "vtid", "procname"));
        assertThat(fast.name()).isEqualTo("lttng-ust-cyg-profile-fast");
        assertThat(fast.taskId()).isEqualTo("vtid");
        // a user-space trace of tracepoints only: each event is its thread's
        Mapping app = Mapping.detect(Set.of("app:job_entry", "app:job_exit"), Set.of("vtid", "procname"));
        assertThat(app.taskId()).isEqualTo("vtid");
        assertThat(app.taskName()).isEqualTo("procname");
        assertThat(Mapping.detect(Set.of("app:job_entry", "app:job_exit"), Set.of())
                        .taskId())
                .isNull();
    }

    @Test
    void genericEntryExitPairsBecomeFunctionsNamedByTheirStem() {
        Mapping m = Mapping.detect(Set.of("lock_entry", "lock_exit", "dma_begin", "dma_end", "lonely_entry"));
        assertThat(m.name()).isEqualTo("generic-entry-exit");
        assertThat(m.rules())
                .extracting(r -> r.event() + " " + r.does() + " " + r.field("func"))
                .containsExactlyInAnyOrder(
                        "lock_entry ENTER =lock", "lock_exit EXIT =lock", "dma_begin ENTER =dma", "dma_end EXIT =dma");
    }

    @Test
    void yamlErrorsNameTheFileAndLine() throws Exception {
        Path f = dir.resolve("m.yaml");
        Files.writeString(f, "name: mine\nevents:\n  - {event: a, does: enter}\n");
        assertThatThrownBy(() -> Mapping.read(f))
                .isInstanceOf(MappingException.class)
                .hasMessage(f + ":3: a: 'enter' needs the field role 'func'");
        Files.writeString(f, "name: mine\ncpu: cpu_id\nevents: []\n");
        assertThatThrownBy(() -> Mapping.read(f))
                .hasMessage(
                        f + ":2: unknown key 'cpu' (expected one of core, detect, events, idle, name, states, task)");
        Files.writeString(f, "events:\n  - {event: a, does: enter, func: f, queue: q}\n");
        assertThatThrownBy(() -> Mapping.read(f))
                .hasMessage(f + ":2: a: 'queue' is not a field role of 'enter' (roles: func)");
        Files.writeString(f, "events: [\n");
        assertThatThrownBy(() -> Mapping.read(f))
                .isInstanceOf(MappingException.class)
                .hasMessageStartingWith(f + ":");
    }

    @Test
    void aMappingFileReplacesThePresets() throws Exception {
        Simulation.Result r = Simulation.sobel(SimConfig.sobel(3).withSlaves(2), dir.resolve("board"));
        Path f = dir.resolve("irqs-only.yaml");
        Files.writeString(f, """
            # only the interrupts, named by number
            name: irqs-only
            events:
              - {event: irq_entry, does: irq-entry, irq: irq, label: line}
              - {event: irq_exit, does: irq-exit, irq: irq}
            """);
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(r.slaves().get(0)), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(Mapping.read(f)));
        assertThat(m.mappingNames()).containsExactly("irqs-only");
        assertThat(m.runs().size()).isZero();
        assertThat(m.calls().size()).isZero();
        assertThat(m.irqs().size()).isPositive();
        assertThat(Statistics.of(m).rows(Statistics.Context.IRQ))
                .extracting(Statistics.Row::name)
                .allMatch(n -> n.startsWith("dsp0/line "));
    }
}
