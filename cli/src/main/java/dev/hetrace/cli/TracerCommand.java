package dev.hetrace.cli;

import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.Ctf2Writer;
import dev.hetrace.ctf.write.CtfVersion;
import dev.hetrace.tracer.c.CSyncHandshake;
import dev.hetrace.tracer.c.CTracer;
import dev.hetrace.tracer.c.CallbackPlatform;
import dev.hetrace.tracer.c.LinuxFilePlatform;
import dev.hetrace.tracer.c.RemoteprocTracePlatform;
import dev.hetrace.tracer.c.RpmsgPlatform;
import dev.hetrace.tracer.c.ShmRingPlatform;
import dev.hetrace.tracer.config.ConfigException;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.config.SyncOption;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import dev.hetrace.tracer.rpmsg.RpmsgFraming;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace tracer}: tracers for bare-metal cores, from barectf configurations. */
@Command(
        name = "tracer",
        mixinStandardHelpOptions = true,
        description = {"Instrument bare-metal cores: tracers generated from barectf configurations."},
        subcommands = {TracerCommand.Generate.class, CommandLine.HelpCommand.class})
final class TracerCommand extends GroupCommand {
    /** {@code hetrace tracer generate}. */
    @Command(
            name = "generate",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Write the C tracer and the CTF metadata of a barectf configuration.",
                "",
                "Reads a barectf configuration (format 3, or format 2) and writes its tracer:",
                "PREFIX.h and PREFIX.c (C99, barectf 3's API: an application and its",
                "platform build against either) and the CTF 1.8 'metadata' file (the trace",
                "class barectf 3.1.1 would describe). PREFIX is the configuration's file name",
                "prefix ('barectf' unless set). The configuration is checked as barectf checks",
                "it; an invalid one gets one error line naming the file, line, column and the",
                "YAML path of the offending value.",
                "",
                "Included files ($include) are searched in the -I directories in order, then",
                "in the current directory (as barectf does), then among the standard partial",
                "configurations (stdint.yaml, stdreal.yaml, stdmisc.yaml,",
                "lttng-ust-log-levels.yaml; format 2: stdint, stdfloat, stdmisc, trace-basic,",
                "lttng-ust-log-levels).",
                "",
                "--platform adds a platform for the default data stream type (else the first):",
                "  linux-file  PREFIX-platform-linux-file.{h,c}: writes its packets to a file",
                "              on Linux (clocks from clock_gettime);",
                "  callback    PREFIX-platform-callback.{h,c}: hands each full packet to your",
                "              function (message queue, DMA, UART...); freestanding, no malloc;",
                "  shm-ring    PREFIX-platform-shm-ring.{h,c}: writes whole packets into a ring",
                "              of slots in shared memory, drained by 'hetrace collect'",
                "              (freestanding), and PREFIX-shm-ring-linux.{h,c}, which maps a",
                "              region file for a producer running on Linux;",
                "  rpmsg       PREFIX-platform-rpmsg.{h,c}: cuts each full packet into",
                "              messages for your send function (rpmsg_send() on OpenAMP),",
                "              read by 'hetrace collect --rpmsg'; freestanding. Messages are",
                "              496 bytes at most (OpenAMP's and Linux's RPMsg payload), or",
                "              --rpmsg-message-size BYTES.",
                "  remoteproc-trace",
                "              PREFIX-platform-remoteproc-trace.{h,c}: writes whole packets",
                "              into the trace buffer the core's resource table declares (the",
                "              source defines both), which Linux shows as",
                "              /sys/kernel/debug/remoteproc/remoteprocN/traceM, read by",
                "              'hetrace collect --remoteproc-trace'; freestanding.",
                "",
                "--ctf-version 2 writes the 'metadata' file in CTF 2 (JSON, as LTTng 2.15 and",
                "babeltrace2 2.1 write it) instead of CTF 1.8; the C code and the data streams",
                "it writes are the same. The default, 1.8, is what barectf writes and what",
                "babeltrace2 2.0 and Trace Compass read.",
                "",
                "--sync adds the sync handshake, whose pairs of events relate the clocks of a",
                "master core and a slave core: the data stream type gets the",
                "event record types hetrace_sync_send and hetrace_sync_recv (payload seq,",
                "core, peer), and PREFIX-sync.{h,c} hold the mailbox the two cores share, the",
                "slave's answer for its interrupt handler and the master's exchange. The data",
                "stream type is the default one, else the only one, or --sync-stream NAME; it",
                "needs a default clock type. In the configuration, 'hetrace: {sync: true}' (or",
                "'hetrace: {sync: {data-stream-type: NAME}}') at the top level does the same;",
                "the options are for configurations that barectf itself must still read.",
                "",
                "Examples:",
                "  hetrace tracer generate config.yaml",
                "  hetrace tracer generate --platform linux-file -o gen/ config.yaml",
                "  hetrace tracer generate --platform callback --sync -o gen/ dsp.yaml",
                "  hetrace tracer generate --platform rpmsg -o gen/ m4.yaml",
                "  hetrace tracer generate --platform remoteproc-trace -o gen/ r5.yaml",
                "  hetrace tracer generate --metadata-only -I partials -o trace/ config.yaml",
                "  hetrace tracer generate --ctf-version 2 --platform linux-file -o gen/ config.yaml"
            },
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {
                "0:the files were written",
                "1:the configuration is invalid, or a file could not be" + " read or written",
                "2:usage error"
            })
    static final class Generate implements Callable<Integer> {
        /** Platforms shipped with the generator. */
        enum Platform {
            linux_file,
            callback,
            shm_ring,
            rpmsg,
            remoteproc_trace
        }

        @Parameters(index = "0", paramLabel = "CONFIG.yaml", description = "The barectf configuration file.")
        Path config;

        @Option(
                names = {"-o", "--output"},
                paramLabel = "DIR",
                description = "Directory to write into (default: the" + " current directory; created if missing).")
        Path output = Path.of(".");

        @Option(
                names = {"-I", "--include-dir"},
                paramLabel = "DIR",
                description =
                        "Add DIR to the directories searched" + " for included files (repeatable; searched in order).")
        List<Path> includeDirs = new ArrayList<>();

        @Option(names = "--metadata-only", description = "Write only the CTF metadata file.")
        boolean metadataOnly;

        @Option(
                names = "--platform",
                paramLabel = "NAME",
                converter = PlatformConverter.class,
                description = "Also write a platform: linux-file, callback, shm-ring, rpmsg or remoteproc-trace.")
        Platform platform;

        @Option(
                names = "--rpmsg-message-size",
                paramLabel = "BYTES",
                description = "With --platform rpmsg: the largest message the link carries, header included"
                        + " (default: 496, the RPMsg payload of 512-byte buffers).")
        Integer rpmsgMessageSize;

        @Option(
                names = "--ctf-version",
                paramLabel = "VERSION",
                converter = CtfVersionConverter.class,
                description = "CTF version of the metadata file: 1.8 (default, as barectf writes it) or 2.")
        CtfVersion ctfVersion = CtfVersion.V1_8;

        @Option(
                names = "--sync",
                description =
                        "Add the sync handshake: its two event record types," + " PREFIX-sync.h and PREFIX-sync.c.")
        boolean sync;

        @Option(
                names = "--sync-stream",
                paramLabel = "NAME",
                description =
                        "The data stream type of the sync"
                                + " handshake's events (implies --sync; default: the default data stream type, else the only one).")
        String syncStream;

        @Option(names = "--debug", description = "Show stack traces of errors.")
        boolean debug;

        @CommandLine.ParentCommand
        TracerCommand tracer;

        @Override
        public Integer call() throws IOException, ConfigException {
            for (Path dir : includeDirs) {
                if (!Files.isDirectory(dir)) {
                    throw CommandFailure.usage("-I " + dir + ": not an existing directory");
                }
            }
            if (metadataOnly && platform != null) {
                throw CommandFailure.usage("--metadata-only and --platform do not go together");
            }
            if (rpmsgMessageSize != null && platform != Platform.rpmsg) {
                throw CommandFailure.usage("--rpmsg-message-size goes with --platform rpmsg");
            }
            int messageSize = rpmsgMessageSize != null ? rpmsgMessageSize : RpmsgFraming.DEFAULT_MESSAGE_SIZE;
            if (messageSize <= RpmsgFraming.HEADER_SIZE || messageSize > RpmsgFraming.MAX_MESSAGE_SIZE) {
                throw CommandFailure.usage("--rpmsg-message-size " + messageSize + ": from "
                        + (RpmsgFraming.HEADER_SIZE + 1) + " to " + RpmsgFraming.MAX_MESSAGE_SIZE
                        + " (the header takes "
                        + RpmsgFraming.HEADER_SIZE + " bytes)");
            }
            List<Path> dirs = new ArrayList<>(includeDirs);
            dirs.add(Path.of("").toAbsolutePath());
            Configuration c = ConfigReader.read(config, dirs);
            c = SyncOption.applyCommandLine(c, sync, Optional.ofNullable(syncStream));
            Map<String, String> files = new LinkedHashMap<>();
            if (!metadataOnly) {
                files.putAll(CTracer.generate(c));
                files.putAll(CSyncHandshake.generate(c));
            }
            if (platform != null) {
                files.putAll(
                        switch (platform) {
                            case linux_file -> LinuxFilePlatform.generate(c);
                            case callback -> CallbackPlatform.generate(c);
                            case shm_ring -> ShmRingPlatform.generate(c);
                            case rpmsg -> RpmsgPlatform.generate(c, messageSize);
                            case remoteproc_trace -> RemoteprocTracePlatform.generate(c);
                        });
            }
            String tsdl = BarectfMetadata.of(c);
            try {
                files.put(
                        "metadata",
                        ctfVersion == CtfVersion.V2 ? Ctf2Writer.rewrite(tsdl.getBytes(StandardCharsets.UTF_8)) : tsdl);
            } catch (MetadataException | Ctf2Writer.Unsupported e) {
                throw CommandFailure.in("the metadata cannot be written as CTF 2", e);
            }
            Files.createDirectories(output);
            for (Map.Entry<String, String> f : files.entrySet()) {
                Files.writeString(output.resolve(f.getKey()), f.getValue(), StandardCharsets.UTF_8);
            }
            return 0;
        }
    }

    /** Platform names as users write them ({@code linux-file}). */
    static final class PlatformConverter implements CommandLine.ITypeConverter<Generate.Platform> {
        @Override
        public Generate.Platform convert(String value) {
            for (Generate.Platform p : Generate.Platform.values()) {
                if (p.name().replace('_', '-').equals(value)) {
                    return p;
                }
            }
            throw new CommandLine.TypeConversionException("unknown platform '" + value
                    + "' (known: linux-file, callback, shm-ring, rpmsg, remoteproc-trace)");
        }
    }
}
