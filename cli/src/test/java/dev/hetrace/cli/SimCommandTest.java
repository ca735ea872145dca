package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace sim} writes a board's traces that {@code hetrace sync} puts on one clock; bad options are one line. */
class SimCommandTest {
    @TempDir
    Path dir;

    private record Run(int status, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aFaultOnManyCoresIsToldAbridgedAndKeptWholeInTheTruth() throws Exception {
        Path board = dir.resolve("many");
        String cores = String.join(
                ",", IntStream.rangeClosed(1, 10).mapToObj(i -> "dsp" + i).toList());
        Run sim = run(
                "sim",
                "--cores",
                "12",
                "--duration",
                "0.2s",
                "--inject",
                "preempt:" + cores,
                "--out",
                board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        assertThat(sim.err()).contains("  preempt on dsp1, dsp2, dsp3, ... dsp10 (10 cores) at 0.001 s: ");
        assertThat(Files.readString(board.resolve("ground-truth.json"))).contains("\"dsp7\"", "\"dsp10\"");
    }

    @Test
    void aSimulatedBoardIsSynchronizedByHetraceSync() throws Exception {
        Path board = dir.resolve("board");
        Run sim = run("sim", "--cores", "4", "--inject", "preempt:dsp1,dsp2", "--seed", "9", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        assertThat(sim.err()).contains("5 traces").contains("  preempt on dsp1, dsp2 at 0.001 s: ");
        assertThat(board.resolve("ground-truth.json")).exists();
        assertThat(Files.readString(board.resolve("ground-truth.json")))
                .contains("\"kind\": \"preempt\"", "\"cores\": [\"dsp1\", \"dsp2\"]");

        List<String> args =
                new ArrayList<>(List.of("sync", board.resolve("master").toString()));
        for (int i = 0; i < 4; i++) {
            args.add(board.resolve("dsp" + i).toString());
        }
        Run sync = run(args.toArray(String[]::new));
        assertThat(sync.status()).as(sync.err()).isZero();
        assertThat(sync.out()).containsPattern("dsp3\\s+\\S+\\s+\\S+\\s+accurate");
    }

    @Test
    void aDriftJumpFailsAsOneLineAndSyncsPiecewise() {
        Path board = dir.resolve("board");
        Run sim = run(
                "sim",
                "--cores",
                "3",
                "--inject",
                "drift-jump:dsp2",
                "--sync-period",
                "20ms",
                "--duration",
                "3s",
                "--out",
                board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        String[] traces = {
            board.resolve("master").toString(),
            board.resolve("dsp0").toString(),
            board.resolve("dsp1").toString(),
            board.resolve("dsp2").toString()
        };
        List<String> line = new ArrayList<>(List.of("sync"));
        line.addAll(List.of(traces));
        Run one = run(line.toArray(String[]::new));
        assertThat(one.status()).isEqualTo(1);
        assertThat(one.err()).contains("no clock line keeps these messages causal together");
        assertThat(one.out()).containsPattern("dsp2\\s+-\\s+-\\s+not connected");
        List<String> piecewise = new ArrayList<>(List.of("sync", "--piecewise", "500ms"));
        piecewise.addAll(List.of(traces));
        Run pieces = run(piecewise.toArray(String[]::new));
        assertThat(pieces.status()).as(pieces.err()).isZero();
        assertThat(pieces.out()).containsPattern("dsp2\\s+\\d+ pieces\\s+-\\s+accurate");
    }

    @Test
    void anImx8BoardIsSynchronizedByHetraceSyncWithItsRpmsgMessages() throws Exception {
        Path board = dir.resolve("imx8");
        Run sim = run("sim", "--board", "imx8", "--m-cores", "2", "--duration", "2s", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        assertThat(sim.err()).contains("3 traces").contains("2.0 s simulated");
        assertThat(board.resolve("linux/metadata")).exists();
        assertThat(board.resolve("m1/channel0_0")).exists();
        Run sync = run("sync", board.toString());
        assertThat(sync.status()).as(sync.err()).isZero();
        assertThat(sync.out())
                .containsPattern("rule rpmsg: \\d+ messages matched")
                .containsPattern("m0\\s+\\S+\\s+\\S+\\s+accurate")
                .containsPattern("m1\\s+\\S+\\s+\\S+\\s+accurate");
    }

    @Test
    void optionsOfTheOtherBoardAreRefusedInOneLine() {
        Run cores = run(
                "sim",
                "--board",
                "imx8",
                "--cores",
                "3",
                "--out",
                dir.resolve("x").toString());
        assertThat(cores.status()).isEqualTo(2);
        assertThat(cores.err()).startsWith("hetrace: --cores: not an option of --board imx8\n");
        Run many = run(
                "sim",
                "--board",
                "imx8",
                "--m-cores",
                "5",
                "--out",
                dir.resolve("x").toString());
        assertThat(many.status()).isEqualTo(2);
        assertThat(many.err()).startsWith("hetrace: --m-cores 5: the imx8 board has 1 to 4 Cortex-M cores\n");
        Run keystone = run("sim", "--m-cores", "2", "--out", dir.resolve("x").toString());
        assertThat(keystone.status()).isEqualTo(2);
        assertThat(keystone.err()).startsWith("hetrace: --m-cores: only with --board imx8\n");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    @Test
    void aBadInjectIsOneLineAndAUsageError() {
        Run run = run("sim", "--inject", "hang:dsp8", "--out", dir.resolve("x").toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("hetrace: --inject hang:dsp8: the board has no dsp8 (dsp0 to dsp7)\n");
        assertThat(dir.resolve("x")).doesNotExist();

        Run late = run(
                "sim", "--inject", "crash:dsp1@9s", "--out", dir.resolve("x").toString());
        assertThat(late.status()).isEqualTo(2);
        assertThat(late.err()).startsWith("hetrace: --inject crash:dsp1@9.000s: after the end of the run (2.500 s)\n");
        Run longer = run(
                "sim",
                "--inject",
                "crash:dsp1@9s",
                "--duration",
                "10s",
                "--out",
                dir.resolve("y").toString());
        assertThat(longer.status()).as(longer.err()).isZero();
        assertThat(longer.err()).contains("  crash on dsp1 at 9.000 s: ");
    }

    @Test
    void aNonEmptyOutputDirectoryIsRefused() throws Exception {
        Files.writeString(dir.resolve("keep.txt"), "mine");
        Run run = run("sim", "--out", dir.toString());
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .isEqualTo("hetrace: " + dir + ": not empty (the simulator writes into an absent or empty"
                        + " directory)\n");
    }

    @Test
    void helpTeachesTheFaultsAndTheOutput() {
        Run run = run("sim", "--help");
        assertThat(run.status()).isZero();
    }
}
