package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.index.IndexTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace export --parquet DIR} never leaves a table cut short or overwrites what DIR
 * holds without being told: the files are written aside and moved in once all are written;
 * tables already there are replaced only with {@code --replace}; an export stopped midway
 * (SIGTERM, as Ctrl-C stops the JVM) leaves DIR as it was.
 */
class ExportSafetyTest {
    @TempDir
    Path dir;

    /** Every file under {@code folder} (hidden ones too) and its bytes' hash. */
    private static Map<String, Integer> contents(Path folder) throws IOException {
        Map<String, Integer> m = new HashMap<>();
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                m.put(folder.relativize(f).toString(), Arrays.hashCode(Files.readAllBytes(f)));
            }
        }
        return m;
    }

    private static List<String> entries(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void tablesAlreadyThereAreReplacedOnlyWhenAsked() throws IOException {
        Path board = dir.resolve("board");
        assertThat(Cli.run("sim", "--cores", "2", "--seed", "4", "--images", "2", "--out", board.toString())
                        .status())
                .isZero();
        Path out = dir.resolve("out");
        String cache = dir.resolve("cache").toString();
        Cli.Run first = Cli.run("export", "--cache", cache, "--parquet", out.toString(), board.toString());
        assertThat(first.status()).as(first.err()).isZero();
        Files.writeString(out.resolve("notes.txt"), "mine");
        Map<String, Integer> before = contents(out);

        Cli.Run again = Cli.run("export", "--cache", cache, "--parquet", out.toString(), board.toString());
        assertThat(again.status()).isEqualTo(1);
        assertThat(again.err().lines().toList())
                .singleElement()
                .asString()
                .isEqualTo("hetrace: --parquet " + out + ": " + out.resolve("events.parquet")
                        + " and " + (IndexTables.NAMES.size() - 1) + " more of the tables' files"
                        + " are already there: --replace replaces them");
        assertThat(contents(out)).isEqualTo(before);

        Files.delete(out.resolve("calls.parquet"));
        Cli.Run replaced =
                Cli.run("export", "--cache", cache, "--replace", "--parquet", out.toString(), board.toString());
        assertThat(replaced.status()).as(replaced.err()).isZero();
        assertThat(out.resolve("calls.parquet")).isRegularFile();
        assertThat(Files.readString(out.resolve("notes.txt"))).isEqualTo("mine");
        assertThat(entries(out))
                .noneMatch(n -> n.startsWith(".hetrace-export-"))
                .hasSize(IndexTables.NAMES.size() + 1);
    }

    @Test
    void anExportStoppedMidwayLeavesTheFolderAsItWas() throws Exception {
        // a board of a million events: exporting their fields takes seconds, time enough to stop it
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run(
                "sim",
                "--cores",
                "8",
                "--images",
                "120",
                "--inject",
                "preempt:dsp0,dsp1,dsp2,dsp3,dsp4,dsp5,dsp6,dsp7",
                "--out",
                board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        String cache = dir.resolve("cache").toString();
        assertThat(Cli.run("query", "--cache", cache, board.toString(), "select 1")
                        .status())
                .isZero(); // the index, built first

        for (boolean existed : new boolean[] {false, true}) {
            Path out = dir.resolve("out-" + existed);
            Map<String, Integer> before = Map.of();
            if (existed) {
                Files.createDirectories(out);
                Files.writeString(out.resolve("events.parquet"), "an earlier file of the same name");
                before = contents(out);
            }
            Process p = HetraceProcess.builder(
                            "export", "--cache", cache, "--replace", "--parquet", out.toString(), board.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("export-" + existed + ".log").toFile())
                    .start();
            // stopped once the events' file is being written aside
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            boolean writing = false;
            while (!writing && p.isAlive() && System.nanoTime() < deadline) {
                if (Files.isDirectory(out)) {
                    try (Stream<Path> s = Files.list(out)) {
                        for (Path w : s.filter(f -> f.getFileName().toString().startsWith(".hetrace-export-"))
                                .toList()) {
                            writing |= Files.exists(w.resolve("events.parquet"));
                        }
                    } catch (NoSuchFileException e) {
                        // removed meanwhile
                    }
                }
                Thread.sleep(2);
            }
            assertThat(writing)
                    .as(
                            "the export was seen writing its events: %s",
                            Files.readString(dir.resolve("export-" + existed + ".log")))
                    .isTrue();
            p.destroy(); // SIGTERM: the JVM's shutdown hooks run, as on Ctrl-C
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            if (existed) {
                assertThat(contents(out)).isEqualTo(before);
                assertThat(entries(out)).containsExactly("events.parquet");
            } else {
                assertThat(out).doesNotExist();
            }
        }
    }
}
