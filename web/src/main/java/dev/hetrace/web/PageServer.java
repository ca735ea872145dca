package dev.hetrace.web;

import io.javalin.Javalin;

/** One self-contained HTML page served as it is (a profile report): what {@code hetrace view CAMPAIGN.json} serves. */
public final class PageServer implements AutoCloseable {
    private final Javalin app;

    private PageServer(Javalin app) {
        this.app = app;
    }

    /** Serves {@code html} at {@code /} on {@code host}:{@code port} (0: a free port). */
    public static PageServer start(String html, String host, int port) {
        Javalin app = WebApps.create(host, null);
        app.get("/", ctx -> {
            ctx.header("Cache-Control", "no-store");
            ctx.html(html);
        });
        app.start(host, port);
        return new PageServer(app);
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }
}
