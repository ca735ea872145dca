package dev.hetrace.cli;

import dev.hetrace.analysis.Diagnosis;
import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.sim.ClockModel;
import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.Imx8Config;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRule;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.PiecewiseMap;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.sync.Synchronizer.TraceSync;
import dev.hetrace.sync.out.SynchronizedCopy;
import dev.hetrace.sync.out.SynchronizedCopyException;
import dev.hetrace.view.Report;
import dev.hetrace.view.Timeline;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code hetrace demo}: the Sobel image-filter board end to end on a simulated board — simulate,
 * synchronize, write copies on one clock — with a terminal summary checked against the truth.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the Sobel image-filter pipeline on a simulated board, end to end.",
            "",
            "A master and 8 DSPs, each with its own clock (origins, frequencies, drifts),",
            "filter images: the master splits each image, every DSP processes its part (about",
            "96 ms) and answers. DSPs 1 and 2 are preempted by a task that makes them exchange",
            "messages (their part takes about 300 ms, and the master waits for them). The demo",
            "writes the traces (as 'hetrace sim' does), synchronizes them with the sync",
            "handshake's pairs (as 'hetrace sync' does), writes copies on the master's clock,",
            "and prints the board, each core's sync quality, its accuracy bound and its true",
            "error (the simulator knows the truth), and where everything is.",
            "",
            "With --board imx8: Linux on four Cortex-A cores talks RPMsg to Zephyr on 1 to 4",
            "Cortex-M cores (--m-cores); the traces are synchronized with the RPMsg messages",
            "both sides traced (no handshake) and analysed, Linux's with LTTng-UST's mapping,",
            "the M cores' with the zephyr preset.",
            "",
            "Examples:",
            "  hetrace demo",
            "  hetrace demo --board imx8 --m-cores 2",
            "  hetrace demo --serve          # then the viewer on the board, until Ctrl-C",
            "  hetrace demo --out /tmp/demo && babeltrace2 /tmp/demo/synced/*"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the demo ran", "1:it could not write its output or read its traces", "2:usage error"})
final class DemoCommand extends HetraceCommand {
    /** What the demo leaves in a directory it may replace on the next run. */
    private static final String MARK = "hetrace-demo.txt";

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Where to write (default: ./hetrace-demo; a previous demo's output there is replaced).")
    Path out = Path.of("hetrace-demo");

    @Option(names = "--seed", paramLabel = "S", description = "The simulation's seed (default 1).")
    long seed = 1;

    @Option(
            names = "--board",
            paramLabel = "NAME",
            description = "The board: keystone (default: the Sobel pipeline on a master and 8 DSPs) or imx8"
                    + " (Linux on four Cortex-A cores, Zephyr on Cortex-M cores, RPMsg between them).")
    SimCommand.BoardKind board = SimCommand.BoardKind.keystone;

    @Option(
            names = "--m-cores",
            paramLabel = "N",
            description = "With --board imx8: the Cortex-M cores, 1 to 4 (default 1).")
    Integer mCores;

    @Option(
            names = "--serve",
            description = {
                "Then serve the viewer on the demo's board (as 'hetrace view'",
                "does) until Ctrl-C, and print its URL; --port, --bind and --open say where and whether to open it."
            })
    boolean serve;

    @CommandLine.Mixin
    Serving.Options serving = new Serving.Options();

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException, SynchronizedCopyException {
        if (serving.invalid() != null) {
            throw CommandFailure.usage(serving.invalid());
        }
        if (board == SimCommand.BoardKind.imx8) {
            return imx8();
        }
        if (mCores != null) {
            throw CommandFailure.usage("--m-cores: only with --board imx8");
        }
        PrintStream err = main.err;
        long begin = System.nanoTime();
        StringBuilder sb = new StringBuilder();
        prepare();
        SimConfig config = SimConfig.sobel(seed)
                .withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8, new SyncCommand.DurationConverter()::convert)));
        Path board = out.resolve("board");
        Simulation.Result sim = Simulation.sobel(config, board);
        Synchronizer.Report report = synchronize(sim, MatchRules.HETRACE_SYNC, err);
        Path synced = out.resolve("synced");
        Files.createDirectories(synced);
        for (TraceSync t : report.traces()) {
            if (t.connected()) {
                SynchronizedCopy.write(
                        t.path(),
                        t.transform(),
                        synced.resolve(t.path().getFileName()),
                        new SynchronizedCopy.Options(null, true));
            }
        }
        // what went wrong, from the traces alone (the truth only names the master's function addresses)
        Analysis analysis = analyse(sim, report, err);
        List<String> findings = analysis.findings();
        summary(sb, config, sim, report, findings, (System.nanoTime() - begin) / 1e9);
        Files.writeString(out.resolve(MARK), "Written by 'hetrace demo'; the next demo replaces this directory.\n");
        print(sb.toString());
        return serve ? ViewCommand.serve(this, "hetrace demo", analysis.timeline(), analysis.input(), serving) : 0;
    }

    /**
     * The i.MX8-like board: simulate, synchronize on Linux's clock with the RPMsg messages both
     * sides traced, analyse each trace with its own mapping, write the report.
     */
    private int imx8() throws IOException, MetadataException, StreamDecodingException {
        Imx8Config config;
        try {
            config = SimCommand.imx8Config(seed, mCores, null);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage());
        }
        PrintStream err = main.err;
        long begin = System.nanoTime();
        prepare();
        Path boardDir = out.resolve("board");
        Simulation.Result sim = Simulation.imx8(config, boardDir);
        Synchronizer.Report report = synchronize(sim, MatchRules.RPMSG, err);
        Analysis analysis = analyse(sim, report, err);
        StateModel model = analysis.model();
        List<String> findings = analysis.findings();

        StringBuilder sb = new StringBuilder();
        GroundTruth truth = sim.truth();
        ClockModel linux = truth.core("linux").clock();
        sb.append(String.format(
                Locale.ROOT,
                "hetrace demo: Linux and Zephyr talking RPMsg on a simulated i.MX8-like board (seed %d)%n%n",
                config.seed()));
        sb.append(String.format(
                Locale.ROOT,
                "board: four Cortex-A cores running Linux (LTTng-UST) and %d Cortex-M core%s running Zephyr"
                        + " (Zephyr's CTF), %.1f s, %,d events in %d traces%n",
                config.mCores(),
                config.mCores() == 1 ? "" : "s",
                config.durationNanos() / 1e9,
                sim.events(),
                sim.traces().size()));
        List<String> read = new ArrayList<>();
        for (int i = 0; i < model.traceNames().size(); i++) {
            read.add(model.traceNames().get(i) + " (" + model.mappingNames().get(i) + ")");
        }
        sb.append("analysed: ").append(String.join(", ", read)).append('\n');
        long rpmsg = report.rules().stream().mapToLong(r -> r.matched()).sum();
        sb.append(String.format(
                Locale.ROOT,
                "%nclocks, synchronized on Linux's from %,d RPMsg messages traced on both sides:%n",
                rpmsg));
        // from the core's first messages (its boot: its count is 0) to the end of the run
        clocks(
                sb,
                report,
                truth,
                clock -> (long) clock.trueNanos(0) + 100_000_000L,
                config.durationNanos() - 10_000_000L,
                200,
                (clock, map, at) -> {
                    long reported = clock.floorNanos(at);
                    double trueOnLinux = linux.localNanos(clock.trueNanos(reported * (clock.frequencyHz() / 1e9)));
                    return map.apply(reported) - linux.offsetSeconds() * 1_000_000_000L - trueOnLinux;
                });
        findings(sb, findings);
        sb.append(String.format(Locale.ROOT, "%nwritten in %.1f s:%n", (System.nanoTime() - begin) / 1e9));
        sb.append("  ")
                .append(boardDir)
                .append("/          one CTF trace per core, on its own clock, and ground-truth.json\n");
        sb.append("  ")
                .append(out.resolve("report.html"))
                .append("     the timeline, statistics and diagnosis in one file: open it in a browser\n");
        sb.append(String.format(Locale.ROOT, "%nnext:%n"));
        List<String[]> next = new ArrayList<>();
        next.add(new String[] {"./hetrace sync " + boardDir, "the clocks, in detail"});
        next.add(new String[] {"./hetrace print " + boardDir.resolve("m0"), "a Zephyr core's events"});
        next.add(new String[] {"./hetrace stats " + out, "run-time statistics per core, thread, function"});
        next.add(new String[] {"./hetrace view --open " + out, "the timeline in your browser (prints its URL)"});
        sb.append(TextTable.render(next, "  ", c -> false));
        Files.writeString(out.resolve(MARK), "Written by 'hetrace demo'; the next demo replaces this directory.\n");
        print(sb.toString());
        return serve ? ViewCommand.serve(this, "hetrace demo", analysis.timeline(), analysis.input(), serving) : 0;
    }

    /** Synchronizes the simulated traces on the first one's clock with {@code rules}. */
    private static Synchronizer.Report synchronize(Simulation.Result sim, List<MatchRule> rules, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        return Synchronizer.run(
                sim.traces(),
                rules,
                ConvexHullSync.Method.BISECTOR,
                0,
                0,
                w -> err.println("hetrace: warning: " + TerminalText.guard(w)),
                Synchronizer.Progress.NONE);
    }

    /** The state model of a synchronized simulation, its diagnosis and timeline. */
    private record Analysis(StateBuilder.Input input, StateModel model, List<String> findings, Timeline timeline) {}

    /** Builds the state model of the synchronized traces, diagnoses it and writes the report. */
    private Analysis analyse(Simulation.Result sim, Synchronizer.Report report, PrintStream err)
            throws IOException, MetadataException, StreamDecodingException {
        List<PiecewiseMap> maps = report.traces().stream().map(TraceSync::map).toList();
        StateBuilder.Input input = new StateBuilder.Input(sim.traces(), maps, report);
        Consumer<String> warnings = w -> err.println("hetrace: warning: " + TerminalText.guard(w));
        StateModel model = StateBuilder.build(input, StateBuilder.Options.of(warnings));
        model.symbolize(BoardInput.symbols(List.of(out)), warnings);
        List<String> findings = Diagnosis.summary(Diagnosis.of(model, Diagnosis.DEFAULT_K));
        Timeline timeline = Timeline.of(model);
        Report.write(timeline, out.resolve("report.html"));
        return new Analysis(input, model, findings, timeline);
    }

    /** An absent or empty directory, or a previous demo's (replaced): never anything else. */
    private void prepare() throws IOException {
        if (Files.exists(out)) {
            boolean empty;
            try (var entries = Files.list(out)) {
                empty = entries.findAny().isEmpty();
            }
            if (!empty && !Files.exists(out.resolve(MARK))) {
                throw new IOException(out + " exists and was not written by 'hetrace demo': give another --out");
            }
            if (!empty) {
                Files.walkFileTree(out, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        Files.delete(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                        if (!dir.equals(out)) {
                            Files.delete(dir);
                        }
                        return FileVisitResult.CONTINUE;
                    }
                });
            }
        }
        Files.createDirectories(out);
    }

    /** How far a core's time put on the reference clock is from the true one at {@code at} (ns of the run). */
    private interface TrueError {
        double at(ClockModel clock, PiecewiseMap map, long at);
    }

    /**
     * The demo's table of clocks: per core its frequency and drift, the synchronization's quality
     * and bound, and the true error: the worst of {@code error} at {@code steps} instants from
     * {@code from} (of the core's clock) to {@code to}.
     */
    private static void clocks(
            StringBuilder sb,
            Synchronizer.Report report,
            GroundTruth truth,
            ToLongFunction<ClockModel> from,
            long to,
            int steps,
            TrueError error) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"core", "frequency", "drift", "quality", "accuracy bound", "true error"});
        for (int i = 0; i < report.traces().size(); i++) {
            TraceSync t = report.traces().get(i);
            String name = t.path().getFileName().toString();
            ClockModel clock = truth.core(name).clock();
            boolean ref = i == report.reference();
            String worst = "-";
            if (!ref && t.connected()) {
                long start = from.applyAsLong(clock);
                double most = 0;
                for (long at = start; at <= to; at += Math.max(1, (to - start) / steps)) {
                    most = Math.max(most, Math.abs(error.at(clock, t.map(), at)));
                }
                worst = micros(Math.round(most));
            }
            rows.add(new String[] {
                name,
                String.format(Locale.ROOT, "%.3f GHz", clock.frequencyHz() / 1e9),
                String.format(Locale.ROOT, "%+.1f ppm", clock.driftPpm()),
                ref ? "reference" : t.connected() ? t.quality().label() : "not connected",
                ref ? "-" : t.accuracyNanos().map(b -> micros(b)).orElse("unbounded"),
                worst
            });
        }
        sb.append(TextTable.render(rows, "  ", c -> c >= 4));
    }

    /** The diagnosis's findings, each wrapped. */
    private static void findings(StringBuilder sb, List<String> findings) {
        sb.append(String.format(Locale.ROOT, "%ndiagnosis, from the traces alone:%n"));
        for (String f : findings) {
            sb.append(DiagnoseCommand.wrap("  ", f, 100, "  ")).append('\n');
        }
    }

    private static void summary(
            StringBuilder sb,
            SimConfig config,
            Simulation.Result sim,
            Synchronizer.Report report,
            List<String> findings,
            double seconds) {
        GroundTruth truth = sim.truth();
        ClockModel master = truth.core("master").clock();
        sb.append(String.format(
                Locale.ROOT,
                "hetrace demo: a Sobel edge-detection pipeline on a simulated board (seed %d)%n%n",
                config.seed()));
        sb.append(String.format(
                Locale.ROOT,
                "board: a master and %d DSPs, %.1f s, %,d events in %d traces%n",
                config.slaves(),
                config.effectiveDurationNanos() / 1e9,
                sim.events(),
                sim.traces().size()));
        for (GroundTruth.FaultTruth f : truth.faults()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "injected: %s on %s at %.3f s (%s)%n",
                    f.kind(),
                    String.join(", ", f.cores()),
                    f.atNanos() / 1e9,
                    f.description()));
        }
        sb.append(String.format(
                Locale.ROOT, "%nclocks, synchronized on the master's from the sync handshake's pairs:%n"));
        clocks(
                sb,
                report,
                truth,
                clock -> config.syncPeriodNanos(),
                config.effectiveDurationNanos() - config.syncPeriodNanos(),
                50,
                (clock, map, at) -> {
                    long reported = clock.traceNanos(at);
                    double trueOnMaster = master.localNanos(clock.trueNanosOfTrace(reported));
                    return map.apply(reported) - master.offsetSeconds() * 1_000_000_000L - trueOnMaster;
                });
        Path board = sim.master().getParent();
        Path synced = board.resolveSibling("synced");
        findings(sb, findings);
        sb.append(String.format(Locale.ROOT, "%nwritten in %.1f s:%n", seconds));
        sb.append("  ")
                .append(board)
                .append("/          one CTF trace per core, on its own clock, and ground-truth.json\n");
        sb.append("  ").append(synced).append("/         the same traces on the master's clock\n");
        sb.append("  ")
                .append(board.resolveSibling("report.html"))
                .append("     the timeline, statistics and diagnosis in one file: open it in a browser\n");
        sb.append(String.format(Locale.ROOT, "%nnext:%n"));
        Path folder = board.getParent();
        List<String[]> next = new ArrayList<>();
        next.add(new String[] {"babeltrace2 " + synced + "/*", "every core on one timeline"});
        next.add(new String[] {"./hetrace print " + synced + "/*", "the same, faster"});
        next.add(new String[] {"./hetrace sync " + board, "the clocks, in detail"});
        next.add(new String[] {"./hetrace diagnose " + folder, "outliers and their causes, in detail"});
        next.add(new String[] {"./hetrace waits --path process_image " + folder, "who waited for whom"});
        next.add(new String[] {"./hetrace stats " + folder, "run-time statistics per core, task, function"});
        next.add(new String[] {
            "./hetrace view --open " + folder,
            "the timeline in your browser (prints its URL);" + " 'hetrace demo --serve' does it at the end of the demo"
        });
        next.add(new String[] {"./hetrace export --format perfetto -o board.json " + folder, "for ui.perfetto.dev"});
        sb.append(TextTable.render(next, "  ", c -> false));
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.2f µs", nanos / 1e3);
    }
}
