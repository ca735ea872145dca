package dev.hetrace.tracer;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** A trace's events as hetrace's reader decodes them, for comparing two traces. */
public final class TraceEvents {
    private TraceEvents() {}

    /** One JSON line per event ({@code hetrace print --format=json}), the trace's name blanked. */
    public static List<String> json(Path trace) throws Exception {
        CtfTrace t = new CtfTrace.Opener(w -> {}).open(trace, trace);
        EventCursor cursor = new EventCursor(List.of(t));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TextSink sink = new TextSink(out);
        JsonText json = new JsonText(sink);
        while (cursor.next()) {
            json.print(cursor);
            sink.lineDone();
        }
        sink.flush();
        return out.toString(StandardCharsets.UTF_8).lines()
            .map(l -> l.replaceAll("\"trace\":\"[^\"]*\"", "\"trace\":\"T\"")).toList();
    }
}
