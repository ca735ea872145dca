package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.SyncQuality;
import dev.hetrace.sync.Synchronizer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the analyses put several traces on one clock: traces of one clock exactly, from their
 * metadata; traces of different clocks from their messages, TCP's by default; a trace that
 * cannot be put on the reference clock refused, or taken apart when asked.
 */
class TraceClocksTest {
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
        clock { name = monotonic; %s freq = %d; offset_s = %d; offset = %d; };
        stream { event.header := struct { uint32_t id; uint64_clock_t timestamp; }; };
        event { name = "irq_entry"; id = 0; fields := struct { uint32_t irq; }; };
        event { name = "irq_exit"; id = 1; fields := struct { uint32_t irq; }; };
        event { name = "inet_sock_local_out"; id = 2; fields := struct { uint32_t seq; uint32_t ack_seq; uint32_t flags; }; };
        event { name = "inet_sock_local_in"; id = 3; fields := struct { uint32_t seq; uint32_t ack_seq; uint32_t flags; }; };
        """;

    @TempDir
    Path dir;

    Mapping irqs;

    @BeforeEach
    void mapping() throws Exception {
        Path f = dir.resolve("irqs.yaml");
        Files.writeString(f, """
            name: irqs
            events:
              - {event: irq_entry, does: irq-entry, irq: irq}
              - {event: irq_exit, does: irq-exit, irq: irq}
            """);
        irqs = Mapping.read(f);
    }

    /** A trace of {cycles, class, fields...} events on a clock declared by {@code clock} ("uuid = ...;" or ""). */
    private Path trace(String name, String clock, long freq, long offsetS, long offsetCycles, List<long[]> events)
            throws Exception {
        events.sort((a, b) -> Long.compare(a[0], b[0]));
        Path p = dir.resolve(name);
        try (CtfWriter w = CtfWriter.create(p, METADATA.formatted(clock, freq, offsetS, offsetCycles))) {
            StreamWriter s = w.stream(0);
            for (long[] e : events) {
                s.event(e[1], e[0], Arrays.stream(e, 2, e.length).boxed().toList());
            }
        }
        return p;
    }

    private static List<long[]> irq(long fromCycles, long toCycles, long number) {
        List<long[]> l = new ArrayList<>();
        l.add(new long[] {fromCycles, 0, number});
        l.add(new long[] {toCycles, 1, number});
        return l;
    }

    /** The start of the first interrupt of each trace, on the reference clock. */
    private static long[] irqStarts(StateModel m) {
        long[] out = new long[m.traceNames().size()];
        Arrays.fill(out, Long.MAX_VALUE);
        for (int i = 0; i < m.irqs().size(); i++) {
            int trace = m.cores().get(m.irqs().owner(i)).trace();
            out[trace] = Math.min(out[trace], m.irqs().start(i));
        }
        return out;
    }

    @Test
    void tracesOfOneClockShareItsTimeBaseExactlyWithoutMessagesThoughTheirOffsetsDiffer() throws Exception {
        // LTTng's kernel and user-space tracers sample the offset of the same clock each: 40 ns apart
        String uuid = "uuid = \"88cba016-36e2-48c2-aff8-3e4b9aefb05c\";";
        Path kernel = trace("kernel", uuid, 100_000_000, 1_564_079_206L, 50, irq(100_000, 300_000, 7));
        List<long[]> ust = irq(100_000, 200_000, 9);
        ust.addAll(irq(500_000, 600_000, 9));
        Path user = trace("ust", uuid, 100_000_000, 1_564_079_206L, 46, ust);
        long expected = 1_564_079_206_000_000_000L + 500 + 1_000_000; // 100,000 cycles at 100 MHz: 1 ms

        StateBuilder.Built built = StateBuilder.synchronizeAndBuild(
                List.of(kernel, user),
                StateBuilder.Clocks.DEFAULT,
                StateBuilder.Options.of(w -> {}).withMapping(irqs).withThreads(1));
        StateModel read = StateBuilder.build(
                StateBuilder.synchronize(List.of(kernel, user), w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(irqs));
        for (StateModel m : List.of(built.model(), read)) {
            assertThat(irqStarts(m)).containsExactly(expected, expected);
        }
        Synchronizer.TraceSync u = built.input().sync().traces().get(1);
        assertThat(u.quality()).isEqualTo(SyncQuality.SAME_CLOCK);
        assertThat(u.accuracyNanos()).contains(0L);
        assertThat(u.transform().apply(1_000)).isEqualTo(1_040);
    }

    @Test
    void aClockOfTheSameUuidAtAnotherFrequencyIsAnotherClock() throws Exception {
        // a synchronized copy rewrites a clock's frequency and keeps its UUID
        String uuid = "uuid = \"88cba016-36e2-48c2-aff8-3e4b9aefb05c\";";
        Path kernel = trace("kernel", uuid, 100_000_000, 1_564_079_206L, 50, irq(100_000, 300_000, 7));
        Path copy = trace("copy", uuid, 100_000_010, 1_564_079_206L, 50, irq(100_000, 300_000, 7));
        assertThatThrownBy(() -> StateBuilder.synchronize(List.of(kernel, copy), w -> {}))
                .isInstanceOf(UnsynchronizedTraceException.class);
    }

    @Test
    void absoluteClocksAreOneTimeBaseWhateverTheirUuids() throws Exception {
        Path a = trace(
                "a",
                "uuid = \"11111111-36e2-48c2-aff8-3e4b9aefb05c\"; absolute = true;",
                1_000_000_000,
                100,
                0,
                irq(1_000, 2_000, 1));
        Path b = trace(
                "b",
                "uuid = \"22222222-36e2-48c2-aff8-3e4b9aefb05c\"; absolute = true;",
                1_000_000_000,
                100,
                0,
                irq(1_500, 2_500, 1));
        StateModel m = StateBuilder.synchronizeAndBuild(
                        List.of(a, b),
                        StateBuilder.Clocks.DEFAULT,
                        StateBuilder.Options.of(w -> {}).withMapping(irqs).withThreads(1))
                .model();
        assertThat(irqStarts(m)).containsExactly(100_000_001_000L, 100_000_001_500L);
    }

    @Test
    void aTraceNoMessageConnectsIsRefusedUnlessTheTracesAreTakenApart() throws Exception {
        Path a = trace(
                "a", "uuid = \"11111111-36e2-48c2-aff8-3e4b9aefb05c\";", 1_000_000_000, 100, 0, irq(1_000, 2_000, 1));
        List<long[]> events = irq(7_000, 9_000, 2);
        events.addAll(irq(10_000, 11_000, 2));
        Path b = trace("b", "uuid = \"22222222-36e2-48c2-aff8-3e4b9aefb05c\";", 1_000_000_000, 5, 0, events);

        String said = b + " cannot be put on the clock of " + a + ": the traces have none of the events the match rules"
                + " name (hetrace_sync_send, hetrace_sync_recv, hetrace_rpmsg_send, hetrace_rpmsg:send, named_event,"
                + " hetrace_rpmsg_recv, hetrace_rpmsg:recv, inet_sock_local_out, inet_sock_local_in";
        assertThatThrownBy(() -> StateBuilder.synchronize(List.of(a, b), w -> {}))
                .isInstanceOf(UnsynchronizedTraceException.class)
                .hasMessageStartingWith(said)
                .hasMessageEndingWith("--apart analyses it on its own clock")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> StateBuilder.synchronizeAndBuild(
                        List.of(a, b),
                        StateBuilder.Clocks.DEFAULT,
                        StateBuilder.Options.of(w -> {}).withMapping(irqs).withThreads(1)))
                .isInstanceOf(UnsynchronizedTraceException.class)
                .hasMessageStartingWith(said);

        StateBuilder.Clocks apart = new StateBuilder.Clocks(Synchronizer.Options.DEFAULT, true);
        List<String> warnings = new ArrayList<>();
        StateModel built = StateBuilder.synchronizeAndBuild(
                        List.of(a, b),
                        apart,
                        StateBuilder.Options.of(warnings::add).withMapping(irqs).withThreads(1))
                .model();
        StateModel read = StateBuilder.build(
                StateBuilder.synchronize(List.of(a, b), apart, w -> {}),
                StateBuilder.Options.of(w -> {}).withMapping(irqs));
        assertThat(warnings).singleElement().asString().startsWith(b + ": analysed apart, on its own clock");
        for (StateModel m : List.of(built, read)) {
            // b's first event at a's first event; its durations its own
            assertThat(irqStarts(m)).containsExactly(100_000_001_000L, 100_000_001_000L);
            assertThat(m.end()).isEqualTo(100_000_001_000L + 4_000);
        }
    }

    @Test
    void tcpSegmentsPutTheKernelTracesOfTwoHostsOnOneClockByDefault() throws Exception {
        // host b's clock reads 5 s less than a's, 40 ppm fast; segments take 30 to 70 µs each way
        double drift = 40e-6;
        List<long[]> onA = new ArrayList<>(irq(1_000_000, 2_000_000, 1));
        List<long[]> onB = new ArrayList<>();
        long seq = 1;
        Random r = new Random(3);
        for (long t = 10_000_000; t < 2_000_000_000L; t += 10_000_000) {
            long there = t + 30_000 + r.nextInt(40_000);
            onA.add(new long[] {t, 2, seq, 1, 0x18});
            onB.add(new long[] {Math.round(there * (1 + drift)), 3, seq, 1, 0x18});
            long back = there + 100_000;
            onB.add(new long[] {Math.round(back * (1 + drift)), 2, 1, seq + 1, 0x10});
            onA.add(new long[] {back + 30_000 + r.nextInt(40_000), 3, 1, seq + 1, 0x10});
            seq += 1448;
        }
        onB.addAll(irq(Math.round(500_000_000 * (1 + drift)), Math.round(600_000_000 * (1 + drift)), 4));
        Path a = trace("server", "uuid = \"11111111-36e2-48c2-aff8-3e4b9aefb05c\";", 1_000_000_000, 1_000, 0, onA);
        Path b = trace("client", "uuid = \"22222222-36e2-48c2-aff8-3e4b9aefb05c\";", 1_000_000_000, 995, 0, onB);

        StateBuilder.Built built = StateBuilder.synchronizeAndBuild(
                List.of(a, b),
                StateBuilder.Clocks.DEFAULT,
                StateBuilder.Options.of(w -> {}).withMapping(irqs).withThreads(1));
        Synchronizer.TraceSync client = built.input().sync().traces().get(1);
        assertThat(client.quality()).isEqualTo(SyncQuality.ACCURATE);
        long accuracy = client.accuracyNanos().orElseThrow();
        assertThat(accuracy).isLessThan(40_000);
        assertThat(irqStarts(built.model())[1]).isCloseTo(1_000_000_000_000L + 500_000_000, Offset.offset(accuracy));

        StateBuilder.Clocks handshakeOnly = new StateBuilder.Clocks(
                new Synchronizer.Options(MatchRules.HETRACE_SYNC, ConvexHullSync.Method.BISECTOR, 0, 0), false);
        assertThatThrownBy(() -> StateBuilder.synchronizeAndBuild(
                        List.of(a, b),
                        handshakeOnly,
                        StateBuilder.Options.of(w -> {}).withMapping(irqs).withThreads(1)))
                .isInstanceOf(UnsynchronizedTraceException.class);
    }
}
