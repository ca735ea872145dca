package dev.hetrace.ctf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The files mapped into memory while they are read: when one shrinks under the reader (another
 * program truncates it), reading the pages past its new end faults, and the JVM reports only
 * an {@link InternalError} with no file. This registry lets whoever catches that error say
 * which file shrank, and from what size to what size.
 */
public final class MappedFiles {
    private MappedFiles() {}

    /** A mapping: the first {@code size} bytes of {@code path}. */
    public record Mapping(Path path, long size) {}

    private static final Set<Mapping> LIVE = ConcurrentHashMap.newKeySet();
    /** Mappings found shorter than their file when released (the error is usually reported after that). */
    private static final Deque<String> SHRUNK = new ArrayDeque<>();

    private static final int SHRUNK_KEPT = 8;

    /** Records that {@code size} bytes of {@code path} are mapped; give the result to {@link #release}. */
    public static Mapping register(Path path, long size) {
        Mapping m = new Mapping(path, size);
        LIVE.add(m);
        return m;
    }

    /** Records that {@code m} is unmapped, noting its file if it shrank meanwhile. */
    public static void release(Mapping m) {
        if (m != null && LIVE.remove(m)) {
            String s = shrinkage(m);
            if (s != null) {
                synchronized (SHRUNK) {
                    if (SHRUNK.size() == SHRUNK_KEPT) {
                        SHRUNK.removeFirst();
                    }
                    SHRUNK.addLast(s);
                }
            }
        }
    }

    /**
     * Whether {@code t} (or one of its causes) is the JVM's report of a fault reading mapped
     * memory: the mark of a mapped file that shrank.
     */
    public static boolean isMappingFault(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InternalError
                    && c.getMessage() != null
                    && c.getMessage().contains("unsafe memory access")) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    /**
     * What shrank, in one line: "FILE shrank from N to M bytes while being read" for each
     * mapped file now shorter than its mapping (those released since the last call included);
     * a line saying a mapped file changed when none is found.
     */
    public static String describeFault() {
        List<String> found = new ArrayList<>();
        synchronized (SHRUNK) {
            found.addAll(SHRUNK);
            SHRUNK.clear();
        }
        for (Mapping m : LIVE) {
            String s = shrinkage(m);
            if (s != null && !found.contains(s)) {
                found.add(s);
            }
        }
        if (found.isEmpty()) {
            return "a file being read was changed by another program (reading it faulted)";
        }
        return String.join("; ", found);
    }

    /**
     * "FILE shrank from N to M bytes while being read" when the file of {@code m} is now shorter
     * than its mapping, else null.
     */
    public static String shrinkage(Mapping m) {
        long now;
        try {
            now = Files.size(m.path());
        } catch (IOException e) {
            return null; // removed: its pages stay readable until unmapped
        }
        return now < m.size()
                ? String.format(
                        Locale.ROOT, "%s shrank from %,d to %,d bytes while being read", m.path(), m.size(), now)
                : null;
    }
}
