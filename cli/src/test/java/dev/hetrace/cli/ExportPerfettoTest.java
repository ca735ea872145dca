package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace export --format perfetto} as a user types it: a Perfetto trace that protoc
 * decodes against Perfetto's schema, written whole or not at all; own clocks and several boards;
 * options that do not go together and outputs that cannot be written told in one line.
 */
class ExportPerfettoTest {
    @TempDir
    static Path dir;

    static Path board;
    static Path jumping;

    @BeforeAll
    static void boards() {
        board = dir.resolve("board");
        Cli.Run a =
                Cli.run("sim", "--cores", "3", "--inject", "preempt:dsp1", "--seed", "3", "--out", board.toString());
        assertThat(a.status()).as(a.err()).isZero();
        jumping = dir.resolve("jumping");
        Cli.Run b = Cli.run(
                "sim",
                "--cores",
                "2",
                "--inject",
                "drift-jump:dsp1",
                "--sync-period",
                "20ms",
                "--duration",
                "2s",
                "--seed",
                "5",
                "--out",
                jumping.toString());
        assertThat(b.status()).as(b.err()).isZero();
    }

    /** The file as protoc prints it, decoded against Perfetto's schema. */
    static String decode(Path file) throws IOException, InterruptedException {
        Required.tool("protoc", "--version");
        Path schema = Path.of("../../shared/specs/perfetto/perfetto_trace.proto")
                .toAbsolutePath()
                .normalize();
        Required.that(Files.isRegularFile(schema), "Perfetto's schema is not at " + schema);
        Path text = dir.resolve(file.getFileName() + ".txt");
        Process p = new ProcessBuilder(
                        "protoc",
                        "--proto_path=" + schema.getParent(),
                        "--decode=perfetto.protos.Trace",
                        schema.getFileName().toString())
                .redirectInput(file.toFile())
                .redirectOutput(text.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as("protoc decodes " + file).isZero();
        return Files.readString(text);
    }

    private static long count(String text, String what) {
        return Pattern.compile(Pattern.quote(what)).matcher(text).results().count();
    }

    private static long said(String out, String what) {
        Matcher m = Pattern.compile("(\\d+) " + what).matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void exportWritesAPerfettoTraceWithWhatItSaysItHolds() throws Exception {
        Path out = Files.createDirectories(dir.resolve("out"));
        Path file = out.resolve("board.pftrace");
        Cli.Run r = Cli.run("export", "--format", "perfetto", "-o", file.toString(), board.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.said()).isEmpty();
        assertThat(r.out()).startsWith(file + ": " + Files.size(file) + " bytes, 1 board, 4 traces, ");
        try (var files = Files.list(out)) {
            assertThat(files).as("the file alone, nothing left beside it").containsExactly(file);
        }
        String text = decode(file);
        assertThat(count(text, "type: TYPE_SLICE_BEGIN")).isEqualTo(said(r.out(), "slices"));
        assertThat(count(text, "type: TYPE_SLICE_END")).isEqualTo(said(r.out(), "slices"));
        assertThat(count(text, "type: TYPE_INSTANT")).isEqualTo(said(r.out(), "instants"));
        assertThat(count(text, "terminating_flow_ids:")).isEqualTo(said(r.out(), "flows"));
        assertThat(count(text, "type: TYPE_COUNTER")).isEqualTo(said(r.out(), "counter values"));
        assertThat(text)
                .contains("name: \"" + board + "\"")
                .contains("name: \"dsp1\"")
                .contains("name: \"intruder\"")
                .contains("name: \"sync send\"")
                .contains("trusted_packet_sequence_id: 1")
                .doesNotContain("trusted_packet_sequence_id: 2")
                .doesNotContain("clock_snapshot");
    }

    @Test
    void ownClocksPutEachTraceOnItsClockWithSnapshotsAndBoardsEachUnderATrackOfTheirOwn() throws Exception {
        Path file = dir.resolve("own.pftrace");
        Cli.Run r = Cli.run(
                "export",
                "--format",
                "perfetto",
                "--own-clocks",
                "--piecewise",
                "500ms",
                "-o",
                file.toString(),
                jumping.toString());
        assertThat(r.status()).as(r.err()).isZero();
        long snapshots = said(r.out(), "clock snapshots");
        assertThat(snapshots).isGreaterThan(3);
        String text = decode(file);
        assertThat(count(text, "clock_snapshot {")).isEqualTo(snapshots);
        assertThat(text)
                .contains("timestamp_clock_id: 64")
                .contains("timestamp_clock_id: 65")
                .contains("timestamp_clock_id: 66")
                .contains("primary_trace_clock: BUILTIN_CLOCK_BOOTTIME")
                .containsPattern("its own clock \\(id 66\\), converted by Perfetto from clock snapshots every \\d+ ns");

        Path two = dir.resolve("two.pftrace");
        Cli.Run b = Cli.run(
                "export",
                "--format",
                "perfetto",
                "--boards",
                "--piecewise",
                "500ms",
                "-o",
                two.toString(),
                board.toString(),
                jumping.toString());
        assertThat(b.status()).as(b.err()).isZero();
        assertThat(b.out()).contains(" 2 boards, 7 traces, ");
        String both = decode(two);
        assertThat(both)
                .contains("name: \"" + board + "\"")
                .contains("name: \"" + jumping + "\"")
                .contains("trusted_packet_sequence_id: 2");
    }

    @Test
    void optionsThatDoNotGoTogetherAndOutputsThatCannotBeWrittenAreOneLine() throws Exception {
        Cli.Run json = Cli.run(
                "export",
                "--format",
                "chrome-json",
                "--own-clocks",
                "-o",
                dir.resolve("x.json").toString(),
                board.toString());
        assertThat(json.status()).isEqualTo(2);
        assertThat(json.err()).startsWith("hetrace: --own-clocks goes with --format perfetto");
        Cli.Run parquet = Cli.run("export", "--parquet", dir.resolve("p").toString(), "--boards", board.toString());
        assertThat(parquet.status()).isEqualTo(2);
        assertThat(parquet.err()).startsWith("hetrace: --boards goes with --format perfetto");

        Path folder = Files.createDirectories(dir.resolve("folder.pftrace"));
        Cli.Run toFolder = Cli.run("export", "--format", "perfetto", "-o", folder.toString(), board.toString());
        assertThat(toFolder.status()).isEqualTo(1);
        assertThat(toFolder.err().strip())
                .isEqualTo("hetrace: cannot write " + folder + ": a folder is there, not a file");
        Path file = Files.writeString(dir.resolve("plain"), "x");
        Cli.Run underFile = Cli.run(
                "export",
                "--format",
                "perfetto",
                "-o",
                file.resolve("b.pftrace").toString(),
                board.toString());
        assertThat(underFile.status()).isEqualTo(1);
        assertThat(underFile.err()).isEqualTo("hetrace: cannot create " + file + ": a file is there, not a folder\n");
        assertThat(List.of(dir.resolve("x.json"))).allSatisfy(p -> assertThat(p).doesNotExist());
    }
}
