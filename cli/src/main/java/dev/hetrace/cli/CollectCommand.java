package dev.hetrace.cli;

import dev.hetrace.ctf.FileFailure;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.tracer.config.ConfigException;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.SyncOption;
import dev.hetrace.tracer.rpmsg.FirstPacketMetadata;
import dev.hetrace.tracer.rpmsg.RemoteprocTraceCollector;
import dev.hetrace.tracer.rpmsg.RpmsgCollector;
import dev.hetrace.tracer.rpmsg.RpmsgException;
import dev.hetrace.tracer.rpmsg.RpmsgSyncMaster;
import dev.hetrace.tracer.shm.CollectMetadata;
import dev.hetrace.tracer.shm.ShmCollector;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code hetrace collect}: drains shm-ring regions, or reads an rpmsg device or a remoteproc trace
 * buffer, into a CTF trace while the producers run.
 */
@Command(
        name = "collect",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Drain the shm-ring regions of running cores, or read the RPMsg messages or the",
            "remoteproc trace buffer of a core, into a CTF trace.",
            "",
            "Each FILE is the shared-memory region of one core (e.g. in /dev/shm), written by",
            "a tracer generated with 'hetrace tracer generate --platform shm-ring'. The",
            "collector maps the regions, waits for their producers to initialize them, and",
            "appends each packet they publish to a stream file of TRACEDIR named after the",
            "region file, with one write per whole packet: the trace on disk reads cleanly",
            "up to its last packet at every moment, even if the collector is killed. Up to",
            "one thread per core (at most 4, or --threads) drains the regions.",
            "",
            "A region file that does not exist is an error, unless --wait is given: then the",
            "collector says once which regions it waits for and waits until their producers",
            "create them.",
            "",
            "Each slot is checked before it is written: its packet header and context must",
            "read as a packet of the trace (the CTF magic, a stream the metadata declares,",
            "the trace UUID if the header holds one, packet and content sizes that agree",
            "and fill the slot). A slot that does not is refused: given back to the",
            "producer, not written, counted; the trace holds only whole, valid packets.",
            "",
            "TRACEDIR must not be, or hold, a region, the metadata or configuration file or",
            "an -I directory, and no file written in it may be one of them (paths compared",
            "as the file system resolves them: links, '..', hard links, bind mounts): such",
            "a command is refused before anything is written.",
            "",
            "It stops when every producer has said it is done, or on Ctrl-C (the packets",
            "being written are finished first), then prints packets, bytes, events",
            "discarded and slots refused per core. While it runs, a progress line is shown",
            "every second when the terminal is interactive.",
            "",
            "The metadata comes from the tracer's 'metadata' file (--metadata) or from its",
            "configuration (--config; an 'auto' UUID is taken from the producers; add",
            "--sync or --sync-stream as given to 'hetrace tracer generate').",
            "",
            "Remove stale region files before starting the producers and the collector.",
            "",
            "--rpmsg DEVICE reads the messages of a core whose tracer was generated with",
            "'--platform rpmsg' (e.g. a Cortex-M started by remoteproc) from its",
            "rpmsg_char device (/dev/rpmsgN) or rpmsg_tty (/dev/ttyRPMSGN; put in raw mode",
            "first, so that no byte is translated). Each message's header lets the",
            "collector find it in a byte stream, reassemble the packets and see gaps: each",
            "whole packet is checked as a slot is, then appended with one write to the",
            "stream file named after the device. It stops at the end of the input (end of",
            "file, or the tty hung up) or on Ctrl-C, every whole packet received written;",
            "then it prints messages, packets and bytes written, messages and packets lost",
            "(gaps in their numbers, packets missing a part), packets refused and bytes",
            "that were no message. A loss is also said on a line of its own, with exit",
            "status 3.",
            "",
            "--sync-every DURATION (with --rpmsg) makes the collector the master of the sync",
            "handshake on the same endpoint, for a link with no traced application messages",
            "to pair: whenever the link has been idle that long (no message and no answer",
            "received), it sends a sync request, which the firmware answers with the",
            "generated PREFIX_sync_rpmsg_answer() called first in its endpoint callback. The",
            "answers are told from the trace messages by their magic. When it stops, the",
            "collector writes its own hetrace_sync_send/recv events into the trace",
            "TRACEDIR-linux beside TRACEDIR, on CLOCK_MONOTONIC (the clock of LTTng's",
            "traces), and prints how many requests were answered; 'hetrace sync' then puts",
            "the core's trace on that clock.",
            "",
            "--remoteproc-trace FILE reads the trace buffer of a core whose tracer was",
            "generated with '--platform remoteproc-trace', as Linux shows it",
            "(/sys/kernel/debug/remoteproc/remoteprocN/traceM; debugfs, so as root). The",
            "collector waits for the core to initialize the buffer, then reads the whole",
            "file again every 10 ms (--poll-interval MS), takes the slots written since its",
            "last read, reassembles the packets and appends each whole one, checked as a",
            "slot is, to the stream file named after FILE. The core overwrites its oldest",
            "slots: those it overwrote before they were read are counted as lost, and so",
            "are their packets. It stops when the core says it is done and every slot was",
            "read, when FILE goes away (remoteproc stopped the core), or on Ctrl-C or",
            "SIGTERM; then it prints slots, packets and bytes written, slots and packets",
            "lost and packets refused. A loss is also said on a line of its own, with exit",
            "status 3.",
            "",
            "Examples:",
            "  hetrace collect --shm /dev/shm/dsp0 /dev/shm/dsp1 --config dsp.yaml -o trace",
            "  hetrace collect --shm /dev/shm/core* --metadata gen/metadata -o trace",
            "  hetrace collect --rpmsg /dev/ttyRPMSG0 --metadata gen/metadata -o trace",
            "  hetrace collect --rpmsg /dev/rpmsg0 --sync-every 100ms --metadata gen/metadata -o m4",
            "      # then: hetrace sync m4-linux m4",
            "  hetrace collect --remoteproc-trace /sys/kernel/debug/remoteproc/remoteproc0/trace0 \\",
            "      --metadata gen/metadata -o trace"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every producer finished (or Ctrl-C) and its packets were written",
            "1:a region (without --wait), the rpmsg device or the trace file is missing, a region is invalid, the device gave bytes but no message or the trace file no trace buffer, the metadata or configuration is invalid, or a file could not be read or written",
            "2:usage error, or TRACEDIR is or holds an input",
            "3:the trace was written, but slots or packets that held no valid packet were refused, or (--rpmsg) messages"
                    + " or (--remoteproc-trace) slots were lost (the last lines say how many)"
        })
final class CollectCommand extends HetraceCommand {
    @ArgGroup(exclusive = true, multiplicity = "1")
    Input input;

    static final class Input {
        @Option(
                names = "--shm",
                arity = "1..*",
                required = true,
                paramLabel = "FILE",
                description = "shm-ring region files, one per core (their names name the stream files).")
        List<Path> regions;

        @Option(
                names = "--rpmsg",
                required = true,
                paramLabel = "DEVICE",
                description = "The rpmsg_char device (/dev/rpmsgN) or rpmsg_tty (/dev/ttyRPMSGN) of a core whose"
                        + " tracer has the rpmsg platform (its name names the stream file).")
        Path rpmsg;

        @Option(
                names = "--remoteproc-trace",
                required = true,
                paramLabel = "FILE",
                description = "The trace buffer file (/sys/kernel/debug/remoteproc/remoteprocN/traceM) of a core whose"
                        + " tracer has the remoteproc-trace platform (its name names the stream file).")
        Path remoteprocTrace;
    }

    @Option(
            names = {"-o", "--out"},
            required = true,
            paramLabel = "TRACEDIR",
            description = "The trace directory to write (created if missing; its stream files are replaced). It must"
                    + " not be or hold an input.")
    Path out;

    @ArgGroup(exclusive = true, multiplicity = "1")
    MetadataFrom metadataFrom;

    static final class MetadataFrom {
        @Option(
                names = "--metadata",
                required = true,
                paramLabel = "FILE",
                description = "The CTF metadata file the generator wrote for the producers' tracer.")
        Path metadata;

        @Option(
                names = "--config",
                required = true,
                paramLabel = "CONFIG.yaml",
                description = "The barectf configuration the producers' tracer was generated from.")
        Path config;
    }

    @Option(
            names = "--wait",
            description =
                    "Wait for region files that do not exist yet (their producers create them), saying once which.")
    boolean waitForRegions;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description =
                    "Drain with N threads at most, each region by one of them (default: one per core, at most 4).")
    Integer threads;

    @Option(
            names = "--poll-interval",
            paramLabel = "MS",
            description = "With --remoteproc-trace: read the file again every MS milliseconds (default: 10).")
    Long pollInterval;

    @Option(
            names = "--sync-every",
            paramLabel = "DURATION",
            converter = SyncCommand.DurationConverter.class,
            description = "With --rpmsg: run the sync handshake over the endpoint whenever the link has been idle"
                    + " this long (e.g. 100ms, 1s), and write the collector's own sync events into the trace"
                    + " TRACEDIR-linux.")
    Long syncEvery;

    @Option(
            names = {"-I", "--include-dir"},
            paramLabel = "DIR",
            description = "With --config: add DIR to the directories searched for included files.")
    List<Path> includeDirs = new ArrayList<>();

    @Option(names = "--sync", description = "With --config: the tracer was generated with --sync.")
    boolean sync;

    @Option(
            names = "--sync-stream",
            paramLabel = "NAME",
            description = "With --config: the tracer was generated with --sync-stream NAME.")
    String syncStream;

    @Override
    public Integer call() throws IOException, ConfigException {
        PrintStream err = main.err;
        for (Path dir : includeDirs) {
            if (!Files.isDirectory(dir)) {
                throw CommandFailure.usage("-I " + dir + ": not an existing directory");
            }
        }
        if ((sync || syncStream != null) && metadataFrom.config == null) {
            throw CommandFailure.usage(
                    "--sync and --sync-stream go with --config (the metadata file already has the" + " sync events)");
        }
        if (threads != null && threads < 1) {
            throw CommandFailure.usage("--threads " + threads + ": at least 1");
        }
        if (pollInterval != null && input.remoteprocTrace == null) {
            throw CommandFailure.usage("--poll-interval goes with --remoteproc-trace");
        }
        if (pollInterval != null && (pollInterval < 1 || pollInterval > 60_000)) {
            throw CommandFailure.usage("--poll-interval " + pollInterval + ": from 1 to 60000 milliseconds");
        }
        if (syncEvery != null && input.rpmsg == null) {
            throw CommandFailure.usage("--sync-every goes with --rpmsg");
        }
        if (syncEvery != null && syncEvery < 1_000_000L) {
            throw CommandFailure.usage("--sync-every: at least 1ms");
        }
        if (input.rpmsg != null || input.remoteprocTrace != null) {
            if (waitForRegions || threads != null) {
                throw CommandFailure.usage("--wait and --threads go with --shm");
            }
            return input.rpmsg != null ? collectRpmsg(input.rpmsg) : collectRemoteprocTrace(input.remoteprocTrace);
        }
        List<Path> regions = input.regions;
        int drainThreads = threads != null ? threads : ShmCollector.defaultThreads();
        ShmCollector.MetadataSource source;
        List<Path> inputs = new ArrayList<>(includeDirs);
        inputs.add(metadataFrom.metadata != null ? metadataFrom.metadata : metadataFrom.config);
        if (metadataFrom.metadata != null) {
            Path file = metadataFrom.metadata;
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                throw FileFailure.of("read", file, e);
            }
            // checked as text (one char per byte), copied as the bytes it is
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            source = new ShmCollector.MetadataSource() {
                @Override
                public String metadata(UUID uuid) throws IOException {
                    return CollectMetadata.fromFile(text, file, uuid);
                }

                @Override
                public byte[] bytes(UUID uuid) throws IOException {
                    CollectMetadata.fromFile(text, file, uuid);
                    return bytes;
                }
            };
        } else {
            Configuration config = configuration();
            Path file = metadataFrom.config;
            source = uuid -> CollectMetadata.fromConfig(config, file, uuid);
        }
        ShmCollector collector;
        try {
            collector = new ShmCollector(
                    regions,
                    inputs,
                    out,
                    source,
                    waitForRegions
                            ? region -> err.println("hetrace: " + region + ": waiting for its producer to create it")
                            : null);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage(), e); // refused before collecting: the command line is at fault
        }
        // Ctrl-C: the hook asks the collector to stop after its current packets and waits for it to close its files
        boolean progress = showProgress();
        try (StopHook hook = new StopHook(collector::stop);
                collector) {
            collector.run(
                    progress ? stats -> err.print("\r" + progressLine(stats)) : null,
                    TimeUnit.SECONDS.toNanos(1),
                    drainThreads);
            if (progress) {
                err.print("\r\033[K");
            }
            return summary(collector.stats());
        }
    }

    /** The configuration of --config, with --sync and --sync-stream applied. */
    private Configuration configuration() throws IOException, ConfigException {
        List<Path> dirs = new ArrayList<>(includeDirs);
        dirs.add(Path.of("").toAbsolutePath());
        return SyncOption.applyCommandLine(
                ConfigReader.read(metadataFrom.config, dirs), sync, Optional.ofNullable(syncStream));
    }

    /** Reads the messages of an rpmsg device until its input ends or Ctrl-C; returns the exit status. */
    private int collectRpmsg(Path device) throws IOException, ConfigException {
        List<Path> inputs = new ArrayList<>(includeDirs);
        FirstPacketMetadata source = firstPacketMetadata(inputs);
        RpmsgCollector collector;
        Path syncTrace = syncEvery == null ? null : syncTraceDir();
        try {
            collector = new RpmsgCollector(device, inputs, out, source, syncEvery == null ? 0 : syncEvery, syncTrace);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage(), e);
        }
        main.err.println("hetrace: " + device + ": reading (Ctrl-C to stop)");
        try (StopHook hook = new StopHook(collector::stop);
                collector) {
            runShowing(collector::run, () -> rpmsgLine(collector.stats()));
            int status = rpmsgSummary(device, collector.stats());
            collector.close(); // writes the master's trace (before the hook lets a Ctrl-C end the process)
            if (syncTrace != null) {
                RpmsgSyncMaster.Stats st = collector.syncStats();
                String line = "%s: sync: %d requests, %d answered%s%s%n"
                        .formatted(
                                device,
                                st.requests(),
                                st.answered(),
                                st.late() > 0 ? " (" + st.late() + " after the next request)" : "",
                                st.answered() > 0 ? "; the collector's events in " + syncTrace : "");
                main.out.write(TerminalText.guard(line).getBytes(StandardCharsets.UTF_8));
                main.out.flush();
            }
            return status;
        }
    }

    /**
     * TRACEDIR-linux, beside TRACEDIR: the collector's sync events. Refused when it exists and is
     * not a directory, or holds files other than a previous run's.
     */
    private Path syncTraceDir() throws IOException {
        Path abs = out.toAbsolutePath().normalize();
        Path dir = abs.resolveSibling(abs.getFileName() + "-linux");
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                throw CommandFailure.usage(
                        dir + ": exists and is not a directory (the collector's sync trace goes there)");
            }
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    if (!name.equals("metadata") && !name.equals("stream")) {
                        throw CommandFailure.usage(dir + ": holds " + name
                                + ", which is no sync trace the collector wrote: remove it first");
                    }
                    Files.delete(f);
                }
            }
        }
        return dir;
    }

    /** Reads a remoteproc trace buffer until its core is done, it goes away, or Ctrl-C; returns the exit status. */
    private int collectRemoteprocTrace(Path file) throws IOException, ConfigException {
        List<Path> inputs = new ArrayList<>(includeDirs);
        FirstPacketMetadata source = firstPacketMetadata(inputs);
        RemoteprocTraceCollector collector;
        try {
            collector = new RemoteprocTraceCollector(
                    file,
                    inputs,
                    out,
                    source,
                    pollInterval != null
                            ? TimeUnit.MILLISECONDS.toNanos(pollInterval)
                            : RemoteprocTraceCollector.DEFAULT_PERIOD_NANOS);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage(), e);
        }
        main.err.println("hetrace: " + file + ": reading (Ctrl-C to stop)");
        try (StopHook hook = new StopHook(collector::stop);
                collector) {
            runShowing(collector::run, () -> remoteprocLine(collector.stats()));
            return remoteprocSummary(collector);
        }
    }

    /** The metadata of --metadata or --config (added to {@code inputs}), for a collector that makes it from its first packet. */
    private FirstPacketMetadata firstPacketMetadata(List<Path> inputs) throws IOException, ConfigException {
        if (metadataFrom.metadata != null) {
            Path file = metadataFrom.metadata;
            inputs.add(file);
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(file);
            } catch (IOException e) {
                throw FileFailure.of("read", file, e);
            }
            // the packet's UUID is checked against the metadata by each packet's check
            return first -> bytes;
        }
        Configuration config = configuration();
        Path file = metadataFrom.config;
        inputs.add(file);
        return first -> CollectMetadata.fromConfig(config, file, CollectMetadata.packetUuid(config, first))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** What a collector does until it ends by itself or is stopped. */
    @FunctionalInterface
    private interface Collecting {
        void run() throws IOException;
    }

    /**
     * Ctrl-C (a shutdown hook) calls a collector's stop, which makes its run return once the
     * packets being written are written, then waits until this is closed: after the summary
     * and the collector's own close, so no file is left half-written.
     */
    private static final class StopHook implements AutoCloseable {
        private final CountDownLatch closed = new CountDownLatch(1);
        private final Thread hook;

        StopHook(Runnable stop) {
            hook = new Thread(
                    () -> {
                        stop.run();
                        try {
                            closed.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "hetrace-collect-stop");
            Runtime.getRuntime().addShutdownHook(hook);
        }

        @Override
        public void close() {
            closed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook is running and now returns
            }
        }
    }

    /** Whether to show a progress line: stderr is an interactive terminal. */
    private boolean showProgress() {
        return System.console() != null && System.console().isTerminal() && main.err == System.err;
    }

    /** Runs {@code collecting}, showing {@code line} every second when the terminal is interactive. */
    private void runShowing(Collecting collecting, Supplier<String> line) throws IOException {
        PrintStream err = main.err;
        Thread shower = showProgress()
                ? Thread.ofPlatform().daemon().name("hetrace-collect-progress").start(() -> {
                    try {
                        while (true) {
                            Thread.sleep(1000);
                            err.print("\r" + line.get());
                        }
                    } catch (InterruptedException e) {
                        // done
                    }
                })
                : null;
        collecting.run();
        if (shower != null) {
            shower.interrupt();
            err.print("\r\033[K");
        }
    }

    private static String remoteprocLine(RemoteprocTraceCollector.Stats s) {
        return "%d slots, %d packets, %d bytes; lost: %d slots, %d packets; %d packets refused"
                .formatted(s.slots(), s.packets(), s.bytes(), s.slotsLost(), s.packetsLost(), s.packetsRefused());
    }

    /** Prints the summary; returns the exit status: 3 if anything was lost or refused. */
    private int remoteprocSummary(RemoteprocTraceCollector collector) throws IOException {
        Path file = collector.file();
        RemoteprocTraceCollector.Stats s = collector.stats();
        String line = file + ": " + remoteprocLine(s)
                + (s.partialAtEnd() > 0
                        ? "; the input ended " + s.partialAtEnd() + " bytes into a packet, which was not written"
                        : "")
                + (s.started() && !s.done() ? " (core not done)" : "")
                + System.lineSeparator();
        main.out.write(TerminalText.guard(line).getBytes(StandardCharsets.UTF_8));
        main.out.flush();
        if (!s.started() && collector.readBytes()) {
            throw new RpmsgException(
                    file,
                    "no trace buffer of a tracer in what was read: is it the trace of a core whose tracer was"
                            + " generated with --platform remoteproc-trace?");
        }
        int status = 0;
        if (s.slotsLost() > 0 || s.packetsLost() > 0) {
            main.err.println("hetrace: %s: %d slot%s overwritten before they were read: %d packet%s not written"
                    .formatted(
                            file,
                            s.slotsLost(),
                            s.slotsLost() == 1 ? "" : "s",
                            s.packetsLost(),
                            s.packetsLost() == 1 ? "" : "s"));
            status = 3;
        }
        return refused(file, s.packetsRefused(), s.firstRefusal()) ? 3 : status;
    }

    /** Says that {@code refused} packets read from {@code where} were not written (the first: why); whether any were. */
    private boolean refused(Path where, long refused, String first) {
        if (refused == 0) {
            return false;
        }
        main.err.println("hetrace: %s: %d packet%s refused: they are no packet of this trace and were not written"
                        .formatted(where, refused, refused == 1 ? "" : "s")
                + " (first: " + first + ")");
        return true;
    }

    private static String rpmsgLine(RpmsgCollector.Stats s) {
        return "%d messages, %d packets, %d bytes; lost: %d messages, %d packets; %d packets refused, %d bytes skipped"
                .formatted(
                        s.messages(),
                        s.packets(),
                        s.bytes(),
                        s.messagesLost(),
                        s.packetsLost(),
                        s.packetsRefused(),
                        s.bytesSkipped());
    }

    /** Prints the summary; returns the exit status: 3 if anything was lost or refused. */
    private int rpmsgSummary(Path device, RpmsgCollector.Stats s) throws IOException {
        String line = device + ": " + rpmsgLine(s)
                + (s.partialAtEnd() > 0
                        ? "; the input ended " + s.partialAtEnd() + " bytes into a packet, which was not written"
                        : "")
                + System.lineSeparator();
        main.out.write(TerminalText.guard(line).getBytes(StandardCharsets.UTF_8));
        main.out.flush();
        if (s.messages() == 0 && s.bytesSkipped() > 0) {
            throw new RpmsgException(
                    device,
                    "no message of an rpmsg tracer in the " + s.bytesSkipped()
                            + " bytes read: is it the endpoint of a tracer generated with --platform rpmsg?");
        }
        int status = 0;
        if (s.messagesLost() > 0 || s.packetsLost() > 0) {
            main.err.println("hetrace: %s: %d message%s lost on the way (sequence gaps): %d packet%s not written"
                    .formatted(
                            device,
                            s.messagesLost(),
                            s.messagesLost() == 1 ? "" : "s",
                            s.packetsLost(),
                            s.packetsLost() == 1 ? "" : "s"));
            status = 3;
        }
        return refused(device, s.packetsRefused(), s.firstRefusal()) ? 3 : status;
    }

    private static String progressLine(List<ShmCollector.RingStats> stats) {
        long packets = 0;
        long bytes = 0;
        long discarded = 0;
        long refused = 0;
        int attached = 0;
        for (ShmCollector.RingStats s : stats) {
            refused += s.refused();
            packets += s.packets();
            bytes += s.bytes();
            discarded += s.eventsDiscarded();
            attached += s.attached() ? 1 : 0;
        }
        return "%d/%d cores: %d packets, %d bytes, %d events discarded, %d slots refused"
                .formatted(attached, stats.size(), packets, bytes, discarded, refused);
    }

    /** Prints the summary; returns the exit status: 3 if slots were refused. */
    private int summary(List<ShmCollector.RingStats> stats) throws IOException {
        StringBuilder s = new StringBuilder();
        long refused = 0;
        String first = null;
        for (ShmCollector.RingStats r : stats) {
            if (!r.attached()) {
                s.append("%s: no producer seen%n".formatted(r.region()));
            } else {
                s.append("%s: core %d: %d packets, %d bytes, %d events discarded, %d slots refused%s%n"
                        .formatted(
                                r.region(),
                                r.coreId(),
                                r.packets(),
                                r.bytes(),
                                r.eventsDiscarded(),
                                r.refused(),
                                r.done() ? "" : " (producer not done)"));
            }
            if (first == null && r.firstRefusal() != null) {
                first = r.region() + ": " + r.firstRefusal();
            }
            refused += r.refused();
        }
        main.out.write(TerminalText.guard(s.toString()).getBytes(StandardCharsets.UTF_8));
        main.out.flush();
        if (refused == 0) {
            return 0;
        }
        main.err.println("hetrace: %d slot%s refused: they held no valid packet of this trace and were not written"
                        .formatted(refused, refused == 1 ? "" : "s")
                + " (first: " + first + ")");
        return 3;
    }
}
