package dev.hetrace.cli;

import dev.hetrace.ctf.text.TerminalText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * What hetrace's subcommands share: the streams of the {@code hetrace} command they run under,
 * and {@code --debug}. Their errors are thrown, and told by {@link ErrorReport}.
 */
abstract class HetraceCommand implements Callable<Integer> {
    @Option(names = "--debug", description = "Show stack traces of errors.")
    boolean debug;

    @ParentCommand
    Main main;

    /** Writes {@code text} to the command's output (no control character but line feeds and tabs: see TerminalText); returns exit status 0. */
    int print(String text) throws IOException {
        write(main, text);
        return 0;
    }

    /** Writes {@code text} to {@code main}'s output, a failure said as one to write the output. */
    static void write(Main main, String text) throws IOException {
        try {
            main.out.write(TerminalText.guard(text).getBytes(StandardCharsets.UTF_8));
            main.out.flush();
        } catch (IOException e) {
            throw ErrorLine.output(e);
        }
    }
}
