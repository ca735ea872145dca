package dev.hetrace.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/** Runs {@code hetrace} in-process, as a user types it, and keeps what it printed. */
final class Cli {
    private Cli() {}

    /** A run: its exit status, standard output and standard error. */
    record Run(int status, String out, String err) {
        /**
         * What the command said on its standard error but the notes of the traces' store (built:
         * "hetrace: indexing N traces into ..."; an older state's removed: "hetrace: removed the
         * index of ...").
         */
        String said() {
            return err.lines()
                    .filter(l -> !l.startsWith("hetrace: indexing ") && !l.startsWith("hetrace: removed the index "))
                    .map(l -> l + "\n")
                    .collect(Collectors.joining());
        }
    }

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
