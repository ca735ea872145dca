package dev.hetrace.tracer.shm;

import java.io.IOException;
import java.nio.file.Path;

/** An shm-ring region that cannot be drained: not a region, an unknown version, inconsistent indexes. */
public final class ShmRingException extends IOException {
    private static final long serialVersionUID = 1L;

    public ShmRingException(Path region, String message) {
        super(region + ": " + message);
    }
}
