package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.StateModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local web app answers only requests that name it: a page that rebinds its own DNS name to
 * 127.0.0.1 (its requests then say {@code Host: its.name}) or another site's page ({@code
 * Origin}) gets a 403 and no data. Real viewer, real sockets, requests written byte by byte.
 */
class AllowedHostsTest {
    @TempDir
    static Path dir;

    static ViewServer server;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        FaultBoard board = FaultBoard.make(dir.resolve("board"));
        StateModel model = board.model();
        server = new ViewServer(Timeline.of(model), board.input()).start("127.0.0.1", 0);
        port = server.port();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The status line and body of a GET of {@code path} with these header lines, sent as they are. */
    private static String[] get(String path, String... headers) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            StringBuilder req = new StringBuilder("GET " + path + " HTTP/1.1\r\n");
            for (String h : headers) {
                req.append(h).append("\r\n");
            }
            req.append("Connection: close\r\n\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = response.indexOf("\r\n\r\n");
            return new String[] {
                response.substring(0, response.indexOf("\r\n")), end < 0 ? "" : response.substring(end + 4)
            };
        }
    }

    @Test
    void theServersOwnNamesAreAnswered() throws IOException {
        for (String host :
                new String[] {"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port}) {
            String[] r = get("/api/meta", "Host: " + host);
            assertThat(r[0]).as(host).contains(" 200 ");
            assertThat(r[1]).as(host).contains("\"traces\"");
        }
        String[] page = get("/api/meta", "Host: 127.0.0.1:" + port, "Origin: http://127.0.0.1:" + port);
        assertThat(page[0]).contains(" 200 ");
    }

    @Test
    void aReboundNameGetsNoData() throws IOException {
        for (String host : new String[] {
            "evil.example:" + port,
            "evil.example",
            "127.0.0.1.evil.example:" + port,
            "localhost.evil.example:" + port,
            "127.0.0.1:" + (port + 1),
            "localhost",
            ""
        }) {
            for (String path : new String[] {"/api/meta", "/api/diagnosis", "/"}) {
                String[] r = get(path, "Host: " + host);
                assertThat(r[0]).as(host + " " + path).contains(" 403 ");
                assertThat(r[1])
                        .as(host + " " + path)
                        .doesNotContain("\"traces\"")
                        .doesNotContain("<script");
            }
        }
    }

    @Test
    void aMalformedHostGetsNoData() throws IOException {
        String[] r = get("/api/meta", "Host: 127.0.0.1:" + port + "@evil.example");
        assertThat(r[0]).matches(".* 40[03] .*"); // the HTTP server itself refuses it as a bad request
        assertThat(r[1]).doesNotContain("\"traces\"");
    }

    @Test
    void anotherSitesPageGetsNoData() throws IOException {
        for (String origin : new String[] {
            "http://evil.example",
            "http://evil.example:" + port,
            "https://127.0.0.1:" + port,
            "http://127.0.0.1:" + (port + 1),
            "http://localhost"
        }) {
            String[] r = get("/api/meta", "Host: 127.0.0.1:" + port, "Origin: " + origin);
            assertThat(r[0]).as(origin).contains(" 403 ");
            assertThat(r[1]).as(origin).doesNotContain("\"traces\"");
        }
    }
}
