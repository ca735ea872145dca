package dev.hetrace.analysis.index;

import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.duckdb.DuckDBColumnType;
import org.duckdb.DuckDBDataChunkReader;
import org.duckdb.DuckDBFunctions;
import org.duckdb.DuckDBReadableVector;
import org.duckdb.DuckDBWritableVector;

/**
 * The {@code fields} of the {@code events} view, decoded when a query asks for them rather than
 * stored: the index keeps each event's position ({@link EventPosition}), and the SQL function
 * {@code hetrace_fields(path, stream_file, packet, event_offset)} decodes that one event (its
 * packet's header and context, then the event at its offset) and writes its fields as JSON
 * ({@link JsonText#fields}, as {@code hetrace print --format json} writes them). A query on a few
 * events decodes a few events, each at the same cost wherever it sits in its packet.
 */
final class EventFields {
    static final String FUNCTION = "hetrace_fields";

    /** A trace opened for finding events again; used by one query thread at a time. */
    private record Opened(CtfReader reader, EventPosition position, TextSink sink, JsonText json) {}

    /** Traces opened by the function, by path, for the process's life (their files stay mapped). */
    private static final Map<String, Opened> OPENED = new ConcurrentHashMap<>();

    private EventFields() {}

    /**
     * Registers the function on {@code c} and makes {@code events} a view of the events' rows
     * ({@code source}, their Parquet file read in SQL) with it; {@code paths}: the traces', by
     * the rows' {@code trace_index}.
     */
    static void attach(Connection c, String source, List<String> paths) throws SQLException {
        DuckDBFunctions.scalarFunction().withName(FUNCTION)
            .withParameters(DuckDBColumnType.VARCHAR, DuckDBColumnType.INTEGER, DuckDBColumnType.BIGINT,
                DuckDBColumnType.BIGINT)
            .withReturnType(DuckDBColumnType.VARCHAR)
            .withVectorizedFunction(EventFields::apply)
            .register(c);
        StringBuilder list = new StringBuilder("[");
        for (int i = 0; i < paths.size(); i++) {
            list.append(i == 0 ? "" : ", ").append('\'').append(paths.get(i).replace("'", "''")).append('\'');
        }
        list.append(']');
        try (Statement s = c.createStatement()) {
            s.execute("CREATE OR REPLACE TEMP VIEW events AS SELECT trace::trace_name AS trace, stream, time_ns, "
                + "name::event_name AS name, core::core_name AS core, "
                + FUNCTION + "(" + list + "[trace_index + 1], stream_file, packet, event_offset)::JSON AS fields FROM " + source);
        }
    }

    private static void apply(DuckDBDataChunkReader in, DuckDBWritableVector out) throws Exception {
        DuckDBReadableVector path = in.vector(0);
        DuckDBReadableVector file = in.vector(1);
        DuckDBReadableVector packet = in.vector(2);
        DuckDBReadableVector offset = in.vector(3);
        long n = in.rowCount();
        for (long row = 0; row < n; row++) {
            if (path.isNull(row) || file.isNull(row) || packet.isNull(row) || offset.isNull(row)) {
                out.setNull(row);
                continue;
            }
            String json = fields(path.getString(row), file.getInt(row), packet.getLong(row), offset.getLong(row));
            if (json == null) {
                out.setNull(row);
            } else {
                out.setString(row, json);
            }
        }
    }

    /** The fields of the event at that position of the trace at {@code path} as JSON, or null when there is none. */
    static String fields(String path, int streamFile, long packet, long offset) throws Exception {
        Opened o = OPENED.get(path);
        if (o == null) {
            CtfReader r = CtfReader.open(List.of(Path.of(path)), w -> { });
            TextSink sink = new TextSink(null);
            Opened made = new Opened(r, new EventPosition(r.traces()), sink, new JsonText(sink));
            o = OPENED.putIfAbsent(path, made);
            if (o == null) {
                o = made;
            } else {
                r.close();
            }
        }
        synchronized (o) {
            StreamDecoder d = o.position().decode(streamFile, packet, offset);
            if (d == null) {
                return null;
            }
            o.sink().clear();
            o.json().fields(d);
            return new String(o.sink().buffer(), 0, o.sink().length(), StandardCharsets.UTF_8);
        }
    }
}
