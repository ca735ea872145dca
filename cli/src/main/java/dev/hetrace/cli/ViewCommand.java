package dev.hetrace.cli;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.report.ProfileReport;
import dev.hetrace.view.BoardLayout;
import dev.hetrace.view.Timeline;
import dev.hetrace.view.TimelineFile;
import dev.hetrace.view.TraceAnswers;
import dev.hetrace.view.ViewServer;
import dev.hetrace.web.PageServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace view}: the synchronized timeline of the traces in a browser, served from this machine. */
@Command(
        name = "view",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "See the whole board: a timeline of every core in a web browser.",
            "",
            "hetrace reads the traces (several are put on one clock first: see 'hetrace stats",
            "--help'), builds the state model and its summaries, and serves a local web app: rows",
            "per core, its tasks and their calls, interrupts, messages as arrows, zoom and pan,",
            "the events of a place, a search, the statistics and the diagnosis ('hetrace",
            "diagnose'). It prints the URL and runs until Ctrl-C. Only this machine can reach it",
            "unless --bind says otherwise.",
            "",
            "The traces' index (as 'hetrace query' has it) and the timeline are kept in the cache",
            "(--cache): the next view of the same traces opens them at once, without reading the",
            "traces, whatever their size; the statistics of a range and the pattern search are",
            "queries over the index. A trace that changes (a file added, resized or touched) is",
            "read again.",
            "",
            "A campaign.json of 'hetrace profile' gives its report instead, served.",
            "",
            "Examples:",
            "  hetrace view hetrace-demo                # the demo's board",
            "  hetrace view --port 8080 board/master board/dsp*",
            "  hetrace view --open board/               # and open a browser (xdg-open)",
            "  hetrace view sweep/campaign.json          # a 'hetrace profile' campaign's charts"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:stopped",
            "1:a trace could not be read or put on the reference clock, or the server could not start",
            "2:usage error"
        })
final class ViewCommand extends HetraceCommand {
    @CommandLine.Mixin
    BoardOptions board = new BoardOptions();

    @CommandLine.Mixin
    Serving.Options serving = new Serving.Options();

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Option(
            names = "--no-cache",
            description = {
                "Neither open a kept timeline nor keep one: read the traces and build",
                "it, as the first view of a trace set does."
            })
    boolean noCache;

    @Option(
            names = "--layout",
            paramLabel = "FILE",
            description = {
                "A YAML file of where the cores sit on the board: nested groups listing",
                "cores by name, range (dsp0..dsp15) or pattern (dsp*); the group rows follow",
                "it, before the traces' own board, cluster and chip entries (docs/view.md)."
            })
    Path layoutFile;

    @Option(
            names = "--bench",
            paramLabel = "N",
            description = {
                "Measure instead of serving: N zoom and pan requests",
                "of 2,000 px over HTTP, as the app sends them; print the latencies (and",
                "the server's share, from its Server-Timing header) and exit."
            })
    int bench;

    /** Where the cores sit, from {@link #layoutFile}. */
    private BoardLayout layout = BoardLayout.NONE;

    @Override
    public Integer call() throws IOException, InterruptedException, MetadataException, StreamDecodingException {
        long started = System.nanoTime();
        if (serving.invalid() != null) {
            throw CommandFailure.usage(serving.invalid());
        }
        List<Path> inputs = board.inputs;
        Path mapping = board.mapping;
        if (isCampaign(inputs)) {
            return serveCampaign(inputs.getFirst());
        }
        layout = layoutFile == null ? BoardLayout.NONE : BoardLayout.read(layoutFile);
        String base = null;
        Path kept = null;
        // a big ground truth's symbols are read while the traces' files are listed for the cache's key
        CompletableFuture<Map<String, String>> reading = CompletableFuture.supplyAsync(() -> {
            try {
                return BoardInput.symbols(inputs);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        TraceIndex.Symbols later = () -> {
            try {
                return reading.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
            }
        };
        List<Path> traces = BoardInput.traces(inputs);
        StateBuilder.Clocks clocks = board.clock.clocks(traces);
        if (!noCache) {
            // the paths' hash first: a new state of the same traces replaces the older one's file
            // a timeline laid out by a layout file is kept under that file's content
            String laid = layout.digest().isEmpty() ? "" : ".L" + layout.digest();
            base = TraceIndex.entryBase(traces, clocks, mapping, later);
            kept = index.dir().resolve(base + laid + ".timeline");
        }
        Map<String, String> symbols = later.get();
        ViewServer server = kept == null
                ? build(traces, clocks, symbols, null, null, null)
                : fromStore(traces, clocks, symbols, base, kept);
        if (bench > 0) {
            try {
                server.start(serving.bind, serving.port);
            } catch (RuntimeException e) {
                throw Serving.cannotServe(serving.bind, serving.port, e);
            }
            String url = Serving.url(serving.bind, server.port());
            main.err.println("hetrace view: measuring " + url);
            try (ViewServer s = server) {
                return ViewBench.run(url, s.timeline(), bench, started, main.err);
            }
        }
        ViewServer s = server;
        return serve(
                this,
                "hetrace view",
                () -> {
                    s.start(serving.bind, serving.port);
                    return new Served(s::port, s::close);
                },
                serving);
    }

    /**
     * The server of the trace set's store: its index (named {@code base}; built now if there is
     * none, which reads the traces once) and the timeline kept beside it ({@code kept}, laid out
     * now if there is none); every answer then comes from them, the traces never read again.
     */
    private ViewServer fromStore(
            List<Path> traces, StateBuilder.Clocks clocks, Map<String, String> symbols, String base, Path kept)
            throws IOException, MetadataException, StreamDecodingException {
        // a timeline laid out before the index was built again (a binary that names functions changed) is laid out
        // again
        boolean readable = Files.isRegularFile(kept) && !TraceIndex.renamedSince(index.dir(), base, kept);
        if (readable && TraceIndex.present(index.dir(), base)) {
            // both kept: the index's files are checked on a thread of their own while the timeline
            // is opened and the view code warmed up (on a large board, tenths of a second each)
            CompletableFuture<TraceAnswers> opening = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("hetrace-index-open").start(() -> {
                try {
                    opening.complete(TraceAnswers.of(openIndex(traces, clocks, symbols, base, false)));
                } catch (IOException | MetadataException | StreamDecodingException | RuntimeException e) {
                    opening.completeExceptionally(e);
                }
            });
            Timeline timeline = readKept(kept);
            if (timeline != null) {
                ViewServer server = new ViewServer(timeline, TraceAnswers.when(opening)).warmUp();
                try {
                    joined(opening); // an index that cannot be opened is told now, before the URL
                } catch (IOException | MetadataException | StreamDecodingException | RuntimeException e) {
                    server.close();
                    throw e;
                }
                return server;
            }
            joined(opening).close(); // opened again below, the timeline laid out anew from it
            readable = false;
        }
        TraceIndex store = openIndex(traces, clocks, symbols, base, true);
        StateBuilder.Built built = store.takeBuiltFrom();
        if (built == null && readable) {
            Timeline timeline = readKept(kept);
            if (timeline != null) {
                return new ViewServer(timeline, TraceAnswers.of(store));
            }
        }
        return build(traces, clocks, symbols, kept, store, built);
    }

    /** The store's index ({@link TraceIndex#open}), built now if there is none; {@code keepModel}: keeping the model it is then built from. */
    private TraceIndex openIndex(
            List<Path> traces, StateBuilder.Clocks clocks, Map<String, String> symbols, String base, boolean keepModel)
            throws IOException, MetadataException, StreamDecodingException {
        return TraceIndex.open(
                index.dir(),
                base,
                traces,
                clocks,
                board.mapping,
                symbols,
                n -> main.err.println("hetrace view: " + TerminalText.guard(n)),
                keepModel);
    }

    /** The timeline kept in {@code kept}, said so; null, with a warning, when it cannot be read (it is then laid out again). */
    private Timeline readKept(Path kept) {
        long t0 = System.nanoTime();
        try {
            Timeline timeline = TimelineFile.read(kept);
            TraceIndex.used(kept);
            describe(
                    timeline,
                    String.format(
                            Locale.ROOT,
                            "opened the timeline kept in %s in %.2f s",
                            kept,
                            (System.nanoTime() - t0) / 1e9));
            return timeline;
        } catch (IOException e) {
            main.err.println("hetrace view: warning: " + e.getMessage() + "; building the timeline again");
            return null;
        }
    }

    /** What {@code f} gives once done, its failure thrown as it was. */
    private static <T> T joined(CompletableFuture<T> f) throws IOException, MetadataException, StreamDecodingException {
        try {
            return f.join();
        } catch (CompletionException e) {
            switch (e.getCause()) {
                case IOException x -> throw x;
                case MetadataException x -> throw x;
                case StreamDecodingException x -> throw x;
                case RuntimeException x -> throw x;
                case Error x -> throw x;
                default -> throw e;
            }
        }
    }

    /**
     * Builds the timeline and its server: from the model {@code store} was just built from
     * ({@code built}), else from the traces read now; keeps the timeline in {@code kept} (unless
     * null). Answers the statistics, the pattern search and the diagnosis from {@code store} (null:
     * from the model and the traces).
     */
    private ViewServer build(
            List<Path> traces,
            StateBuilder.Clocks clocks,
            Map<String, String> symbols,
            Path kept,
            TraceIndex store,
            StateBuilder.Built built)
            throws IOException, MetadataException, StreamDecodingException {
        long t0 = System.nanoTime();
        StateBuilder.Built both = built;
        if (both == null) {
            main.err.printf(
                    Locale.ROOT,
                    "hetrace view: reading %d trace(s) and building the timeline%s...%n",
                    traces.size(),
                    kept == null ? "" : " (kept for the next view)");
            both = BoardInput.built(
                    traces,
                    clocks,
                    board.mapping,
                    symbols,
                    w -> main.err.println("hetrace: warning: " + TerminalText.guard(w)));
        } else if (both.model().events() == both.model().untimed()) { // as BoardInput.built refuses them
            throw new IOException(
                    both.model().events() == 0
                            ? "the traces have no events"
                            : "the traces' events have no time (their streams have no clock)");
        }
        StateBuilder.Input input = both.input();
        StateModel model = both.model();
        long t1 = System.nanoTime();
        Timeline timeline = Timeline.of(model, layout);
        long read = t1 - t0;
        long laid = System.nanoTime() - t1;
        describe(
                timeline,
                built != null
                        ? String.format(
                                Locale.ROOT,
                                "the traces read once, for the index; summaries built in %.2f s",
                                laid / 1e9)
                        : String.format(
                                Locale.ROOT, "read in %.2f s, summaries built in %.2f s", read / 1e9, laid / 1e9));
        ViewServer server = store == null
                ? new ViewServer(timeline, input)
                : new ViewServer(timeline, TraceAnswers.of(store, model));
        if (kept != null) {
            t0 = System.nanoTime();
            main.err.println("hetrace view: keeping the timeline in " + kept + "...");
            try {
                long size = TimelineFile.write(timeline, kept);
                main.err.printf(
                        Locale.ROOT,
                        "hetrace view: kept the timeline (%,.1f MB, %.2f s): the next view of"
                                + " these traces opens it%n",
                        size / 1e6,
                        (System.nanoTime() - t0) / 1e9);
                TraceIndex.forgetOlder(
                        kept,
                        "the timeline kept for an earlier state of these traces",
                        n -> main.err.println("hetrace view: " + n));
            } catch (IOException | RuntimeException e) {
                main.err.println("hetrace view: warning: cannot keep the timeline in " + kept + ": " + e.getMessage());
            }
        }
        return server;
    }

    private void describe(Timeline t, String how) {
        main.err.printf(
                Locale.ROOT,
                "hetrace view: %d trace(s), %d cores, %,d events, %.3f s; %s%n",
                t.traceNames().size(),
                t.cores(),
                t.events(),
                (t.end() - t.begin()) / 1e9,
                how);
    }

    /**
     * Serves {@code timeline} where {@code serving} says until Ctrl-C, printing the URL (and
     * opening it when asked); what {@code hetrace view} and {@code hetrace demo --serve} do.
     */
    static int serve(
            HetraceCommand cmd, String who, Timeline timeline, StateBuilder.Input input, Serving.Options serving) {
        return serve(
                cmd,
                who,
                () -> {
                    ViewServer v = new ViewServer(timeline, input).start(serving.bind, serving.port);
                    return new Served(v::port, v::close);
                },
                serving);
    }

    /** A running server: its port, and how to stop it. */
    record Served(IntSupplier port, Runnable close) {}

    /** Starts a server, prints its URL, serves until Ctrl-C (or this thread's interruption). */
    static int serve(HetraceCommand cmd, String who, Supplier<Served> start, Serving.Options serving) {
        Served served;
        try {
            served = start.get();
        } catch (RuntimeException e) {
            throw Serving.cannotServe(serving.bind, serving.port, e);
        }
        Serving.announce(
                cmd.main.err, who, Serving.url(serving.bind, served.port().getAsInt()), serving.open);
        Serving.untilStopped(served.close());
        return 0;
    }

    /**
     * A campaign file (hetrace profile): its report, the page {@code hetrace profile report}
     * writes, served as it is.
     */
    private int serveCampaign(Path file) throws IOException {
        Campaign c = CampaignFile.read(file);
        if (c.runs().isEmpty()) {
            throw new IOException(file + ": the campaign has no runs to show");
        }
        CampaignAnalysis.Result r = new CampaignAnalysis().of(c);
        String page = ProfileReport.page(c, r.stats(), r.threads());
        return serve(
                this,
                "hetrace view",
                () -> {
                    PageServer p = PageServer.start(page, serving.bind, serving.port);
                    return new Served(p::port, p::close);
                },
                serving);
    }

    /** Whether the only input is a campaign file ({@code hetrace profile}), not traces. */
    static boolean isCampaign(List<Path> inputs) {
        return inputs.size() == 1
                && Files.isRegularFile(inputs.getFirst())
                && inputs.getFirst().getFileName().toString().endsWith(".json");
    }
}
