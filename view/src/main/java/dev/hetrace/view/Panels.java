package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.PatternSearch;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.Statistics;
import dev.hetrace.analysis.index.DiagnosisTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JSON of the app's panels and places, for {@link ViewServer} and {@link Report}: the
 * intervals and messages of a place ({@code /api/events}), the statistics, the diagnosis, the
 * durations of a name, the search, the pattern search. What the timeline does not hold comes
 * from the {@link TraceAnswers} (the store's, or a model's).
 */
final class Panels {
    private final Timeline timeline;
    private final TraceAnswers answers;

    Panels(Timeline timeline, TraceAnswers answers) {
        this.timeline = timeline;
        this.answers = answers;
    }

    /** The intervals of row {@code row} over [from, to] and the messages of its core then. */
    void events(int row, long from, long to, JsonGenerator g) throws IOException {
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
            for (int i = lo; i < hi && n < ViewServer.MAX_EVENTS; i++) {
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
                    case TASK ->
                        state == StateModel.RUNNING && extra >= 0 && extra < t.cores()
                                ? "running on " + t.coreName((int) extra)
                                : StateModel.stateName(state)
                                        + (state == StateModel.BLOCKED && extra >= 0 ? " on queue " + extra : "");
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
            for (int k = lo; k < t.messages() && t.msgSend(k) <= b + to && n < ViewServer.MAX_EVENTS; k++) {
                boolean out = t.msgSendCore(k) == r.core() && t.msgSend(k) >= b + from;
                boolean in =
                        t.msgReceiveCore(k) == r.core() && t.msgReceive(k) >= b + from && t.msgReceive(k) <= b + to;
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
        long span = timeline.end() - b;
        boolean whole = from <= 0 && to >= span;
        if (whole) {
            from = 0;
            to = span;
        }
        Statistics.Table table = answers.statistics(b + from, b + to, whole);
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

    /** The diagnosis of a timeline built here from a model (computed once, in the background from the start). */
    Diagnosis.Report diagnosisReport() {
        Diagnosis.Report r = answers.report();
        if (r == null) {
            throw new IllegalStateException("the diagnosis of a stored trace set is its rows");
        }
        return r;
    }

    /** {@code /api/diagnosis}: the diagnosis's rows, the store's or the model's, with the rows of the timeline to see each at. */
    void diagnosis(JsonGenerator g) throws IOException {
        DiagnosisTables.Rows r = answers.diagnosis(ViewServer.MAX_EVENTS);
        long b = timeline.begin();
        g.writeStartObject();
        g.writeArrayFieldStart("findings");
        for (String s : r.findings()) {
            g.writeString(s);
        }
        g.writeEndArray();
        g.writeNumberField("outlierCount", r.outlierCount());
        g.writeArrayFieldStart("outliers");
        for (DiagnosisTables.Outlier o : r.longest()) {
            g.writeStartObject();
            g.writeStringField("core", o.core());
            g.writeNumberField("row", outlierRow(o));
            g.writeStringField("task", o.task());
            g.writeStringField("kind", o.kind());
            g.writeStringField("name", o.name());
            g.writeNumberField("start", o.start() - b);
            g.writeNumberField("end", o.end() - b);
            g.writeNumberField("median", o.median());
            if (Double.isNaN(o.ratio())) {
                g.writeNullField("ratio"); // a median of 0: no finite ratio (JSON has no Infinity)
            } else {
                g.writeNumberField("ratio", o.ratio());
            }
            g.writeNumberField("preempted", o.preempted());
            g.writeArrayFieldStart("preemptedBy");
            for (String t : o.preemptedBy()) {
                g.writeString(t);
            }
            g.writeEndArray();
            g.writeNumberField("blocked", o.blocked());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("silent");
        for (DiagnosisTables.Silent s : r.silent()) {
            g.writeStartObject();
            g.writeStringField("trace", s.trace());
            g.writeNumberField("row", s.coreId() >= 0 ? timeline.coreRow(s.coreId()) : -1);
            g.writeNumberField("last", s.last() - b);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("stuck");
        for (DiagnosisTables.Stuck s : r.stuck()) {
            g.writeStartObject();
            g.writeStringField("task", s.task());
            g.writeNumberField("row", s.coreId() >= 0 ? timeline.coreRow(s.coreId()) : -1);
            g.writeNumberField("since", s.since() - b);
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** The row an outlier is seen best on: its call's depth row, else its core's. */
    private int outlierRow(DiagnosisTables.Outlier o) {
        if (o.depth() >= 0) {
            for (Timeline.Row r : timeline.rows()) {
                if (r.kind() == Timeline.Kind.CALLS && r.task() == o.taskId() && r.depth() == o.depth()) {
                    return r.id();
                }
            }
        }
        return o.coreId() >= 0 ? timeline.coreRow(o.coreId()) : -1;
    }

    /**
     * Every interval labelled {@code name} on the core, interrupt and call-stack rows (a task's
     * runs, an interrupt's handlers, a function's calls), in start order per row, with its
     * iteration (its rank on its row): the data of the durations panel. Beyond
     * {@value ViewServer#MAX_DURATIONS}, an even sample, said in {@code shown}.
     */
    void durations(String name, JsonGenerator g) throws IOException {
        durations(name, ViewServer.MAX_DURATIONS, g);
    }

    /** {@link #durations(String, JsonGenerator)} with at most {@code max} intervals listed. */
    void durations(String name, int max, JsonGenerator g) throws IOException {
        durations(name, max, false, g);
    }

    /**
     * {@link #durations(String, int, JsonGenerator)}, the intervals as objects, or ({@code columns},
     * a report's, about a third of the size) as {@code columns}: arrays {@code row}, {@code start},
     * {@code duration}, {@code self} (−1: not a call) and {@code iteration}, the core and kind
     * being the row's.
     */
    void durations(String name, int max, boolean columns, JsonGenerator g) throws IOException {
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
        int shown = (total + step - 1) / step;
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeNumberField("total", total);
        g.writeNumberField("shown", shown);
        long[][] col = new long[5][columns ? shown : 0];
        int n = 0;
        if (!columns) {
            g.writeArrayFieldStart("intervals");
        }
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
                    boolean call = r.kind() == Timeline.Kind.CALLS;
                    if (columns) {
                        col[0][n] = r.id();
                        col[1][n] = t.startOf(i) - b;
                        col[2][n] = t.endOf(i) - t.startOf(i);
                        col[3][n] = call ? t.extraOf(i) : -1;
                        col[4][n] = iteration;
                        n++;
                    } else {
                        g.writeStartObject();
                        g.writeNumberField("row", r.id());
                        g.writeStringField("core", t.coreName(r.core()));
                        g.writeStringField("kind", call ? "call" : r.kind() == Timeline.Kind.IRQ ? "interrupt" : "run");
                        g.writeNumberField("start", t.startOf(i) - b);
                        g.writeNumberField("duration", t.endOf(i) - t.startOf(i));
                        if (call) {
                            g.writeNumberField("self", t.extraOf(i));
                        }
                        g.writeNumberField("iteration", iteration);
                        g.writeEndObject();
                    }
                }
                iteration++;
            }
        }
        if (columns) {
            g.writeObjectFieldStart("columns");
            String[] names = {"row", "start", "duration", "self", "iteration"};
            for (int k = 0; k < names.length; k++) {
                g.writeFieldName(names[k]);
                g.writeArray(col[k], 0, n);
            }
            g.writeEndObject();
        } else {
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** {@code /api/names}: the labels the durations panel can show (those with intervals on a core, interrupt or call row), by name. */
    void names(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeArrayFieldStart("durations");
        for (String n : durationLabels()) {
            g.writeString(n);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** The labels with at least one interval on a core, interrupt or call row, by name. */
    List<String> durationLabels() {
        Timeline t = timeline;
        boolean[] has = new boolean[t.labels().size()];
        for (Timeline.Row r : t.rows()) {
            if (durationRow(r)) {
                for (int i = t.offset[r.id()]; i < t.offset[r.id() + 1]; i++) {
                    has[t.labelOf(i)] = true;
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (int l = 0; l < has.length; l++) {
            if (has[l]) {
                out.add(t.labels().name(l));
            }
        }
        out.sort(null);
        return out;
    }

    /**
     * {@code /api/mark}: the point event of row {@code row} named {@code name} at {@code time} (ns
     * from the first event): its place and, from the store, its fields.
     */
    void mark(int row, long time, String name, JsonGenerator g) throws IOException {
        Timeline t = timeline;
        if (row < 0 || row >= t.rows().size()) {
            throw new IllegalArgumentException("no row " + row);
        }
        Timeline.Row r = t.rows().get(row);
        long b = t.begin();
        int lo = t.firstMarkFrom(row, b + time);
        boolean found = false;
        for (int k = lo; k < t.markOff[row + 1] && t.markTime(k) == b + time; k++) {
            found |= t.labels().name(t.markLabel(k)).equals(name);
        }
        if (!found) {
            throw new IllegalArgumentException("row " + row + " has no event " + name + " at " + time);
        }
        String core = r.core() >= 0 ? t.coreName(r.core()) : null;
        List<TraceAnswers.EventAt> events = answers.eventsAt(b + time, name);
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeNumberField("time", time);
        g.writeStringField("row", rowName(r));
        g.writeStringField("core", core);
        if (events == null) {
            g.writeNullField("events");
        } else {
            g.writeArrayFieldStart("events");
            // the event of this row's core first
            for (int pass = 0; pass < 2; pass++) {
                for (TraceAnswers.EventAt e : events) {
                    boolean mine = core != null && core.equals(e.core());
                    if (mine == (pass == 0)) {
                        g.writeStartObject();
                        g.writeStringField("trace", e.trace());
                        g.writeStringField("core", e.core());
                        g.writeFieldName("fields");
                        if (e.fields() == null) {
                            g.writeNull();
                        } else {
                            g.writeRawValue(e.fields());
                        }
                        g.writeEndObject();
                    }
                }
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    /** The rows whose intervals are a task's runs, an interrupt's handlers or a function's calls. */
    private static boolean durationRow(Timeline.Row r) {
        return r.core() >= 0
                && (r.kind() == Timeline.Kind.CORE || r.kind() == Timeline.Kind.IRQ || r.kind() == Timeline.Kind.CALLS);
    }

    /** The first interval after (or last before) {@code after} whose label contains {@code q}, and how many there are. */
    void find(String q, long after, boolean next, JsonGenerator g) throws IOException {
        find(q, after, next ? Integer.MAX_VALUE : -1, next, g);
    }

    /**
     * The next (previous) interval whose label contains {@code q}, in the order of (start, index):
     * the first after (last before) the interval {@code index} starting at {@code after} (an index
     * past every interval: the first starting after {@code after}); with how many there are, and
     * its rank among them (from 1), so that the app can say "3 of 40" and step through intervals
     * that start at the same time.
     */
    void find(String q, long after, int index, boolean next, JsonGenerator g) throws IOException {
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
            for (int i = 0, n = t.searchedIntervals(); i < n; i++) {
                if (!match[t.labelOf(i)]) {
                    continue;
                }
                count++;
                long s = t.startOf(i);
                boolean after1 = s > at || (s == at && i > index);
                boolean before = s < at || (s == at && i < index);
                if (next
                        ? after1 && (best < 0 || s < bestStart || (s == bestStart && i < best))
                        : before && (best < 0 || s > bestStart || (s == bestStart && i > best))) {
                    best = i;
                    bestStart = s;
                }
            }
        }
        long rank = 0;
        if (best >= 0) {
            long bs = t.startOf(best);
            for (int i = 0, n = t.searchedIntervals(); i < n; i++) {
                if (match[t.labelOf(i)]) {
                    long s = t.startOf(i);
                    rank += s < bs || (s == bs && i <= best) ? 1 : 0;
                }
            }
        }
        g.writeStartObject();
        g.writeNumberField("matches", count);
        if (best >= 0) {
            g.writeNumberField("index", best);
            g.writeNumberField("rank", rank);
            int row = t.rowOf(best);
            g.writeNumberField("row", row);
            g.writeNumberField("start", t.startOf(best) - b);
            g.writeNumberField("end", t.endOf(best) - b);
            g.writeStringField("name", t.labels().name(t.labelOf(best)));
        }
        g.writeEndObject();
    }

    /** Runs a pattern search over every event (the store's, or the traces' read again when nothing is kept). */
    void pattern(PatternSearch.Spec spec, JsonGenerator g) throws IOException {
        PatternSearch.Result r = answers.pattern(spec);
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
                .sorted((x, y) -> Long.compare(x.start(), y.start()))
                .limit(ViewServer.MAX_EVENTS * 5)
                .toList();
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
}
