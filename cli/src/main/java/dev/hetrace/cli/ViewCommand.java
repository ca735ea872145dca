package dev.hetrace.cli;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.view.Timeline;
import dev.hetrace.view.TimelineFile;
import dev.hetrace.view.ViewServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace view}: the synchronized timeline of the traces in a browser, served from this machine. */
@Command(name = "view", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"See the whole board: a timeline of every core in a web browser.", "",
        "hetrace reads the traces (several are put on one clock first: see 'hetrace stats",
        "--help'), builds the state model and its summaries, and serves a local web app: rows",
        "per core, its tasks and their calls, interrupts, messages as arrows, zoom and pan,",
        "the events of a place, a search, the statistics and the diagnosis ('hetrace",
        "diagnose'). It prints the URL and runs until Ctrl-C. Only this machine can reach it",
        "unless --bind says otherwise.", "",
        "The timeline is kept in the cache beside the traces' index (--cache): the next view of the",
        "same traces opens it at once, without reading them, whatever their size. The traces are",
        "then read again only for the statistics of a range or a pattern search. A trace that",
        "changes (a file added, resized or touched) is read again.", "",
        "A campaign.json of 'hetrace profile' gives its report instead, served.", "",
        "Examples:",
        "  hetrace view hetrace-demo                # the demo's board",
        "  hetrace view --port 8080 board/master board/dsp*",
        "  hetrace view --open board/               # and open a browser (xdg-open)",
        "  hetrace view sweep/campaign.json          # a 'hetrace profile' campaign's charts"},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:stopped", "1:a trace could not be read or put on the reference clock, or the server could not start", "2:usage error"})
final class ViewCommand extends HetraceCommand {
    @CommandLine.Mixin
    BoardOptions board = new BoardOptions();

    @CommandLine.Mixin
    Serving.Options serving = new Serving.Options();

    @CommandLine.Mixin
    IndexOptions index = new IndexOptions();

    @Option(names = "--no-cache", description = {"Neither open a kept timeline nor keep one: read the traces and build",
        "it, as the first view of a trace set does."})
    boolean noCache;

    @Option(names = "--bench", paramLabel = "N", description = {"Measure instead of serving: N zoom and pan requests",
        "of 2,000 px over HTTP, as the app sends them; print the latencies and exit."})
    int bench;

    @Override
    public Integer call() {
        long started = System.nanoTime();
        if (serving.invalid() != null) {
            main.err.println("hetrace: " + serving.invalid());
            return 2;
        }
        List<Path> inputs = board.inputs;
        Path mapping = board.mapping;
        if (isCampaign(inputs)) {
            return serveCampaign(inputs.getFirst());
        }
        List<Path> traces;
        StateBuilder.Clocks clocks;
        java.util.Map<String, String> symbols;
        Path kept = null;
        // a big ground truth's symbols are read while the traces' files are listed for the cache's key
        java.util.concurrent.CompletableFuture<java.util.Map<String, String>> reading =
            java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return BoardInput.symbols(inputs);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        TraceIndex.Symbols later = () -> {
            try {
                return reading.join();
            } catch (java.util.concurrent.CompletionException e) {
                throw e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause() : new IOException(e.getCause());
            }
        };
        try {
            traces = BoardInput.traces(inputs);
            clocks = board.clock.clocks(traces);
            if (!noCache) {
                // the paths' hash first: a new state of the same traces replaces the older one's file
                kept = index.dir().resolve(TraceIndex.entryName(traces, clocks, mapping, later, ".timeline"));
            }
            symbols = later.get();
        } catch (IOException e) {
            return fail(e);
        }
        ViewServer server = kept != null && Files.isRegularFile(kept) ? open(kept, traces, clocks, symbols) : null;
        if (server != null) {
            TraceIndex.used(kept);
        }
        if (server == null) {
            server = build(traces, clocks, symbols, kept);
            if (server == null) {
                return 1;
            }
        }
        if (bench > 0) {
            try {
                server.start(serving.bind, serving.port);
            } catch (RuntimeException e) {
                return fail(Serving.cannotServe(serving.bind, serving.port, e));
            }
            String url = Serving.url(serving.bind, server.port());
            main.err.println("hetrace view: measuring " + url);
            try (ViewServer s = server) {
                return ViewBench.run(url, s.timeline(), bench, started, main.err);
            } catch (IOException | InterruptedException e) {
                return fail(e instanceof IOException io ? io : new IOException(e));
            }
        }
        ViewServer s = server;
        return serve(this, "hetrace view", () -> {
            s.start(serving.bind, serving.port);
            return new Served(s::port, s::close);
        }, serving);
    }

    /**
     * The server of the timeline kept in {@code file}, reading the traces again only for what
     * needs them; null when the file cannot be read (said, and built again).
     */
    private ViewServer open(Path file, List<Path> traces, StateBuilder.Clocks clocks, java.util.Map<String, String> symbols) {
        long t0 = System.nanoTime();
        Timeline timeline;
        try {
            timeline = TimelineFile.read(file);
        } catch (IOException e) {
            main.err.println("hetrace view: warning: " + e.getMessage() + "; building the timeline again");
            return null;
        }
        describe(timeline, String.format(Locale.ROOT, "opened the timeline kept in %s in %.2f s", file,
            (System.nanoTime() - t0) / 1e9));
        return ViewServer.kept(timeline, () -> {
            main.err.println("hetrace view: reading the traces again (for the statistics of a range or a pattern search)...");
            try {
                return BoardInput.built(traces, clocks, board.mapping, symbols, w -> { });
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (MetadataException | StreamDecodingException e) {
                throw new java.io.UncheckedIOException(new IOException(e.getMessage(), e));
            }
        });
    }

    /** Reads the traces and builds the timeline and its server; keeps the timeline in {@code kept} (unless null). */
    private ViewServer build(List<Path> traces, StateBuilder.Clocks clocks, java.util.Map<String, String> symbols, Path kept) {
        Timeline timeline;
        StateBuilder.Input input;
        long built;
        long read;
        main.err.printf(Locale.ROOT, "hetrace view: reading %d trace(s) and building the timeline%s...%n", traces.size(),
            kept == null ? "" : " (kept for the next view)");
        try {
            long t0 = System.nanoTime();
            // the synchronized traces are kept for the pattern search
            StateBuilder.Built both = BoardInput.built(traces, clocks, board.mapping, symbols,
                w -> main.err.println("hetrace: warning: " + dev.hetrace.ctf.text.TerminalText.guard(w)));
            input = both.input();
            StateModel model = both.model();
            long t1 = System.nanoTime();
            timeline = Timeline.of(model);
            read = t1 - t0;
            built = System.nanoTime() - t1;
        } catch (IOException | MetadataException | StreamDecodingException | IllegalArgumentException e) {
            fail(e);
            return null;
        }
        describe(timeline, String.format(Locale.ROOT, "read in %.2f s, summaries built in %.2f s", read / 1e9, built / 1e9));
        ViewServer server = new ViewServer(timeline, input);
        if (kept != null) {
            long t0 = System.nanoTime();
            main.err.println("hetrace view: diagnosing, then keeping the timeline in " + kept + "...");
            try {
                long size = TimelineFile.write(timeline, server.answersToKeep(), kept);
                main.err.printf(Locale.ROOT, "hetrace view: kept the timeline (%,.1f MB, %.2f s): the next view of"
                    + " these traces opens it%n", size / 1e6, (System.nanoTime() - t0) / 1e9);
                TraceIndex.forgetOlder(kept, "the timeline kept for an earlier state of these traces", n -> main.err.println("hetrace view: " + n));
            } catch (IOException | RuntimeException e) {
                main.err.println("hetrace view: warning: cannot keep the timeline in " + kept + ": " + e.getMessage());
            }
        }
        return server;
    }

    private void describe(Timeline t, String how) {
        main.err.printf(Locale.ROOT, "hetrace view: %d trace(s), %d cores, %,d events, %.3f s; %s%n", t.traceNames().size(),
            t.cores(), t.events(), (t.end() - t.begin()) / 1e9, how);
    }

    /**
     * Serves {@code timeline} where {@code serving} says until Ctrl-C, printing the URL (and
     * opening it when asked); what {@code hetrace view} and {@code hetrace demo --serve} do.
     */
    static int serve(HetraceCommand cmd, String who, Timeline timeline, StateBuilder.Input input, Serving.Options serving) {
        return serve(cmd, who, () -> {
            ViewServer v = new ViewServer(timeline, input).start(serving.bind, serving.port);
            return new Served(v::port, v::close);
        }, serving);
    }

    /** A running server: its port, and how to stop it. */
    record Served(java.util.function.IntSupplier port, Runnable close) {}

    /** Starts a server, prints its URL, serves until Ctrl-C (or this thread's interruption). */
    static int serve(HetraceCommand cmd, String who, java.util.function.Supplier<Served> start, Serving.Options serving) {
        Served served;
        try {
            served = start.get();
        } catch (RuntimeException e) {
            return cmd.fail(Serving.cannotServe(serving.bind, serving.port, e));
        }
        Serving.announce(cmd.main.err, who, Serving.url(serving.bind, served.port().getAsInt()), serving.open);
        Serving.untilStopped(served.close());
        return 0;
    }

    /**
     * A campaign file (hetrace profile): its report, the page {@code hetrace profile report}
     * writes, served as it is.
     */
    private int serveCampaign(Path file) {
        String page;
        try {
            dev.hetrace.profile.Campaign c = dev.hetrace.profile.CampaignFile.read(file);
            if (c.runs().isEmpty()) {
                throw new IOException(file + ": the campaign has no runs to show");
            }
            CampaignAnalysis.Result r = new CampaignAnalysis().of(c);
            page = dev.hetrace.profile.report.ProfileReport.page(c, r.stats(), r.threads());
        } catch (IOException | RuntimeException e) {
            return fail(e);
        }
        return serve(this, "hetrace view", () -> {
            dev.hetrace.web.PageServer p = dev.hetrace.web.PageServer.start(page, serving.bind, serving.port);
            return new Served(p::port, p::close);
        }, serving);
    }

    /** Whether the only input is a campaign file ({@code hetrace profile}), not traces. */
    static boolean isCampaign(List<Path> inputs) {
        return inputs.size() == 1 && java.nio.file.Files.isRegularFile(inputs.getFirst())
            && inputs.getFirst().getFileName().toString().endsWith(".json");
    }
}
