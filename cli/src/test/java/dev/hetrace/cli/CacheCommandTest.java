package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.index.TraceIndex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace cache}: the entries of a real cache listed with their traces, removed by age or all. */
class CacheCommandTest {
    @TempDir
    Path dir;

    private List<Path> cached(Path cache) throws Exception {
        try (Stream<Path> s = Files.list(cache)) {
            return s.sorted().toList();
        }
    }

    @Test
    void listsTheIndexesWithTheirTracesThenRemovesThoseUnusedForTheAgeGivenThenAll() throws Exception {
        Path board = dir.resolve("board");
        assertThat(Cli.run("sim", "--cores", "2", "--seed", "4", "--images", "2", "--out", board.toString())
                        .status())
                .isZero();
        Path cache = dir.resolve("cache");
        for (String traces : List.of("dsp0", "dsp1")) {
            Cli.Run q = Cli.run(
                    "query", "--cache", cache.toString(), board.resolve(traces).toString(), "select 1");
            assertThat(q.status()).as(q.err()).isZero();
        }
        // a leftover of a build cut short, and a file that is not hetrace's
        Files.createDirectories(cache.resolve("abc-def.index.tmp-1-2"));
        Files.writeString(cache.resolve("notes.txt"), "mine");

        Cli.Run list = Cli.run("cache", "--cache", cache.toString());
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).startsWith(cache + ": 3 entries, ");
        assertThat(list.out())
                .contains(
                        board.resolve("dsp0").toAbsolutePath().toString(),
                        board.resolve("dsp1").toAbsolutePath().toString(),
                        "leftover")
                .doesNotContain("notes.txt");

        // the index of dsp0 last used 40 days ago: the only one older than 30 days
        Path dsp0 = cached(cache).stream()
                .filter(p -> p.toString().endsWith(".index"))
                .filter(p -> {
                    try {
                        return TraceIndex.tracePaths(p).getFirst().endsWith("dsp0");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .findFirst()
                .orElseThrow();
        Files.setLastModifiedTime(dsp0, FileTime.from(Instant.now().minus(Duration.ofDays(40))));
        Cli.Run pruned = Cli.run("cache", "--cache", cache.toString(), "--older-than", "30d");
        assertThat(pruned.status()).as(pruned.err()).isZero();
        assertThat(pruned.out())
                .contains("removed " + dsp0 + " (")
                .endsWith(": 1 of 3 entries removed, "
                        + pruned.out().substring(pruned.out().lastIndexOf("removed, ") + 9));
        assertThat(dsp0).doesNotExist();

        // using an index again marks it used: a later prune by age spares it
        Path dsp1 = cached(cache).stream()
                .filter(p -> p.toString().endsWith(".index"))
                .findFirst()
                .orElseThrow();
        Files.setLastModifiedTime(dsp1, FileTime.from(Instant.now().minus(Duration.ofDays(40))));
        assertThat(Cli.run(
                                "query",
                                "--cache",
                                cache.toString(),
                                board.resolve("dsp1").toString(),
                                "select 1")
                        .err())
                .isEmpty();
        assertThat(Cli.run("cache", "--cache", cache.toString(), "--older-than", "30d")
                        .out())
                .contains(": 0 of 2 entries removed");

        Cli.Run cleared = Cli.run("cache", "--cache", cache.toString(), "--clear");
        assertThat(cleared.status()).as(cleared.err()).isZero();
        assertThat(cached(cache)).containsExactly(cache.resolve("notes.txt"));
    }

    @Test
    void aBadAgeOrNoCacheIsSaidInOneLine() {
        Path cache = dir.resolve("none");
        Cli.Run none = Cli.run("cache", "--cache", cache.toString());
        assertThat(none.status()).isZero();
        assertThat(none.out()).isEqualTo(cache + ": no cache yet (nothing kept)\n");
        Cli.Run bad = Cli.run("cache", "--cache", dir.toString(), "--older-than", "30 days");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err())
                .isEqualTo("hetrace: --older-than 30 days: expected a number and a unit (d, h, m, s), e.g. 30d\n");
        Cli.Run both = Cli.run("cache", "--cache", dir.toString(), "--older-than", "1d", "--clear");
        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).startsWith("hetrace: --clear removes every entry: give it or --older-than, not both\n");
    }
}
