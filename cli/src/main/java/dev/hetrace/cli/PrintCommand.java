package dev.hetrace.cli;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.ParallelPrint;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.ctf.text.TextSink;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace print}: every event of one or more CTF traces, merged in time order. */
@Command(
        name = "print",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Print the events of CTF traces (1.8 and 2), merged in time order.",
            "",
            "Each PATH is a trace directory (it holds a 'metadata' file) or a directory",
            "holding traces at any depth: all their streams are merged by timestamp. The",
            "default text is the same as babeltrace2's (times in the local time zone; set",
            "TZ=UTC for UTC).",
            "",
            "Events and packets the tracer reports as lost (events_discarded,",
            "packet_seq_num) are told on the standard error in babeltrace2's words, where",
            "they occur among the events.",
            "",
            "An event earlier than the one before it in its stream, which babeltrace2",
            "refuses, is printed as recorded, and a packet that begins before the previous",
            "one ends is read as it is: one warning line per stream says where (file,",
            "packet, byte offset, both times), and the exit status stays 0.",
            "",
            "--begin and --end keep the events from BEGIN to END inclusive, as babeltrace2",
            "does. A time is 'YYYY-MM-DD HH:MM[:SS[.NANO]]', 'YYYY-MM-DD' or",
            "'HH:MM[:SS[.NANO]]' in the local time zone (without a date: on the date of the",
            "traces' first timed packet), '[-]SEC[.NANO]' seconds from the epoch, or",
            "'[-]NANOSns' nanoseconds from the epoch. A packet index (LTTng's index files,",
            "else the packet headers) takes each stream straight to BEGIN.",
            "",
            "Examples:",
            "  hetrace print ~/lttng-traces/session-20260101",
            "  hetrace print --begin=12:31:04.882 --end=12:31:05 trace/",
            "  TZ=UTC hetrace print --format=json trace/ > events.jsonl",
            "  hetrace print --format=none big-trace/      # decode everything, print nothing"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every event was read",
            "1:a trace is invalid or unreadable (the events before the damage" + " are printed)",
            "2:usage error"
        })
final class PrintCommand implements Callable<Integer> {
    enum Format {
        text,
        json,
        none
    }

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "Trace directory, or a directory of traces.")
    List<Path> paths;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "text",
            description = "text (babeltrace2's format, the default), json (one object per event and line; a CTF 2"
                    + " trace's metadata attributes, if any, on one line before its events), or none.")
    Format format;

    @Option(names = "--begin", paramLabel = "BEGIN", description = "Skip the events before this time.")
    String begin;

    @Option(names = "--end", paramLabel = "END", description = "Stop after the events at this time.")
    String end;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "Threads decoding streams in parallel (default: the"
                    + " number of processors; 1 reads on one thread).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @CommandLine.ParentCommand
    Main main;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException {
        if (threads < 1) {
            throw CommandFailure.usage("--threads must be at least 1");
        }
        return execute(main.out, main.err);
    }

    /** {@code hetrace print --format=FORMAT PATHS} without the command line parsing (for tests). */
    static int print(List<Path> paths, Format format, OutputStream out, PrintStream err, boolean debug) {
        return print(paths, format, out, err, debug, Runtime.getRuntime().availableProcessors());
    }

    /** As {@link #print(List, Format, OutputStream, PrintStream, boolean)}, on {@code threads} threads; errors told as the command tells them. */
    static int print(List<Path> paths, Format format, OutputStream out, PrintStream err, boolean debug, int threads) {
        PrintCommand c = new PrintCommand();
        c.paths = paths;
        c.format = format;
        c.debug = debug;
        c.threads = threads;
        try {
            return c.execute(out, err);
        } catch (Exception | InternalError e) {
            return new ErrorReport(err)
                    .failed(
                            e,
                            new CommandLine(new Main())
                                    .getSubcommands()
                                    .get("print")
                                    .getCommandSpec(),
                            debug);
        }
    }

    private int execute(OutputStream out, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        TextSink sink = new TextSink(out);
        List<CtfTrace> traces = new ArrayList<>();
        try {
            CtfTrace.Opener opener =
                    new CtfTrace.Opener(w -> err.println("hetrace: warning: " + TerminalText.guard(w)));
            for (Path p : paths) {
                List<Path> found = CtfTrace.find(p);
                if (found.isEmpty()) {
                    throw new IOException(p + ": no CTF trace here (no 'metadata' file at any depth)");
                }
                for (Path dir : found) {
                    traces.add(opener.open(dir, p));
                }
            }
            if (format == Format.json) {
                // CTF 2 attributes, once per trace before its events, rather than on every event
                JsonText header = new JsonText(sink);
                for (CtfTrace t : traces) {
                    header.attributes(t);
                    sink.lineDone();
                }
            }
            if (begin == null && end == null && threads > 1 && ParallelPrint.suits(traces)) {
                ParallelPrint.print(
                        traces,
                        switch (format) {
                            case text -> ParallelPrint.Format.TEXT;
                            case json -> ParallelPrint.Format.JSON;
                            case none -> ParallelPrint.Format.NONE;
                        },
                        sink,
                        err,
                        threads);
                sink.flush();
                return 0;
            }
            EventCursor cursor = new EventCursor(traces);
            BabeltraceText text = new BabeltraceText(sink, err);
            cursor.onDiscarded((items, trace, stream) -> {
                // stdout first, so that on a terminal the warning shows where it occurs among the events
                flushOrFail(sink);
                err.print(text.discardedWarning(items, trace, stream));
            });
            if (begin != null || end != null) {
                trim(cursor, traces);
            }
            switch (format) {
                case text -> {
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
        } finally {
            flushQuietly(sink); // the events printed before an error come before its line
            for (CtfTrace t : traces) {
                t.close();
            }
        }
    }

    /**
     * Applies --begin and --end: checks that every stream has times, resolves the bounds
     * (a time of day takes the date of the first timed packet) and positions the cursor.
     */
    private void trim(EventCursor cursor, List<CtfTrace> traces) throws StreamDecodingException {
        ZoneId zone = ZoneId.systemDefault();
        TimeBound from;
        TimeBound to;
        try {
            from = begin == null ? null : TimeBound.parse(begin, zone);
            to = end == null ? null : TimeBound.parse(end, zone);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage(), e);
        }
        for (CtfTrace trace : traces) {
            for (int s = 0; s < trace.streams().size(); s++) {
                var plan = trace.plan().streams.get(trace.streamClassId(s));
                if (plan != null && plan.defaultClock < 0) {
                    throw new IllegalArgumentException(
                            "--begin/--end need event times, but stream " + trace.streamPath(s) + " has no clock");
                }
            }
        }
        boolean needDate = from instanceof TimeBound.TimeOfDay || to instanceof TimeBound.TimeOfDay;
        long first = needDate ? cursor.firstTimeNanos() : 0;
        long b = from == null ? Long.MIN_VALUE : from.resolve(first, zone);
        long e = to == null ? Long.MAX_VALUE : to.resolve(first, zone);
        if (b > e) {
            throw CommandFailure.usage(
                    "--begin (" + begin + ", " + b + " ns) is after --end (" + end + ", " + e + " ns)");
        }
        if (from != null) {
            cursor.seek(b);
        }
        if (to != null) {
            cursor.stopAfter(e);
        }
    }

    private static void flushOrFail(TextSink sink) {
        try {
            sink.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
