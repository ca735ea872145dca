package dev.hetrace.cli;

import dev.hetrace.sim.Fault;
import dev.hetrace.sim.GroundTruth;
import dev.hetrace.sim.Imx8Config;
import dev.hetrace.sim.SimConfig;
import dev.hetrace.sim.Simulation;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code hetrace sim}: a virtual heterogeneous board that writes traces and their ground truth. */
@Command(
        name = "sim",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Simulate a heterogeneous board and write one CTF trace per core plus the truth.",
            "",
            "The board: a Linux master (traced like LTTng-UST: function entry/exit, MessageQ",
            "events, the sync daemon's handshakes) and N bare-metal slaves under an RTOS",
            "(traced by a barectf-style tracer: task switches, MessageQ put/get, functions,",
            "interrupts, sync handshakes). Up to 8 slaves are C66x-like DSPs (1.2 GHz, 64-bit",
            "counter); more are Epiphany-like eCores (1 GHz, a 32-bit counter that wraps,",
            "extended by the tracer). Each core has its own clock origin and drift.",
            "",
            "Scenario sobel: the master waits for an image, asks dsp0 for memory,",
            "splits the image into one part per slave (about 96 ms each on 8 DSPs; the same",
            "work split N ways), and joins the replies; then the next image.",
            "",
            "Faults (--inject, repeatable, combinable; @TIME, e.g. @1.2s, says when):",
            "  preempt:dsp1,dsp2  a high-priority task preempts those cores and makes them",
            "                     exchange messages: ~96 ms of processing becomes ~300 ms",
            "                     (default: from the first image)",
            "  hang:dspN          the core's worker waits forever for a message (default:",
            "                     on the second image; with @TIME, the first image from then)",
            "  crash:dspN         the core stops tracing and answering (default: 30 ms into",
            "                     the second image)",
            "  drift-jump:dspN    the core's clock changes its drift (default: mid-run)",
            "",
            "DIR gets master/, dsp0/, dsp1/, ... and ground-truth.json: every core's true",
            "clock, the faults with their cores and times, and the true intervals of the",
            "tasks and functions (in true ns, and in ns as each trace reports them).",
            "The same options and seed write the same bytes.",
            "",
            "Board imx8 (--board imx8): four Cortex-A cores running Linux, whose application",
            "traces with LTTng-UST (a stream per CPU), and 1 to 4 Cortex-M cores (--m-cores)",
            "running Zephyr, traced by Zephyr's own CTF tracing (its metadata, a packetless",
            "stream, 32-bit timestamps from a 400 MHz cycle counter). Linux boots each M core",
            "through remoteproc, then sends it a command every 10 ms over RPMsg, which it",
            "answers; the core also reports every 5 ms. Both sides trace every message",
            "(hetrace_rpmsg:send/recv, Zephyr's named events rpmsg_send/rpmsg_recv), which",
            "'hetrace sync' pairs. DIR gets linux/, m0/, ... and ground-truth.json.",
            "",
            "Examples:",
            "  hetrace sim --out board/",
            "  hetrace sim --inject preempt:dsp1,dsp2 --seed 7 --out board/",
            "  hetrace sim --inject crash:dsp3@1.2s --inject drift-jump:dsp4 --out board/",
            "  hetrace sync board/master board/dsp*",
            "  hetrace sim --cores 1024 --out big/",
            "  hetrace sim --board imx8 --m-cores 2 --out imx8/ && hetrace sync imx8/"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the traces and the ground truth are written",
            "1:the output could not be written",
            "2:usage error (a bad option or --inject)"
        })
final class SimCommand extends HetraceCommand {
    enum Scenario {
        sobel
    }

    enum BoardKind {
        keystone,
        imx8
    }

    @Option(
            names = "--board",
            paramLabel = "NAME",
            description = "The board: keystone (default: a Linux master and bare-metal DSPs or eCores) or imx8"
                    + " (Linux on four Cortex-A cores, Zephyr on Cortex-M cores, RPMsg between them).")
    BoardKind board = BoardKind.keystone;

    @Option(
            names = "--m-cores",
            paramLabel = "N",
            description = "With --board imx8: the Cortex-M cores, 1 to 4 (default 1).")
    Integer mCores;

    @Option(names = "--scenario", paramLabel = "NAME", description = "The workload: sobel (default).")
    Scenario scenario = Scenario.sobel;

    @Option(names = "--cores", paramLabel = "N", description = "Slave cores, 1 to 1024 (default 8).")
    int cores = 8;

    @Option(names = "--inject", paramLabel = "FAULT", description = "A fault: " + Fault.SYNTAX + " (repeatable).")
    List<String> inject = new ArrayList<>();

    @Option(names = "--seed", paramLabel = "S", description = "The seed of every random choice (default 1).")
    long seed = 1;

    @Option(names = "--images", paramLabel = "N", description = "Images the master processes (default 5).")
    Integer images;

    @Option(
            names = "--image-period",
            paramLabel = "DURATION",
            converter = SyncCommand.DurationConverter.class,
            description = "An image arrives every DURATION (default 400ms).")
    Long imagePeriod;

    @Option(
            names = "--sync-period",
            paramLabel = "DURATION",
            converter = SyncCommand.DurationConverter.class,
            description = "The sync daemon's handshake with each slave every DURATION (default 100ms).")
    Long syncPeriod;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            converter = SyncCommand.DurationConverter.class,
            description = "Simulated time (default: the images' time plus 500ms; with --board imx8, 5s, at most 10s).")
    Long duration;

    @Option(
            names = "--jitter",
            paramLabel = "CYCLES",
            description = "The slaves' clock reads take up to CYCLES more than the count (default 0).")
    int jitter;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where to write (absent or empty).")
    Path out;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (board == BoardKind.imx8) {
            return imx8();
        }
        if (mCores != null) {
            throw new ParameterException(spec.commandLine(), "--m-cores: only with --board imx8");
        }
        PrintStream err = main.err;
        SimConfig config;
        try {
            config = SimConfig.sobel(seed).withSlaves(cores);
            if (images != null || imagePeriod != null) {
                config = config.withImages(
                        images != null ? images : config.images(),
                        imagePeriod != null ? imagePeriod : config.imagePeriodNanos());
            }
            if (syncPeriod != null) {
                config = config.withSyncPeriod(syncPeriod);
            }
            if (duration != null) {
                config = config.withDuration(duration);
            }
            if (jitter < 0) {
                throw new IllegalArgumentException("--jitter " + jitter + ": a number of cycles, 0 or more");
            }
            config = config.withJitter(jitter);
            // last: a fault's time is checked against the run's length
            SyncCommand.DurationConverter durations = new SyncCommand.DurationConverter();
            List<Fault> faults = new ArrayList<>();
            for (String spec : inject) {
                faults.add(Fault.parse(spec, cores, durations::convert));
            }
            config = config.withFaults(faults);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        long begin = System.nanoTime();
        Simulation.Result r = Simulation.sobel(config, out);
        err.printf(
                Locale.ROOT,
                "%d traces, %,d events, %.1f s simulated in %.1f s: %s%n",
                r.traces().size(),
                r.events(),
                config.effectiveDurationNanos() / 1e9,
                (System.nanoTime() - begin) / 1e9,
                out);
        for (GroundTruth.FaultTruth f : r.truth().faults()) {
            List<String> on = f.cores();
            // a long list is abridged: its first and last cores and how many (the truth has them all)
            String where = on.size() <= 8
                    ? String.join(", ", on)
                    : String.join(", ", on.subList(0, 3)) + ", ... " + on.getLast() + " (" + on.size() + " cores)";
            err.printf(Locale.ROOT, "  %s on %s at %.3f s: %s%n", f.kind(), where, f.atNanos() / 1e9, f.description());
        }
        return 0;
    }

    private int imx8() throws IOException {
        for (String o : List.of(
                "--scenario", "--cores", "--inject", "--images", "--image-period", "--sync-period", "--jitter")) {
            if (spec.commandLine().getParseResult().hasMatchedOption(o)) {
                throw new ParameterException(spec.commandLine(), o + ": not an option of --board imx8");
            }
        }
        Imx8Config config;
        try {
            config = imx8Config(seed, mCores, duration);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        long begin = System.nanoTime();
        Simulation.Result r = Simulation.imx8(config, out);
        main.err.printf(
                Locale.ROOT,
                "%d traces, %,d events, %.1f s simulated in %.1f s: %s%n",
                r.traces().size(),
                r.events(),
                config.durationNanos() / 1e9,
                (System.nanoTime() - begin) / 1e9,
                out);
        return 0;
    }

    /** The imx8 board of these options (null: the default). */
    static Imx8Config imx8Config(long seed, Integer mCores, Long duration) {
        Imx8Config config = Imx8Config.of(seed);
        if (mCores != null || duration != null) {
            config = new Imx8Config(
                    seed,
                    mCores != null ? mCores : config.mCores(),
                    duration != null ? duration : config.durationNanos());
        }
        return config;
    }
}
