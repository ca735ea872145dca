package dev.hetrace.sync.out;

import dev.hetrace.ctf.write.CtfVersion;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@link SynchronizedCopy} wrote: how the new times are carried, how far they may be
 * from the transform's, and which files it wrote.
 *
 * @param outDir        the synchronized copy
 * @param method        how the times were moved to the reference clock
 * @param maxErrorNanos the largest distance, over the trace's time span, between a time as
 *                      readers compute it from the copy and the transform of the original
 *                      time, beyond the truncation to the nanosecond that readers apply to any
 *                      time (0 when the copy holds the transformed times exactly)
 * @param files         the files written, relative to {@code outDir}, in a stable order
 * @param notes         what a user may want to know (files left out, clocks changed)
 * @param version       the CTF version of the copy's metadata
 */
public record CopyReport(
        Path outDir,
        SynchronizedCopy.Method method,
        long maxErrorNanos,
        List<Path> files,
        List<String> notes,
        CtfVersion version) {
    public CopyReport {
        files = List.copyOf(files);
        notes = List.copyOf(notes);
    }
}
