package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.ctf.write.OutputFile;
import dev.hetrace.web.ScriptSafeJson;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code hetrace report}: one self-contained HTML file, the viewer's app with what the server
 * would answer embedded in it (meta, diagnosis, statistics, the timeline), opened without a
 * server or a network. A board of at most {@link #MAX_INTERVALS} intervals embeds every one;
 * a larger one embeds each row's activity over the whole trace in a fixed number of columns
 * (what the server answers for the fitted view at that width), so that deeper zooms show those
 * summaries, not the intervals. The app's ES modules are put in one inline script here, at run
 * time: no front-end build step.
 */
public final class Report {
    /** Boards with at most this many intervals embed them all. */
    public static final int MAX_INTERVALS = 200_000;
    /** A large board's report holds every interval around this many of the longest outliers, at most. */
    static final int MAX_WINDOWS = 8;
    /** Most messages embedded; more are sampled evenly. */
    public static final int MAX_MESSAGES = 100_000;
    /** What the columns of a large board may take at most (unless even MIN_WIDTH columns take more); messages and statistics add a few MB. */
    static final long BUDGET_BYTES = 16_000_000;

    static final int MIN_WIDTH = 256;
    static final int MAX_WIDTH = 8192;

    private static final String APP = "/dev/hetrace/view/app/";
    /** The modules in the order they are put in the script: each after those it imports. */
    private static final List<String> MODULES =
            List.of("wire", "source", "colors", "kernel", "bars", "timeline", "charts", "app");

    /** What a report holds: its size, every interval or summaries at {@code width} columns, its messages. */
    public record Written(
            Path file,
            long bytes,
            boolean everyInterval,
            long intervals,
            int width,
            int messages,
            int messagesTotal,
            String note) {}

    private Report() {}

    /** Writes the report of {@code timeline} to {@code out} (a temporary file, then renamed). */
    public static Written write(Timeline timeline, Path out) throws IOException {
        return write(timeline, out, MAX_INTERVALS, MAX_INTERVALS / 2, BUDGET_BYTES);
    }

    /**
     * As {@link #write(Timeline, Path)}, embedding every interval only up to {@code maxIntervals}, and
     * those around the outliers up to {@code windowIntervals}, the columns within {@code budgetBytes}
     * (tests: a large board's report from a small one).
     */
    static Written write(Timeline timeline, Path out, long maxIntervals, long windowIntervals, long budgetBytes)
            throws IOException {
        Timeline t = timeline;
        int n = t.rows().size();
        long intervals = t.intervals();
        boolean every = intervals <= maxIntervals;
        // the server's answer for the whole span, at the widest columns that fit the budget (runs of equal
        // columns make quiet rows cheap): the page resamples its columns, it never aggregates intervals itself
        int width;
        byte[] view;
        ViewQuery q = new ViewQuery(t);
        {
            int[] all = new int[n];
            for (int r = 0; r < n; r++) {
                all[r] = r;
            }
            for (width = MAX_WIDTH; ; width /= 2) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream(1 << 20);
                try (JsonGenerator g = new JsonFactory().createGenerator(buf, JsonEncoding.UTF8)) {
                    q.write(0, Math.max(1, t.end() - t.begin()), width, all, g);
                }
                view = buf.toByteArray();
                if (view.length <= budgetBytes || width / 2 < MIN_WIDTH) {
                    break;
                }
            }
        }
        int total = t.messages();
        int stride = Math.max(1, (total + MAX_MESSAGES - 1) / MAX_MESSAGES);
        int messages = (total + stride - 1) / stride;
        String note = every
                ? String.format(
                        Locale.ROOT,
                        "report: every interval (%,d) and %s",
                        intervals,
                        messages == total
                                ? String.format(Locale.ROOT, "every message (%,d)", total)
                                : String.format(Locale.ROOT, "%,d of %,d messages", messages, total))
                : String.format(
                        Locale.ROOT,
                        "report of a large board (%,d intervals): rows with more than %d are summaries"
                                + " at %s per column, not every interval; %,d of %,d messages",
                        intervals,
                        width / 2,
                        duration((double) (t.end() - t.begin()) / width),
                        messages,
                        total);

        try (OutputFile file = OutputFile.of(out)) {
            String[] page = page();
            try (OutputStream os = new BufferedOutputStream(file.newOutputStream(), 1 << 16)) {
                os.write(page[0].getBytes(StandardCharsets.UTF_8));
                JsonFactory json = ScriptSafeJson.factory();
                JsonGenerator g = json.createGenerator(os, JsonEncoding.UTF8);
                g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                List<long[]> windows;
                try (ViewServer api = new ViewServer(t, (StateBuilder.Input) null)) {
                    windows = every ? List.of() : windows(t, api.diagnosisReport(), windowIntervals);
                    if (!windows.isEmpty()) {
                        note += String.format(
                                Locale.ROOT,
                                "; every interval in %d window%s around the longest outliers",
                                windows.size(),
                                windows.size() == 1 ? "" : "s");
                    }
                    g.writeStartObject();
                    g.writeFieldName("meta");
                    api.meta(g);
                    g.writeFieldName("diagnosis");
                    api.diagnosis(g);
                    g.writeFieldName("stats");
                    api.stats(0, t.end() - t.begin(), g);
                    // the durations panel for every name it can show (a sample of each), within a budget:
                    // the page offers exactly these
                    g.writeObjectFieldStart("durations");
                    long used = 0;
                    for (String name : durationNames(t, api.diagnosisReport(), api.durationLabels())) {
                        ByteArrayOutputStream one = new ByteArrayOutputStream(1 << 12);
                        try (JsonGenerator d = new JsonFactory().createGenerator(one, JsonEncoding.UTF8)) {
                            api.durationColumns(name, MAX_DURATIONS, d);
                        }
                        if (used + one.size() > DURATIONS_BYTES) {
                            continue;
                        }
                        used += one.size();
                        g.writeFieldName(name);
                        g.writeRawValue(one.toString(StandardCharsets.UTF_8));
                    }
                    g.writeEndObject();
                }
                g.writeObjectFieldStart("report");
                g.writeBooleanField("everyInterval", every);
                g.writeNumberField("width", width);
                g.writeStringField("note", note);
                g.writeEndObject();
                g.writeArrayFieldStart("members");
                for (int r = 0; r < n; r++) {
                    g.writeArray(t.members[r], 0, t.members[r].length);
                }
                g.writeEndArray();
                long b = t.begin();
                g.writeFieldName("view");
                g.writeRawValue(new String(view, StandardCharsets.UTF_8));
                if (every) {
                    // every interval of the rows whose intervals the answer above does not list (more than width / 2)
                    g.writeArrayFieldStart("rows");
                    for (int r = 0; r < n; r++) {
                        g.writeStartObject();
                        if (t.members[r].length == 0 && t.size(r) > width / 2) {
                            g.writeArrayFieldStart("rects");
                            for (int i = t.offset[r]; i < t.offset[r + 1]; i++) {
                                g.writeNumber(t.startOf(i) - b);
                                g.writeNumber(t.endOf(i) - b);
                                g.writeNumber(t.labelOf(i));
                                g.writeNumber(t.stateOf(i));
                            }
                            g.writeEndArray();
                        }
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                } else {
                    // every interval around the longest outliers: the fault stays readable at any zoom
                    g.writeArrayFieldStart("windows");
                    for (long[] w : windows) {
                        g.writeStartObject();
                        g.writeNumberField("from", w[0] - b);
                        g.writeNumberField("to", w[1] - b);
                        g.writeArrayFieldStart("rows");
                        for (int r = 0; r < n; r++) {
                            if (t.members[r].length > 0) {
                                g.writeNull();
                                continue;
                            }
                            g.writeStartArray();
                            for (int i = t.firstEndingAfter(r, w[0]), hi = t.firstStartingFrom(r, w[1]); i < hi; i++) {
                                g.writeNumber(t.startOf(i) - b);
                                g.writeNumber(t.endOf(i) - b);
                                g.writeNumber(t.labelOf(i));
                                g.writeNumber(t.stateOf(i));
                            }
                            g.writeEndArray();
                        }
                        g.writeEndArray();
                        // the server's answer over the window for its group rows and the rows it gives as columns
                        List<Integer> dense = new ArrayList<>();
                        for (int r = 0; r < n; r++) {
                            if (t.members[r].length > 0
                                    || t.firstStartingFrom(r, w[1]) - t.firstEndingAfter(r, w[0]) > MAX_WIDTH / 2) {
                                dense.add(r);
                            }
                        }
                        g.writeFieldName("view");
                        q.write(
                                w[0] - b,
                                w[1] - b,
                                MAX_WIDTH,
                                dense.stream().mapToInt(Integer::intValue).toArray(),
                                g);
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                // messages by send time, as the server's arrows: send, from row, receive, to row, message
                Numbers arrows = new Numbers().start();
                for (int k = 0; k < total; k += stride) {
                    ViewQuery.arrow(arrows, t, k, b);
                }
                arrows.writeField(g, "arrows");
                g.writeEndObject();
                g.flush();
                os.write(page[1].getBytes(StandardCharsets.UTF_8));
            }
            file.commit();
        }
        return new Written(out, Files.size(out), every, intervals, width, messages, total, note);
    }

    /**
     * Around each of the longest outliers (most {@link #MAX_WINDOWS}), from 1.1 times its duration
     * before it to as much after (what clicking it in the diagnosis panel shows; absolute ns; one
     * inside another is left out), while the intervals in them stay within {@code budget}.
     */
    static List<long[]> windows(Timeline t, Diagnosis.Report d, long budget) {
        List<long[]> out = new ArrayList<>();
        long intervals = 0;
        for (var o : d.outliers().stream()
                .sorted((x, y) -> Long.compare(y.duration(), x.duration()))
                .toList()) {
            if (out.size() == MAX_WINDOWS) {
                break;
            }
            long margin = Math.max(1000, o.duration()) * 11 / 10;
            long f = Math.max(t.begin(), o.start() - margin);
            long e = Math.min(t.end(), o.end() + margin);
            if (out.stream().anyMatch(w -> w[0] <= f && e <= w[1])) {
                continue;
            }
            long count = 0;
            for (int r = 0; r < t.rows().size(); r++) {
                if (t.members[r].length == 0) {
                    count += t.firstStartingFrom(r, e) - t.firstEndingAfter(r, f);
                }
            }
            if (intervals + count > budget) {
                continue;
            }
            intervals += count;
            out.add(new long[] {f, e});
        }
        return out;
    }

    /** The most intervals per name whose durations a report holds (an even sample beyond). */
    static final int MAX_DURATIONS = 2_000;

    /** The most bytes of durations a report holds: the names that do not fit are not offered. */
    static final long DURATIONS_BYTES = 8L << 20;

    /**
     * The names whose durations a report holds, in the order they are embedded: the functions and
     * tasks of the longest outliers first, then every other name the durations panel can show.
     */
    static List<String> durationNames(Timeline t, Diagnosis.Report r, List<String> all) {
        LinkedHashSet<String> names = new LinkedHashSet<>(outlierNames(t, r));
        names.addAll(all);
        return List.copyOf(names);
    }

    /** The functions and tasks of the longest outliers, as the viewer's durations panel names them. */
    static List<String> outlierNames(Timeline t, Diagnosis.Report r) {
        var m = t.model();
        LinkedHashSet<String> names = new LinkedHashSet<>();
        r.outliers().stream()
                .sorted((x, y) -> Long.compare(y.duration(), x.duration()))
                .forEach(o -> {
                    String n = o.name() >= 0
                            ? m.name(o.name())
                            : o.task() >= 0 ? m.tasks().get(o.task()).name() : null;
                    if (n != null && t.labels().find(n) >= 0) {
                        names.add(n);
                    }
                });
        return List.copyOf(names);
    }

    /** The app's page with its style and scripts inline, split where the data goes. */
    static String[] page() throws IOException {
        String html = resource("index.html");
        String css = resource("style.css");
        StringBuilder js = new StringBuilder();
        for (String m : MODULES) {
            js.append(module(m, resource(m + ".js"), m.equals("app")));
        }
        if (js.indexOf("</script") >= 0 || css.contains("</style")) {
            throw new IllegalStateException("the app's sources must not contain a closing script or style tag");
        }
        html = replaceOnce(html, "<title>hetrace view</title>", "<title>hetrace report</title>");
        html = replaceOnce(html, "<link rel=\"stylesheet\" href=\"style.css\">", "<style>\n" + css + "</style>");
        String script = "<script type=\"module\" src=\"app.js\"></script>";
        int at = html.indexOf(script);
        if (at < 0) {
            throw new IllegalStateException("index.html: no " + script);
        }
        return new String[] {
            html.substring(0, at) + "<script type=\"application/json\" id=\"hetrace-data\">",
            "</script>\n<script type=\"module\">\n" + js + "</script>" + html.substring(at + script.length())
        };
    }

    private static final Pattern IMPORT =
            Pattern.compile("^import \\{([^}]*)\\} from '\\./(\\w+)\\.js';$", Pattern.MULTILINE);
    private static final Pattern EXPORT =
            Pattern.compile("^export (async function|function|class|const|let) (\\w+)", Pattern.MULTILINE);

    /**
     * One ES module as part of the single script: its imports read from the modules before it,
     * its exports returned from a function that scopes it (the entry module stays at the top
     * level, where it may await).
     */
    static String module(String name, String src, boolean entry) {
        Matcher im = IMPORT.matcher(src);
        StringBuilder sb = new StringBuilder();
        while (im.find()) {
            // import {a as b}: destructured as {a: b}
            String names = im.group(1).replaceAll("(\\w+)\\s+as\\s+(\\w+)", "$1: $2");
            im.appendReplacement(
                    sb, Matcher.quoteReplacement("const {" + names + "} = __hetrace_" + im.group(2) + ";"));
        }
        im.appendTail(sb);
        Set<String> exports = new LinkedHashSet<>();
        Matcher ex = EXPORT.matcher(sb);
        StringBuilder body = new StringBuilder();
        while (ex.find()) {
            exports.add(ex.group(2));
            ex.appendReplacement(body, Matcher.quoteReplacement(ex.group(1) + " " + ex.group(2)));
        }
        ex.appendTail(body);
        if (body.indexOf("import ") == 0
                || Pattern.compile("^(import|export) ", Pattern.MULTILINE)
                        .matcher(body)
                        .find()) {
            throw new IllegalStateException(name + ".js: an import or export this report cannot inline");
        }
        if (entry) {
            return "// ---- " + name + ".js\n" + body + "\n";
        }
        return "// ---- " + name + ".js\nconst __hetrace_" + name + " = (() => {\n" + body + "\nreturn {"
                + String.join(", ", new ArrayList<>(exports)) + "};\n})();\n";
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Report.class.getResourceAsStream(APP + name)) {
            if (in == null) {
                throw new IOException("the app's " + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String replaceOnce(String s, String what, String with) {
        int at = s.indexOf(what);
        if (at < 0) {
            throw new IllegalStateException("index.html: no " + what);
        }
        return s.substring(0, at) + with + s.substring(at + what.length());
    }

    public static String duration(double ns) {
        if (ns >= 1e9) {
            return String.format(Locale.ROOT, "%.3g s", ns / 1e9);
        }
        if (ns >= 1e6) {
            return String.format(Locale.ROOT, "%.3g ms", ns / 1e6);
        }
        if (ns >= 1e3) {
            return String.format(Locale.ROOT, "%.3g µs", ns / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f ns", ns);
    }
}
