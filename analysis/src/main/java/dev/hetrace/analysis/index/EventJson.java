package dev.hetrace.analysis.index;

import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
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
 * The SQL function {@code hetrace_event(trace_index, stream_file, packet, event_offset)}: an
 * event of the index found again by its position, as the line {@code hetrace print --format
 * json} writes for it ({@link JsonText#print}: its packet context too, where
 * {@code events.fields} leaves it out), for the queries that need every field an
 * {@link dev.hetrace.ctf.api.Event} path names (the pattern search's {@code --where} fields, the
 * CPU of a packet). As {@code fields}, it decodes only the events a query reads, each at the same
 * cost wherever it sits in its packet.
 */
final class EventJson {
    static final String FUNCTION = "hetrace_event";

    /** Traces opened by the function, by path, for the process's life (their files stay mapped). */
    private static final Map<String, Opened> OPENED = new ConcurrentHashMap<>();

    private record Opened(CtfReader reader, Queue<Decoding> idle) {}

    private record Decoding(EventPosition position, TextSink sink, JsonText json) {}

    private EventJson() {}

    /** Registers the function on {@code c}; {@code paths}: the traces', by the rows' {@code trace_index}. */
    static void register(Connection c, List<String> paths) throws SQLException {
        List<String> traces = List.copyOf(paths);
        DuckDBFunctions.scalarFunction().withName(FUNCTION)
            .withParameters(DuckDBColumnType.INTEGER, DuckDBColumnType.INTEGER, DuckDBColumnType.BIGINT,
                DuckDBColumnType.BIGINT)
            .withReturnType(DuckDBColumnType.VARCHAR)
            .withVectorizedFunction((in, out) -> apply(traces, in, out))
            .register(c);
    }

    private static void apply(List<String> traces, DuckDBDataChunkReader in, DuckDBWritableVector out) throws Exception {
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
                        decoding = new Decoding(new EventPosition(opened.reader().traces()), sink, new JsonText(sink));
                    }
                    openedTrace = t;
                }
                int streamFile = file.getInt(row);
                StreamDecoder d = decoding.position().decode(streamFile, packet.getLong(row), offset.getLong(row));
                if (d != null) {
                    TextSink sink = decoding.sink();
                    sink.clear();
                    decoding.json().print(opened.reader().traces().get(streamFile >>> 24), d, false, 0);
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
            CtfReader r = CtfReader.open(List.of(Path.of(path)), w -> { });
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
