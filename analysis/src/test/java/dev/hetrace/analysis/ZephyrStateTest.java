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
}
