package dev.hetrace.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;

/** A command that only groups subcommands ({@code hetrace tracer}, {@code hetrace profile}): alone, its usage. */
abstract class GroupCommand implements Callable<Integer> {
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
