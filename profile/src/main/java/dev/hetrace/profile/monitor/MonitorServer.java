package dev.hetrace.profile.monitor;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.web.WebApps;
import io.javalin.Javalin;
import io.javalin.http.sse.SseClient;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code hetrace monitor}'s live page: the app (plain ES modules from the classpath, nothing
 * from the network) and each tick's samples pushed to it as server-sent events.
 *
 * <pre>
 * GET /api/config    the process, the interval, the events, the metrics and their formulas
 * GET /api/history   the ticks so far (the last {@value #HISTORY}), for a page opened late
 * GET /api/stream    server-sent events: "batch" per tick, "notice" for what cannot be measured, "end"
 * </pre>
 */
public final class MonitorServer implements AutoCloseable {

    /** How many ticks a page opened late gets. */
    static final int HISTORY = 3600;

    private final JsonFactory json = new JsonFactory();
    private final String config;
    private final Deque<String> history = new ArrayDeque<>();
    private final List<String> notices = new ArrayList<>();
    private final Collection<SseClient> clients = new CopyOnWriteArrayList<>();
    private String end;
    private Javalin app;

    /** A server for monitoring {@code workload} (a command line, or {@code pid N}) with {@code settings}; {@code output} is where it is saved. */
    public MonitorServer(String workload, long pid, MonitorSettings settings, String output) {
        this.config = write(g -> {
            g.writeStartObject();
            g.writeStringField("workload", workload);
            g.writeNumberField("pid", pid);
            g.writeNumberField("interval_ms", settings.intervalMs());
            g.writeStringField("output", output);
            g.writeArrayFieldStart("events");
            for (String e : settings.events()) {
                g.writeString(e);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("counters");
            for (String c : settings.counters()) {
                g.writeString(c);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("metrics");
            for (Metric m : settings.metrics()) {
                g.writeStartObject();
                g.writeStringField("name", m.name());
                g.writeStringField("formula", m.formula().toString());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** Starts serving on {@code host}:{@code port} (0: a free port). */
    public MonitorServer start(String host, int port) {
        app = WebApps.create(host, "/dev/hetrace/profile/monitor/app");
        app.get("/api/config", ctx -> {
            ctx.header("Cache-Control", "no-store");
            ctx.contentType("application/json").result(config);
        });
        app.get("/api/history", ctx -> {
            String body;
            synchronized (this) {
                body = "[" + String.join(",", history) + "]";
            }
            ctx.header("Cache-Control", "no-store");
            ctx.contentType("application/json").result(body);
        });
        app.sse("/api/stream", client -> {
            client.keepAlive();
            client.onClose(() -> clients.remove(client));
            synchronized (this) {
                for (String n : notices) {
                    client.sendEvent("notice", n);
                }
                if (end != null) {
                    client.sendEvent("end", end);
                }
                clients.add(client);
            }
        });
        app.start(host, port);
        return this;
    }

    /** The port served on. */
    public int port() {
        return app.port();
    }

    /** Sends a tick to the pages, and keeps it for the pages opened later. */
    public void publish(Monitor.Batch batch) {
        String data = write(g -> batch(batch, g));
        synchronized (this) {
            history.addLast(data);
            if (history.size() > HISTORY) {
                history.removeFirst();
            }
        }
        send("batch", data);
    }

    /** Tells the pages what could not be measured. */
    public void notice(String text) {
        synchronized (this) {
            notices.add(text);
        }
        send("notice", text);
    }

    /** Tells the pages that monitoring ended, and why. */
    public void end(String why) {
        synchronized (this) {
            end = why;
        }
        send("end", why);
    }

    private void send(String event, String data) {
        for (SseClient c : clients) {
            if (c.terminated()) {
                clients.remove(c);
                continue;
            }
            try {
                c.sendEvent(event, data);
            } catch (RuntimeException e) {
                clients.remove(c); // the page went away
            }
        }
    }

    static void batch(Monitor.Batch b, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("i", b.index());
        g.writeNumberField("t", b.timeSeconds());
        g.writeArrayFieldStart("threads");
        for (Monitor.ThreadSample t : b.threads()) {
            g.writeStartObject();
            g.writeNumberField("tid", t.sample().tid());
            g.writeStringField("name", t.sample().thread());
            g.writeNumberField("cpu", t.sample().cpu());
            g.writeBooleanField("active", t.active());
            g.writeObjectFieldStart("counters");
            numbers(t.sample().counters(), g);
            g.writeEndObject();
            g.writeObjectFieldStart("metrics");
            numbers(t.metrics(), g);
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("ended");
        for (Monitor.Ended e : b.ended()) {
            g.writeNumber(e.tid());
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void numbers(Map<String, Double> values, JsonGenerator g) throws IOException {
        for (var e : values.entrySet()) {
            double v = e.getValue();
            if (Double.isFinite(v)) {
                g.writeNumberField(e.getKey(), v);
            } else {
                g.writeNullField(e.getKey());
            }
        }
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private String write(Body body) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = json.createGenerator(out)) {
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    @Override
    public void close() {
        if (app != null) {
            for (SseClient c : clients) {
                try {
                    c.close();
                } catch (RuntimeException e) {
                    // already gone
                }
            }
            app.stop();
        }
    }
}
