package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.LttngSessionDaemon.Channel;
import dev.hetrace.analysis.LttngSessionDaemon.Recording;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.MessageMatcher;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LTTng-UST tracepoint provider hetrace ships for RPMsg on Linux
 * ({@code examples/rpmsg/hetrace_rpmsg_tp.h}), compiled with gcc into a program that talks
 * through a socket pair standing in for {@code /dev/rpmsgN} ({@code ust/rpmsg_ping.c}: Linux's
 * endpoint and a remote one, each counting its messages), recorded by a real session daemon:
 * hetrace reads every event with its fields as the program traced them, and the {@code rpmsg}
 * match rule pairs each send with its receive, never a receive before its send.
 */
class RpmsgTracepointProviderTest {
    private static final Path PROVIDER = Path.of("../examples/rpmsg");
    private static final long LINUX_EPT = 0x400;

    @TempDir
    Path dir;

    @Test
    void theProvidersEventsReadBackAsTracedAndTheRpmsgRulePairsEverySendWithItsReceive() throws Exception {
        LttngSessionDaemon.require();
        Path src = Files.createDirectories(dir.resolve("src"));
        for (String f : List.of("hetrace_rpmsg_tp.h", "hetrace_rpmsg_tp.c")) {
            Files.copy(PROVIDER.resolve(f), src.resolve(f));
        }
        try (InputStream in = getClass().getResourceAsStream("/ust/rpmsg_ping.c")) {
            Files.copy(in, src.resolve("rpmsg_ping.c"));
        }
        Path bin = Files.createDirectories(dir.resolve("bin"));
        bin.toFile().setExecutable(true, false);
        gcc(src, List.of("-O2", "-Wall", "-Wextra", "-Werror", "-I.", "-c", "hetrace_rpmsg_tp.c", "-o", "tp.o"));
        Path program = bin.resolve("rpmsg_ping");
        gcc(
                src,
                List.of(
                        "-O2",
                        "-Wall",
                        "-Wextra",
                        "-Werror",
                        "-I.",
                        "rpmsg_ping.c",
                        "tp.o",
                        "-o",
                        program.toString(),
                        "-pthread",
                        "-llttng-ust",
                        "-ldl"));
        Recording rec;
        try (LttngSessionDaemon lttng = LttngSessionDaemon.start(dir.resolve("lttng"))) {
            rec = lttng.record(
                    "rpmsg", Channel.AMPLE, List.of("hetrace_rpmsg:*"), Map.of(), List.of(program.toString()));
        }
        List<String> said = new ArrayList<>(Files.readAllLines(rec.directory().resolve("program.log")));
        said.removeIf(l -> !l.startsWith("send ") && !l.startsWith("recv "));
        assertThat(said).as("messages the program traced").hasSize(4 * 50);

        List<String> read = new ArrayList<>();
        List<long[]> sent = new ArrayList<>();
        MessageMatcher matcher = new MessageMatcher(
                MatchRules.RPMSG,
                (rule, from, sendNanos, to, receiveNanos) -> sent.add(new long[] {from, sendNanos, to, receiveNanos}));
        try (CtfReader reader = CtfReader.open(rec.trace())) {
            Event e = reader.event();
            while (reader.next()) {
                String what = e.name().equals("hetrace_rpmsg:send") ? "send" : "recv";
                read.add(what + " " + e.getLong("src") + " " + e.getLong("dst") + " " + e.getLong("seq") + " "
                        + e.getLong("len"));
                // each endpoint's side as a trace of its own: Linux's endpoint, and the remote one
                long own = what.equals("send") ? e.getLong("src") : e.getLong("dst");
                matcher.event(own == LINUX_EPT ? 0 : 1, e);
            }
        }
        assertThat(read).containsExactlyInAnyOrderElementsOf(said);
        MessageMatcher.RuleStats stats = matcher.stats().getFirst();
        assertThat(stats.matched()).isEqualTo(2 * 50);
        assertThat(stats.unmatchedSends() + stats.unmatchedReceives() + stats.repeats() + stats.sameTrace())
                .isZero();
        assertThat(sent).allSatisfy(m -> assertThat(m[3]).isGreaterThanOrEqualTo(m[1]));
        assertThat(sent.stream().filter(m -> m[0] == 0)).hasSize(50);
    }

    private static void gcc(Path in, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd)
                .directory(in.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("%s:%n%s", cmd, out)
                .isTrue();
    }
}
