package dev.hetrace.ctf.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The conformance corpus ({@code -Dhetrace.corpus=DIR}, else {@code ../../shared/corpus}); see {@link Required#corpus}. */
public final class Corpus {
    private Corpus() {}

    /** One row of {@code expected/manifest.tsv}. */
    public record Row(String trace, boolean valid, int babeltraceStatus, int babeltraceLines) {}

    public static Path root() {
        return Required.corpus();
    }

    public static Path trace(String relative) {
        return root().resolve(relative);
    }

    /** What babeltrace2 printed for a trace (TZ=UTC). */
    public static List<String> expected(String relative) throws IOException {
        return Files.readAllLines(root().resolve("expected/" + relative + ".out"));
    }

    public static List<Row> manifest() throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(root().resolve("expected/manifest.tsv"))) {
            String[] f = line.split("\t");
            if (!f[0].equals("trace")) {
                rows.add(new Row(f[0], f[1].equals("pass"), Integer.parseInt(f[2]), Integer.parseInt(f[3])));
            }
        }
        return rows;
    }
}
