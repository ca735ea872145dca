package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.metadata.ByteOrder;
import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace tracer generate}: the metadata file, one error line, and the exit statuses. */
class TracerGenerateCommandTest {
    @TempDir
    Path dir;

    record Result(int status, String err) {}

    private Result run(String... args) {
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            status = Main.run(new ByteArrayOutputStream(), err, args);
        }
        return new Result(status, errBytes.toString(StandardCharsets.UTF_8));
    }

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private static final String CONFIG = """
        --- !<tag:barectf.org,2020/3/config>
        trace:
          type:
            $include: [stdint.yaml, clocks.yaml]
            native-byte-order: be
            data-stream-types:
              default:
                $is-default: true
                $default-clock-type-name: sys
                event-record-types:
                  tick:
                    payload-field-type:
                      class: struct
                      members:
                        - count: uint32
                        - label:
                            field-type:
                              class: str
        """;

    @Test
    void writesTheMetadataOfAValidConfigurationIntoTheOutputDirectory() throws Exception {
        Path config = write("cfg/config.yaml", CONFIG);
        write("partials/clocks.yaml", """
            clock-types:
              sys:
                frequency: 1000
            """);
        Path out = dir.resolve("out");
        Result r = run(
                "tracer",
                "generate",
                "--metadata-only",
                "-I",
                dir.resolve("partials").toString(),
                "-o",
                out.toString(),
                config.toString());
        assertThat(r.status()).as(r.err()).isZero();
        TraceClass tc = MetadataReader.read(out.resolve("metadata"), w -> {});
        assertThat(tc.byteOrder()).isEqualTo(ByteOrder.BIG_ENDIAN);
        assertThat(tc.clocks().get("sys").frequency()).isEqualTo(1000);
        assertThat(tc.stream(0).event(0).name()).isEqualTo("tick");
        assertThat(tc.stream(0).event(0).payload().members())
                .extracting(m -> m.name())
                .containsExactly("count", "label");
    }

    @Test
    void ctfVersion2WritesTheSameTraceClassAsCtf2Metadata() throws Exception {
        Path config = write("c.yaml", CONFIG.replace("$include: [stdint.yaml, clocks.yaml]", """
            $include: [stdint.yaml]
                clock-types: {sys: {frequency: 1000}}"""));
        Result r = run(
                "tracer",
                "generate",
                "--metadata-only",
                "--ctf-version",
                "2",
                "-o",
                dir.resolve("v2").toString(),
                config.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(Files.readAllBytes(dir.resolve("v2/metadata"))[0]).isEqualTo((byte) 0x1E);
        TraceClass tc = MetadataReader.read(dir.resolve("v2/metadata"), w -> {});
        assertThat(tc.major()).isEqualTo(2);
        assertThat(tc.byteOrder()).isEqualTo(ByteOrder.BIG_ENDIAN);
        assertThat(tc.clocks().get("sys").frequency()).isEqualTo(1000);
        assertThat(tc.stream(0).event(0).name()).isEqualTo("tick");
        assertThat(tc.stream(0).event(0).payload().members())
                .extracting(m -> m.name())
                .containsExactly("count", "label");
        Result bad = run("tracer", "generate", "--metadata-only", "--ctf-version", "1.9", config.toString());
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("unknown CTF version '1.9' (expected 1.8 or 2)");
    }

    @Test
    void anInvalidConfigurationGetsOneLineNamingFileLineAndPathAndStatus1() throws Exception {
        Path config = write("config.yaml", CONFIG.replace("$include: [stdint.yaml, clocks.yaml]", """
            clock-types:
                  sys:
                    frequency: 0"""));
        Result r = run("tracer", "generate", "--metadata-only", "-o", dir.toString(), config.toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err().lines().toList())
                .containsExactly("hetrace: " + config
                        + ":6:20: $.trace.type.clock-types.sys.frequency: expected a value >= 1, got `0`");
        assertThat(dir.resolve("metadata")).doesNotExist();
    }

    @Test
    void usageErrorsExitWith2() throws Exception {
        assertThat(run("tracer").status()).isEqualTo(2);
        assertThat(run("tracer", "generate", "--metadata-only").status()).isEqualTo(2);
        Result r = run(
                "tracer",
                "generate",
                "--metadata-only",
                "-I",
                dir.resolve("nope").toString(),
                write("c.yaml", CONFIG).toString());
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("not an existing directory");
    }

    @Test
    void writesTheTracerItsPlatformAndTheMetadata() throws Exception {
        Path config = write("c.yaml", CONFIG.replace("$include: [stdint.yaml, clocks.yaml]", """
            $include: [stdint.yaml]
                clock-types: {sys: {frequency: 1000}}"""));
        Result r = run(
                "tracer",
                "generate",
                "--platform",
                "linux-file",
                "-o",
                dir.resolve("gen").toString(),
                config.toString());
        assertThat(r.status()).as(r.err()).isZero();
        try (var files = Files.list(dir.resolve("gen"))) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
                    .containsExactly(
                            "barectf-platform-linux-file.c",
                            "barectf-platform-linux-file.h",
                            "barectf.c",
                            "barectf.h",
                            "metadata");
        }
        assertThat(Files.readString(dir.resolve("gen/barectf.h")))
                .contains(
                        "void barectf_default_trace_tick(struct barectf_default_ctx *sctx,\n\tuint32_t p_count,\n\tconst char *p_label)");
        assertThat(run(
                                "tracer",
                                "generate",
                                "--platform",
                                "callback",
                                "-o",
                                dir.resolve("cb").toString(),
                                config.toString())
                        .status())
                .isZero();
        assertThat(dir.resolve("cb/barectf-platform-callback.h")).exists();
        Result unknown = run("tracer", "generate", "--platform", "nope", config.toString());
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown platform 'nope'");
    }

    @Test
    void syncAddsTheHandshakeEventsAndItsCFilesForConfigurationsBarectfStillReads() throws Exception {
        Path config = write("c.yaml", CONFIG.replace("$include: [stdint.yaml, clocks.yaml]", """
            $include: [stdint.yaml]
                clock-types: {sys: {frequency: 1000}}"""));
        Result r = run("tracer", "generate", "--sync", "-o", dir.resolve("gen").toString(), config.toString());
        assertThat(r.status()).as(r.err()).isZero();
        try (var files = Files.list(dir.resolve("gen"))) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
                    .containsExactly("barectf-sync.c", "barectf-sync.h", "barectf.c", "barectf.h", "metadata");
        }
        TraceClass tc = MetadataReader.read(dir.resolve("gen/metadata"), w -> {});
        assertThat(tc.stream(0).events().values())
                .extracting(e -> e.name())
                .containsExactly("hetrace_sync_recv", "hetrace_sync_send", "tick");
        assertThat(Files.readString(dir.resolve("gen/barectf-sync.h")))
                .contains("int barectf_sync_slave_answer(struct barectf_sync_mailbox *mailbox")
                .contains("int barectf_sync_master_exchange(struct barectf_sync_master *master);");

        Result unknown = run(
                "tracer",
                "generate",
                "--sync-stream",
                "nope",
                "-o",
                dir.resolve("x").toString(),
                config.toString());
        assertThat(unknown.status()).isEqualTo(1);
        assertThat(unknown.err().lines().toList())
                .containsExactly("hetrace: --sync-stream: data stream type `nope` does not exist (known: default)");
        assertThat(run(
                                "tracer",
                                "generate",
                                "--sync-stream",
                                "default",
                                "--metadata-only",
                                "-o",
                                dir.resolve("m").toString(),
                                config.toString())
                        .status())
                .isZero();
        assertThat(dir.resolve("m/metadata")).content().contains("hetrace_sync_send");
    }

    @Test
    void helpTeachesTheSyncOptions() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int status;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            status = Main.run(out, System.err, "tracer", "generate", "--help");
        } finally {
            System.setOut(saved);
        }
        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(status).isZero();
        assertThat(help)
                .contains("--sync ")
                .contains("--sync-stream=NAME")
                .contains("hetrace: {sync: true}")
                .doesNotContain("docs/")
                .contains("--ctf-version=VERSION")
                .contains("the C code and the data streams");
    }
}
