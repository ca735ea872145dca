package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.IntervalTable;
import dev.hetrace.analysis.MessageTable;
import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.Waits;
import dev.hetrace.web.WebApps;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@code hetrace view}'s HTTP server: the app (plain ES modules from the classpath, nothing
 * from the network) and its JSON API over a {@link Timeline}. Times in the API are ns from the
 * first event (the reference clock's {@code begin_ns}, given by {@code /api/meta}).
 *
 * <pre>
 * GET /api/meta                                rows, labels and their colors, the time span
 * GET /api/view?from=&amp;to=&amp;width=&amp;rows=1,2,3   per row rectangles or columns; message arrows
 * GET /api/events?row=&amp;from=&amp;to=              the intervals and messages of a place
 * GET /api/stats?from=&amp;to=                     the statistics table of a range
 * GET /api/diagnosis                           the findings in sentences, the outliers
 * GET /api/find?q=&amp;after=&amp;dir=next|prev        the next interval whose label contains q
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
    /** The diagnosis of a timeline built here; null for a kept one (its answer is kept with it). */
    private final CompletableFuture<Diagnosis.Report> diagnosis;
    private final ThreadLocal<ViewQuery> queries;
    private final StateBuilder.Input input;
    /** For a kept timeline: how to read the traces again, when a request needs the state model or the events. */
    private final Supplier<StateBuilder.Built> reread;
    private StateBuilder.Built reread_;
    private Javalin app;

    /**
     * A server for {@code timeline}, built here from a state model; without the traces ({@code
     * input} null), no pattern search.
     */
    public ViewServer(Timeline timeline, StateBuilder.Input input) {
        this(timeline, input, null);
        if (timeline.model() == null) {
            throw new IllegalArgumentException("a kept timeline needs the way to read its traces again");
        }
    }

    /**
     * A server for a timeline read from a file ({@link TimelineFile}): the views, events, search,
     * durations, diagnosis and whole-span statistics come from the file; the statistics of a range
     * and the pattern search need the state model or the events, read again from the traces by
     * {@code reread} at the first such request (which waits for it).
     */
    public static ViewServer kept(Timeline timeline, Supplier<StateBuilder.Built> reread) {
        return new ViewServer(timeline, null, reread);
    }

    private ViewServer(Timeline timeline, StateBuilder.Input input, Supplier<StateBuilder.Built> reread) {
        this.timeline = timeline;
        this.input = input;
        this.reread = reread;
        this.queries = ThreadLocal.withInitial(() -> new ViewQuery(timeline));
        // the diagnosis takes a while on big boards: under way while the first views are drawn (a kept timeline has its answer)
        this.diagnosis = timeline.model() == null ? null
            : CompletableFuture.supplyAsync(() -> Diagnosis.of(timeline.model(), Diagnosis.DEFAULT_K));
    }

    /** The state model: the timeline's, else the traces' read again. */
    private StateModel model() {
        return timeline.model() != null ? timeline.model() : traces().model();
    }

    private synchronized StateBuilder.Built traces() {
        if (reread_ == null) {
            reread_ = reread.get();
        }
        return reread_;
    }

    /**
     * The answers a kept timeline serves without its state model: the diagnosis and the
     * statistics of the whole span, as JSON, by name (waits for the diagnosis).
     */
    public java.util.Map<String, String> answersToKeep() throws IOException {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put(Timeline.DIAGNOSIS, render(this::diagnosis));
        out.put(Timeline.STATS, render(g -> stats(0, timeline.end() - timeline.begin(), g)));
        return out;
    }

    private String render(Body body) throws IOException {
        return new String(bytes(body), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** What {@code body} writes, as JSON bytes. */
    private byte[] bytes(Body body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 14);
        try (JsonGenerator g = json.createGenerator(out, JsonEncoding.UTF8)) {
            body.write(g);
        }
        return out.toByteArray();
    }

    /**
     * 200 small view requests (64 px, the first 4 rows, every zoom), answered and thrown away on a
     * thread of their own while the server starts and sends the first view (about 0.5 s of one
     * core): the JIT has then compiled the code every request runs (the columns, the rectangles,
     * the marks, the arrows, the JSON) by the first zooms. Without it, the first zoom of a session
     * took up to twice the others (118 ms on 1,024 cores, 45 rows at 2,000 px); it costs the first
     * view about 0.1 s.
     */
    private void warmUp() {
        Thread t = new Thread(() -> {
            ViewQuery q = new ViewQuery(timeline);
            long span = Math.max(1, timeline.end() - timeline.begin());
            int[] rows = java.util.stream.IntStream.range(0, Math.min(4, timeline.rows().size())).toArray();
            try (JsonGenerator g = json.createGenerator(java.io.OutputStream.nullOutputStream())) {
                for (int k = 0; k < 200; k++) {
                    long w = Math.max(1000, span >> (k % 24));
                    long from = (span - w) / 2;
                    q.write(from, from + w, 64, rows, g);
                }
            } catch (IOException | RuntimeException e) {
                // only a warm-up: the requests will tell
            }
        }, "hetrace-view-warm-up");
        t.setDaemon(true);
        t.start();
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
            int[] rows = rs == null || rs.isBlank() ? new int[0]
                : java.util.Arrays.stream(rs.split(",")).mapToInt(ViewServer::parseInt).toArray();
            ViewQuery q = queries.get();
            send(ctx, g -> q.write(from, to, width, rows, g));
        });
        app.get("/api/events", ctx -> {
            int row = (int) longParam(ctx, "row");
            long from = longParam(ctx, "from");
            long to = longParam(ctx, "to");
            send(ctx, g -> events(row, from, to, g));
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
            send(ctx, g -> find(q, after, next, g));
        });
        app.get("/api/pattern", ctx -> {
            String first = ctx.queryParam("first");
            String then = ctx.queryParam("then");
            if (first == null || first.isBlank() || then == null || then.isBlank()) {
                throw new IllegalArgumentException("first and then: the event names (or patterns with *) of A and B are needed");
            }
            List<String[]> where = new java.util.ArrayList<>();
            String w = ctx.queryParam("where");
            for (String cond : w == null || w.isBlank() ? new String[0] : w.split(",")) {
                String[] ab = cond.trim().split("=", -1);
                if (ab.length != 2 || ab[0].isBlank() || ab[1].isBlank()) {
                    throw new IllegalArgumentException("where: expected FIELD_OF_A=FIELD_OF_B, got " + cond);
                }
                where.add(new String[] {ab[0].trim(), ab[1].trim()});
            }
            boolean sameCore = "true".equals(ctx.queryParam("sameCore"));
            send(ctx, g -> pattern(new PatternSearch.Spec(first.trim(), then.trim(), where, sameCore), g));
        });
        app.get("/api/durations", ctx -> {
            String name = ctx.queryParam("name");
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name: the function, task or interrupt whose durations to show is needed");
            }
            send(ctx, g -> durations(name.trim(), g));
        });
        app.exception(IllegalArgumentException.class, (e, ctx) -> {
            ctx.status(400);
            ctx.contentType("application/json");
            ctx.result("{\"error\": " + quote(e.getMessage()) + "}");
        });
        app.exception(java.io.UncheckedIOException.class, (e, ctx) -> {
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
    }

    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private void send(Context ctx, Body body) throws IOException {
        byte[] answer = bytes(body);
        ctx.contentType("application/json");
        ctx.header("Cache-Control", "no-store");
        ctx.result(answer);
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
        g.writeEndObject();
    }

    /** The intervals of row {@code row} over [from, to] and the messages of its core then. */
    private void events(int row, long from, long to, JsonGenerator g) throws IOException {
        if (row < 0 || row >= timeline.rows().size()) {
            throw new IllegalArgumentException("no row " + row);
        }
        Timeline t = timeline;
        long b = t.begin();
        Timeline.Row r = t.rows().get(row);
        g.writeStartObject();
        g.writeNumberField("row", row);
        g.writeStringField("name", rowName(r));
        g.writeNumberField("from", from);
        g.writeNumberField("to", to);
        g.writeArrayFieldStart("intervals");
        if (t.members[row].length == 0) {
            int lo = t.firstEndingAfter(row, b + from);
            int hi = t.firstStartingFrom(row, b + to + 1);
            int n = 0;
            for (int i = lo; i < hi && n < MAX_EVENTS; i++) {
                if (t.endOf(i) < b + from) {
                    continue;
                }
                n++;
                g.writeStartObject();
                g.writeNumberField("start", t.startOf(i) - b);
                g.writeNumberField("end", t.endOf(i) - b);
                g.writeStringField("name", t.labels().name(t.labelOf(i)));
                g.writeStringField("color", t.labels().color(t.labelOf(i)));
                int state = t.stateOf(i);
                long extra = t.extraOf(i);
                String what = switch (r.kind()) {
                    case CORE -> "task";
                    case TASK -> state == StateModel.RUNNING && extra >= 0 && extra < t.cores()
                        ? "running on " + t.coreName((int) extra)
                        : StateModel.stateName(state) + (state == StateModel.BLOCKED && extra >= 0 ? " on queue " + extra : "");
                    case CALLS -> "call, depth " + r.depth();
                    case IRQ -> "interrupt";
                    default -> "";
                };
                g.writeStringField("what", what);
                if (r.kind() == Timeline.Kind.CALLS) {
                    g.writeNumberField("self", extra);
                }
                int flags = t.flagsOf(i);
                g.writeBooleanField("startUnknown", (flags & StateModel.START_UNKNOWN) != 0);
                g.writeBooleanField("endUnknown", (flags & StateModel.END_UNKNOWN) != 0);
                g.writeBooleanField("eventsLost", (flags & StateModel.EVENTS_LOST) != 0);
                g.writeEndObject();
            }
        }
        g.writeEndArray();
        g.writeArrayFieldStart("messages");
        if (r.core() >= 0) {
            int lo = t.firstMessageAfter(b + from, t.firstMessageFrom(b + from));
            int n = 0;
            for (int k = lo; k < t.messages() && t.msgSend(k) <= b + to && n < MAX_EVENTS; k++) {
                boolean out = t.msgSendCore(k) == r.core() && t.msgSend(k) >= b + from;
                boolean in = t.msgReceiveCore(k) == r.core() && t.msgReceive(k) >= b + from && t.msgReceive(k) <= b + to;
                if (!out && !in) {
                    continue;
                }
                n++;
                g.writeStartObject();
                g.writeNumberField("send", t.msgSend(k) - b);
                g.writeNumberField("receive", t.msgReceive(k) - b);
                g.writeStringField("from", t.coreName(t.msgSendCore(k)) + "/" + taskName(t.msgSendTask(k)));
                g.writeStringField("to", t.coreName(t.msgReceiveCore(k)) + "/" + taskName(t.msgReceiveTask(k)));
                g.writeNumberField("queue", t.msgQueue(k));
                g.writeNumberField("id", t.msgId(k));
                g.writeEndObject();
            }
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private String taskName(int task) {
        return task >= 0 ? timeline.taskName(task) : "?";
    }

    private String rowName(Timeline.Row r) {
        StringBuilder sb = new StringBuilder(r.name());
        for (int p = r.parent(); p > 0; p = timeline.rows().get(p).parent()) {
            sb.insert(0, timeline.rows().get(p).name() + " / ");
        }
        return sb.toString();
    }

    void stats(long from, long to, JsonGenerator g) throws IOException {
        long b = timeline.begin();
        String kept = timeline.kept.get(Timeline.STATS);
        if (timeline.model() == null && kept != null && from <= 0 && to >= timeline.end() - b) {
            g.writeRawValue(kept);
            return;
        }
        Statistics.Table table = Statistics.of(model(), b + from, b + to);
        g.writeStartObject();
        g.writeNumberField("from", from);
        g.writeNumberField("to", to);
        g.writeArrayFieldStart("rows");
        for (Statistics.Row r : table.rows()) {
            g.writeStartObject();
            g.writeStringField("context", r.context().label);
            g.writeStringField("name", r.name());
            g.writeNumberField("total", r.totalNanos());
            g.writeNumberField("percent", r.percent());
            g.writeNumberField("count", r.count());
            g.writeNumberField("min", r.minNanos());
            g.writeNumberField("max", r.maxNanos());
            g.writeNumberField("avg", r.avgNanos());
            if (Double.isNaN(r.avgIntervalNanos())) {
                g.writeNullField("avgInterval");
            } else {
                g.writeNumberField("avgInterval", r.avgIntervalNanos());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** The diagnosis of a timeline built here (computed once, in the background from the start). */
    Diagnosis.Report diagnosisReport() {
        return diagnosis.join();
    }

    void diagnosis(JsonGenerator g) throws IOException {
        if (diagnosis == null) {
            g.writeRawValue(timeline.kept.get(Timeline.DIAGNOSIS));
            return;
        }
        Diagnosis.Report r = diagnosis.join();
        StateModel m = timeline.model();
        long b = timeline.begin();
        g.writeStartObject();
        g.writeArrayFieldStart("findings");
        for (String s : Diagnosis.summary(r)) {
            g.writeString(s);
        }
        g.writeEndArray();
        List<Diagnosis.Outlier> sorted = r.outliers().stream()
            .sorted((x, y) -> Long.compare(y.duration(), x.duration())).limit(MAX_EVENTS).toList();
        g.writeNumberField("outlierCount", r.outliers().size());
        g.writeArrayFieldStart("outliers");
        for (Diagnosis.Outlier o : sorted) {
            g.writeStartObject();
            g.writeStringField("core", o.core() >= 0 ? m.cores().get(o.core()).name() : null);
            g.writeNumberField("row", outlierRow(o));
            g.writeStringField("task", o.task() >= 0 ? m.tasks().get(o.task()).name() : null);
            g.writeStringField("kind", o.kind().label);
            g.writeStringField("name", o.name() >= 0 ? m.name(o.name()) : null);
            g.writeNumberField("start", o.start() - b);
            g.writeNumberField("end", o.end() - b);
            g.writeNumberField("median", o.median());
            if (Double.isFinite(o.ratio())) {
                g.writeNumberField("ratio", o.ratio());
            } else {
                g.writeNullField("ratio"); // a median of 0: no finite ratio (JSON has no Infinity)
            }
            g.writeNumberField("preempted", o.preempted());
            g.writeArrayFieldStart("preemptedBy");
            for (Waits.Share s : o.preemptedBy()) {
                g.writeString(m.tasks().get(s.task()).name());
            }
            g.writeEndArray();
            g.writeNumberField("blocked", o.blocked());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("silent");
        for (Diagnosis.Silent s : r.silent()) {
            g.writeStartObject();
            g.writeStringField("trace", m.traceNames().get(s.trace()));
            g.writeNumberField("row", s.core() >= 0 ? timeline.coreRow(s.core()) : -1);
            g.writeNumberField("last", s.last() - b);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("stuck");
        for (Diagnosis.Stuck s : r.stuck()) {
            g.writeStartObject();
            g.writeStringField("task", m.tasks().get(s.task()).name());
            g.writeNumberField("row", s.core() >= 0 ? timeline.coreRow(s.core()) : -1);
            g.writeNumberField("since", s.since() - b);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** The row an outlier is seen best on: its call's depth row, else its core's. */
    private int outlierRow(Diagnosis.Outlier o) {
        if (o.kind() == Diagnosis.Kind.CALL && o.row() >= 0) {
            int depth = timeline.model().calls().depth(o.row());
            for (Timeline.Row r : timeline.rows()) {
                if (r.kind() == Timeline.Kind.CALLS && r.task() == o.task() && r.depth() == depth) {
                    return r.id();
                }
            }
        }
        return o.core() >= 0 ? timeline.coreRow(o.core()) : -1;
    }

    /**
     * Every interval labelled {@code name} on the core, interrupt and call-stack rows (a task's
     * runs, an interrupt's handlers, a function's calls), in start order per row, with its
     * iteration (its rank on its row): the data of the durations panel. Beyond
     * {@value #MAX_DURATIONS}, an even sample, said in {@code shown}.
     */
    void durations(String name, JsonGenerator g) throws IOException {
        durations(name, MAX_DURATIONS, g);
    }

    /** {@link #durations(String, JsonGenerator)} with at most {@code max} intervals listed. */
    void durations(String name, int max, JsonGenerator g) throws IOException {
        Timeline t = timeline;
        int label = t.labels().find(name);
        if (label < 0) {
            throw new IllegalArgumentException("no task, function or interrupt is named " + name);
        }
        long b = t.begin();
        int total = 0;
        for (Timeline.Row r : t.rows()) {
            if (durationRow(r)) {
                for (int i = t.offset[r.id()]; i < t.offset[r.id() + 1]; i++) {
                    total += t.labelOf(i) == label ? 1 : 0;
                }
            }
        }
        int step = Math.max(1, (total + max - 1) / max);
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeNumberField("total", total);
        g.writeNumberField("shown", (total + step - 1) / step);
        g.writeArrayFieldStart("intervals");
        int seen = 0;
        for (Timeline.Row r : t.rows()) {
            if (!durationRow(r)) {
                continue;
            }
            int iteration = 0;
            for (int i = t.offset[r.id()]; i < t.offset[r.id() + 1]; i++) {
                if (t.labelOf(i) != label) {
                    continue;
                }
                if (seen++ % step == 0) {
                    g.writeStartObject();
                    g.writeNumberField("row", r.id());
                    g.writeStringField("core", t.coreName(r.core()));
                    g.writeStringField("kind", r.kind() == Timeline.Kind.CALLS ? "call"
                        : r.kind() == Timeline.Kind.IRQ ? "interrupt" : "run");
                    g.writeNumberField("start", t.startOf(i) - b);
                    g.writeNumberField("duration", t.endOf(i) - t.startOf(i));
                    if (r.kind() == Timeline.Kind.CALLS) {
                        g.writeNumberField("self", t.extraOf(i));
                    }
                    g.writeNumberField("iteration", iteration);
                    g.writeEndObject();
                }
                iteration++;
            }
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** The rows whose intervals are a task's runs, an interrupt's handlers or a function's calls. */
    private static boolean durationRow(Timeline.Row r) {
        return r.core() >= 0 && (r.kind() == Timeline.Kind.CORE || r.kind() == Timeline.Kind.IRQ || r.kind() == Timeline.Kind.CALLS);
    }

    /** The first interval after (or last before) {@code after} whose label contains {@code q}, and how many there are. */
    private void find(String q, long after, boolean next, JsonGenerator g) throws IOException {
        Timeline t = timeline;
        String needle = q.toLowerCase(Locale.ROOT);
        boolean[] match = new boolean[t.labels().size()];
        boolean any = false;
        for (int i = 0; i < match.length; i++) {
            match[i] = t.labels().name(i).toLowerCase(Locale.ROOT).contains(needle);
            any |= match[i];
        }
        long b = t.begin();
        long at = b + after;
        int best = -1;
        long count = 0;
        if (any) {
            long bestStart = 0;
            for (int i = 0, n = t.intervals(); i < n; i++) {
                if (!match[t.labelOf(i)]) {
                    continue;
                }
                count++;
                long s = t.startOf(i);
                if (next ? s > at && (best < 0 || s < bestStart) : s < at && (best < 0 || s > bestStart)) {
                    best = i;
                    bestStart = s;
                }
            }
        }
        g.writeStartObject();
        g.writeNumberField("matches", count);
        if (best >= 0) {
            int row = t.rowOf(best);
            g.writeNumberField("row", row);
            g.writeNumberField("start", t.startOf(best) - b);
            g.writeNumberField("end", t.endOf(best) - b);
            g.writeStringField("name", t.labels().name(t.labelOf(best)));
        }
        g.writeEndObject();
    }

    /** Runs a pattern search over the traces' events (read again: the state model does not keep them). */
    private void pattern(PatternSearch.Spec spec, JsonGenerator g) throws IOException {
        StateBuilder.Input in = reread != null ? traces().input() : input;
        if (in == null) {
            throw new IllegalArgumentException("pattern search needs the traces, which this server was not given");
        }
        PatternSearch.Result r;
        try {
            r = PatternSearch.run(in, spec, w -> { });
        } catch (dev.hetrace.ctf.metadata.MetadataException | dev.hetrace.ctf.api.StreamDecodingException e) {
            throw new IOException(e.getMessage(), e);
        }
        long b = timeline.begin();
        g.writeStartObject();
        g.writeNumberField("count", r.occurrences().size());
        g.writeNumberField("ignoredFirst", r.ignoredFirst());
        g.writeNumberField("ignoredThen", r.ignoredThen());
        g.writeNumberField("min", r.minDuration());
        g.writeNumberField("max", r.maxDuration());
        if (r.occurrences().isEmpty()) {
            g.writeNullField("avg");
        } else {
            g.writeNumberField("avg", r.avgDuration());
        }
        g.writeArrayFieldStart("histogram");
        for (long h : r.occurrences().isEmpty() ? new long[0] : r.histogram(20)) {
            g.writeNumber(h);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("occurrences");
        List<PatternSearch.Occurrence> byStart = r.occurrences().stream()
            .sorted((x, y) -> Long.compare(x.start(), y.start())).limit(MAX_EVENTS * 5).toList();
        for (PatternSearch.Occurrence o : byStart) {
            g.writeStartObject();
            g.writeNumberField("start", o.start() - b);
            g.writeNumberField("end", o.end() - b);
            g.writeStringField("startCore", o.startCore());
            g.writeStringField("endCore", o.endCore());
            int core = timeline.core(o.startCore());
            g.writeNumberField("row", core >= 0 ? timeline.coreRow(core) : -1);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    static String quote(String s) {
        return dev.hetrace.ctf.text.JsonText.quote(s);
    }
}
