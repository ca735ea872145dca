package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in {@code rpmsg} rule on three hand-written traces whose clocks the test knows: a
 * Linux host tracing its RPMsg reads and writes with the {@code hetrace_rpmsg} LTTng-UST
 * provider, a Zephyr coprocessor tracing its own with named events ({@code rpmsg_send} and
 * {@code rpmsg_recv}, the addresses packed in {@code arg0}, the seq in {@code arg1}), and a
 * bare-metal core traced by a generated tracer ({@code hetrace_rpmsg_send}/{@code _recv}). The
 * messages alone put the coprocessors on Linux's clock within the reported bound; a rules file
 * with conditions and key expressions reads and matches the same way.
 */
class RpmsgRuleTest {
    /** LTTng-UST's layout, reduced: a 1 GHz monotonic clock from an epoch second. */
    private static final String LINUX = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
        env { domain = "ust"; tracer_name = "lttng-ust"; };
        clock { name = monotonic; freq = 1000000000; offset_s = 1763700000; offset = 0; };
        stream { event.header := struct { uint32_t id; uint64_clock_t timestamp; }; };
        event { name = "hetrace_rpmsg:send"; id = 0;
            fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        event { name = "hetrace_rpmsg:recv"; id = 1;
            fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        """;

    /** Zephyr's layout: no packets, a 32-bit ns-since-boot timestamp, named_event as Zephyr declares it. */
    private static final String ZEPHYR = """
        /* CTF 1.8 */
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 8; align = 8; signed = false; encoding = ASCII; } := ctf_bounded_string_t;
        struct event_header { uint32_t timestamp; uint8_t id; };
        trace { major = 1; minor = 8; byte_order = le; };
        stream { event.header := struct event_header; };
        event { name = idle; id = 0x1E; };
        event { name = named_event; id = 0x62;
            fields := struct { ctf_bounded_string_t name[20]; uint32_t arg0; uint32_t arg1; }; };
        """;

    /** A generated tracer's layout: cycles of an 800 MHz counter since boot. */
    private static final String BARE_METAL = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.cycles.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
        clock { name = cycles; freq = 800000000; offset_s = 0; offset = 0; };
        stream { event.header := struct { uint32_t id; uint64_clock_t timestamp; }; };
        event { name = "hetrace_rpmsg_send"; id = 0;
            fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        event { name = "hetrace_rpmsg_recv"; id = 1;
            fields := struct { uint32_t src; uint32_t dst; uint32_t seq; uint32_t len; }; };
        """;

    private static final long EPOCH_NS = 1_763_700_000L * 1_000_000_000L;
    /** True time (ns) at which the Zephyr core booted, and its counter's drift. */
    private static final long ZEPHYR_BOOT = 83_000_000;

    private static final double ZEPHYR_PPM = 37.5;
    private static final double BARE_PPM = -21.25;
    private static final long BARE_ORIGIN = 9_000_000_000L;
    /** Linux's endpoint addresses; the coprocessors' (RPMsg's dynamic addresses start at 0x400). */
    private static final int LINUX_TO_Z = 0x400;

    private static final int Z_EP = 0x1e;
    private static final int LINUX_TO_B = 0x401;
    private static final int B_EP = 0x35;

    @TempDir
    Path dir;

    /** What a reader reports for an instant (true ns) on each trace's clock. */
    private static long linuxNanos(long t) {
        return EPOCH_NS + t;
    }

    private static long zephyrNanos(long t) {
        return (long) Math.floor((t - ZEPHYR_BOOT) * (1 + ZEPHYR_PPM * 1e-6));
    }

    private static long bareCycles(long t) {
        return BARE_ORIGIN + (long) Math.floor(t * 0.8 * (1 + BARE_PPM * 1e-6));
    }

    private static long bareNanos(long cycles) {
        return Math.round(cycles / 0.8);
    }

    private record Ev(long t, int cls, Object payload) {}

    private List<Path> board() throws Exception {
        SplittableRandom r = new SplittableRandom(29);
        List<Ev> linux = new ArrayList<>();
        List<Ev> zephyr = new ArrayList<>();
        List<Ev> bare = new ArrayList<>();
        int[] seq = new int[4];
        for (long t = ZEPHYR_BOOT + 1_000_000; t < 1_900_000_000L; t += 3_000_000 + r.nextLong(2_000_000)) {
            // Linux → Zephyr, then its answer; 8 µs plus a tail each way
            long arrive = t + 8_000 + r.nextLong(20_000);
            linux.add(new Ev(t, 0, List.of((long) LINUX_TO_Z, (long) Z_EP, (long) seq[0], 64L)));
            zephyr.add(new Ev(arrive, 0x62, named("rpmsg_recv", LINUX_TO_Z, Z_EP, seq[0]++)));
            long reply = arrive + 30_000 + r.nextLong(100_000);
            zephyr.add(new Ev(reply, 0x62, named("rpmsg_send", Z_EP, LINUX_TO_Z, seq[1])));
            linux.add(new Ev(
                    reply + 8_000 + r.nextLong(20_000),
                    1,
                    List.of((long) Z_EP, (long) LINUX_TO_Z, (long) seq[1]++, 16L)));
            // other named events are not messages
            zephyr.add(new Ev(reply + 200_000, 0x62, named("sensor", 3, 4, seq[1])));
            // Linux ↔ the bare-metal core, the other way round
            long bt = t + 500_000;
            bare.add(new Ev(bt, 0, List.of((long) B_EP, (long) LINUX_TO_B, (long) seq[2], 32L)));
            long got = bt + 6_000 + r.nextLong(15_000);
            linux.add(new Ev(got, 1, List.of((long) B_EP, (long) LINUX_TO_B, (long) seq[2]++, 32L)));
            long back = got + 40_000 + r.nextLong(50_000);
            linux.add(new Ev(back, 0, List.of((long) LINUX_TO_B, (long) B_EP, (long) seq[3], 32L)));
            bare.add(new Ev(
                    back + 6_000 + r.nextLong(15_000),
                    1,
                    List.of((long) LINUX_TO_B, (long) B_EP, (long) seq[3]++, 32L)));
        }
        Path l = write("linux", LINUX, linux, t -> t); // cycles from the clock's origin, the epoch second
        Path z = write("zephyr", ZEPHYR, zephyr, RpmsgRuleTest::zephyrNanos);
        Path b = write("bare", BARE_METAL, bare, RpmsgRuleTest::bareCycles);
        return List.of(l, z, b);
    }

    private static Map<String, Object> named(String name, int src, int dst, int seq) {
        return Map.of("name", name, "arg0", ((long) (src & 0xffff) << 16) | (dst & 0xffff), "arg1", (long) seq);
    }

    private Path write(String name, String tsdl, List<Ev> events, java.util.function.LongUnaryOperator clock)
            throws Exception {
        events.sort((a, b) -> Long.compare(a.t(), b.t()));
        Path p = dir.resolve(name);
        try (CtfWriter w = CtfWriter.create(p, tsdl)) {
            StreamWriter s = w.stream(w.metadata().streams().firstKey());
            for (Ev e : events) {
                s.event(e.cls(), clock.applyAsLong(e.t()), e.payload());
            }
        }
        return p;
    }

    @Test
    void rpmsgMessagesTracedByLttngUstZephyrAndAGeneratedTracerPutTheCoprocessorsOnLinuxsClockWithinTheBound()
            throws Exception {
        List<Path> traces = board();
        Synchronizer.Report report =
                Synchronizer.run(traces, MatchRules.DEFAULT, ConvexHullSync.Method.BISECTOR, 0, w -> {});

        MessageMatcher.RuleStats rpmsg = report.rules().stream()
                .filter(s -> s.rule().name().equals("rpmsg"))
                .findFirst()
                .orElseThrow();
        long rounds = count(traces.get(0)) / 4;
        assertThat(rpmsg.matched())
                .as("every message, both ways, both coprocessors")
                .isEqualTo(4 * rounds);
        assertThat(rpmsg.unmatchedSends() + rpmsg.unmatchedReceives()).isZero();
        assertThat(rounds).isGreaterThan(300);

        // the Zephyr core: true time of its reading z is BOOT + z / (1 + drift)
        Synchronizer.TraceSync z = report.traces().get(1);
        assertThat(z.quality()).isEqualTo(SyncQuality.ACCURATE);
        long bound = z.accuracyNanos().orElseThrow();
        assertThat(bound).isLessThan(40_000);
        for (long t = ZEPHYR_BOOT + 1_000_000; t < 1_900_000_000L; t += 10_000_000) {
            long error = z.transform().apply(zephyrNanos(t)) - linuxNanos(t);
            assertThat(Math.abs(error)).as("zephyr at %d ns", t).isLessThanOrEqualTo(bound + 1);
        }
        Synchronizer.TraceSync b = report.traces().get(2);
        assertThat(b.quality()).isEqualTo(SyncQuality.ACCURATE);
        long bBound = b.accuracyNanos().orElseThrow();
        assertThat(bBound).isLessThan(40_000);
        for (long t = 1_000_000; t < 1_900_000_000L; t += 10_000_000) {
            long error = b.transform().apply(bareNanos(bareCycles(t))) - linuxNanos(t);
            assertThat(Math.abs(error)).as("bare-metal core at %d ns", t).isLessThanOrEqualTo(bBound + 1);
        }
    }

    private static long count(Path trace) throws Exception {
        long n = 0;
        try (CtfReader reader = CtfReader.open(trace)) {
            Event e = reader.event();
            while (reader.next()) {
                n += e.name().startsWith("hetrace_rpmsg") ? 1 : 0;
            }
        }
        return n;
    }

    @Test
    void aRulesFileWithConditionsAndKeyExpressionsReadsAndMatchesAsTheBuiltInRule() throws Exception {
        List<Path> traces = board();
        Path file = dir.resolve("rules.yaml");
        Files.writeString(file, """
            rules:
              - name: zephyr-rpmsg
                send:
                  - {event: "hetrace_rpmsg:send", keys: [seq, src, dst]}
                  - {event: named_event, when: 'name == "rpmsg_send" && arg1 != 4294967295',
                     keys: [arg1, "(arg0 >> 16) & 0xffff", "arg0 & 0xFFFF"]}
                receive:
                  - {event: "hetrace_rpmsg:recv", keys: [seq, src, dst]}
                  - {event: named_event, when: 'name == "rpmsg_recv"', keys: [arg1, "arg0 >> 16", arg0 & 65535]}
            """);
        List<MatchRule> rules = MatchRules.parse(file.toString());
        assertThat(rules).hasSize(1);
        assertThat(rules.getFirst().sends()).hasSize(2);
        assertThat(rules.getFirst().sends().get(1).when()).isEqualTo("name == \"rpmsg_send\" && arg1 != 4294967295");
        assertThat(rules.getFirst().events())
                .containsExactly("hetrace_rpmsg:send", "named_event", "hetrace_rpmsg:recv");

        Synchronizer.Report report =
                Synchronizer.run(traces.subList(0, 2), rules, ConvexHullSync.Method.BISECTOR, 0, w -> {});
        Synchronizer.Report builtIn =
                Synchronizer.run(traces.subList(0, 2), MatchRules.RPMSG, ConvexHullSync.Method.BISECTOR, 0, w -> {});
        MessageMatcher.RuleStats s = report.rules().getFirst();
        // the Linux ↔ bare-metal messages are left on Linux's side, unmatched
        assertThat(s.matched()).isEqualTo(builtIn.rules().getFirst().matched()).isGreaterThan(600);
        assertThat(report.traces().get(1).transform())
                .isEqualTo(builtIn.traces().get(1).transform());
        assertThat(report.traces().get(1).accuracyNanos())
                .isEqualTo(builtIn.traces().get(1).accuracyNanos());
    }

    @Test
    void aBadConditionOrKeyExpressionIsRefusedSayingWhere() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, """
            rules:
              - send: {event: named_event, when: 'name = "x"', keys: [arg1]}
                receive: {event: named_event, keys: [arg1]}
            """);
        assertThatThrownBy(() -> MatchRules.parse(file.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rules[0].send")
                .hasMessageContaining("is not FIELD == VALUE");
        Files.writeString(file, """
            rules:
              - send: {event: named_event, keys: ["arg0 << 16"]}
                receive: {event: named_event, keys: [arg1]}
            """);
        assertThatThrownBy(() -> MatchRules.parse(file.toString()))
                .hasMessageContaining("rules[0].send")
                .hasMessageContaining("key field 'arg0 << 16'");
    }
}
