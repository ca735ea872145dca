package dev.hetrace.cli;

import dev.hetrace.ctf.MappedFiles;
import dev.hetrace.ctf.text.TerminalText;
import dev.hetrace.profile.ProfileException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * How every command's failure is told: one line on standard error and an exit status, whatever
 * the command. Bad input (a trace, a file, an option's value) is said with its chain of causes
 * ({@link ErrorLine}): "hetrace: WHAT: WHERE", status 1 (2 for a usage error). Anything else is a
 * bug in hetrace: "hetrace COMMAND: internal error: ...". The stack trace follows only under
 * {@code --debug}.
 */
final class ErrorReport implements IExecutionExceptionHandler, IParameterExceptionHandler {
    private final PrintStream err;

    ErrorReport(PrintStream err) {
        this.err = err;
    }

    /** A command line picocli cannot parse, or that a command found it cannot run: what, and where help is. */
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        err.println("hetrace: " + ErrorLine.of(ex));
        err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
        if (ex.getCause() != null && debug(ex.getCommandLine().getParseResult())) {
            ex.printStackTrace(err);
        }
        return CommandFailure.USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine command, ParseResult parsed) {
        if (ex instanceof ParameterException p) {
            return handleParseException(p, parsed.originalArgs().toArray(String[]::new));
        }
        return failed(ex, command.getCommandSpec(), debug(parsed));
    }

    /** Tells {@code e}, thrown by {@code command}; returns the exit status. */
    int failed(Throwable e, CommandSpec command, boolean debug) {
        int status = e instanceof CommandFailure f ? f.status() : 1;
        if (readerGone(e)) {
            return status; // the reader of the output went away (e.g. "| head"): nothing more to say
        }
        if (!(e instanceof CommandFailure f && f.silent())) {
            err.println(
                    expected(e)
                            ? "hetrace: " + ErrorLine.of(e)
                            : command.qualifiedName() + ": internal error: " + firstLine(e)
                                    + (debug ? "" : " (--debug shows where)"));
        }
        if (debug) {
            e.printStackTrace(err);
        }
        return status;
    }

    /**
     * Whether {@code e} is bad input or a failure of the machine (a file, a process, the network)
     * rather than a bug: a checked exception, an I/O failure, an argument refused, a profiling
     * input refused, a mapped file that shrank. Wrappers that add no words are seen through.
     */
    static boolean expected(Throwable e) {
        if (MappedFiles.isMappingFault(e)) {
            return true;
        }
        Throwable t = e;
        while (t.getCause() != null
                && t.getCause() != t
                && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()))) {
            t = t.getCause();
        }
        return t instanceof Exception && !(t instanceof RuntimeException)
                || t instanceof UncheckedIOException
                || t instanceof IllegalArgumentException
                || t instanceof CommandFailure
                || t instanceof ProfileException;
    }

    /** The exception's class and the first line of its message, control characters escaped. */
    private static String firstLine(Throwable e) {
        String s = e.toString();
        int nl = s.indexOf('\n');
        return TerminalText.guard(nl < 0 ? s : s.substring(0, nl));
    }

    /** Whether writing the output failed because its reader closed the pipe. */
    private static boolean readerGone(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof IOException && "Broken pipe".equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /** Whether --debug was given to the command that ran (or to one of its parents). */
    static boolean debug(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }

    /** The command that ran (the innermost subcommand parsed), or null when parsing did not get that far. */
    static CommandSpec command(ParseResult parsed) {
        CommandSpec spec = null;
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            spec = p.commandSpec();
        }
        return spec;
    }
}
