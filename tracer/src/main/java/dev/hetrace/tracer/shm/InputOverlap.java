package dev.hetrace.tracer.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * Keeps what the collector writes apart from what it reads: a trace directory that is or holds
 * a region would have its stream files truncate live regions (their undrained packets lost),
 * and its metadata replace the producers' own. Paths are compared as the file system resolves
 * them (symbolic links, {@code ..}, paths not created yet), and existing files by identity too
 * (hard links, the same file or folder mounted at two places).
 */
public final class InputOverlap {
    private InputOverlap() {}

    /** Links followed at most, as Linux does before ELOOP. */
    private static final int MAX_LINKS = 40;

    /**
     * @throws IllegalArgumentException if {@code dir}, or one of the {@code written} files, is
     *                                  one of the {@code inputs} or holds one
     */
    public static void check(Path dir, List<Path> written, List<Path> inputs) throws IOException {
        Path realDir = resolved(dir);
        for (Path in : inputs) {
            Path realIn = resolved(in);
            if (realIn.startsWith(realDir) || holds(dir, realIn)) {
                throw new IllegalArgumentException(dir + ": " + (realIn.equals(realDir) ? "is " : "holds ") + in
                        + ", which the collector reads: write the trace elsewhere");
            }
            for (Path w : written) {
                Path realW = resolved(w);
                if (realIn.startsWith(realW) || holds(w, realIn)) {
                    throw new IllegalArgumentException(w + ": the collector would write it, but it is " + in
                            + ", which the collector reads: write the trace elsewhere");
                }
            }
        }
    }

    /** Whether {@code out} exists and is the same file as {@code realIn} (existing) or one of its folders. */
    private static boolean holds(Path out, Path realIn) throws IOException {
        if (!Files.exists(out) || !Files.exists(realIn)) {
            return false;
        }
        for (Path p = realIn; p != null; p = p.getParent()) {
            if (Files.isSameFile(p, out)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The absolute path with its existing part resolved by the file system (links followed,
     * {@code ..} taken after them), and the rest, not created yet, appended normalized.
     */
    static Path resolved(Path p) throws IOException {
        Path q = p.toAbsolutePath();
        Deque<Path> missing = new ArrayDeque<>();
        int links = 0;
        while (q.getParent() != null && !Files.exists(q)) {
            if (Files.isSymbolicLink(q) && links++ < MAX_LINKS) {
                // a link to what is not there yet: writing through it would create its target
                q = q.getParent().resolve(Files.readSymbolicLink(q));
                continue;
            }
            missing.push(q.getFileName());
            q = q.getParent();
        }
        Path r = q.toRealPath();
        while (!missing.isEmpty()) {
            r = r.resolve(missing.pop());
        }
        return r.normalize();
    }
}
