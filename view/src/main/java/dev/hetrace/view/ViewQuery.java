package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.StateModel;
import java.io.IOException;

/**
 * Answers a view request: a time range (ns from the first event), a width in pixels and the
 * rows on screen. Per row, either its intervals in the range (when there are few enough to
 * tell apart: at most one per two pixels) or its activity per pixel column from its summary;
 * a group row (BOARD, TRACE, GROUP), the activity of its cores together; and the messages between cores
 * in the range, one in every few when they are too many. What it reads is bounded by the
 * pixels: two binary searches per row, then at most a few bins or intervals per column.
 */
public final class ViewQuery {
    /** Most message arrows in one answer; more are sampled evenly. */
    static final int MAX_ARROWS = 2000;

    static final int MAX_WIDTH = 8192;
    /** Most point events drawn on one core row, per pixel of width; past that the row tells only how many. */
    static final double MARKS_PER_PX = 0.25;
    /** Most intervals per pixel of width aggregated one by one where a row's summary is coarser than a pixel. */
    static final int EXACT_PER_PX = 16;

    private final Timeline t;
    private final Columns cols = new Columns();
    private final Numbers numbers = new Numbers();
    private final Counters counters;

    public ViewQuery(Timeline t) {
        this.t = t;
        this.counters = new Counters(t, numbers);
    }

    /**
     * Writes the answer for [from, to) (ns from the timeline's begin) at {@code width} pixels
     * for rows {@code rows} as JSON to {@code g}.
     */
    public void write(long from, long to, int width, int[] rows, JsonGenerator g) throws IOException {
        write(from, to, width, rows, g, null);
    }

    /**
     * Writes the answer as {@link #write(long, long, int, int[], JsonGenerator)} does, its arrays
     * into {@code arrays} (null: as JSON), where the JSON says they are.
     */
    void write(long from, long to, int width, int[] rows, JsonGenerator g, BinaryArrays arrays) throws IOException {
        numbers.binary(arrays);
        try {
            answer(from, to, width, rows, g);
        } finally {
            numbers.binary(null);
        }
    }

    private void answer(long from, long to, int width, int[] rows, JsonGenerator g) throws IOException {
        if (to <= from || width < 1 || width > MAX_WIDTH) {
            throw new IllegalArgumentException("the range must not be empty and the width within 1.." + MAX_WIDTH);
        }
        long b = t.begin;
        long f = b + from;
        long e = b + to;
        double nsPerPx = (double) (to - from) / width;
        g.writeStartObject();
        g.writeNumberField("from", from);
        g.writeNumberField("to", to);
        g.writeNumberField("width", width);
        g.writeArrayFieldStart("rows");
        for (int r : rows) {
            if (r < 0 || r >= t.rows.size()) {
                throw new IllegalArgumentException("no row " + r);
            }
            g.writeStartObject();
            g.writeNumberField("id", r);
            int[] members = t.members[r];
            if (t.rows.get(r).kind() == Timeline.Kind.COUNTER) {
                counters.write(g, r, f, e, width);
            } else if (members.length > 0) {
                // a group: its own summary of all its cores, else its few intervals core by core
                cols.reset(width);
                if (t.summaries[r] != null) {
                    t.summaries[r].addTo(cols, f, nsPerPx);
                } else {
                    for (int m : members) {
                        aggregate(m, f, e, nsPerPx);
                    }
                }
                writeColumns(g, nsPerPx * members.length);
            } else {
                int lo = t.firstEndingAfter(r, f);
                int hi = t.firstStartingFrom(r, e);
                if (hi - lo <= width / 2) {
                    Numbers rects = numbers.start(); // Wire.RECT
                    for (int i = lo; i < hi; i++) {
                        if (t.endOf(i) > f || t.startOf(i) >= f) {
                            rects.add(t.startOf(i) - b);
                            rects.add(t.endOf(i) - b);
                            rects.add(t.labelOf(i));
                            rects.add(t.stateOf(i));
                        }
                    }
                    rects.writeField(g, "rects");
                } else {
                    cols.reset(width);
                    // a summary whose finest bins are wider than a pixel spreads a burst evenly over
                    // them (a solid bar): then the intervals themselves, while few enough per pixel
                    RowSummary s = t.summaries[r];
                    if (s != null && s.binNanos() > nsPerPx && hi - lo <= EXACT_PER_PX * width) {
                        for (int i = lo; i < hi; i++) {
                            cols.add(
                                    t.startOf(i),
                                    t.endOf(i),
                                    t.labelOf(i),
                                    t.stateOf(i) != StateModel.IDLE,
                                    f,
                                    nsPerPx);
                        }
                    } else {
                        aggregate(r, f, e, nsPerPx);
                    }
                    writeColumns(g, nsPerPx);
                }
            }
            if (t.markOff[r + 1] > t.markOff[r]) {
                marks(g, r, f, e, width);
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        arrows(g, f, e);
        g.writeEndObject();
    }

    /**
     * A row's point events in [f, e): their count, and when they are few enough to tell apart
     * (at most one per four pixels) each as time, label and 1 for the sync handshake's (else 0);
     * else how many fall in each pixel column, as runs of equal columns ({@link Wire#MARK_COLUMN}):
     * a binary search per column, whatever their number.
     */
    private void marks(JsonGenerator g, int row, long f, long e, int width) throws IOException {
        int lo = t.firstMarkFrom(row, f);
        int hi = t.firstMarkFrom(row, e);
        g.writeNumberField("markCount", hi - lo);
        if (hi - lo > 0 && hi - lo <= Math.max(1, (int) (width * MARKS_PER_PX))) {
            Numbers marks = numbers.start(); // Wire.MARK
            for (int i = lo; i < hi; i++) {
                marks.add(t.markTime(i) - t.begin);
                marks.add(t.markLabel(i));
                marks.add(t.markSync(i) ? 1 : 0);
            }
            marks.writeField(g, "marks");
        } else if (hi - lo > 0) {
            Numbers runs = numbers.start(); // Wire.MARK_COLUMN
            double nsPerPx = (double) (e - f) / width;
            int at = lo;
            int runX = 0;
            int runN = 0;
            int runCount = 0;
            for (int x = 0; x < width; x++) {
                int next = x + 1 == width ? hi : t.firstMarkFrom(row, f + (long) Math.ceil((x + 1) * nsPerPx));
                int count = next - at;
                at = next;
                if (runN > 0 && count == runCount) {
                    runN++;
                    continue;
                }
                if (runN > 0 && runCount > 0) {
                    runs.add(runX);
                    runs.add(runN);
                    runs.add(runCount);
                }
                runX = x;
                runN = 1;
                runCount = count;
            }
            if (runN > 0 && runCount > 0) {
                runs.add(runX);
                runs.add(runN);
                runs.add(runCount);
            }
            runs.writeField(g, "markCols");
        }
    }

    /** Adds row {@code r}'s activity in [f, e) to the columns: from its summary, else from its intervals. */
    private void aggregate(int r, long f, long e, double nsPerPx) {
        RowSummary s = t.summaries[r];
        if (s != null) {
            s.addTo(cols, f, nsPerPx);
            return;
        }
        int lo = t.firstEndingAfter(r, f);
        int hi = t.firstStartingFrom(r, e);
        for (int i = lo; i < hi; i++) {
            cols.add(t.startOf(i), t.endOf(i), t.labelOf(i), t.stateOf(i) != StateModel.IDLE, f, nsPerPx);
        }
    }

    /**
     * The columns as runs of equal ones, each as {@link Wire#COLUMN} then {@link Wire#TOP} pairs of
     * {@link Wire#COLUMN_LABEL} (docs/view.md, "Wire schema"): x, how many, busy ‰, intervals
     * starting, then label and its ‰ (label −1: none); columns with nothing are left out.
     */
    private void writeColumns(JsonGenerator g, double full) throws IOException {
        Numbers out = numbers.start();
        int w = cols.width;
        int k = Wire.TOP;
        int x = 0;
        while (x < w) {
            int busy = permille(cols.busy[x], full);
            if (busy == 0 && cols.count[x] == 0) {
                x++;
                continue;
            }
            int n = 1;
            while (x + n < w && same(x, x + n, full)) {
                n++;
            }
            out.add(x);
            out.add(n);
            out.add(busy);
            out.add(cols.count[x]);
            for (int j = x * k; j < x * k + k; j++) {
                out.add(cols.top[j]);
                out.add(cols.top[j] < 0 ? 0 : permille(cols.topTime[j], full));
            }
            x += n;
        }
        out.writeField(g, "cols");
    }

    private boolean same(int a, int b, double full) {
        if (permille(cols.busy[a], full) != permille(cols.busy[b], full) || cols.count[a] != cols.count[b]) {
            return false;
        }
        int k = RowSummary.TOP;
        for (int j = 0; j < k; j++) {
            if (cols.top[a * k + j] != cols.top[b * k + j]
                    || permille(cols.topTime[a * k + j], full) != permille(cols.topTime[b * k + j], full)) {
                return false;
            }
        }
        return true;
    }

    /** {@code v} as ‰ of {@code full}; anything at all is at least 1 ‰, so that no activity rounds away to nothing. */
    private static int permille(double v, double full) {
        return v > 0 ? (int) Math.max(1, Math.min(1000, Math.round(v * 1000 / full))) : 0;
    }

    /**
     * Messages whose send or receive is in [f, e) or that span it, one in every few beyond
     * {@link #MAX_ARROWS}: those sent before f and received from f on (found among the few sent
     * before f that the running maximum of receive times points to), then every one sent in
     * [f, e), stepped through without reading those left out.
     */
    private void arrows(JsonGenerator g, long f, long e) throws IOException {
        int mid = t.firstMessageFrom(f);
        int lo = t.firstMessageAfter(f, mid);
        int hi = t.firstMessageFrom(e);
        int before = 0;
        for (int k = lo; k < mid; k++) {
            if (t.msgReceive(k) >= f) {
                before++;
            }
        }
        int n = before + (hi - mid);
        int stride = Math.max(1, (n + MAX_ARROWS - 1) / MAX_ARROWS);
        long b = t.begin;
        g.writeNumberField("arrowsTotal", n);
        g.writeBooleanField("sampled", stride > 1);
        Numbers out = numbers.start();
        int seen = 0;
        for (int k = lo; k < mid; k++) {
            if (t.msgReceive(k) >= f && seen++ % stride == 0) {
                arrow(out, t, k, b);
            }
        }
        for (int k = mid + (stride - seen % stride) % stride; k < hi; k += stride) {
            arrow(out, t, k, b);
        }
        out.writeField(g, "arrows");
    }

    /**
     * The {@code k}th message by send time as an arrow ({@link Wire#ARROW}): send time, sending core's row, receive time,
     * receiving core's row, the message's number in the state model (times from {@code b}).
     */
    static void arrow(Numbers out, Timeline t, int k, long b) {
        out.add(t.msgSend(k) - b);
        out.add(t.coreRow[t.msgSendCore(k)]);
        out.add(t.msgReceive(k) - b);
        out.add(t.coreRow[t.msgReceiveCore(k)]);
        out.add(t.msgRow(k));
    }
}
