package dev.hetrace.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code hetrace profile}: interference campaigns and hardware counters. */
@Command(
        name = "profile",
        mixinStandardHelpOptions = true,
        description = {
            "Measure timing interference and hardware counters: a workload's runtime and counters",
            "under perf, alone or against stressing co-runners on other cores (run, sweep); imported",
            "measurements; their statistics, counter plans and reports."
        },
        subcommands = {
            ProfileRunCommand.class,
            ProfileSweepCommand.class,
            ProfileImportCommand.class,
            ProfilePlanCommand.class,
            ProfileStatsCommand.class,
            ProfileReportCommand.class,
            CommandLine.HelpCommand.class
        })
final class ProfileCommand extends GroupCommand {}
