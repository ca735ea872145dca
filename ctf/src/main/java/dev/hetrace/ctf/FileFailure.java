package dev.hetrace.ctf;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Why a file operation failed, in words: the JDK's exceptions often carry only the path
 * ({@link AccessDeniedException}'s message is the path alone) or only the OS's words ("Is a
 * directory", with no path). Every layer that reads or writes a file the user named says
 * "cannot read FILE: REASON" with these.
 */
public final class FileFailure {
    private FileFailure() {}

    /** The reason of {@code e} in lower case ("permission denied", "no such file or directory", "is a directory"...). */
    public static String reason(IOException e) {
        if (e instanceof FileSystemException f) {
            if (f.getReason() != null) {
                return lower(f.getReason());
            }
            return f instanceof AccessDeniedException
                    ? "permission denied"
                    : f instanceof NoSuchFileException
                            ? "no such file or directory"
                            : f instanceof FileAlreadyExistsException
                                    ? "already exists"
                                    : f instanceof DirectoryNotEmptyException
                                            ? "directory not empty"
                                            : f instanceof NotDirectoryException
                                                    ? "not a directory"
                                                    : f instanceof NotLinkException
                                                            ? "not a symbolic link"
                                                            : f instanceof FileSystemLoopException
                                                                    ? "symbolic links loop"
                                                                    : "failed";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : lower(e.getMessage());
    }

    /** "cannot VERB FILE: REASON", as an exception that keeps {@code e} as its cause. */
    public static IOException of(String verb, Path file, IOException e) {
        return new IOException("cannot " + verb + " " + file + ": " + reason(e), e);
    }

    static String lower(String reason) {
        return reason.isEmpty() ? reason : reason.substring(0, 1).toLowerCase(Locale.ROOT) + reason.substring(1);
    }
}
