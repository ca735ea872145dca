package dev.hetrace.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code hetrace profile}: interference campaigns and hardware counters (docs/profiling.md). */
@Command(name = "profile", mixinStandardHelpOptions = true,
    description = {"Measure timing interference and hardware counters: campaigns of runs, their",
        "statistics, counter plans and reports (docs/profiling.md)."},
    subcommands = {ProfileImportCommand.class, ProfilePlanCommand.class, ProfileStatsCommand.class,
        ProfileReportCommand.class, CommandLine.HelpCommand.class})
final class ProfileCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.ParentCommand
    Main main;

    /** Without a subcommand: the usage, and the status of a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(main.err);
        return 2;
    }
}
