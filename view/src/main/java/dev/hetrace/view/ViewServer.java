package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.web.WebApps;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.stream.IntStream;

/**
 * {@code hetrace view}'s HTTP server: the app (plain ES modules from the classpath, nothing
 * from the network) and its JSON API over a {@link Timeline}. Times in the API are ns from the
 * first event (the reference clock's {@code begin_ns}, given by {@code /api/meta}).
 *
 * <pre>
 * GET /api/meta                                rows, labels and their colors, the time span
 * GET /api/view?from=&amp;to=&amp;width=&amp;rows=1,2,3[&amp;format=binary]   per row rectangles or columns; message arrows
 *                                              (binary: the arrays as typed arrays after the JSON, {@link BinaryArrays})
 * GET /api/events?row=&amp;from=&amp;to=              the intervals and messages of a place
 * GET /api/stats?from=&amp;to=                     the statistics table of a range
 * GET /api/diagnosis                           the findings in sentences, the outliers
 * GET /api/find?q=&amp;after=&amp;index=&amp;dir=next|prev  the next interval whose label contains q, its rank
 * GET /api/mark?row=&amp;time=&amp;name=             a point event's place and fields (from the store)
 * GET /api/names                               the names the durations panel can show
 * GET /api/pattern?first=&amp;then=&amp;where=&amp;sameCore=  KPTrace's pattern search (A followed by B)
 * GET /api/durations?name=                     every interval of a function, task or interrupt: its
 *                                              duration, self time, core and iteration (for the
 *                                              histogram, box plots and scatter plot)
 * </pre>
 */
public final class ViewServer implements AutoCloseable {
    static final int MAX_EVENTS = 200;
    /** The most intervals {@code /api/durations} lists (evenly sampled beyond). */
    static final int MAX_DURATIONS = 20_000;

    private final Timeline timeline;
    private final JsonFactory json = new JsonFactory();
    private final ThreadLocal<ViewQuery> queries;
    /** The statistics of a range and the pattern search: from the store (the index), or the model in memory. */
    private final TraceAnswers answers;

    private final Panels panels;
    private Javalin app;

    /**
     * A server for {@code timeline}, built here from a state model, answering the statistics and
     * the pattern search from that model and {@code input}'s traces (null: no pattern search):
     * when nothing is kept of the traces.
     */
    public ViewServer(Timeline timeline, StateBuilder.Input input) {
        this(timeline, TraceAnswers.of(requireModel(timeline), input));
    }

    /**
     * A server for {@code timeline}, built here or read from a file ({@link TimelineFile}: then
     * its diagnosis is the one kept with it), answering the statistics of a range and the pattern
     * search with {@code answers} (the store's: {@link TraceAnswers#of(dev.hetrace.analysis.index.TraceIndex)}),
     * which it closes with itself.
     */
    public ViewServer(Timeline timeline, TraceAnswers answers) {
        this.timeline = timeline;
        this.answers = answers;
        this.panels = new Panels(timeline, answers);
        this.queries = ThreadLocal.withInitial(() -> new ViewQuery(timeline));
    }

    private static StateModel requireModel(Timeline timeline) {
        if (timeline.model() == null) {
            throw new IllegalArgumentException("a kept timeline is served with the answers of its trace set's index");
        }
        return timeline.model();
    }

    /**
     * An answer's bytes, kept from request to request ({@link #spare}): a wide view is megabytes of
     * JSON, and growing a fresh buffer to that size, then copying it out whole, took as long as
     * computing it. Written out from where it is ({@link #sendTo(OutputStream, boolean)}).
     */
    private static final class Answer extends ByteArrayOutputStream {
        /** The arrays of a binary answer ({@code /api/view?format=binary}), after its JSON. */
        final BinaryArrays arrays = new BinaryArrays();

        Answer() {
            super(1 << 16);
        }

        @Override
        public void reset() {
            super.reset();
            arrays.reset();
        }

        /** Sends the JSON written; {@code binary}: framed, with its arrays after it ({@link BinaryArrays#sendTo}). */
        void sendTo(OutputStream out, boolean binary) throws IOException {
            if (binary) {
                arrays.sendTo(out, buf, count);
            } else {
                out.write(buf, 0, count);
            }
        }

        int capacity() {
            return buf.length + arrays.capacity();
        }
    }

    /** At most this many answers' buffers are kept between requests (a browser asks on a few connections at once). */
    static final int SPARE = 4;
    /** A buffer grown past this many bytes is let go after its request. */
    static final int KEPT = 64 << 20;

    private final ConcurrentLinkedDeque<Answer> spare = new ConcurrentLinkedDeque<>();

    /**
     * Starts the warm-up, unless started: view requests shaped as the app sends them (2,000 px;
     * the rows of a first screen and a few of every other kind; from the whole span down to
     * microseconds), answered and thrown away on a thread of their own: the JIT has then compiled
     * the code every request runs (the columns, the rectangles, the marks, the arrows, the JSON)
     * for the data it will meet. At most {@link #WARM_UP} requests or {@link #WARM_UP_NANOS},
     * which {@link #start} waits for; a caller with other work to do before it starts the server
     * calls this first. On a cold JVM the first view of 1,024 cores took 0.3 s and the first
     * zooms up to ten times the others (the timeline's columns are read through memory-segment
     * accessors, slow until compiled); small requests on made-up shapes were not enough, the code
     * compiled for them was thrown away at the first real zooms.
     */
    public synchronized ViewServer warmUp() {
        if (warming != null) {
            return this;
        }
        Thread t = new Thread(
                () -> {
                    ViewQuery q = new ViewQuery(timeline);
                    long span = Math.max(1, timeline.end() - timeline.begin());
                    int[] rows = warmUpRows(timeline);
                    long until = System.nanoTime() + WARM_UP_NANOS;
                    SplittableRandom random = new SplittableRandom(7);
                    Answer out = new Answer();
                    for (int k = 0; k < WARM_UP && System.nanoTime() < until; k++) {
                        long w = Math.max(1000, span >> (k % 20));
                        long from = (long) (random.nextDouble() * (span - w + 1));
                        out.reset();
                        try (JsonGenerator g = json.createGenerator(out, JsonEncoding.UTF8)) {
                            q.write(from, from + w, 2000, rows, g, out.arrays); // as the app asks
                        } catch (IOException | RuntimeException e) {
                            return; // only a warm-up: the requests will tell
                        }
                    }
                    if (out.capacity() <= KEPT) {
                        spare.offerFirst(out); // grown to the size of a wide view: the first one's
                    }
                },
                "hetrace-view-warm-up");
        t.setDaemon(true);
        t.start();
        warming = t;
        return this;
    }

    /** The warm-up's thread, once started. */
    private volatile Thread warming;

    static final int WARM_UP = 16;
    static final long WARM_UP_NANOS = 1_000_000_000L;

    /** The rows a warm-up asks for: those of a first screen (groups and cores), and the first few of every other kind. */
    static int[] warmUpRows(Timeline t) {
        IntStream.Builder rows = IntStream.builder();
        int[] taken = new int[Timeline.Kind.values().length];
        for (Timeline.Row r : t.rows()) {
            Timeline.Kind k = r.kind();
            boolean top = k == Timeline.Kind.BOARD
                    || k == Timeline.Kind.TRACE
                    || k == Timeline.Kind.GROUP
                    || k == Timeline.Kind.CORE;
            if (taken[k.ordinal()]++ < (top ? 45 : 6)) {
                rows.add(r.id());
            }
        }
        return rows.build().toArray();
    }

    /** Starts serving on {@code host}:{@code port} (0: a free port). */
    public ViewServer start(String host, int port) {
        warmUp();
        app = WebApps.create(host, "/dev/hetrace/view/app");
        app.get("/api/meta", ctx -> send(ctx, this::meta));
        app.get("/api/view", ctx -> {
            long from = longParam(ctx, "from");
            long to = longParam(ctx, "to");
            int width = (int) longParam(ctx, "width");
            String rs = ctx.queryParam("rows");
            int[] rows = rs == null || rs.isBlank()
                    ? new int[0]
                    : Arrays.stream(rs.split(","))
                            .mapToInt(ViewServer::parseInt)
                            .toArray();
            boolean binary = binaryFormat(ctx);
            ViewQuery q = queries.get();
            send(ctx, binary, (g, arrays) -> q.write(from, to, width, rows, g, arrays));
        });
        app.get("/api/events", ctx -> {
            int row = (int) longParam(ctx, "row");
            long from = longParam(ctx, "from");
            long to = longParam(ctx, "to");
            send(ctx, g -> panels.events(row, from, to, g));
        });
        app.get("/api/stats", ctx -> {
            String f = ctx.queryParam("from");
            String t = ctx.queryParam("to");
            long from = f == null ? 0 : longParam(ctx, "from");
            long to = t == null ? timeline.end() - timeline.begin() : longParam(ctx, "to");
            send(ctx, g -> stats(from, to, g));
        });
        app.get("/api/diagnosis", ctx -> send(ctx, this::diagnosis));
        app.get("/api/find", ctx -> {
            String q = ctx.queryParam("q");
            if (q == null || q.isBlank()) {
                throw new IllegalArgumentException("q: a name to find is needed");
            }
            long after = longParam(ctx, "after");
            boolean next = !"prev".equals(ctx.queryParam("dir"));
            int index = ctx.queryParam("index") == null
                    ? (next ? Integer.MAX_VALUE : -1)
                    : (int) Math.max(-1, Math.min(Integer.MAX_VALUE, longParam(ctx, "index")));
            send(ctx, g -> panels.find(q, after, index, next, g));
        });
        app.get("/api/pattern", ctx -> {
            String first = ctx.queryParam("first");
            String then = ctx.queryParam("then");
            if (first == null || first.isBlank() || then == null || then.isBlank()) {
                throw new IllegalArgumentException(
                        "first and then: the event names (or patterns with *) of A and B are needed");
            }
            List<String[]> where = new ArrayList<>();
            String w = ctx.queryParam("where");
            for (String cond : w == null || w.isBlank() ? new String[0] : w.split(",")) {
                String[] ab = cond.trim().split("=", -1);
                if (ab.length != 2 || ab[0].isBlank() || ab[1].isBlank()) {
                    throw new IllegalArgumentException("where: expected FIELD_OF_A=FIELD_OF_B, got " + cond);
                }
                where.add(new String[] {ab[0].trim(), ab[1].trim()});
            }
            boolean sameCore = "true".equals(ctx.queryParam("sameCore"));
            send(ctx, g -> panels.pattern(new PatternSearch.Spec(first.trim(), then.trim(), where, sameCore), g));
        });
        app.get("/api/durations", ctx -> {
            String name = ctx.queryParam("name");
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(
                        "name: the function, task or interrupt whose durations to show is needed");
            }
            send(ctx, g -> panels.durations(name.trim(), ViewServer.MAX_DURATIONS, g));
        });
        app.get("/api/names", ctx -> send(ctx, panels::names));
        app.get("/api/mark", ctx -> {
            int row = (int) longParam(ctx, "row");
            long time = longParam(ctx, "time");
            String name = ctx.queryParam("name");
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name: the point event's name is needed");
            }
            send(ctx, g -> panels.mark(row, time, name, g));
        });
        app.exception(IllegalArgumentException.class, (e, ctx) -> {
            ctx.status(400);
            ctx.contentType("application/json");
            ctx.result("{\"error\": " + quote(e.getMessage()) + "}");
        });
        app.exception(UncheckedIOException.class, (e, ctx) -> {
            ctx.status(500);
            ctx.contentType("application/json");
            ctx.result("{\"error\": " + quote(e.getCause().getMessage()) + "}");
        });
        app.exception(IOException.class, (e, ctx) -> {
            ctx.status(500);
            ctx.contentType("application/json");
            ctx.result("{\"error\": " + quote(e.getMessage()) + "}");
        });
        app.start(host, port);
        try {
            warming.join(WARM_UP_NANOS / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return this;
    }

    public Timeline timeline() {
        return timeline;
    }

    /** The port served on. */
    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        if (app != null) {
            app.stop();
        }
        answers.close();
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    /** An answer whose arrays go into {@code arrays} (null: in its JSON). */
    private interface ArraysBody {
        void write(JsonGenerator g, BinaryArrays arrays) throws IOException;
    }

    /** Whether the request asks for the binary answer ({@code format=binary}; {@code json}, the default, else). */
    private static boolean binaryFormat(Context ctx) {
        String f = ctx.queryParam("format");
        if (f == null || f.equals("json")) {
            return false;
        }
        if (f.equals("binary")) {
            return true;
        }
        throw new IllegalArgumentException("format: json or binary, not " + f);
    }

    /**
     * Answers with what {@code body} writes as JSON: written whole first (an error in it is then
     * answered as an error, not as half an answer), then sent from the buffer it was written
     * into, with how long it took to make in a {@code Server-Timing} header.
     */
    private void send(Context ctx, Body body) throws IOException {
        send(ctx, false, (g, arrays) -> body.write(g));
    }

    /**
     * As {@link #send(Context, Body)}; {@code binary}: the answer's arrays sent after its JSON
     * ({@link BinaryArrays}), as {@code application/octet-stream}.
     */
    private void send(Context ctx, boolean binary, ArraysBody body) throws IOException {
        Answer polled = spare.pollFirst();
        Answer answer = polled == null ? new Answer() : polled;
        answer.reset();
        long started = System.nanoTime();
        try {
            try (JsonGenerator g = json.createGenerator(answer, JsonEncoding.UTF8)) {
                body.write(g, binary ? answer.arrays : null);
            }
            ctx.contentType(binary ? "application/octet-stream" : "application/json");
            ctx.header("Cache-Control", "no-store");
            // how long the answer took to make (the browser's developer tools show it with the request)
            ctx.header(
                    "Server-Timing",
                    String.format(Locale.ROOT, "answer;dur=%.1f", (System.nanoTime() - started) / 1e6));
            answer.sendTo(ctx.outputStream(), binary);
        } finally {
            if (answer.capacity() <= KEPT && spare.size() < SPARE) {
                spare.offerFirst(answer);
            }
        }
    }

    private static long longParam(Context ctx, String name) {
        String v = ctx.queryParam(name);
        if (v == null) {
            throw new IllegalArgumentException(name + ": missing");
        }
        try {
            return Math.round(Double.parseDouble(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": not a number: " + v);
        }
    }

    private static int parseInt(String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("rows: not a row number: " + s);
        }
    }

    void meta(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("begin_ns", Long.toString(timeline.begin()));
        g.writeNumberField("span", timeline.end() - timeline.begin());
        g.writeNumberField("events", timeline.events());
        g.writeArrayFieldStart("traces");
        for (String t : timeline.traceNames()) {
            g.writeString(t);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("rows");
        int[] lost = timeline.lost();
        for (Timeline.Row r : timeline.rows()) {
            g.writeStartObject();
            g.writeNumberField("id", r.id());
            g.writeStringField("kind", r.kind().name().toLowerCase(Locale.ROOT));
            g.writeStringField("name", r.name());
            g.writeNumberField("parent", r.parent());
            g.writeNumberField("level", r.level());
            g.writeStringField("core", r.core() >= 0 ? timeline.coreName(r.core()) : null);
            g.writeBooleanField("group", timeline.group[r.id()]);
            g.writeNumberField("intervals", timeline.size(r.id()));
            if (lost[r.id()] > 0) {
                g.writeNumberField("lost", lost[r.id()]); // intervals that lost events (a group's: of its cores)
            }
            if (r.kind() == Timeline.Kind.COUNTER) {
                g.writeStringField("counter", Counters.measureName(r.depth()));
                if (Counters.sampled(r.depth())) {
                    g.writeStringField("unit", timeline.labels().name(r.task())); // the series' unit
                }
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("labels");
        for (int i = 0; i < timeline.labels().size(); i++) {
            g.writeString(timeline.labels().name(i));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("colors");
        for (int i = 0; i < timeline.labels().size(); i++) {
            g.writeString(timeline.labels().color(i));
        }
        g.writeEndArray();
        g.writeArrayFieldStart("states");
        for (int s = 0; s < StateModel.STATES; s++) {
            g.writeString(StateModel.stateName(s));
        }
        g.writeEndArray();
        g.writeFieldName("wire"); // the layout of /api/view's arrays (docs/view.md, "Wire schema")
        Wire.write(g);
        g.writeEndObject();
    }

    /** The statistics of [from, to] (ns from the first event): the whole span's when it covers it. */
    void stats(long from, long to, JsonGenerator g) throws IOException {
        panels.stats(from, to, g);
    }

    /** The diagnosis of a timeline built here from a model (computed once, in the background from the start). */
    Diagnosis.Report diagnosisReport() {
        return panels.diagnosisReport();
    }

    void diagnosis(JsonGenerator g) throws IOException {
        panels.diagnosis(g);
    }

    /** The names the durations panel can show. */
    List<String> durationLabels() {
        return panels.durationLabels();
    }

    /** The durations of {@code name}, at most {@code max} intervals listed. */
    void durations(String name, int max, JsonGenerator g) throws IOException {
        panels.durations(name, max, g);
    }

    /** The durations of {@code name} as a report holds them: in columns ({@link Panels#durations(String, int, boolean, JsonGenerator)}). */
    void durationColumns(String name, int max, JsonGenerator g) throws IOException {
        panels.durations(name, max, true, g);
    }

    static String quote(String s) {
        return JsonText.quote(s);
    }
}
