package dev.hetrace.cli;

import dev.hetrace.ctf.text.TerminalText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What hetrace's subcommands share: the streams of the {@code hetrace} command they run under,
 * {@code --debug}, and the one-line report of an error (with its stack trace only under
 * {@code --debug}).
 */
abstract class HetraceCommand implements Callable<Integer> {
    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @CommandLine.ParentCommand
    Main main;

    /** Writes {@code text} to the command's output (no control character but line feeds and tabs: see TerminalText); returns exit status 0, or 1 when it cannot be written. */
    int print(String text) {
        try {
            main.out.write(TerminalText.guard(text).getBytes(StandardCharsets.UTF_8));
            main.out.flush();
            return 0;
        } catch (IOException e) {
            main.err.println("hetrace: " + ErrorLine.output(e));
            if (debug) {
                e.printStackTrace(main.err);
            }
            return 1;
        }
    }

    /** Reports {@code e} in one line (its stack trace too with --debug); returns exit status 1 (2 for a usage error). */
    int fail(Exception e) {
        if (e instanceof CommandLine.ParameterException p) {
            throw p; // a usage error found while running (a --reference not among the traces): exit status 2
        }
        main.err.println("hetrace: " + ErrorLine.of(e));
        if (debug) {
            e.printStackTrace(main.err);
        }
        return 1;
    }
}
