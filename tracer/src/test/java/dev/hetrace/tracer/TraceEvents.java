package dev.hetrace.tracer;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A trace's events as hetrace's reader decodes them (and babeltrace2), for comparing two traces. */
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
        return out.toString(StandardCharsets.UTF_8)
                .lines()
                .map(l -> l.replaceAll("\"trace\":\"[^\"]*\"", "\"trace\":\"T\""))
                .toList();
    }

    /** The trace as {@code hetrace print} shows it (babeltrace2's text format), in UTC. */
    public static String babeltraceText(Path trace) throws Exception {
        CtfTrace t = new CtfTrace.Opener(w -> {}).open(trace, trace);
        EventCursor cursor = new EventCursor(List.of(t));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TextSink sink = new TextSink(out);
        BabeltraceText text =
                new BabeltraceText(sink, new PrintStream(OutputStream.nullOutputStream()), ZoneOffset.UTC);
        while (cursor.next()) {
            text.print(cursor);
            sink.lineDone();
        }
        sink.flush();
        return out.toString(StandardCharsets.UTF_8);
    }

    /** babeltrace2's text for the trace, in UTC; empty when babeltrace2 is not installed on a developer's machine (see {@link Required#ifPresent}). */
    public static Optional<String> babeltrace2(Path trace) throws Exception {
        if (!Required.hasBabeltrace2()) {
            return Optional.empty();
        }
        Path out = Files.createTempFile("bt2", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder("babeltrace2", trace.toString())
                    .redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            pb.environment().put("TZ", "UTC");
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("babeltrace2 did not finish on " + trace);
            }
            if (p.exitValue() != 0) {
                throw new AssertionError("babeltrace2 failed (exit " + p.exitValue() + ") on " + trace);
            }
            return Optional.of(Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
