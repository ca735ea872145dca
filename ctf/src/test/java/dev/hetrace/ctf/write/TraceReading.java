package dev.hetrace.ctf.write;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.decode.FieldValues;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Reads traces back for the writer's tests: as value trees, as hetrace text, as babeltrace2 text. */
public final class TraceReading {
    private TraceReading() {}

    /** One event as read back: its class id, its clock value in cycles, and its scopes as value trees. */
    record ReadEvent(long id, long cycles, Object streamContext, Object context, Object payload) {}

    static List<ReadEvent> readStream(Path dir, String file) throws Exception {
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            for (int i = 0; i < trace.streams().size(); i++) {
                if (trace.streams()
                        .get(i)
                        .getFirst()
                        .path()
                        .getFileName()
                        .toString()
                        .equals(file)) {
                    StreamDecoder d = trace.decoder(i);
                    List<ReadEvent> events = new ArrayList<>();
                    while (d.next()) {
                        events.add(new ReadEvent(
                                d.event().cls.id(),
                                d.clockValue(),
                                FieldValues.streamContext(d),
                                FieldValues.context(d),
                                FieldValues.payload(d)));
                    }
                    return events;
                }
            }
        }
        throw new AssertionError("no stream file " + file + " in " + dir);
    }

    public static String hetraceText(Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
            EventCursor cursor = new EventCursor(List.of(trace));
            BabeltraceText text = new BabeltraceText(sink, new PrintStream(new ByteArrayOutputStream()));
            while (cursor.next()) {
                text.print(cursor);
                sink.lineDone();
            }
            sink.flush();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Whether babeltrace2 is there to compare with (see {@link Required#hasBabeltrace2}). */
    static boolean babeltraceInstalled() {
        return Required.hasBabeltrace2();
    }

    /** What babeltrace2 did with a trace. */
    public record Babeltrace(int exit, String out, String err) {}

    /** babeltrace2's text for the trace, in UTC. */
    public static Babeltrace babeltrace(Path dir) throws Exception {
        Path outFile = Files.createTempFile("bt2", ".txt");
        Path errFile = Files.createTempFile("bt2", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder("babeltrace2", dir.toString())
                    .redirectOutput(outFile.toFile())
                    .redirectError(errFile.toFile());
            pb.environment().put("TZ", "UTC");
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("babeltrace2 did not finish on " + dir);
            }
            return new Babeltrace(p.exitValue(), Files.readString(outFile), Files.readString(errFile));
        } finally {
            Files.deleteIfExists(outFile);
            Files.deleteIfExists(errFile);
        }
    }
}
