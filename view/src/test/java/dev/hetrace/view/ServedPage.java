package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.web.Chromium;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;

/**
 * What the viewer's browser tests open: a {@link ViewServer} on 127.0.0.1 (a free port) and Debian's headless
 * Chromium, with a new profile in the test's folder, to open its page. Closing it quits the browser, then stops the
 * server.
 */
final class ServedPage implements AutoCloseable {
    final ViewServer server;
    final Chromium browser;

    /** The page's address: {@code http://127.0.0.1:port/}. */
    final String url;

    private final HttpClient http = HttpClient.newHttpClient();

    private ServedPage(ViewServer server, Chromium browser) {
        this.server = server;
        this.browser = browser;
        this.url = "http://127.0.0.1:" + server.port() + "/";
    }

    /** {@code hetrace view}'s server for a timeline and the input its events are read from, and a browser. */
    static ServedPage start(Path dir, Timeline timeline, StateBuilder.Input input) throws Exception {
        return start(dir, new ViewServer(timeline, input));
    }

    /** The server given (not started yet) started, and a browser. */
    static ServedPage start(Path dir, ViewServer server) throws Exception {
        server.start("127.0.0.1", 0);
        try {
            return new ServedPage(server, Chromium.start(dir.resolve("chromium-profile"), false));
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    /** The page as it opens: loaded and drawn. */
    void open() {
        browser.driver.get(url);
        browser.settle();
    }

    /** The server's JSON answer at {@code path} (relative to the page), which must be 200 OK. */
    JsonNode get(String path) throws Exception {
        HttpResponse<String> r =
                http.send(HttpRequest.newBuilder(URI.create(url + path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return new ObjectMapper().readTree(r.body());
    }

    @Override
    public void close() {
        try {
            browser.close();
        } finally {
            server.close();
            http.close();
        }
    }
}
