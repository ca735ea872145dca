package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The launcher's training run for the JVM's AOT cache. */
class TrainCommandTest {
    @Test
    void readsTheSampleTraceInEveryFormatAndSucceeds() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status =
                Main.run(out, new PrintStream(err, true, StandardCharsets.UTF_8), "aot-training", "--events", "20000");
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.size()).isZero();
    }

    @Test
    void isNotListedInTheHelp() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            Main.run(out, System.err, "--help");
        } finally {
            System.setOut(saved);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("print").doesNotContain("aot-training");
    }
}
