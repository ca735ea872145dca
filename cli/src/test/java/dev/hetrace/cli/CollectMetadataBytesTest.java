package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.CtfTrace;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace collect --metadata FILE} writes the trace's metadata as the very bytes of FILE:
 * a non-ASCII environment value (UTF-8) reads back the same, in the metadata and in print.
 */
class CollectMetadataBytesTest {
    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void killAll() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void theMetadataFileIsCopiedByteForByte() throws Exception {
        ShmProducer.build(dir);
        Path metadata = dir.resolve("metadata");
        String text = Files.readString(metadata, StandardCharsets.UTF_8);
        assertThat(text).contains("env {");
        Path edited = dir.resolve("edited.tsdl");
        Files.writeString(
                edited, text.replace("env {", "env {\n\towner = \"Zoë Ångström ☕\";"), StandardCharsets.UTF_8);

        Path region = dir.resolve("core0");
        Process producer = ShmProducer.startReady(dir, region, "0", "1024", "64", "200", "0", "0", "1", "0");
        started.add(producer);
        Path trace = dir.resolve("trace");
        Process collect = HetraceProcess.builder(
                        "collect", "--shm", region.toString(), "--metadata", edited.toString(), "-o", trace.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        started.add(collect);
        OutputStream go = producer.getOutputStream();
        go.write("go\n".getBytes(StandardCharsets.UTF_8));
        go.flush();
        assertThat(producer.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(collect.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(collect.exitValue())
                .as(Files.readString(dir.resolve("err.txt")))
                .isZero();

        assertThat(Files.readAllBytes(trace.resolve("metadata"))).isEqualTo(Files.readAllBytes(edited));
        try (CtfTrace t = CtfTrace.open(trace, w -> {})) {
            assertThat(t.metadata().env()).containsEntry("owner", "Zoë Ångström ☕");
        }
        Cli.Run print = Cli.run("print", trace.toString());
        assertThat(print.status()).as(print.err()).isZero();
        assertThat(print.out().lines().count()).isEqualTo(200);
    }
}
