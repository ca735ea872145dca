package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.ZephyrTraces;
import dev.hetrace.ctf.testing.ZephyrTraces.Interval;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A Zephyr trace written as Zephyr's CTF tracing writes it: the zephyr preset gives the threads' and interrupts' intervals it ran. */
class ZephyrStateTest {
    /** 20 ms before the 32-bit nanosecond timestamp wraps: the truth's times are the reader's. */
    private static final long START = (1L << 32) - 20_000_000L;

    @Test
    void theThreadsAndInterruptsIntervalsAreTheScenarios(@TempDir Path tmp) throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(21, START, 3000);
        Path dir = z.writePosix(tmp.resolve("zephyr"));
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(dir), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames()).containsExactly("zephyr");

        List<Interval> threads = new ArrayList<>();
        List<Interval> isrs = new ArrayList<>();
        for (Interval i : z.intervals()) {
            (i.isr() ? isrs : threads).add(i);
        }
        assertThat(threads.getLast().end()).isGreaterThan(1L << 32);
        long from = threads.getFirst().start();
        long to = threads.getLast().end();
        List<Interval> runs = new ArrayList<>();
        IntervalTable t = m.runs();
        for (int i = 0; i < t.size(); i++) {
            if (t.start(i) >= from && t.end(i) <= to) {
                runs.add(new Interval(false, m.tasks().get(t.subject(i)).name(), t.start(i), t.end(i)));
            }
        }
        assertThat(runs).containsExactlyElementsOf(threads);
        // the idle thread's runs are the core's idle time
        for (int i = 0; i < t.size(); i++) {
            assertThat(m.tasks().get(t.subject(i)).idle())
                    .isEqualTo(m.tasks().get(t.subject(i)).name().equals("idle"));
        }

        List<Interval> irqs = new ArrayList<>();
        IntervalTable q = m.irqs();
        for (int i = 0; i < q.size(); i++) {
            irqs.add(new Interval(true, m.name(q.subject(i)), q.start(i), q.end(i)));
        }
        assertThat(irqs).containsExactlyElementsOf(isrs);
    }

    @Test
    void onTwoCpusEachEventIsOnItsCoreAndThreadsKeepTheirIdentityAcrossCores(@TempDir Path tmp) throws Exception {
        ZephyrTraces z = ZephyrTraces.smpScenario(33, START, 4000);
        Path dir = z.writePosix(tmp.resolve("zsmp"));
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(dir), w -> {}), StateBuilder.Options.of(w -> {}));
        assertThat(m.mappingNames()).containsExactly("zephyr");
        assertThat(m.cores().stream().map(StateModel.Core::name)).containsExactly("zsmp/cpu0", "zsmp/cpu1");

        List<Interval> threads = new ArrayList<>();
        List<Interval> isrs = new ArrayList<>();
        for (Interval i : z.intervals()) {
            (i.isr() ? isrs : threads).add(i);
        }
        assertThat(threads.getLast().end()).isGreaterThan(1L << 32);
        // the truth's runs on each CPU begin at its first switch in: the model's runs from there
        List<Interval> runs = new ArrayList<>();
        IntervalTable t = m.runs();
        for (int i = 0; i < t.size(); i++) {
            if (t.flags(i) == 0) {
                runs.add(new Interval(
                        false, m.tasks().get(t.subject(i)).name(), t.start(i), t.end(i), cpu(m, t.owner(i))));
            }
        }
        java.util.Comparator<Interval> order =
                java.util.Comparator.comparingLong(Interval::end).thenComparingInt(Interval::core);
        assertThat(runs.stream().sorted(order).toList())
                .containsExactlyElementsOf(threads.stream().sorted(order).toList());
        // the threads migrated, and each is one task whatever CPU it ran on
        for (String name : List.of("main", "sensor", "logger", "worker")) {
            assertThat(threads.stream()
                            .filter(i -> i.name().equals(name))
                            .map(Interval::core)
                            .distinct())
                    .as(name + " ran on both CPUs")
                    .hasSize(2);
            assertThat(m.tasks().stream().filter(k -> k.name().equals(name))).hasSize(1);
        }
        // each CPU idles in its own idle thread
        for (int i = 0; i < t.size(); i++) {
            StateModel.Task task = m.tasks().get(t.subject(i));
            assertThat(task.idle()).isEqualTo(task.name().startsWith("idle"));
            if (task.idle()) {
                assertThat(task.name()).isEqualTo(String.format("idle %02d", cpu(m, t.owner(i))));
            }
        }

        List<Interval> irqs = new ArrayList<>();
        IntervalTable q = m.irqs();
        for (int i = 0; i < q.size(); i++) {
            irqs.add(new Interval(true, m.name(q.subject(i)), q.start(i), q.end(i), cpu(m, q.owner(i))));
        }
        assertThat(irqs.stream().sorted(order).toList())
                .containsExactlyElementsOf(isrs.stream().sorted(order).toList());
        assertThat(isrs.stream().map(Interval::core).distinct()).hasSize(2);
    }

    @Test
    void aRingBufferDumpGivesTheIntervalsOfItsSurvivingPackets(@TempDir Path tmp) throws Exception {
        ZephyrTraces z = ZephyrTraces.scenario(ZephyrTraces.Layout.CIRCULAR, 23, 5_000_000_000L, 3000);
        // a 64 KiB buffer of 256-byte slots, its oldest packet torn by the dump
        ZephyrTraces.RingDump dump = z.ring(64 * 1024, 256, 12);
        Path dir = dump.write(tmp.resolve("zring"));
        List<String> warnings = new ArrayList<>();
        StateModel m = StateBuilder.build(
                StateBuilder.synchronize(List.of(dir), warnings::add), StateBuilder.Options.of(warnings::add));
        assertThat(m.mappingNames()).containsExactly("zephyr");
        assertThat(warnings).singleElement().asString().contains("the packet in slot " + dump.torn() + " ");

        List<Integer> kept = dump.surviving();
        long from = z.written().get(kept.getFirst()).time();
        long to = z.written().get(kept.getLast()).time();
        assertThat(kept.size()).isLessThan(z.written().size() / 2);
        List<Interval> threads = new ArrayList<>();
        List<Interval> isrs = new ArrayList<>();
        for (Interval i : z.intervals()) {
            if (i.start() >= from && i.end() <= to) {
                (i.isr() ? isrs : threads).add(i);
            }
        }
        assertThat(threads).hasSizeGreaterThan(100);
        List<Interval> runs = new ArrayList<>();
        IntervalTable t = m.runs();
        for (int i = 0; i < t.size(); i++) {
            if (t.start(i) >= from && t.end(i) <= to && t.flags(i) == 0) {
                runs.add(new Interval(false, m.tasks().get(t.subject(i)).name(), t.start(i), t.end(i)));
            }
        }
        assertThat(runs).containsExactlyElementsOf(threads);
        List<Interval> irqs = new ArrayList<>();
        IntervalTable q = m.irqs();
        for (int i = 0; i < q.size(); i++) {
            if (q.start(i) >= from && q.end(i) <= to) {
                irqs.add(new Interval(true, m.name(q.subject(i)), q.start(i), q.end(i)));
            }
        }
        assertThat(irqs).containsExactlyElementsOf(isrs);
    }

    /** The CPU number of a core named TRACE/cpuN. */
    private static int cpu(StateModel m, int core) {
        String name = m.cores().get(core).name();
        return Integer.parseInt(name.substring(name.lastIndexOf("/cpu") + 4));
    }
}
