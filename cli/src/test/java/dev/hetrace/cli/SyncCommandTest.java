package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace sync} on a master and two DSPs that ran the sync handshake, written by the CTF
 * writer with clocks whose truth the test knows: a 1.2 GHz DSP drifting +37 ppm whose clock
 * started at boot, and a 1 GHz one drifting −120 ppm, against a master on the epoch.
 */
class SyncCommandTest {
    private static final long EPOCH_S = 1_763_700_000L;
    private static final String METADATA = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.sys.value; } := uint64_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        clock { name = sys; freq = %d; offset_s = %d; offset = 0; };
        stream {
            id = 0;
            packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size; };
            event.header := struct { uint32_t id; uint64_clock_t timestamp; };
        };
        event { name = "hetrace_sync_recv"; id = 0; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        event { name = "hetrace_sync_send"; id = 1; stream_id = 0;
                fields := struct { uint32_t seq; uint32_t core; uint32_t peer; }; };
        event { name = "work"; id = 2; stream_id = 0; fields := struct { uint32_t n; }; };
        """;

    @TempDir
    Path dir;

    /** A core's clock: local ns = origin + true ns × (1 + drift); the trace counts cycles at freq. */
    record Core(
            String name, int id, long freq, long offsetS, double origin, double drift, double changeAt, double drift2) {
        Core(String name, int id, long freq, long offsetS, double origin, double drift) {
            this(name, id, freq, offsetS, origin, drift, Double.MAX_VALUE, drift);
        }

        double local(double trueNanos) {
            return trueNanos < changeAt
                    ? origin + trueNanos * (1 + drift)
                    : origin + changeAt * (1 + drift) + (trueNanos - changeAt) * (1 + drift2);
        }

        long cycles(double trueNanos) {
            return Math.round(local(trueNanos) * freq / 1e9);
        }

        /** What the reader reports for an instant this core timestamped (ns). */
        double reported(double trueNanos) {
            return offsetS * 1e9 + cycles(trueNanos) * 1e9 / freq;
        }

        /** The true time of an instant the reader reports as {@code t} for this core. */
        double truth(double t) {
            double local = t - offsetS * 1e9;
            double change = origin + changeAt * (1 + drift);
            return local < change ? (local - origin) / (1 + drift) : changeAt + (local - change) / (1 + drift2);
        }
    }

    private static final Core MASTER = new Core("master", 0, 1_000_000_000L, EPOCH_S, 0, 0);
    private static final Core DSP0 = new Core("dsp0", 1, 1_200_000_000L, 0, 3_700_000_000.0, 37e-6);
    private static final Core DSP1 = new Core("dsp1", 2, 1_000_000_000L, 0, 12_000_000.0, -120e-6);

    /** Events per core, in time order: {true time, class id, seq, core, peer}. */
    private final Map<Core, List<long[]>> events =
            Map.of(MASTER, new ArrayList<>(), DSP0, new ArrayList<>(), DSP1, new ArrayList<>());

    /** The seeds' handshake every 250 ms with each DSP in turn for 60 s; a jump of DSP 1's clock if asked. */
    private void handshakes(Random r) {
        int seq = 1;
        for (long t = 1_000_000; t < 60_000_000_000L; t += 250_000_000L) {
            Core dsp = (t / 250_000_000L) % 2 == 0 ? DSP0 : DSP1;
            long l1 = 1_000 + r.nextInt(20_000);
            long l2 = 1_000 + r.nextInt(20_000);
            events.get(MASTER).add(new long[] {t, 1, seq, MASTER.id(), dsp.id()});
            events.get(dsp).add(new long[] {t + l1, 0, seq, dsp.id(), MASTER.id()});
            events.get(dsp).add(new long[] {t + l1 + 2_000, 1, seq + 1, dsp.id(), MASTER.id()});
            events.get(MASTER).add(new long[] {t + l1 + 2_000 + l2, 0, seq + 1, MASTER.id(), dsp.id()});
            events.get(dsp).add(new long[] {t + l1 + 50_000, 2, seq, 0, 0});
            seq += 2;
        }
    }

    private Path write(Core core, double jumpAtNanos, double jumpNanos) throws Exception {
        Path trace = dir.resolve(core.name());
        try (CtfWriter w = CtfWriter.create(trace, METADATA.formatted(core.freq(), core.offsetS()))) {
            StreamWriter s = w.stream(0).packetSize(4096);
            for (long[] e : events.get(core)) {
                double t = e[0] >= jumpAtNanos ? e[0] + jumpNanos : e[0];
                Object payload = e[1] == 2 ? List.of(e[2]) : List.of(e[2], e[3], e[4]);
                s.event(e[1], core.cycles(t), payload);
            }
        }
        return trace;
    }

    private record Run(int status, String out, String err) {}

    private Run sync(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> a = new ArrayList<>(List.of("sync"));
        a.addAll(List.of(args));
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), a.toArray(String[]::new));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyDspIsOnTheMastersClockWithinItsAccuracyAndNoMessageIsAcausal() throws Exception {
        handshakes(new Random(7));
        Path master = write(MASTER, Double.MAX_VALUE, 0);
        Path dsp0 = write(DSP0, Double.MAX_VALUE, 0);
        Path dsp1 = write(DSP1, Double.MAX_VALUE, 0);

        Run run = sync("--format", "json", master.toString(), dsp0.toString(), dsp1.toString());
        assertThat(run.status()).as(run.err()).isZero();
        for (Core dsp : List.of(DSP0, DSP1)) {
            Matcher m = Pattern.compile("\\{\"path\":\"[^\"]*" + dsp.name()
                            + "\",\"slope\":\"([^\"]+)\",\"offset_ns\":\"([^\"]+)\","
                            + "\"quality\":\"accurate\",\"via\":\"[^\"]*master\",\"matches_out\":(\\d+),\"matches_in\":(\\d+),"
                            + "\"accuracy_ns\":(\\d+),\"causality_violations\":0}")
                    .matcher(run.out());
            assertThat(m.find()).as(run.out()).isTrue();
            BigDecimal slope = new BigDecimal(m.group(1));
            BigDecimal offset = new BigDecimal(m.group(2));
            long accuracy = Long.parseLong(m.group(5));
            assertThat(Long.parseLong(m.group(3))).isEqualTo(120);
            assertThat(Long.parseLong(m.group(4))).isEqualTo(120);
            // 60 s of handshakes with 1–21 µs latencies: a few microseconds
            assertThat(accuracy).isBetween(1L, 25_000L);
            for (double t = 0; t < 60e9; t += 5e9) {
                double reported = dsp.reported(t);
                double mapped =
                        slope.multiply(new BigDecimal(reported)).add(offset).doubleValue();
                double truth = MASTER.reported(dsp.truth(reported));
                assertThat(Math.abs(mapped - truth))
                        .as("%s at %f s", dsp.name(), t / 1e9)
                        .isLessThanOrEqualTo(accuracy + 2.0);
            }
        }
        assertThat(run.out()).startsWith("{\"reference\":\"" + master + "\",\"traces\":[");

        Run text = sync(master.toString(), dsp0.toString(), dsp1.toString());
        assertThat(text.status()).isZero();
        assertThat(text.out())
                .contains("reference: " + master)
                .contains("rule hetrace-sync: 480 messages matched, 0 sends and 0 receives unmatched")
                .containsPattern("dsp0\\s+0\\.99996\\d+\\s+\\S+\\s+accurate\\s+\\S*master\\s+120\\s+120\\s+\\d+\\s+0");
    }

    @Test
    void aClockJumpFailsAndNamesTheConflictingMessages() throws Exception {
        handshakes(new Random(11));
        Path master = write(MASTER, Double.MAX_VALUE, 0);
        Path dsp0 = write(DSP0, Double.MAX_VALUE, 0);
        Path dsp1 = write(DSP1, 30e9, 5e6);

        Run run = sync(master.toString(), dsp0.toString(), dsp1.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .contains(dsp1 + " is not connected to the reference: its messages with " + master
                        + " fit no single clock line")
                .contains(dsp1 + " and " + master + ": no clock line keeps these messages causal together")
                .contains(" sent at ")
                .contains(" received at ");
        assertThat(run.out())
                .containsPattern("dsp0\\s+\\S+\\s+\\S+\\s+accurate")
                .containsPattern("dsp1\\s+-\\s+-\\s+not connected");
    }

    @Test
    void aTraceWithoutMessagesIsReportedNotGuessed() throws Exception {
        handshakes(new Random(3));
        Path master = write(MASTER, Double.MAX_VALUE, 0);
        Path dsp0 = write(DSP0, Double.MAX_VALUE, 0);
        events.get(DSP1).removeIf(e -> e[1] != 2);
        Path dsp1 = write(DSP1, Double.MAX_VALUE, 0);

        Run run = sync("--reference", dsp0.toString(), master.toString(), dsp0.toString(), dsp1.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).contains(dsp1 + " is not connected to the reference");
        assertThat(run.out())
                .contains("reference: " + dsp0)
                .containsPattern("master\\s+1\\.0000\\d+\\s+\\S+\\s+accurate")
                .containsPattern("dsp1\\s+-\\s+-\\s+not connected");
        // the master's unanswered handshakes with DSP 1 are counted
        assertThat(run.out()).contains("rule hetrace-sync: 240 messages matched, 120 sends and 120 receives unmatched");
    }

    @Test
    void driftThatChangesMidTraceFailsAsOneLineAndIsFollowedPiecewise() throws Exception {
        // DSP 1's crystal warms up: −120 ppm for 30 s, then +60 ppm
        Core warming = new Core("dsp1", 2, 1_000_000_000L, 0, 12_000_000.0, -120e-6, 30e9, 60e-6);
        handshakes(new Random(5));
        Path master = write(MASTER, Double.MAX_VALUE, 0);
        Path dsp1 = dir.resolve("dsp1");
        try (CtfWriter w = CtfWriter.create(dsp1, METADATA.formatted(warming.freq(), warming.offsetS()))) {
            StreamWriter s = w.stream(0).packetSize(4096);
            for (long[] e : events.get(DSP1)) {
                s.event(e[1], warming.cycles(e[0]), e[1] == 2 ? List.of(e[2]) : List.of(e[2], e[3], e[4]));
            }
        }

        Run line = sync(master.toString(), dsp1.toString());
        assertThat(line.status()).isEqualTo(1);
        assertThat(line.err()).contains("no clock line keeps these messages causal together");

        Run run = sync("--piecewise", "10s", "--format", "json", master.toString(), dsp1.toString());
        assertThat(run.status()).as(run.err()).isZero();
        Matcher m = Pattern.compile("\\{\"path\":\"[^\"]*dsp1\",.*\"quality\":\"accurate\",.*\"accuracy_ns\":(\\d+),"
                        + "\"causality_violations\":0,\"pieces\":\\[(.*)\\]\\]}")
                .matcher(run.out());
        assertThat(m.find()).as(run.out()).isTrue();
        long accuracy = Long.parseLong(m.group(1));
        assertThat(accuracy).isBetween(1L, 25_000L);
        String[] knots = m.group(2).substring(1).split("\\],\\[");
        assertThat(knots.length).isGreaterThanOrEqualTo(4);
        // far from the change, the pieces are within the bound of the truth
        for (String k : knots) {
            String[] kv = k.split(",");
            double t = Double.parseDouble(kv[0]);
            double trueT = warming.truth(t);
            if (Math.abs(trueT - 30e9) > 10e9) {
                assertThat(Math.abs(Long.parseLong(kv[1]) - MASTER.reported(trueT)))
                        .as("knot %s", k)
                        .isLessThanOrEqualTo(accuracy + 2.0);
            }
        }
        Run text = sync("--piecewise", "10s", master.toString(), dsp1.toString());
        assertThat(text.out()).containsPattern("dsp1\\s+\\d+ pieces\\s+-\\s+accurate");
    }

    @Test
    void aFolderOfTracesStandsForTheTracesInItMasterFirst() throws Exception {
        handshakes(new Random(9));
        write(MASTER, Double.MAX_VALUE, 0);
        write(DSP0, Double.MAX_VALUE, 0);
        write(DSP1, Double.MAX_VALUE, 0);
        Run run = sync(dir.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("reference: " + dir.resolve("master"))
                .containsPattern("dsp0\\s+\\S+\\s+\\S+\\s+accurate")
                .containsPattern("dsp1\\s+\\S+\\s+\\S+\\s+accurate");
        Run one = sync(dir.resolve("master").toString());
        assertThat(one.status()).isEqualTo(2);
        assertThat(one.err()).isEqualTo("hetrace: 1 trace given: synchronizing needs two at least\n");
    }

    @Test
    void tracesWithoutTheRulesEventsGetAHint() throws Exception {
        handshakes(new Random(1));
        Path master = write(MASTER, Double.MAX_VALUE, 0);
        Path dsp0 = write(DSP0, Double.MAX_VALUE, 0);
        Run run = sync("--match", "messages:msgq_put,msgq_get,msg_id", master.toString(), dsp0.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .isEqualTo("hetrace: no message matched: the traces have none of the events the rules name"
                        + " (msgq_put, msgq_get); say which events are messages with --match\n");
    }

    @Test
    void badRulesGetOneClearLine() throws Exception {
        Run run = sync("--match", "messages:a,b", dir.toString(), dir.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .isEqualTo("hetrace: --match messages:a,b: expected messages:SEND,RECEIVE,KEY[+KEY...],"
                        + " e.g. messages:msgq_put,msgq_get,queue+msg_id\n");
        run = sync("--match", "nope", dir.toString(), dir.toString());
        assertThat(run.err()).startsWith("hetrace: --match nope: not a preset (hetrace-sync, rpmsg, tcp,");
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, """
            rules:
              - name: zephyr
                send: {event: named_event, when: 'name = "rpmsg_send"', keys: [arg1]}
                receive: {event: named_event, keys: [arg1]}
            """);
        run = sync("--match", rules.toString(), dir.toString(), dir.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .startsWith("hetrace: " + rules + ": rules[0].send: condition 'name = \"rpmsg_send\"': ")
                .doesNotContain("\tat ")
                .hasLineCount(1);
    }
}
