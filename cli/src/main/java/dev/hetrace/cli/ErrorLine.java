package dev.hetrace.cli;

import dev.hetrace.ctf.FileFailure;
import dev.hetrace.ctf.MappedFiles;
import dev.hetrace.ctf.text.TerminalText;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one line every command prints for an error (after "hetrace: "): what failed and on which
 * file. The JDK names only the path of a failed file operation ({@link AccessDeniedException}'s
 * message is the path alone); this says what was done to it and why it failed ("cannot read
 * FILE: permission denied"), and names the file that shrank when reading a mapped one faulted.
 */
final class ErrorLine {
    private ErrorLine() {}

    /** The line for a failure to write a command's output (standard output, or where it was sent). */
    static String output(IOException e) {
        return of(e.getMessage() != null && !(e instanceof FileSystemException)
            ? new IOException("cannot write the output: " + lower(e.getMessage()), e) : e);
    }

    /** The line for {@code e}, without the "hetrace: " prefix (its control characters escaped: names from traces). */
    static String of(Throwable e) {
        return TerminalText.guard(line(e));
    }

    private static String line(Throwable e) {
        if (MappedFiles.isMappingFault(e)) {
            return MappedFiles.describeFault();
        }
        Throwable t = e;
        while (t instanceof UncheckedIOException || (t.getMessage() == null && t.getCause() != null && t.getCause() != t)) {
            t = t.getCause();
        }
        if (t instanceof FileSystemException f && f.getFile() != null && (f.getReason() == null || isBare(f))) {
            return fileOperation(f);
        }
        if (t instanceof IOException && !(t instanceof FileSystemException) && WRITE_ERRORS.contains(t.getMessage())) {
            return "cannot write the output: " + lower(t.getMessage()); // the OS's words alone: no file named
        }
        if (t instanceof FileNotFoundException && t.getMessage() != null) {
            // java.io's files: "PATH (Reason)"
            Matcher m = Pattern.compile("(.*) \\((.+)\\)").matcher(t.getMessage());
            if (m.matches()) {
                return "cannot open " + m.group(1) + ": " + lower(m.group(2));
            }
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** The OS's messages for a write that failed, which java.io gives with no file. */
    private static final Set<String> WRITE_ERRORS = Set.of("No space left on device",
        "Disk quota exceeded", "File too large", "Read-only file system");

    /** Whether {@code f}'s message is the JDK's own (the path, and the reason if any), not one hetrace wrote. */
    private static boolean isBare(FileSystemException f) {
        return f.getMessage().startsWith(f.getFile());
    }

    private static String fileOperation(FileSystemException f) {
        String reason = FileFailure.reason(f);
        String verb = verb(f);
        if (f instanceof FileAlreadyExistsException && verb.equals("create")
                && Files.exists(Path.of(f.getFile()))
                && !Files.isDirectory(Path.of(f.getFile()))) {
            reason = "a file is there, not a folder";
        }
        String what = f.getOtherFile() == null ? f.getFile() : f.getFile() + " to " + f.getOtherFile();
        return "cannot " + verb + " " + what + ": " + reason;
    }

    /** What was done, from the java.nio.file.Files method (or channel) that failed. */
    private static final Map<String, String> VERBS = Map.ofEntries(
        Map.entry("readAllBytes", "read"), Map.entry("readString", "read"), Map.entry("readAllLines", "read"),
        Map.entry("newInputStream", "read"), Map.entry("newBufferedReader", "read"), Map.entry("lines", "read"),
        Map.entry("size", "read"), Map.entry("readAttributes", "read"), Map.entry("getLastModifiedTime", "read"),
        Map.entry("isSameFile", "read"), Map.entry("toRealPath", "find"),
        Map.entry("write", "write"), Map.entry("writeString", "write"), Map.entry("newOutputStream", "write"),
        Map.entry("newBufferedWriter", "write"), Map.entry("createFile", "create"), Map.entry("createTempFile", "create a file in"),
        Map.entry("setLastModifiedTime", "write"), Map.entry("copy", "copy"),
        Map.entry("createDirectory", "create"), Map.entry("createDirectories", "create"),
        Map.entry("createTempDirectory", "create a folder in"), Map.entry("newDirectoryStream", "list"),
        Map.entry("list", "list"), Map.entry("walk", "list"), Map.entry("walkFileTree", "list"), Map.entry("find", "list"),
        Map.entry("delete", "delete"), Map.entry("deleteIfExists", "delete"), Map.entry("move", "move"),
        Map.entry("createSymbolicLink", "create"), Map.entry("createLink", "create"));

    private static String verb(FileSystemException f) {
        String open = null;
        StackTraceElement[] frames = f.getStackTrace();
        for (StackTraceElement s : frames) {
            if (s.getClassName().equals("java.nio.file.Files")) {
                String v = VERBS.get(s.getMethodName());
                if (v != null) {
                    return v;
                }
                open = "open";
            } else if (s.getClassName().startsWith("java.nio.channels.") && s.getMethodName().equals("open")) {
                open = "open";
            }
        }
        return open != null ? open : "access";
    }

    private static String lower(String reason) {
        return reason.isEmpty() ? reason : reason.substring(0, 1).toLowerCase(Locale.ROOT) + reason.substring(1);
    }
}
