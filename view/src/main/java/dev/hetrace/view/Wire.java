package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;

/**
 * The wire schema of {@code /api/view}'s flat arrays (docs/view.md, "Wire schema"): the fields of
 * each record, in order. {@link ViewQuery} writes them in this order, {@code /api/meta} sends
 * this schema ({@code wire}), and the app (timeline.js, source.js, through wire.js) reads every
 * position from it, in the served viewer and in a report alike.
 */
final class Wire {
    /** A row's interval ({@code rects}): start and end (ns from the first event), label id, state id. */
    static final List<String> RECT = List.of("start", "end", "label", "state");

    /**
     * A run of equal pixel columns ({@code cols}): the first column's x (pixels from the left),
     * how many columns, the busy share (‰ of the column's time, over the row's cores for a group),
     * the intervals starting in each, then {@link #TOP} pairs ({@link #COLUMN_LABEL}).
     */
    static final List<String> COLUMN = List.of("x", "n", "busy", "starts");

    /** Each of a column's {@link #TOP} labels that took most of it: label id (−1: none), its share (‰). */
    static final List<String> COLUMN_LABEL = List.of("label", "share");

    /** How many labels a column names. */
    static final int TOP = RowSummary.TOP;

    /** A message arrow ({@code arrows}): send time, sending core's row, receive time, receiving core's row, message number. */
    static final List<String> ARROW = List.of("send", "fromRow", "receive", "toRow", "message");

    /** A point event ({@code marks}): time, label id, 1 for the sync handshake's (else 0). */
    static final List<String> MARK = List.of("time", "label", "sync");

    /**
     * A run of pixel columns with the same number of point events ({@code markCols}, when they are too many to send
     * one by one): the first column's x, how many columns, the point events in each.
     */
    static final List<String> MARK_COLUMN = List.of("x", "n", "count");

    /**
     * A run of equal pixel columns of a counter row ({@code values}): the first column's x, how many
     * columns, the value (a CPU's load in ‰; an interrupt line's handlers starting in each column).
     */
    static final List<String> VALUE = List.of("x", "n", "value");

    /**
     * A run of equal pixel columns of a counter series' row ({@code samples}): the first column's x,
     * how many columns, the least, greatest and average value over each column (events lost: the
     * column's sum, three times).
     */
    static final List<String> SAMPLE = List.of("x", "n", "min", "max", "avg");

    private Wire() {}

    /** The numbers per column run. */
    static int columnStride() {
        return COLUMN.size() + TOP * COLUMN_LABEL.size();
    }

    /** The schema as {@code /api/meta}'s {@code wire} object. */
    static void write(JsonGenerator g) throws IOException {
        g.writeStartObject();
        field(g, "rect", RECT);
        field(g, "column", COLUMN);
        field(g, "columnLabel", COLUMN_LABEL);
        g.writeNumberField("top", TOP);
        field(g, "arrow", ARROW);
        field(g, "mark", MARK);
        field(g, "markColumn", MARK_COLUMN);
        field(g, "value", VALUE);
        field(g, "sample", SAMPLE);
        g.writeEndObject();
    }

    private static void field(JsonGenerator g, String name, List<String> fields) throws IOException {
        g.writeArrayFieldStart(name);
        for (String f : fields) {
            g.writeString(f);
        }
        g.writeEndArray();
    }
}
