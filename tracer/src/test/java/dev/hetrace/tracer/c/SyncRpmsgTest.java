package dev.hetrace.tracer.c;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sync handshake over RPMsg between two real processes built with gcc (sync-rpmsg-pair.c):
 * the generated master exchange and slave answer over a SOCK_SEQPACKET socket pair standing in
 * for the endpoint, application messages mixed in both ways. Both sides trace on
 * CLOCK_MONOTONIC, so causality is checked on the raw times: the slave's receive of each
 * request is after the master's send, the master's receive of each answer after the slave's
 * send.
 */
class SyncRpmsgTest {
    private static final List<String> STRICT = List.of("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic");
    private static final int EXCHANGES = 200;

    @TempDir
    Path dir;

    @Test
    void everyRequestAndAnswerIsAPairAndEveryReceiveComesAfterItsSend() throws Exception {
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed: programs not built");
        Path yaml = dir.resolve("sync.yaml");
        Files.writeString(yaml, resource("sync.yaml"));
        Configuration c = ConfigReader.read(yaml, List.of(dir));
        for (Map<String, String> files :
                List.of(CTracer.generate(c), LinuxFilePlatform.generate(c), CSyncHandshake.generate(c))) {
            for (Map.Entry<String, String> f : files.entrySet()) {
                Files.writeString(dir.resolve(f.getKey()), f.getValue());
            }
        }
        for (String side : List.of("master", "slave")) {
            Files.writeString(Files.createDirectories(dir.resolve(side)).resolve("metadata"), BarectfMetadata.of(c));
        }
        Files.writeString(dir.resolve("sync-rpmsg-pair.c"), resource("sync-rpmsg-pair.c"));
        List<String> cc = new ArrayList<>(List.of("gcc"));
        cc.addAll(STRICT);
        cc.addAll(List.of(
                "-O2", "-o", "sync-rpmsg-pair", "sy.c", "sy-platform-linux-file.c", "sy-sync.c", "sync-rpmsg-pair.c"));
        Processes.run(dir, cc);

        String out = Processes.run(
                dir,
                List.of(
                        dir.resolve("sync-rpmsg-pair").toString(),
                        dir.resolve("master/stream").toString(),
                        dir.resolve("slave/stream").toString(),
                        Integer.toString(EXCHANGES)));
        // master: OK TIMEOUT NOT_DELIVERED, and the slave's application messages it was given;
        // slave: ANSWERED, and NOT_A_REQUEST (the master's application messages and STOP)
        assertThat(out.lines().toList())
                .containsExactlyInAnyOrder(
                        "master %d 0 0 %d".formatted(EXCHANGES, EXCHANGES / 5),
                        "slave %d %d".formatted(EXCHANGES, EXCHANGES / 4 + 1));

        Map<String, Long> master = times(dir.resolve("master"), 1, 7);
        Map<String, Long> slave = times(dir.resolve("slave"), 7, 1);
        assertThat(master).hasSize(2 * EXCHANGES);
        assertThat(slave).hasSize(2 * EXCHANGES);
        for (long n = 1; n < 2 * EXCHANGES; n += 2) {
            assertThat(slave.get("recv " + n))
                    .as("request %d received after it was sent", n)
                    .isGreaterThanOrEqualTo(master.get("send " + n));
            assertThat(slave.get("send " + (n + 1))).isGreaterThanOrEqualTo(slave.get("recv " + n));
            assertThat(master.get("recv " + (n + 1)))
                    .as("answer %d received after it was sent", n + 1)
                    .isGreaterThanOrEqualTo(slave.get("send " + (n + 1)));
        }
    }

    /** The times of a trace's sync events by "send SEQ" and "recv SEQ", checking their ids. */
    private static Map<String, Long> times(Path trace, long core, long peer) throws Exception {
        Map<String, Long> out = new HashMap<>();
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                assertThat(e.getLong("core")).isEqualTo(core);
                assertThat(e.getLong("peer")).isEqualTo(peer);
                String key = e.name().replace("hetrace_sync_", "") + " " + e.getLong("seq");
                assertThat(out.put(key, e.timeNanos())).as(key).isNull();
            }
        }
        return out;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = SyncRpmsgTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
