package dev.hetrace.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * What {@code hetrace profile}'s subcommands share: {@link HetraceCommand}'s output, reached
 * through the {@code profile} command they run under (picocli injects a parent command only into
 * a field of its own type, so {@link HetraceCommand#main} cannot be reused). Their errors are
 * thrown, and told by {@link ErrorReport}.
 */
abstract class ProfileSubcommand implements Callable<Integer> {
    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @ParentCommand
    ProfileCommand profile;

    Main main() {
        return profile.main;
    }

    /** Writes {@code text} to the command's output; returns exit status 0. */
    int print(String text) throws IOException {
        HetraceCommand.write(main(), text);
        return 0;
    }
}
