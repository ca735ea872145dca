package dev.hetrace.cli;

import dev.hetrace.ctf.text.TerminalText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What {@code hetrace profile}'s subcommands share: {@link HetraceCommand}'s output and one-line
 * errors, reached through the {@code profile} command they run under (picocli injects a parent
 * command only into a field of its own type, so {@link HetraceCommand#main} cannot be reused).
 */
abstract class ProfileSubcommand implements Callable<Integer> {
    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @CommandLine.ParentCommand
    ProfileCommand profile;

    Main main() {
        return profile.main;
    }

    /** Writes {@code text} to the command's output; returns exit status 0, or 1 when it cannot be written. */
    int print(String text) {
        try {
            main().out.write(TerminalText.guard(text).getBytes(StandardCharsets.UTF_8));
            main().out.flush();
            return 0;
        } catch (IOException e) {
            return fail(new IOException(ErrorLine.output(e), e));
        }
    }

    /** Reports {@code e} in one line (its stack trace too with --debug); returns exit status 1. */
    int fail(Exception e) {
        main().err.println("hetrace: " + ErrorLine.of(e));
        if (debug) {
            e.printStackTrace(main().err);
        }
        return 1;
    }
}
