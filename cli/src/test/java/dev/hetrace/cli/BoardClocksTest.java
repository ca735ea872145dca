package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every analysis command reads its inputs and puts them on one clock as {@code hetrace sync}
 * does: folders of traces, the clock options, traces of one clock, TCP between hosts; a trace
 * that cannot be put on the reference clock is one line and exit status 1, unless --apart.
 */
class BoardClocksTest {
    @TempDir
    static Path dir;

    /** A board whose dsp2's drift changes mid-run: one clock line cannot follow it. */
    static Path jumping;

    @BeforeAll
    static void board() {
        jumping = dir.resolve("jumping");
        Cli.Run sim = Cli.run(
                "sim",
                "--cores",
                "3",
                "--inject",
                "drift-jump:dsp2",
                "--sync-period",
                "20ms",
                "--duration",
                "3s",
                "--seed",
                "5",
                "--out",
                jumping.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
    }

    private static Cli.Run run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (List.of("query", "export", "view", "stats", "diagnose", "waits", "report")
                .contains(args[0])) {
            all.addAll(1, List.of("--cache", dir.resolve("cache").toString()));
        }
        return Cli.run(all.toArray(String[]::new));
    }

    /** The span of the range {@code stats} printed, in ms. */
    private static double rangeMs(String stats) {
        Matcher m = Pattern.compile("^range: [\\d.]+ s \\(([\\d.]+) ms\\)").matcher(stats);
        assertThat(m.find()).as(stats).isTrue();
        return Double.parseDouble(m.group(1));
    }

    @Test
    void aBoardWhoseDriftJumpsIsRefusedInOneLineWithoutPiecewiseAndAnalysedWithIt() throws Exception {
        Path dsp2 = jumping.resolve("dsp2");
        for (String[] command : List.of(
                new String[] {"stats"}, new String[] {"diagnose"}, new String[] {"query", "select count(*) from traces"
                })) {
            List<String> args = new ArrayList<>(List.of(command));
            args.add(1, jumping.toString());
            Cli.Run refused = run(args.toArray(String[]::new));
            assertThat(refused.status()).as(String.join(" ", args)).isEqualTo(1);
            // query says first that it indexes the traces
            assertThat(refused.said())
                    .startsWith("hetrace: " + dsp2 + " cannot be put on the clock of " + jumping.resolve("master"))
                    .contains("--piecewise")
                    .contains("--apart")
                    .hasLineCount(1);
            assertThat(refused.out()).isEmpty();
        }

        Cli.Run stats = run("stats", "--piecewise", "500ms", jumping.toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.said()).isEmpty();
        assertThat(rangeMs(stats.out())).isBetween(2900.0, 3010.0);
        // dsp2 worked as much as the others, a share of the run's span
        assertThat(stats.out()).containsPattern("\\n  dsp2\\s+[\\d.]+\\s+4\\d\\.\\d\\d\\s");

        Cli.Run diagnose = run("diagnose", "--piecewise", "500ms", "--format", "json", jumping.toString());
        assertThat(diagnose.status()).as(diagnose.err()).isZero();
        assertThat(new ObjectMapper().readTree(diagnose.out()).get("silent")).isEmpty();

        Cli.Run query = run(
                "query",
                "--piecewise",
                "500ms",
                "--format",
                "csv",
                jumping.toString(),
                "select trace, sync_quality from traces order by rowid");
        assertThat(query.status()).as(query.err()).isZero();
        assertThat(query.out())
                .isEqualTo("trace,sync_quality\nmaster,accurate\ndsp0,accurate\ndsp1,accurate\ndsp2,accurate\n");
    }

    @Test
    void apartATraceOffTheReferenceClockIsAnalysedOnItsOwnBeginningWithTheReference() {
        Cli.Run stats = run("stats", "--apart", jumping.toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.said())
                .startsWith("hetrace: warning: " + jumping.resolve("dsp2") + ": analysed apart, on its own clock")
                .hasLineCount(1);
        assertThat(rangeMs(stats.out())).isBetween(2900.0, 3010.0);
        assertThat(stats.out()).containsPattern("\\n  dsp2\\s+[\\d.]+\\s+4\\d\\.\\d\\d\\s");

        Cli.Run sync = run("sync", "--apart", jumping.toString());
        assertThat(sync.status()).as(sync.err()).isZero();
        assertThat(sync.err())
                .startsWith("hetrace: warning: " + jumping.resolve("dsp2") + " is not connected to the reference");
        assertThat(run("sync", jumping.toString()).status()).isEqualTo(1);
    }

    @Test
    void aFolderOfTracesWithoutGroundTruthIsTheTracesInItAtAnyDepth() {
        Path board = dir.resolve("plain");
        Cli.Run sim = Cli.run("sim", "--cores", "2", "--duration", "1s", "--seed", "3", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        Path copies = dir.resolve("copies");
        Cli.Run sync = run(
                "sync", "--out", copies.resolve("on-master").resolve("synced").toString(), board.toString());
        assertThat(sync.status()).as(sync.err()).isZero();

        Cli.Run original = run("stats", "--format", "csv", board.toString());
        Cli.Run synced = run("stats", "--format", "csv", copies.toString());
        assertThat(synced.status()).as(synced.err()).isZero();
        assertThat(original.status()).as(original.err()).isZero();
        // the copies are on the master's clock already: the same statistics (the master's functions unnamed:
        // the copies have no ground truth)
        assertThat(percents(synced.out())).isEqualTo(percents(original.out())).hasSizeGreaterThan(5);
        Cli.Run text = run("stats", copies.toString());
        assertThat(text.out()).contains("from 3 trace(s): master (lttng-ust-cyg-profile), dsp0 (rtos), dsp1 (rtos)");

        // their clocks are absolute: one time base, without messages
        Cli.Run again = run("sync", copies.toString());
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.out())
                .containsPattern("dsp0\\s+1\\s+0\\.000\\s+same-clock")
                .containsPattern("dsp1\\s+1\\s+0\\.000\\s+same-clock");
    }

    /** Each statistics row's context and percentage (csv), which the clocks' rounding leaves alone. */
    private static List<String> percents(String csv) {
        // point events (event and stream rows) have no duration, hence no percentage
        return csv.lines()
                .skip(1)
                .map(l -> l.split(","))
                .filter(f -> !f[3].isEmpty())
                .map(f -> f[0] + "," + String.format(Locale.ROOT, "%.2f", Double.parseDouble(f[3])))
                .toList();
    }

    /** An LTTng-like trace of host %1$s, domain %4$s, on the monotonic clock of UUID %2$s, offset %3$d ns. */
    private static final String LTTNG = """
        /* CTF 1.8 */
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        env { hostname = "%1$s"; domain = "%4$s"; };
        clock { name = "monotonic"; uuid = "%2$s"; description = "Monotonic Clock"; freq = 1000000000; offset = %3$d; };
        stream { id = 0; event.header := struct { uint32_t id; uint64_clock_monotonic_t timestamp; }; };
        """;

    private static final String KERNEL = LTTNG + """
        event { name = "irq_handler_entry"; id = 0; stream_id = 0; fields := struct { uint32_t _irq; }; };
        event { name = "irq_handler_exit"; id = 1; stream_id = 0; fields := struct { uint32_t _irq; }; };
        event { name = "inet_sock_local_out"; id = 2; stream_id = 0;
            fields := struct { uint32_t _seq; uint32_t _ack_seq; uint32_t _flags; }; };
        event { name = "inet_sock_local_in"; id = 3; stream_id = 0;
            fields := struct { uint32_t _seq; uint32_t _ack_seq; uint32_t _flags; }; };
        """;

    private static final String UST = LTTNG + """
        event { name = "app:work_begin"; id = 0; stream_id = 0; fields := struct { uint32_t _n; }; };
        event { name = "app:work_end"; id = 1; stream_id = 0; fields := struct { uint32_t _n; }; };
        """;

    private static final String MAPPING = """
        name: session
        events:
          - {event: irq_handler_entry, does: irq-entry, irq: irq}
          - {event: irq_handler_exit, does: irq-exit, irq: irq}
          - {event: "app:work_begin", does: enter, func: "=work"}
          - {event: "app:work_end", does: exit, func: "=work"}
        """;

    /** Writes a trace of {ns on its clock, class, fields...} events. */
    private static Path write(Path trace, String metadata, List<long[]> events) throws Exception {
        events.sort((a, b) -> Long.compare(a[0], b[0]));
        try (CtfWriter w = CtfWriter.create(trace, metadata)) {
            StreamWriter s = w.stream(0);
            for (long[] e : events) {
                s.event(e[1], e[0], Arrays.stream(e, 2, e.length).boxed().toList());
            }
        }
        return trace;
    }

    private static List<long[]> pair(long from, long to, long classes, long field) {
        List<long[]> l = new ArrayList<>();
        l.add(new long[] {from, classes, field});
        l.add(new long[] {to, classes + 1, field});
        return l;
    }

    @Test
    void anLttngSessionFolderIsItsKernelAndUserSpaceTracesOnTheirOneClock() throws Exception {
        // each tracer sampled the clock's offset itself: 40 ns apart; the same clock value is the same instant
        Path session = dir.resolve("session");
        String uuid = "88cba016-36e2-48c2-aff8-3e4b9aefb05c";
        write(
                session.resolve("kernel"),
                KERNEL.formatted("host", uuid, 1_564_079_206_484_157_378L, "kernel"),
                pair(5_000_000, 6_000_000, 0, 42));
        write(
                session.resolve("ust/uid/1000/64-bit"),
                UST.formatted("host", uuid, 1_564_079_206_484_157_338L, "ust"),
                pair(5_000_000, 9_000_000, 0, 1));
        Path mapping = Files.writeString(dir.resolve("session.yaml"), MAPPING);

        Cli.Run q = run(
                "query",
                "--mapping",
                mapping.toString(),
                "--format",
                "csv",
                session.toString(),
                "select (select min(start_ns) from intervals where kind = 'irq') as irq,"
                        + " (select min(start_ns) from calls) as work, (select string_agg(trace::varchar || ':' || sync_quality, ' '"
                        + " order by rowid) from traces) as traces");
        assertThat(q.status()).as(q.err()).isZero();
        long at = 1_564_079_206_484_157_378L + 5_000_000;
        assertThat(q.out()).isEqualTo("irq,work,traces\n" + at + "," + at + ",kernel:accurate 64-bit:same-clock\n");

        Cli.Run sync = run("sync", session.toString());
        assertThat(sync.status()).as(sync.err()).isZero();
        assertThat(sync.out()).containsPattern("ust/uid/1000/64-bit\\s+1\\s+40\\.000\\s+same-clock\\s+\\S*kernel\\s");
    }

    @Test
    void tcpPutsTheKernelTracesOfTwoHostsOnOneClockAsSyncDoes() throws Exception {
        // the client's clock reads 3 s less than the server's, 25 ppm fast; segments take 40 to 90 µs
        double drift = 25e-6;
        long serverOffset = 1_700_000_000_000_000_000L;
        long clientOffset = serverOffset - 3_000_000_000L;
        List<long[]> server = pair(1_000_000, 2_000_000, 0, 7);
        List<long[]> client = new ArrayList<>();
        Random r = new Random(8);
        long seq = 1000;
        for (long t = 10_000_000; t < 1_000_000_000; t += 5_000_000) {
            long there = t + 40_000 + r.nextInt(50_000);
            server.add(new long[] {t, 2, seq, 1, 0x18});
            client.add(new long[] {Math.round(there * (1 + drift)), 3, seq, 1, 0x18});
            long reply = there + 200_000;
            client.add(new long[] {Math.round(reply * (1 + drift)), 2, 1, seq + 100, 0x10});
            server.add(new long[] {reply + 40_000 + r.nextInt(50_000), 3, 1, seq + 100, 0x10});
            seq += 100;
        }
        client.addAll(pair(Math.round(400_000_000 * (1 + drift)), Math.round(400_100_000 * (1 + drift)), 0, 9));
        write(
                dir.resolve("server/kernel"),
                KERNEL.formatted("server", "11111111-36e2-48c2-aff8-3e4b9aefb05c", serverOffset, "kernel"),
                server);
        write(
                dir.resolve("client/kernel"),
                KERNEL.formatted("client", "22222222-36e2-48c2-aff8-3e4b9aefb05c", clientOffset, "kernel"),
                client);
        Path mapping = Files.writeString(dir.resolve("kernel.yaml"), MAPPING);
        String[] hosts = {
            dir.resolve("server").toString(), dir.resolve("client").toString()
        };

        Cli.Run stats = run("stats", "--mapping", mapping.toString(), "--format", "json", hosts[0], hosts[1]);
        assertThat(stats.status()).as(stats.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(stats.out());
        assertThat(j.get("begin_ns").asLong()).isEqualTo(serverOffset + 1_000_000);
        assertThat(j.get("end_ns").asLong() - j.get("begin_ns").asLong()).isBetween(990_000_000L, 1_000_000_000L);
        List<String> rows = new ArrayList<>();
        j.get("rows").forEach(row -> rows.add(row.get("name").asText()));
        assertThat(rows).contains("server/kernel/irq 7", "client/kernel/irq 9");

        Cli.Run sync = run("sync", hosts[0], hosts[1]);
        assertThat(sync.status()).as(sync.err()).isZero();
        assertThat(sync.out())
                .contains("rule tcp-sock: 396 messages matched")
                .containsPattern("client/kernel\\s+0\\.9999\\d+\\s+\\S+\\s+accurate");

        Cli.Run handshakeOnly =
                run("stats", "--mapping", mapping.toString(), "--match", "hetrace-sync", hosts[0], hosts[1]);
        assertThat(handshakeOnly.status()).isEqualTo(1);
        assertThat(handshakeOnly.said())
                .startsWith("hetrace: " + dir.resolve("client/kernel") + " cannot be put on the clock of")
                .hasLineCount(1);
    }

    private static final List<String> COMMANDS =
            List.of("sync", "stats", "diagnose", "waits", "pattern", "query", "export", "view", "report");

    @Test
    void everyAnalysisCommandTakesTheClockOptionsAndFoldersOfTraces() {
        for (String name : COMMANDS) {
            CommandLine.Model.CommandSpec spec =
                    new CommandLine(new Main()).getSubcommands().get(name).getCommandSpec();
            for (String option : List.of("--match", "--piecewise", "--reference", "--method", "--apart")) {
                assertThat(spec.findOption(option)).as(name + " " + option).isNotNull();
            }
            assertThat(spec.positionalParameters().getFirst().description()[0])
                    .as(name)
                    .contains("folders of");
        }
        for (String name : COMMANDS) {
            List<String> args = new ArrayList<>(List.of(name, "--reference", "elsewhere"));
            args.addAll(
                    switch (name) {
                        case "pattern" -> List.of("--first", "a", "--then", "b");
                        case "export" ->
                            List.of("--parquet", dir.resolve("parquet").toString());
                        case "report" -> List.of("-o", dir.resolve("r.html").toString());
                        default -> List.of();
                    });
            args.add(jumping.toString());
            if (name.equals("query")) {
                args.add("select 1");
            }
            Cli.Run r = run(args.toArray(String[]::new));
            assertThat(r.status()).as(name + ": " + r.err()).isEqualTo(2);
            assertThat(r.err()).as(name).startsWith("hetrace: --reference elsewhere: not one of the traces given\n");
        }
    }
}
