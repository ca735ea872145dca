package dev.hetrace.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Which requests a local web app answers: its own names and pages only. A served page (the
 * same set-up as the viewer and the monitor) is asked over a real socket, requests written
 * byte by byte; and the rules for a server that is not on the loopback.
 */
class AllowedHostsTest {
    private static final String PAGE = "<html><body><script>const secret = 1;</script></body></html>";

    /** The status line and body of a GET of {@code /} with these header lines, sent as they are. */
    private static String[] get(int port, String... headers) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            StringBuilder req = new StringBuilder("GET / HTTP/1.1\r\n");
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
    void aServedPageAnswersItsOwnNamesOnly() throws IOException {
        try (PageServer server = PageServer.start(PAGE, "127.0.0.1", 0)) {
            int port = server.port();
            for (String host : new String[] {"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}) {
                String[] r = get(port, "Host: " + host);
                assertThat(r[0]).as(host).contains(" 200 ");
                assertThat(r[1]).as(host).contains("secret");
            }
            for (String host :
                    new String[] {"evil.example:" + port, "127.0.0.1.evil.example:" + port, "localhost", ""}) {
                String[] r = get(port, "Host: " + host);
                assertThat(r[0]).as(host).contains(" 403 ");
                assertThat(r[1]).as(host).doesNotContain("secret");
            }
            String[] other = get(port, "Host: 127.0.0.1:" + port, "Origin: http://evil.example");
            assertThat(other[0]).contains(" 403 ");
            assertThat(other[1]).doesNotContain("secret");
        }
    }

    @Test
    void theRulesForAServerBeyondTheLoopback() {
        AllowedHosts lan = new AllowedHosts("0.0.0.0");
        assertThat(lan.refusal("192.168.1.20:8080", null, 8080)).isNull(); // an address cannot be rebound
        assertThat(lan.refusal("localhost:8080", "http://localhost:8080", 8080)).isNull();
        assertThat(lan.refusal("attacker.example:8080", null, 8080)).contains("does not name this server");
        AllowedHosts named = new AllowedHosts("board-host.lab");
        assertThat(named.refusal("board-host.lab:9000", null, 9000)).isNull();
        assertThat(named.refusal("board-host.lab.:9000", null, 9000)).isNull();
        assertThat(named.refusal("other.lab:9000", null, 9000)).isNotNull();
        assertThat(named.refusal("board-host.lab:80", null, 80)).isNull();
        assertThat(named.refusal("board-host.lab", null, 80)).isNull();
        assertThat(new AllowedHosts("127.0.0.1").refusal("evil\u001b]0;x\u0007.example", null, 80))
                .isEqualTo("Host 'evil\\x1b]0;x\\x07.example' does not name this server");
    }
}
