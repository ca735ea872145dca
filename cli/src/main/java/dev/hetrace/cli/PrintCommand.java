package dev.hetrace.cli;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.decode.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace print}: every event of one or more CTF traces, merged in time order. */
@Command(name = "print", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Print the events of CTF 1.8 traces, merged in time order.", "",
        "Each PATH is a trace directory (it holds a 'metadata' file) or a directory holding",
        "traces at any depth: all their streams are merged by timestamp. The default text is",
        "the same as babeltrace2's (times in the local time zone; set TZ=UTC for UTC).", "",
        "Examples:",
        "  hetrace print ~/lttng-traces/session-20260101",
        "  TZ=UTC hetrace print --format=json trace/ > events.jsonl",
        "  hetrace print --format=none big-trace/      # decode everything, print nothing"},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:every event was read", "1:a trace is invalid or unreadable (the events before the damage"
        + " are printed)", "2:usage error"})
final class PrintCommand implements Callable<Integer> {
    enum Format { text, json, none }

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace directory, or a directory of traces.")
    List<Path> paths;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
        description = "text (babeltrace2's format, the default), json (one object per line), or none.")
    Format format;

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @picocli.CommandLine.ParentCommand
    Main main;

    @Override
    public Integer call() {
        PrintStream err = main.err;
        TextSink sink = new TextSink(main.out);
        List<CtfTrace> traces = new ArrayList<>();
        try {
            for (Path p : paths) {
                List<Path> found = CtfTrace.find(p);
                if (found.isEmpty()) {
                    err.println("hetrace: " + p + ": no CTF trace here (no 'metadata' file at any depth)");
                    return 1;
                }
                for (Path dir : found) {
                    traces.add(CtfTrace.open(dir, w -> err.println("hetrace: warning: " + dir + "/metadata: " + w)));
                }
            }
            EventCursor cursor = new EventCursor(traces);
            switch (format) {
                case text -> {
                    BabeltraceText text = new BabeltraceText(sink, err);
                    while (cursor.next()) {
                        text.print(cursor);
                        sink.lineDone();
                    }
                }
                case json -> {
                    JsonText json = new JsonText(sink);
                    while (cursor.next()) {
                        json.print(cursor);
                        sink.lineDone();
                    }
                }
                case none -> {
                    // The cursor decodes every field of every event; nothing is formatted.
                    while (cursor.next()) {
                        // every field of the event is decoded by next()
                    }
                }
            }
            sink.flush();
            return 0;
        } catch (IOException | java.io.UncheckedIOException e0) {
            IOException e = e0 instanceof java.io.UncheckedIOException u ? u.getCause() : (IOException) e0;
            if ("Broken pipe".equals(e.getMessage())) {
                return 1; // the reader went away (e.g. "| head"): nothing more to say
            }
            flushQuietly(sink);
            err.println("hetrace: " + e.getMessage());
            if (debug) {
                e.printStackTrace(err);
            }
            return 1;
        } catch (MetadataException | StreamDecodingException e) {
            flushQuietly(sink);
            err.println("hetrace: " + e.getMessage());
            if (debug) {
                e.printStackTrace(err);
            }
            return 1;
        } catch (RuntimeException e) {
            flushQuietly(sink);
            err.println("hetrace: internal error: " + e);
            if (debug) {
                e.printStackTrace(err);
            }
            return 1;
        } finally {
            for (CtfTrace t : traces) {
                t.close();
            }
        }
    }

    private static void flushQuietly(TextSink sink) {
        try {
            sink.flush();
        } catch (IOException ignored) {
            // stdout is gone; the error message still goes to stderr
        }
    }
}
