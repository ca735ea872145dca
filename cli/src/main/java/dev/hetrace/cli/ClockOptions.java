package dev.hetrace.cli;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.sync.ConvexHullSync;
import dev.hetrace.sync.MatchRule;
import dev.hetrace.sync.MatchRules;
import dev.hetrace.sync.Synchronizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * How several traces are put on one clock (a picocli mixin): the options {@code hetrace sync} and
 * every analysis command share, so that an analysis sees the traces on the clock {@code sync}
 * reports for the same options.
 */
final class ClockOptions {
    enum MethodName {
        bisector,
        average
    }

    @Option(
            names = "--match",
            paramLabel = "RULES",
            description =
                    "Match rules: " + MatchRules.SPEC_HELP + " (repeatable; default: hetrace-sync, rpmsg and tcp).")
    List<String> match = new ArrayList<>();

    @Option(
            names = "--piecewise",
            paramLabel = "DURATION",
            converter = SyncCommand.DurationConverter.class,
            description = "Follow drift that changes (temperature, frequency scaling): a piece per stretch of"
                    + " at most DURATION (e.g. 30s, 500ms, 10min) of each trace, ending where the drift changes, joined"
                    + " into one continuous map that keeps every message causal.")
    long piecewiseNanos;

    @Option(names = "--reference", paramLabel = "TRACE", description = "The reference trace (default: the first).")
    Path reference;

    @Option(names = "--method", paramLabel = "METHOD", description = "bisector (default) or average.")
    MethodName method = MethodName.bisector;

    @Option(
            names = "--apart",
            description =
                    "A trace that cannot be put on the reference clock is not an error: analyses take it on its own"
                            + " clock, its first event placed at the reference's first (times across it and the others then mean"
                            + " nothing); sync reports it and exits 0.")
    boolean apart;

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    /** The match rules: --match, else {@link MatchRules#DEFAULT}. */
    List<MatchRule> rules() throws IOException {
        if (match.isEmpty()) {
            return MatchRules.DEFAULT;
        }
        List<MatchRule> rules = new ArrayList<>();
        for (String m : match) {
            rules.addAll(MatchRules.parse(m));
        }
        return rules;
    }

    /** How {@code traces} are put on one clock; a usage error when --reference is not one of them. */
    StateBuilder.Clocks clocks(List<Path> traces) throws IOException {
        return new StateBuilder.Clocks(
                new Synchronizer.Options(
                        rules(),
                        method == MethodName.average ? ConvexHullSync.Method.AVERAGE : ConvexHullSync.Method.BISECTOR,
                        reference(traces),
                        piecewiseNanos),
                apart);
    }

    private int reference(List<Path> traces) {
        if (reference == null) {
            return 0;
        }
        int ref = traces.indexOf(reference);
        if (ref < 0) {
            ref = traces.stream()
                    .map(p -> p.toAbsolutePath().normalize())
                    .toList()
                    .indexOf(reference.toAbsolutePath().normalize());
        }
        if (ref < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--reference " + reference + ": not one of the traces given");
        }
        return ref;
    }
}
