package dev.hetrace.profile.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hetrace.ctf.write.OutputFile;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.metric.Metric;
import dev.hetrace.profile.stats.BoxPlot;
import dev.hetrace.profile.stats.CampaignStats;
import dev.hetrace.profile.stats.Distribution;
import dev.hetrace.profile.stats.Regression;
import dev.hetrace.profile.stats.SlowdownCurve;
import dev.hetrace.profile.stats.ThreadMetrics;
import dev.hetrace.web.ScriptSafeJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code hetrace profile report}: one self-contained HTML file with xTRACT's charts of a
 * campaign, drawn as inline SVG by an inline script from the statistics embedded as JSON (no
 * network, no server; as {@code hetrace report} embeds the viewer's data, through the same
 * script-safe JSON): the runtime histogram with best, median and worst marked, the same per
 * counter and metric, runtime against each counter with its regression line and the ranking by
 * |r|, the slowdown curve with its threshold, knee and budget when the campaign has stress
 * levels, the user vs system split per run, box plots of runtime per configuration, and each
 * metric per thread and per core type when the runs have samples.
 */
public final class ProfileReport {

    private static final String BASE = "/dev/hetrace/profile/report/";
    private static final String DATA_AT = "<!--DATA-->";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /**
     * The statistics as {@code hetrace profile stats --format json} prints them: the report's data
     * without the per-run columns, and each metric per thread and per core type.
     */
    public static String summaryJson(Campaign c, CampaignStats s, List<ThreadMetrics.Table> threads)
            throws IOException {
        ObjectNode d = data(c, s);
        d.remove("columns");
        d.remove("runLabels");
        putThreads(d, threads);
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(d) + "\n";
    }

    private static void putThreads(ObjectNode d, List<ThreadMetrics.Table> threads) {
        if (threads.isEmpty()) {
            return;
        }
        ArrayNode arr = d.putArray("threadMetrics");
        for (ThreadMetrics.Table t : threads) {
            ObjectNode o = arr.addObject();
            o.put("metric", t.metric());
            for (var part : List.of(Map.entry("threads", t.threads()), Map.entry("coreTypes", t.coreTypes()))) {
                ArrayNode rows = o.putArray(part.getKey());
                for (ThreadMetrics.Row x : part.getValue()) {
                    ObjectNode r = rows.addObject();
                    r.put("key", x.key());
                    r.put("samples", x.samples());
                    num(r, "value", x.total());
                    num(r, "medianPerSample", x.perSample().median());
                    num(r, "q1", x.perSample().q1());
                    num(r, "q3", x.perSample().q3());
                }
            }
            ArrayNode series = o.putArray("series");
            for (ThreadMetrics.Series x : t.series()) {
                ObjectNode r = series.addObject();
                r.put("key", x.key());
                ArrayNode time = r.putArray("time");
                ArrayNode value = r.putArray("value");
                for (int i = 0; i < x.time().length; i++) {
                    num(time, x.time()[i]);
                    num(value, x.value()[i]);
                }
            }
        }
    }

    /** What was written. */
    public record Written(Path file, long bytes, int charts) {}

    private ProfileReport() {}

    public static Written write(Campaign c, List<Metric> metrics, String groupBy, double threshold, Path out)
            throws IOException {
        return write(c, metrics, groupBy, threshold, List.of(), out);
    }

    /** As {@link #write(Campaign, List, String, double, Path)}, with each metric per thread and per core type. */
    public static Written write(
            Campaign c,
            List<Metric> metrics,
            String groupBy,
            double threshold,
            List<ThreadMetrics.Table> threads,
            Path out)
            throws IOException {
        return write(c, CampaignStats.of(c, metrics, groupBy, threshold), threads, out);
    }

    /** The report of statistics already computed (with an experiment's counter names, say). */
    public static Written write(Campaign c, CampaignStats stats, List<ThreadMetrics.Table> threads, Path out)
            throws IOException {
        String page = page(c, stats, threads);
        try (OutputFile file = OutputFile.of(out)) {
            try (var os = file.newOutputStream()) {
                os.write(page.getBytes(StandardCharsets.UTF_8));
            }
            file.commit();
        }
        int charts = stats.quantities().size()
                + stats.ranking().size()
                + (stats.slowdown().isPresent() ? 1 : 0)
                + 2;
        return new Written(out, Files.size(out), charts);
    }

    /** The report's page as text: what {@link #write} saves, and what {@code hetrace view CAMPAIGN.json} serves. */
    public static String page(Campaign c, CampaignStats stats, List<ThreadMetrics.Table> threads) throws IOException {
        ObjectNode data = data(c, stats);
        putThreads(data, threads);
        String html = resource("report.html");
        String css = resource("report.css");
        String js = resource("report.js");
        if (js.contains("</script") || css.contains("</style")) {
            throw new IllegalStateException("the report's sources must not close their script or style element");
        }
        // the template's parts first, the data last: nothing in the data is taken for a placeholder
        html = html.replace("/*STYLE*/", css)
                .replace("/*SCRIPT*/", js)
                .replace("<title>hetrace profile</title>", "<title>" + escape(c.name()) + " — hetrace profile</title>");
        int at = html.indexOf(DATA_AT);
        if (at < 0) {
            throw new IllegalStateException("report.html: no " + DATA_AT);
        }
        String json = new ObjectMapper(ScriptSafeJson.factory()).writeValueAsString(data);
        return html.substring(0, at) + json + html.substring(at + DATA_AT.length());
    }

    /** The report's data: what the script draws. */
    static ObjectNode data(Campaign c, CampaignStats s) {
        ObjectNode d = NODES.objectNode();
        d.put("name", c.name());
        ObjectNode host = d.putObject("host");
        c.host().forEach(host::put);
        d.put("runs", s.runs());
        ObjectNode unsupported = d.putObject("unsupported");
        s.unsupported().forEach(unsupported::put);
        ArrayNode labels = d.putArray("runLabels");
        for (Run r : c.runs()) {
            String cfg = r.config().entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(","));
            labels.add((cfg.isEmpty() ? "run" : cfg) + " #" + r.repetition());
        }
        ObjectNode columns = d.putObject("columns");
        s.columns().forEach((k, v) -> {
            ArrayNode a = columns.putArray(k);
            for (double x : v) {
                num(a, x);
            }
        });
        ArrayNode q = d.putArray("quantities");
        s.quantities().forEach((name, dist) -> {
            if (dist.n() > 0) {
                q.add(distribution(name, dist));
            }
        });
        ArrayNode ranking = d.putArray("ranking");
        for (Regression r : s.ranking()) {
            ObjectNode o = ranking.addObject();
            o.put("x", r.x());
            o.put("n", r.n());
            num(o, "slope", r.slope());
            num(o, "intercept", r.intercept());
            num(o, "r", r.r());
            num(o, "r2", r.r2());
        }
        ObjectNode split = d.putObject("split");
        split.put("runs", s.split().runs());
        num(split, "user", s.split().user().median());
        num(split, "system", s.split().system().median());
        num(split, "systemShare", s.split().systemShare());
        d.put("groupedBy", s.groupedBy());
        ArrayNode groups = d.putArray("groups");
        for (CampaignStats.Group g : s.groups()) {
            ObjectNode o = groups.addObject();
            o.put("key", g.key());
            o.put("runs", g.runs());
            BoxPlot b = g.box();
            num(o, "low", b.lowWhisker());
            num(o, "q1", b.q1());
            num(o, "median", b.median());
            num(o, "q3", b.q3());
            num(o, "high", b.highWhisker());
            ArrayNode outliers = o.putArray("outliers");
            b.outliers().forEach(v -> num(outliers, v));
        }
        s.slowdown().ifPresent(curve -> d.set("slowdown", slowdown(curve)));
        return d;
    }

    private static ObjectNode distribution(String name, Distribution dist) {
        ObjectNode o = NODES.objectNode();
        o.put("name", name);
        o.put("n", dist.n());
        num(o, "min", dist.min());
        num(o, "max", dist.max());
        num(o, "mean", dist.mean());
        num(o, "sd", dist.sd());
        num(o, "q1", dist.q1());
        num(o, "median", dist.median());
        num(o, "q3", dist.q3());
        num(o, "p5", dist.p5());
        num(o, "p95", dist.p95());
        ObjectNode h = o.putObject("histogram");
        num(h, "from", dist.histogram().from());
        num(h, "to", dist.histogram().to());
        ArrayNode counts = h.putArray("counts");
        for (int k : dist.histogram().counts()) {
            counts.add(k);
        }
        return o;
    }

    private static ObjectNode slowdown(SlowdownCurve curve) {
        ObjectNode o = NODES.objectNode();
        o.put("threshold", curve.threshold());
        o.put("measure", curve.measure());
        o.put("unit", curve.unit());
        o.put("basis", curve.basis());
        ArrayNode levels = o.putArray("levels");
        for (SlowdownCurve.Level l : curve.levels()) {
            ObjectNode x = levels.addObject();
            x.put("label", l.label());
            num(x, "level", l.level());
            x.put("n", l.runtime().n());
            num(x, "median", l.runtime().median());
            num(x, "q1", l.runtime().q1());
            num(x, "q3", l.runtime().q3());
            num(x, "slowdown", l.slowdown());
            num(x, "low", l.slowdownLow());
            num(x, "high", l.slowdownHigh());
            num(x, "bytesPerSecond", l.bytesPerSecond());
            x.put("acceptable", l.acceptable());
        }
        curve.knee().ifPresentOrElse(k -> o.put("knee", k.label()), () -> o.putNull("knee"));
        curve.budget()
                .ifPresentOrElse(
                        b -> {
                            ObjectNode x = o.putObject("budget");
                            x.put("level", b.level());
                            num(x, "bytesPerSecond", b.bytesPerSecond());
                        },
                        () -> o.putNull("budget"));
        o.put("kneeNote", curve.kneeText());
        o.put("budgetNote", curve.budgetText());
        return o;
    }

    /** NaN and infinities as null: JSON has no NaN. */
    private static void num(ObjectNode o, String field, double v) {
        if (Double.isFinite(v)) {
            o.put(field, v);
        } else {
            o.putNull(field);
        }
    }

    private static void num(ArrayNode a, double v) {
        if (Double.isFinite(v)) {
            a.add(v);
        } else {
            a.addNull();
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = ProfileReport.class.getResourceAsStream(BASE + name)) {
            if (in == null) {
                throw new IOException("the report's " + name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
