package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.write.Ctf2Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace sync --out} of a simulated board whose traces are CTF 2 (the sim's CTF 1.8
 * traces with their metadata rewritten by hetrace's CTF 2 writer): the copies, in CTF 2 by
 * default or in CTF 1.8 when asked, print exactly as the copies of the CTF 1.8 board do, through
 * both routes (the master's clock rewritten in its metadata, the DSPs' timestamps in their packets).
 */
class SyncOutCtf2Test {
    @TempDir
    Path dir;

    private static List<String> traces(Path board) throws Exception {
        try (Stream<Path> s = Files.list(board)) {
            return s.filter(p -> Files.isRegularFile(p.resolve("metadata")))
                    .map(p -> p.getFileName().toString())
                    .sorted()
                    .toList();
        }
    }

    private static String firstLine(Path metadata) throws Exception {
        return new String(Files.readAllBytes(metadata), StandardCharsets.UTF_8)
                .lines()
                .findFirst()
                .orElse("");
    }

    @Test
    void ctf2TracesSyncedPrintAsTheirCtf18TwinsCopiesDo() throws Exception {
        Path board = dir.resolve("board");
        assertThat(Cli.run("sim", "--cores", "3", "--seed", "7", "--images", "30", "--out", board.toString())
                        .status())
                .isZero();
        Path board2 = dir.resolve("board2");
        for (String t : traces(board)) {
            Path twin = Files.createDirectories(board2.resolve(t));
            try (Stream<Path> files = Files.list(board.resolve(t))) {
                for (Path f : files.toList()) {
                    Files.copy(f, twin.resolve(f.getFileName()));
                }
            }
            Ctf2Writer.rewrite(twin.resolve("metadata"));
            assertThat(Files.readAllBytes(twin.resolve("metadata"))[0]).isEqualTo((byte) 0x1E);
        }
        assertThat(traces(board2)).containsExactly("dsp0", "dsp1", "dsp2", "master");

        Path synced = dir.resolve("synced");
        Cli.Run ref = Cli.run("sync", "--out", synced.toString(), board.toString());
        assertThat(ref.status()).as(ref.err()).isZero();
        // both routes: the master's and a DSP's clocks in their metadata, another DSP's timestamps in its packets
        assertThat(ref.out())
                .contains(synced.resolve("master") + ": clocks rewritten in the metadata")
                .contains(synced.resolve("dsp0") + ": clocks rewritten in the metadata")
                .contains(synced.resolve("dsp1") + ": timestamps rewritten in the packets")
                .doesNotContain("CTF 2");
        Cli.Run refPrint = Cli.run("print", synced.toString());
        assertThat(refPrint.status()).isZero();
        assertThat(refPrint.out())
                .isNotEmpty()
                .isNotEqualTo(Cli.run("print", board.toString()).out());

        // CTF 2 in, CTF 2 out (the default: the trace's own version), then CTF 1.8 out when asked
        for (String version : new String[] {null, "1.8", "2"}) {
            Path out = dir.resolve("synced2-" + version);
            Cli.Run run = version == null
                    ? Cli.run("sync", "--out", out.toString(), board2.toString())
                    : Cli.run("sync", "--out", out.toString(), "--ctf-version", version, board2.toString());
            assertThat(run.status()).as(run.err()).isZero();
            // the same transforms as from the CTF 1.8 board (the table's columns as wide as the paths)
            assertThat(run.out()
                            .replace(board2.toString(), board.toString())
                            .replace(out.toString(), synced.toString())
                            .replace(", metadata in CTF 2", "")
                            .replaceAll(" +", " "))
                    .isEqualTo(ref.out().replaceAll(" +", " "));
            boolean ctf2 = !"1.8".equals(version);
            for (String t : traces(board2)) {
                Path metadata = out.resolve(t).resolve("metadata");
                if (ctf2) {
                    assertThat(Files.readAllBytes(metadata)[0])
                            .as("%s in CTF 2", metadata)
                            .isEqualTo((byte) 0x1E);
                } else {
                    assertThat(firstLine(metadata)).isEqualTo("/* CTF 1.8 */");
                }
            }
            assertThat(run.out().contains(", metadata in CTF 2")).isEqualTo(ctf2);
            Cli.Run print = Cli.run("print", out.toString());
            assertThat(print.status()).as(print.err()).isZero();
            assertThat(print.out())
                    .as("the copies of the CTF 2 board, --ctf-version %s", version)
                    .isEqualTo(refPrint.out());
        }

        // and the CTF 1.8 board's copies written as CTF 2
        Path out = dir.resolve("synced-as-2");
        Cli.Run run = Cli.run("sync", "--out", out.toString(), "--ctf-version", "2", board.toString());
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(Files.readAllBytes(out.resolve("dsp1").resolve("metadata"))[0])
                .isEqualTo((byte) 0x1E);
        assertThat(Cli.run("print", out.toString()).out()).isEqualTo(refPrint.out());
    }
}
