package dev.hetrace.analysis.index;

import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBReadableVector;
import org.duckdb.DuckDBWritableVector;

/**
 * The {@code fields} of the {@code events} view, decoded when a query asks for them rather than
 * stored: the index keeps each event's position ({@link EventPosition}), and the SQL function
 * {@code hetrace_fields(trace_index, stream_file, packet, event_offset)} decodes that one event
 * (its packet's header and context, then the event at its offset) and writes its fields as JSON
 * ({@link JsonText#fields}, as {@code hetrace print --format json} writes them). A query on a few
 * events decodes a few events, each at the same cost wherever it sits in its packet; DuckDB's
 * threads decode theirs at once, each with decoders of its own.
 */
final class EventFields {
    static final String FUNCTION = "hetrace_fields";
    /**
     * {@code hetrace_event(trace_index, stream_file, packet, event_offset)}: the whole event, as
     * the line {@code hetrace print --format json} writes for it (its packet context too, which
     * {@code fields} leaves out), for the queries that need every field an event path names (the
     * pattern search's {@code --where} fields, the CPU of a packet).
     */
    static final String EVENT_FUNCTION = "hetrace_event";

    /** Traces opened by the function, by path, for the process's life (their files stay mapped). */
    private static final Map<String, Opened> OPENED = new ConcurrentHashMap<>();

    /** A trace opened for finding events again, and the decoders its readers left: one per thread at a time. */
    private record Opened(CtfReader reader, Queue<Decoding> idle) {}

    /** What one thread decodes and writes events with. */
    private record Decoding(EventPosition position, TextSink sink, JsonText json) {}

    private EventFields() {}

    /**
     * Registers the function on {@code c} and makes {@code events} a view of the events' rows
     * ({@code source}, their Parquet file read in SQL) with it; {@code paths}: the traces', by
     * the rows' {@code trace_index}.
     */
    static void attach(Connection c, String source, List<String> paths) throws SQLException {
        register(c, FUNCTION, paths);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE TEMP VIEW events AS SELECT trace::trace_name AS trace, stream, time_ns, "
                    + "name::event_name AS name, core::core_name AS core, "
                    + FUNCTION + "(trace_index, stream_file, packet, event_offset)::JSON AS fields FROM " + source);
        }
    }

    /** Registers {@link #EVENT_FUNCTION} on {@code c}; {@code paths}: the traces', by the rows' {@code trace_index}. */
    static void registerEvent(Connection c, List<String> paths) throws SQLException {
        register(c, EVENT_FUNCTION, paths);
    }

    private static void register(Connection c, String name, List<String> paths) throws SQLException {
        List<String> traces = List.copyOf(paths);
        boolean whole = name.equals(EVENT_FUNCTION);
        DuckDBFunctions.scalarFunction()
                .withName(name)
                .withParameters(
                        DuckDBColumnType.INTEGER,
                        DuckDBColumnType.INTEGER,
                        DuckDBColumnType.BIGINT,
                        DuckDBColumnType.BIGINT)
                .withReturnType(DuckDBColumnType.VARCHAR)
                .withVectorizedFunction((in, out) -> apply(traces, whole, in, out))
                .register(c);
    }

    /**
     * The fields (or, {@code whole}, the whole event) of a chunk of rows, as UTF-8 handed to
     * DuckDB at once (no Java string per row).
     */
    private static void apply(List<String> traces, boolean whole, DuckDBDataChunkReader in, DuckDBWritableVector out)
            throws Exception {
        DuckDBReadableVector trace = in.vector(0);
        DuckDBReadableVector file = in.vector(1);
        DuckDBReadableVector packet = in.vector(2);
        DuckDBReadableVector offset = in.vector(3);
        int n = (int) in.rowCount();
        byte[][] json = new byte[n][];
        Opened opened = null;
        Decoding decoding = null;
        int openedTrace = -1;
        try {
            for (int row = 0; row < n; row++) {
                if (trace.isNull(row) || file.isNull(row) || packet.isNull(row) || offset.isNull(row)) {
                    continue;
                }
                int t = trace.getInt(row);
                if (t < 0 || t >= traces.size()) {
                    continue;
                }
                if (t != openedTrace) {
                    if (decoding != null) {
                        opened.idle().add(decoding);
                    }
                    opened = opened(traces.get(t));
                    decoding = opened.idle().poll();
                    if (decoding == null) {
                        TextSink sink = new TextSink(null);
                        decoding =
                                new Decoding(new EventPosition(opened.reader().traces()), sink, new JsonText(sink));
                    }
                    openedTrace = t;
                }
                TextSink sink = decoding.sink();
                sink.clear();
                int f = file.getInt(row);
                long p = packet.getLong(row);
                long o = offset.getLong(row);
                EventPosition at = decoding.position();
                if (whole ? at.line(f, p, o, decoding.json()) : at.fields(f, p, o, decoding.json())) {
                    json[row] = Arrays.copyOf(sink.buffer(), sink.length());
                }
            }
        } finally {
            if (decoding != null) {
                opened.idle().add(decoding);
            }
        }
        out.setStringUtf8Batch(0, json);
    }

    /** The trace at {@code path}, opened once for the process. */
    private static Opened opened(String path) throws Exception {
        Opened o = OPENED.get(path);
        if (o == null) {
            CtfReader r = CtfReader.open(List.of(Path.of(path)), w -> {});
            Opened made = new Opened(r, new ConcurrentLinkedQueue<>());
            o = OPENED.putIfAbsent(path, made);
            if (o == null) {
                o = made;
            } else {
                r.close();
            }
        }
        return o;
    }
}
