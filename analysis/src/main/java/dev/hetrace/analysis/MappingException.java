package dev.hetrace.analysis;

/** A mapping that cannot be read or does not fit a trace; the message names the file and line, or the trace. */
public final class MappingException extends IllegalArgumentException {
    public MappingException(String message) {
        super(message);
    }
}
