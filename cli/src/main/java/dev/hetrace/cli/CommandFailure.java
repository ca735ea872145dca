package dev.hetrace.cli;

/**
 * A command's failure with what the command knows about it: the context it adds to a cause
 * ("--out DIR", "cannot run 'CMD'"), and the exit status. {@link ErrorReport} says it in one line,
 * the context first and then the causes' own words.
 */
final class CommandFailure extends RuntimeException {
    /** Exit status of a command line that cannot be run as given. */
    static final int USAGE = 2;

    private final int status;
    private final String after;
    private final boolean said;

    private CommandFailure(String message, Throwable cause, int status, String after, boolean said) {
        super(message, cause);
        this.status = status;
        this.after = after;
        this.said = said;
    }

    /** What was being done when {@code cause} happened: said before the cause's line, exit status 1. */
    static CommandFailure in(String context, Throwable cause) {
        return new CommandFailure(context, cause, 1, null, false);
    }

    /** A command line that cannot be run as given (found while running), in one line: exit status 2. */
    static CommandFailure usage(String message) {
        return new CommandFailure(message, null, USAGE, null, false);
    }

    /** As {@link #usage(String)}, found through {@code cause} (kept for --debug). */
    static CommandFailure usage(String message, Throwable cause) {
        return new CommandFailure(message, cause, USAGE, null, true);
    }

    /** A failure whose line {@code line} already says what its cause said (the cause kept for --debug). */
    static CommandFailure said(String line, Throwable cause) {
        return new CommandFailure(line, cause, 1, null, true);
    }

    /** A failure already said (by whoever stopped the command): nothing more is printed. */
    static CommandFailure silent(int status, Throwable cause) {
        return new CommandFailure(null, cause, status, null, true);
    }

    /** The same failure with {@code note} said after the causes ("(nothing was left behind)"). */
    CommandFailure then(String note) {
        CommandFailure f = new CommandFailure(getMessage(), getCause(), status, note, said);
        f.setStackTrace(getStackTrace());
        return f;
    }

    int status() {
        return status;
    }

    /** What is said after the causes, or null. */
    String after() {
        return after;
    }

    /** Whether this failure's message already says what its causes said (their lines are not repeated). */
    boolean saysItsCauses() {
        return said;
    }

    /** Whether nothing is to be printed: the failure was said already. */
    boolean silent() {
        return getMessage() == null;
    }
}
