package dev.hetrace.cli;

import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.ctf.write.CtfVersion;
import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.MessageMatcher;
import dev.hetrace.sync.SyncQuality;
import dev.hetrace.sync.SyncResult;
import dev.hetrace.sync.Synchronizer;
import dev.hetrace.sync.Synchronizer.PairSync;
import dev.hetrace.sync.Synchronizer.Report;
import dev.hetrace.sync.Synchronizer.TraceSync;
import dev.hetrace.sync.out.CopyReport;
import dev.hetrace.sync.out.SynchronizedCopy;
import dev.hetrace.sync.out.SynchronizedCopyException;
import java.io.IOException;
import java.io.PrintStream;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace sync}: puts traces from cores with different clocks on one clock. */
@Command(
        name = "sync",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Relate the clocks of several traces from the messages they exchanged.",
            "",
            "A match rule pairs a send event in one trace with a receive event in another by",
            "equal key fields. Each pair of traces that exchanged messages gets the two lines",
            "that bound every clock relation keeping all messages causal (the convex hulls of",
            "the messages in each direction), and a transform between them: the bisector of",
            "their angle (default) or their average (--method average, as Trace Compass).",
            "Traces are then composed along the tree from the reference that accumulates the",
            "least error; traces no match connects are reported, not guessed.",
            "",
            "Per trace it prints: t_ref = slope x t + offset (t in ns as the reader reports",
            "it), the quality, the messages to and from the trace it is related through, the",
            "accuracy bound (the largest distance, over the trace's span, between the chosen",
            "transform and any causal one, the true one included), and the messages the",
            "transforms would make arrive before they left (0 unless the quality is fail).",
            "",
            "Traces whose clocks are one clock (the same UUID, name and frequency: LTTng's",
            "kernel and user-space traces of one host; or both absolute) need no messages:",
            "the same clock value is the same instant, their offsets' difference aside.",
            "",
            "Qualities: same-clock (one clock: exact), accurate (both bounds), approximate",
            "(messages both ways but the slope is free on one side), incomplete (one",
            "direction only: slope 1, offset bounded on one side), fail (no line keeps every",
            "message causal: a wrong rule or a clock jump; the conflicting messages are",
            "named), absent (no match).",
            "",
            "The inputs and the clock options are those of every analysis command: a folder",
            "stands for the traces in it at any depth, 'master' first, then in path order.",
            "",
            "Match rules (--match, repeatable; default: hetrace-sync, rpmsg and tcp):",
            "  hetrace-sync  the sync-pair events of tracers generated with --sync",
            "  rpmsg         RPMsg messages traced on both sides: hetrace_rpmsg_send/_recv,",
            "                the LTTng-UST hetrace_rpmsg:send/recv, Zephyr named events",
            "                rpmsg_send/rpmsg_recv; keyed by (seq, src, dst)",
            "  tcp           LTTng kernel traces: inet_sock_local_out/in, or net_dev_queue/",
            "                netif_receive_skb with the TCP header (lttng-modules >= 2.6)",
            "  messages:SEND,RECEIVE,KEY[+KEY...]",
            "                e.g. messages:msgq_put,msgq_get,queue+msg_id",
            "  FILE.yaml     rules:",
            "                  - name: msgq",
            "                    send: {event: msgq_put, keys: [queue, msg_id]}",
            "                    receive: {event: msgq_get, keys: [queue, msg_id]}",
            "                a side may add when: 'name == \"rpmsg_send\"' and take bits",
            "                of a key field: \"(arg0 >> 16) & 0xffff\"",
            "",
            "Examples:",
            "  hetrace sync master/ dsp0/ dsp1/",
            "  hetrace sync --match messages:msgq_put,msgq_get,msg_id --format json \\",
            "      arm/ dsp*/",
            "  hetrace sync --piecewise 30s master/ dsp0/",
            "  hetrace sim --out board/ && hetrace sync board/",
            "  hetrace sync --out synced/ master/ dsp0/ dsp1/ && babeltrace2 synced/*",
            "  hetrace sync --out synced/ --ctf-version 2 master/ dsp0/   (copies in CTF 2)",
            "",
            "On an interactive terminal, a progress line shows the events read and the messages matched."
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:every trace is on the reference clock without a failed pair (with --apart: the others are warned of)",
            "1:a trace could not be read, a rule is invalid, or some trace is not connected or failed",
            "2:usage error"
        })
final class SyncCommand extends HetraceCommand {
    enum Format {
        text,
        json
    }

    @Parameters(arity = "1..*", paramLabel = "TRACE", description = BoardInput.TRACES_HELP)
    List<Path> inputs = new ArrayList<>();

    @CommandLine.Mixin
    ClockOptions clock = new ClockOptions();

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Also write a synchronized copy of every connected trace into DIR/NAME:"
                    + " any CTF reader, babeltrace2 included, shows the copies on the reference clock, e.g."
                    + " 'babeltrace2 DIR/*'. A linear map rewrites the clocks in the metadata when that is exact to"
                    + " 1 ns over the trace, else the timestamps in the packets. The copies are written into a hidden"
                    + " DIR/.hetrace-sync-* folder and moved into DIR once all are written: a run that fails or is"
                    + " stopped leaves DIR as it was.")
    Path outDir;

    @Option(
            names = "--replace",
            description = "With --out: replace the copies of the same names DIR already holds"
                    + " (without it, a run whose copy would replace a folder or file that is there and not an empty folder is"
                    + " refused; other entries of DIR are left alone).")
    boolean replace;

    @Option(
            names = "--ctf-version",
            paramLabel = "VERSION",
            converter = CtfVersionConverter.class,
            description = "With --out: the CTF version of the copies' metadata: 1.8 (what babeltrace2 2.0 and Trace"
                    + " Compass read) or 2 (JSON, as LTTng 2.15 and babeltrace2 2.1 write it). Default: each trace's own"
                    + " version. The data streams are the same for both.")
    CtfVersion ctfVersion;

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default) or json.")
    Format format = Format.text;

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException, SynchronizedCopyException {
        PrintStream err = main.err;
        List<Path> traces;
        clock.rules(); // a bad rule is told before the traces are looked at
        traces = BoardInput.traces(inputs);
        if (traces.size() < 2) {
            throw CommandFailure.usage(traces.size() + " trace given: synchronizing needs two at least");
        }
        Synchronizer.Options options = clock.clocks(traces).sync();
        Report report;
        boolean interactive = System.console() != null && System.console().isTerminal() && err == System.err;
        boolean[] shown = {false};
        Synchronizer.Progress progress = !interactive
                ? Synchronizer.Progress.NONE
                : (pass, events, matched) -> {
                    err.printf(
                            Locale.ROOT,
                            "\r%s: %,d events read, %,d messages matched",
                            pass == 1 ? "matching" : "checking causality",
                            events,
                            matched);
                    shown[0] = true;
                };
        try {
            report = Synchronizer.run(
                    traces, options, w -> err.println("hetrace: warning: " + TerminalText.guard(w)), progress, false);
        } finally {
            if (shown[0]) {
                err.print("\r\033[K");
            }
        }
        List<String> written = new ArrayList<>();
        if (outDir != null) {
            UnfinishedOutput[] work = {null};
            try {
                written = writeCopies(report, work);
            } catch (IOException | SynchronizedCopyException | RuntimeException e) {
                if (work[0] != null && work[0].aborted()) {
                    throw CommandFailure.silent(130, e); // stopped: the stop said so
                }
                if (!ErrorReport.expected(e)) {
                    throw e; // a bug: told as one
                }
                // the JDK's words for a file ("PATH: reason"): the path is the copy's
                String what = e instanceof FileSystemException f ? f.getMessage() : ErrorLine.of(e);
                if (work[0] == null) {
                    throw CommandFailure.said("--out " + outDir + ": " + what, e);
                }
                // the copies' files as they would have been named
                what = what.replace(work[0].path().toString(), outDir.toString());
                throw CommandFailure.said("--out " + outDir + ": " + what, e)
                        .then(Files.exists(outDir) ? "(" + outDir + " is as it was)" : "(nothing was left behind)");
            }
        }
        String text = format == Format.json ? json(report) : text(report) + String.join("", written);
        print(text);
        // traces not on the reference clock: an error unless --apart, then said as warnings
        String said = clock.apart ? "hetrace: warning: " : "hetrace: ";
        boolean ok = true;
        long matched = report.rules().stream()
                .mapToLong(MessageMatcher.RuleStats::matched)
                .sum();
        long seen = report.rules().stream()
                .mapToLong(r -> r.matched() + r.unmatchedSends() + r.unmatchedReceives())
                .sum();
        boolean connected = report.traces().stream().allMatch(TraceSync::connected);
        if (matched == 0 && !connected) {
            err.println(
                    said + "no message matched: "
                            + (seen == 0
                                    ? "the traces have none of the events the rules name ("
                                            + String.join(
                                                    ", ",
                                                    options.rules().stream()
                                                            .flatMap(r -> r.events().stream())
                                                            .distinct()
                                                            .toList())
                                            + "); say which events are messages with --match"
                                    : "sends and receives were found but no key met its other half; check the rules' key fields"));
            return clock.apart ? 0 : 1;
        }
        for (int i = 0; i < report.traces().size(); i++) {
            Optional<String> why = report.notConnected(i);
            if (why.isPresent()) {
                err.println(said + report.traces().get(i).path() + " is not connected to the reference: " + why.get());
                ok &= clock.apart;
            }
        }
        for (PairSync p : report.pairs()) {
            if (p.result().quality() == SyncQuality.FAIL) {
                // between two traces on the reference clock, a conflict is an error even with --apart
                boolean apart = clock.apart
                        && !(report.traces().get(p.reference()).connected()
                                && report.traces().get(p.other()).connected());
                err.println((apart ? said : "hetrace: ")
                        + report.traces().get(p.other()).path() + " and "
                        + report.traces().get(p.reference()).path() + ": " + conflict(report, p));
                ok &= apart;
            }
        }
        return ok ? 0 : 1;
    }

    private static String conflict(Report report, PairSync p) {
        StringBuilder sb = new StringBuilder(
                "no clock line keeps these messages causal together (a wrong match rule" + " or a clock jump):");
        String ref = report.traces().get(p.reference()).path().toString();
        String other = report.traces().get(p.other()).path().toString();
        for (SyncResult.Message m : p.result().conflict()) {
            sb.append(' ')
                    .append(m.toOther() ? ref + " -> " + other : other + " -> " + ref)
                    .append(" sent at ")
                    .append(m.sendNanos())
                    .append(" received at ")
                    .append(m.receiveNanos())
                    .append(';');
        }
        sb.setLength(sb.length() - 1);
        return sb.toString();
    }

    private static String text(Report report) {
        StringBuilder sb = new StringBuilder();
        TraceSync refTrace = report.traces().get(report.reference());
        sb.append("reference: ").append(refTrace.path()).append('\n');
        for (MessageMatcher.RuleStats s : report.rules()) {
            if (s.matched() + s.unmatchedSends() + s.unmatchedReceives() > 0) {
                sb.append(String.format(
                        Locale.ROOT,
                        "rule %s: %d messages matched, %d sends and %d receives unmatched%s%s%n",
                        s.rule().name(),
                        s.matched(),
                        s.unmatchedSends(),
                        s.unmatchedReceives(),
                        s.repeats() > 0 ? ", " + s.repeats() + " repeated keys ignored" : "",
                        s.sameTrace() > 0 ? ", " + s.sameTrace() + " within one trace ignored" : ""));
            }
        }
        sb.append('\n');
        List<String[]> rows = new ArrayList<>();
        rows.add(
                new String[] {"trace", "slope", "offset (ns)", "quality", "via", "out", "in", "accuracy (ns)", "acausal"
                });
        for (int i = 0; i < report.traces().size(); i++) {
            TraceSync t = report.traces().get(i);
            boolean isRef = i == report.reference();
            boolean pieces = !t.map().linear();
            rows.add(new String[] {
                t.path().toString(),
                isRef || t.connected() ? pieces ? (t.map().knots().length - 1) + " pieces" : slope(t.transform()) : "-",
                isRef || t.connected() ? pieces ? "-" : offset(t.transform()) : "-",
                isRef ? "reference" : t.connected() ? t.quality().label() : "not connected",
                isRef || !t.connected()
                        ? "-"
                        : report.traces().get(t.via()).path().toString(),
                isRef ? "-" : Long.toString(t.matchesOut()),
                isRef ? "-" : Long.toString(t.matchesIn()),
                isRef ? "0" : t.accuracyNanos().map(String::valueOf).orElse("unbounded"),
                Long.toString(t.violations())
            });
        }
        sb.append(TextTable.render(rows, "", c -> c > 0 && c != 3 && c != 4));
        return sb.toString();
    }

    /**
     * The synchronized copies, one per connected trace, named after its directory; a line on each
     * for the text output. They are written into a hidden folder inside {@code outDir} ({@code work[0]}),
     * each copy's metadata kept under another name there so that no reader takes an unfinished
     * copy for a trace, and moved into {@code outDir} once all are written.
     */
    private List<String> writeCopies(Report report, UnfinishedOutput[] work)
            throws IOException, SynchronizedCopyException {
        if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
            throw new IOException("not a directory");
        }
        Map<TraceSync, String> names = new LinkedHashMap<>();
        Set<String> taken = new HashSet<>();
        for (TraceSync t : report.traces()) {
            if (!t.connected()) {
                main.err.println("hetrace: " + t.path() + ": no synchronized copy (not connected to the reference)");
                continue;
            }
            String base = t.path().toAbsolutePath().normalize().getFileName() == null
                    ? "trace"
                    : t.path().toAbsolutePath().normalize().getFileName().toString();
            String name = base;
            for (int k = 2; !taken.add(name) || UnfinishedOutput.isWorkFolder(name, "sync"); k++) {
                name = base + "-" + k;
            }
            names.put(t, name);
        }
        List<Path> present = new ArrayList<>();
        for (String name : names.values()) {
            Path p = outDir.resolve(name);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !emptyFolder(p)) {
                present.add(p);
            }
        }
        if (!present.isEmpty() && !replace) {
            throw new IOException(present.getFirst()
                    + (present.size() > 1 ? " and " + (present.size() - 1) + " more of the copies are" : " is")
                    + " already there: --replace replaces " + (present.size() > 1 ? "them" : "it"));
        }
        List<String> lines = new ArrayList<>();
        lines.add("\nsynchronized copies in " + outDir + " (on the clock of "
                + report.traces().get(report.reference()).path() + "):\n");
        try (UnfinishedOutput out = UnfinishedOutput.begin(outDir, "sync", "copies", main.err, 5_000)) {
            work[0] = out;
            // each copy's metadata, the last file written, keeps another name until the copy is in place
            SynchronizedCopy.Options options =
                    new SynchronizedCopy.Options(null, true).in(ctfVersion).metadataAs(HELD_METADATA);
            for (var e : names.entrySet()) {
                out.check();
                TraceSync t = e.getKey();
                Path target = out.path().resolve(e.getValue());
                CopyReport r = t.map().linear()
                        ? SynchronizedCopy.write(t.path(), t.transform(), target, options)
                        : SynchronizedCopy.write(t.path(), t.map()::apply, target, options);
                lines.add(String.format(
                        Locale.ROOT,
                        "  %s: %s, within %d ns%s%n",
                        outDir.resolve(e.getValue()),
                        r.method() == SynchronizedCopy.Method.METADATA
                                ? "clocks rewritten in the metadata"
                                : "timestamps rewritten in the packets",
                        r.maxErrorNanos(),
                        r.version() == CtfVersion.V2 ? ", metadata in CTF 2" : ""));
            }
            out.check();
            out.commit(() -> {
                for (String name : names.values()) {
                    Path copy = out.path().resolve(name);
                    Files.move(copy.resolve(HELD_METADATA), copy.resolve("metadata"));
                    Path dst = outDir.resolve(name);
                    if (Files.exists(dst, LinkOption.NOFOLLOW_LINKS)) {
                        if (emptyFolder(dst)) {
                            Files.delete(dst);
                        } else {
                            // the one it replaces goes into the work folder, removed with it
                            Files.move(dst, out.path().resolve(".replaced-" + name));
                        }
                    }
                    Files.move(copy, dst, StandardCopyOption.ATOMIC_MOVE);
                }
            });
        }
        return lines;
    }

    /** What a finished copy's metadata is called until the copy is moved into place. */
    private static final String HELD_METADATA = ".metadata-unfinished";

    private static boolean emptyFolder(Path p) throws IOException {
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        try (var entries = Files.list(p)) {
            return entries.findAny().isEmpty();
        }
    }

    /** The slope to 17 significant digits: what a double holds of 1 + (slope − 1). */
    private static String slope(ClockTransform t) {
        return t.slope().round(new MathContext(17)).stripTrailingZeros().toPlainString();
    }

    /** The slope to 24 significant digits: enough to give back slope − 1 exactly as held. */
    private static String fullSlope(ClockTransform t) {
        return t.slope().round(new MathContext(24)).stripTrailingZeros().toPlainString();
    }

    private static String offset(ClockTransform t) {
        return t.offsetNanos().setScale(3, RoundingMode.HALF_EVEN).toPlainString();
    }

    private static String json(Report report) {
        StringBuilder sb = new StringBuilder("{\"reference\":")
                .append(quote(report.traces().get(report.reference()).path()))
                .append(",\"traces\":[");
        for (int i = 0; i < report.traces().size(); i++) {
            TraceSync t = report.traces().get(i);
            boolean isRef = i == report.reference();
            sb.append(i == 0 ? "" : ",")
                    .append("{\"path\":")
                    .append(quote(t.path()))
                    .append(",\"slope\":\"")
                    .append(fullSlope(t.transform()))
                    .append('"')
                    .append(",\"offset_ns\":\"")
                    .append(t.transform().offsetNanos().toPlainString())
                    .append('"')
                    .append(",\"quality\":\"")
                    .append(isRef ? "reference" : t.connected() ? t.quality().label() : "absent")
                    .append('"')
                    .append(",\"via\":")
                    .append(
                            isRef || !t.connected()
                                    ? "null"
                                    : quote(report.traces().get(t.via()).path()))
                    .append(",\"matches_out\":")
                    .append(t.matchesOut())
                    .append(",\"matches_in\":")
                    .append(t.matchesIn())
                    .append(",\"accuracy_ns\":")
                    .append(isRef ? "0" : t.accuracyNanos().map(String::valueOf).orElse("null"))
                    .append(",\"causality_violations\":")
                    .append(t.violations());
            if (!t.map().linear()) {
                // the map's knots: (time on the trace, time on the reference), in ns
                long[] k = t.map().knots();
                long[] v = t.map().values();
                sb.append(",\"pieces\":[");
                for (int j = 0; j < k.length; j++) {
                    sb.append(j == 0 ? "" : ",")
                            .append('[')
                            .append(k[j])
                            .append(',')
                            .append(v[j])
                            .append(']');
                }
                sb.append(']');
            }
            sb.append('}');
        }
        sb.append("]}\n");
        return sb.toString();
    }

    private static String quote(Path p) {
        return TextTable.quote(p.toString());
    }

    /** A duration: a number and a unit (ns, us, ms, s, min, h); a bare number is in seconds. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            Matcher m = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s|m|min|h)?")
                    .matcher(value.strip());
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration (e.g. 30s, 500ms, 10min)");
            }
            double unit = switch (m.group(2) == null ? "s" : m.group(2)) {
                case "ns" -> 1;
                case "us", "µs" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m", "min" -> 60e9;
                default -> 3600e9;
            };
            double ns = Double.parseDouble(m.group(1)) * unit;
            if (ns < 1 || ns > 1e18) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration between 1 ns and 30 years");
            }
            return (long) ns;
        }
    }
}
