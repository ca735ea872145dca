package dev.hetrace.sync.out;

/**
 * Why a synchronized copy of a trace could not be written: the output directory is in the way,
 * the time map is not monotonic, or the trace cannot carry the new times (a partial timestamp
 * field too small for a stretched gap, a time before its clock's origin). Messages name the
 * file, packet and bit offset when one is at fault; nothing is left in the output directory.
 */
public final class SynchronizedCopyException extends Exception {
    public SynchronizedCopyException(String message) {
        super(message);
    }

    public SynchronizedCopyException(String message, Throwable cause) {
        super(message, cause);
    }
}
