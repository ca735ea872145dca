package dev.hetrace.tracer.rpmsg;

import java.io.IOException;
import java.nio.file.Path;

/** An rpmsg device, or a remoteproc trace buffer, that cannot be read as a tracer's: says which and why. */
public final class RpmsgException extends IOException {
    private static final long serialVersionUID = 1L;

    public RpmsgException(Path device, String why) {
        super(device + ": " + why);
    }
}
