package dev.hetrace.ctf.write;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A file a user names as an output ({@code -o FILE}), written whole or not at all: into a
 * hidden file beside it, renamed over it by {@link #commit()}, so that a failed or stopped run
 * leaves the file as it was (or no file), never a part of one. A name that is a symbolic link
 * writes the file it points to; a name that is not a regular file (a device such as
 * {@code /dev/stdout} or {@code /dev/null}, a named pipe) is written to as it is, never
 * replaced by a file; a folder is refused.
 *
 * <pre>
 * try (OutputFile file = OutputFile.of(out)) {
 *     try (OutputStream os = file.newOutputStream()) { ... }
 *     file.commit();
 * }
 * </pre>
 */
public final class OutputFile implements AutoCloseable {
    private final Path target;
    /** The hidden file written first, or null when the target is written directly. */
    private final Path tmp;

    private boolean committed;

    private OutputFile(Path target, Path tmp) {
        this.target = target;
        this.tmp = tmp;
    }

    /** The output {@code out}, its folder made if need be. */
    public static OutputFile of(Path out) throws IOException {
        Path target = out.toAbsolutePath();
        if (Files.isSymbolicLink(target) && !Files.exists(target)) {
            throw new IOException("cannot write " + out + ": a symbolic link to nothing");
        }
        if (Files.exists(target)) {
            target = target.toRealPath();
            if (Files.isDirectory(target)) {
                throw new IOException("cannot write " + out + ": a folder is there, not a file");
            }
            if (!Files.isRegularFile(target)) {
                return new OutputFile(target, null); // a device or a pipe: written as it is
            }
        }
        Path dir = target.getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + target.getFileName() + "."
                + ProcessHandle.current().pid() + "." + Long.toHexString(System.nanoTime()) + ".tmp");
        return new OutputFile(target, tmp);
    }

    /** The file that is written: the output itself once committed (or when it is a device). */
    public Path target() {
        return target;
    }

    /** A stream to write the output through; it is not buffered. */
    public OutputStream newOutputStream() throws IOException {
        return tmp == null
                ? Files.newOutputStream(target, StandardOpenOption.WRITE)
                : Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /** Puts what was written in place of the output. */
    public void commit() throws IOException {
        if (tmp != null) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        committed = true;
    }

    /** Removes what was written unless it was committed. */
    @Override
    public void close() throws IOException {
        if (tmp != null && !committed) {
            Files.deleteIfExists(tmp);
        }
    }
}
