package dev.hetrace.cli;

import dev.hetrace.ctf.FileFailure;
import dev.hetrace.ctf.MappedFiles;
import dev.hetrace.ctf.text.TerminalText;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one line every command prints for an error (after "hetrace: "): what failed and on which
 * file, through the exception's chain of causes. The JDK names only the path of a failed file
 * operation ({@link AccessDeniedException}'s message is the path alone); this says what was done
 * to it and why it failed ("cannot read FILE: permission denied"), and names the file that shrank
 * when reading a mapped one faulted.
 */
final class ErrorLine {
    private ErrorLine() {}

    /** A failure to write a command's output (standard output, or where it was sent), said as such. */
    static IOException output(IOException e) {
        return e.getMessage() != null && !(e instanceof FileSystemException)
                ? new IOException("cannot write the output: " + lower(e.getMessage()), e)
                : e;
    }

    /**
     * The line for {@code e}, without the "hetrace: " prefix (its control characters escaped:
     * names from traces): what each layer of its chain of causes says, outermost first, each
     * adding what it knows ("--out DIR: cannot create DIR/x: no space left on device"); a layer
     * that repeats what is already said, or only wraps its cause, adds nothing.
     */
    static String of(Throwable e) {
        return TerminalText.guard(line(e));
    }

    private static String line(Throwable e) {
        if (MappedFiles.isMappingFault(e)) {
            return MappedFiles.describeFault();
        }
        StringBuilder said = new StringBuilder();
        String after = "";
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
            String own = own(t);
            if (own != null && !repeats(said, t, own)) {
                said.append(said.isEmpty() ? "" : ": ").append(own);
            }
            if (t instanceof CommandFailure f) {
                after = f.after() == null ? after : " " + f.after() + after;
                if (f.saysItsCauses() && !said.isEmpty()) {
                    break;
                }
            }
        }
        if (said.isEmpty()) {
            said.append(e); // no layer says anything: the exception's name at least
        }
        return said + after;
    }

    /** What {@code t} itself says (the first line of its message, a file operation in words), or null. */
    private static String own(Throwable t) {
        String m = t.getMessage();
        if (m == null
                || m.isBlank()
                || t.getCause() != null && m.equals(t.getCause().toString())) {
            return null; // a wrapper (UncheckedIOException(e), CompletionException...): its cause speaks
        }
        if (t instanceof FileSystemException f && f.getFile() != null && (f.getReason() == null || isBare(f))) {
            return fileOperation(f);
        }
        if (t instanceof IOException && !(t instanceof FileSystemException) && WRITE_ERRORS.contains(m)) {
            return "cannot write the output: " + lower(m); // the OS's words alone: no file named
        }
        if (t instanceof FileNotFoundException) {
            // java.io's files: "PATH (Reason)"
            Matcher p = Pattern.compile("(.*) \\((.+)\\)").matcher(m);
            if (p.matches()) {
                return "cannot open " + p.group(1) + ": " + lower(p.group(2));
            }
        }
        int nl = m.indexOf('\n');
        return (nl < 0 ? m : m.substring(0, nl)).strip(); // DuckDB's statement and caret below its first line
    }

    /** Whether what {@code t} says ({@code own}, or its bare message) is already in {@code said}. */
    private static boolean repeats(StringBuilder said, Throwable t, String own) {
        String so = said.toString().toLowerCase(Locale.ROOT);
        return so.contains(own.toLowerCase(Locale.ROOT))
                || so.contains(t.getMessage().strip().toLowerCase(Locale.ROOT));
    }

    /** The OS's messages for a write that failed, which java.io gives with no file. */
    private static final Set<String> WRITE_ERRORS =
            Set.of("No space left on device", "Disk quota exceeded", "File too large", "Read-only file system");

    /** Whether {@code f}'s message is the JDK's own (the path, and the reason if any), not one hetrace wrote. */
    private static boolean isBare(FileSystemException f) {
        return f.getMessage().startsWith(f.getFile());
    }

    private static String fileOperation(FileSystemException f) {
        String reason = FileFailure.reason(f);
        String verb = verb(f);
        if (f instanceof FileAlreadyExistsException
                && verb.equals("create")
                && Files.exists(Path.of(f.getFile()))
                && !Files.isDirectory(Path.of(f.getFile()))) {
            reason = "a file is there, not a folder";
        }
        String what = f.getOtherFile() == null ? f.getFile() : f.getFile() + " to " + f.getOtherFile();
        return "cannot " + verb + " " + what + ": " + reason;
    }

    /** What was done, from the java.nio.file.Files method (or channel) that failed. */
    private static final Map<String, String> VERBS = Map.ofEntries(
            Map.entry("readAllBytes", "read"),
            Map.entry("readString", "read"),
            Map.entry("readAllLines", "read"),
            Map.entry("newInputStream", "read"),
            Map.entry("newBufferedReader", "read"),
            Map.entry("lines", "read"),
            Map.entry("size", "read"),
            Map.entry("readAttributes", "read"),
            Map.entry("getLastModifiedTime", "read"),
            Map.entry("isSameFile", "read"),
            Map.entry("toRealPath", "find"),
            Map.entry("write", "write"),
            Map.entry("writeString", "write"),
            Map.entry("newOutputStream", "write"),
            Map.entry("newBufferedWriter", "write"),
            Map.entry("createFile", "create"),
            Map.entry("createTempFile", "create a file in"),
            Map.entry("setLastModifiedTime", "write"),
            Map.entry("copy", "copy"),
            Map.entry("createDirectory", "create"),
            Map.entry("createDirectories", "create"),
            Map.entry("createTempDirectory", "create a folder in"),
            Map.entry("newDirectoryStream", "list"),
            Map.entry("list", "list"),
            Map.entry("walk", "list"),
            Map.entry("walkFileTree", "list"),
            Map.entry("find", "list"),
            Map.entry("delete", "delete"),
            Map.entry("deleteIfExists", "delete"),
            Map.entry("move", "move"),
            Map.entry("createSymbolicLink", "create"),
            Map.entry("createLink", "create"));

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
            } else if (s.getClassName().startsWith("java.nio.channels.")
                    && s.getMethodName().equals("open")) {
                open = "open";
            }
        }
        return open != null ? open : "access";
    }

    private static String lower(String reason) {
        return reason.isEmpty() ? reason : reason.substring(0, 1).toLowerCase(Locale.ROOT) + reason.substring(1);
    }
}
