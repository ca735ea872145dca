package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What hetrace keeps in its cache is used only as it was written: an index whose file was
 * altered, cut short or removed since is built again, saying so in one line, and the answer is
 * the one the traces give.
 */
class KeptFilesIntegrityTest {
    @TempDir
    Path dir;

    private Cli.Run query(Path board, String sql) {
        return Cli.run("query", "--cache", dir.resolve("cache").toString(), "--format", "csv", board.toString(), sql);
    }

    private Path indexFolder() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("cache"))) {
            return s.filter(p -> p.getFileName().toString().endsWith(".index"))
                    .findFirst()
                    .orElseThrow();
        }
    }

    @Test
    void anAlteredIndexIsBuiltAgain() throws IOException {
        Path board = dir.resolve("board");
        assertThat(Cli.run("sim", "--cores", "2", "--seed", "4", "--images", "2", "--out", board.toString())
                        .status())
                .isZero();
        String sql =
                "select sum(time_ns) as t, (select count(*) from intervals) as i, (select count(*) from tasks) as k from events";
        Cli.Run first = query(board, sql);
        assertThat(first.status()).as(first.err()).isZero();
        Cli.Run kept = query(board, sql);
        assertThat(kept.out()).isEqualTo(first.out());
        assertThat(kept.err()).as("a kept index is used as it is").isEmpty();

        // a byte changed in the middle of the events' file (DuckDB would read another time there)
        Path events = indexFolder().resolve("events.parquet");
        try (RandomAccessFile f = new RandomAccessFile(events.toFile(), "rw")) {
            long at = f.length() / 2;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x10);
        }
        Cli.Run altered = query(board, sql);
        assertThat(altered.status()).as(altered.err()).isZero();
        assertThat(altered.out()).isEqualTo(first.out());
        assertThat(altered.err()
                        .lines()
                        .filter(l -> l.contains("not as it was written"))
                        .toList())
                .singleElement()
                .asString()
                .contains("(events.parquet changed): building it again");

        // cut short, then removed
        for (String name : new String[] {"intervals.parquet", "tables.duckdb"}) {
            Path file = indexFolder().resolve(name);
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(f.length() / 3);
            }
            Cli.Run cut = query(board, sql);
            assertThat(cut.status()).as(cut.err()).isZero();
            assertThat(cut.out()).isEqualTo(first.out());
            assertThat(cut.err()).contains("(" + name + " changed): building it again");
        }
        Files.delete(indexFolder().resolve("checksums"));
        Cli.Run unlisted = query(board, sql);
        assertThat(unlisted.out()).isEqualTo(first.out());
        assertThat(unlisted.err()).contains("(it has no list of checksums): building it again");
        assertThat(query(board, sql).err()).isEmpty();
    }
}
