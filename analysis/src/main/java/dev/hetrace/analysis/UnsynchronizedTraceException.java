package dev.hetrace.analysis;

import java.io.IOException;

/**
 * A trace that cannot be put on the reference clock (no message connects it, or its messages fit
 * no clock line), in an analysis not told to take the traces apart: analysed with the others, its
 * times would be on another clock than theirs.
 */
public final class UnsynchronizedTraceException extends IOException {
    public UnsynchronizedTraceException(String message) {
        super(message);
    }
}
