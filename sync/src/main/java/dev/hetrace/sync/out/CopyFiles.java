package dev.hetrace.sync.out;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.decode.StreamDecoder;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The files of a synchronized copy: its output directory checked and prepared, the trace's
 * files copied into it (and removed again when the copy fails), and write errors that name
 * the file written.
 */
final class CopyFiles {
    private CopyFiles() {}

    /**
     * The stream files of the copy, as those of the trace are grouped in streams, mapped from
     * {@code outDir}: the copy read before it has a metadata file.
     */
    static List<List<StreamDecoder.StreamFile>> copyStreams(CtfTrace trace, Path outDir, Arena arena)
            throws IOException {
        List<List<StreamDecoder.StreamFile>> streams = new ArrayList<>();
        for (List<StreamDecoder.StreamFile> files : trace.streams()) {
            List<StreamDecoder.StreamFile> copy = new ArrayList<>(files.size());
            for (StreamDecoder.StreamFile f : files) {
                Path p = outDir.resolve(f.path().getFileName());
                try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                    copy.add(new StreamDecoder.StreamFile(
                            p, ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena)));
                }
            }
            streams.add(copy);
        }
        return streams;
    }

    /** An error writing {@code file}, naming it (a full disk's error names no file). */
    static IOException writing(Path file, IOException e) {
        if (e instanceof FileSystemException
                || e instanceof ClosedByInterruptException
                || e instanceof InterruptedIOException) {
            return e;
        }
        FileSystemException named = new FileSystemException(file.toString(), null, e.getMessage());
        named.initCause(e);
        return named;
    }

    static void prepareOutput(Path traceDir, Path outDir) throws IOException, SynchronizedCopyException {
        Path in = traceDir.toAbsolutePath().normalize();
        Path out = outDir.toAbsolutePath().normalize();
        if (out.startsWith(in) || in.startsWith(out)) {
            throw new SynchronizedCopyException(
                    outDir + ": the output directory may not be in the trace directory " + traceDir + " or hold it");
        }
        if (Files.exists(outDir)) {
            if (!Files.isDirectory(outDir)) {
                throw new SynchronizedCopyException(outDir + ": exists and is not a directory");
            }
            try (Stream<Path> entries = Files.list(outDir)) {
                if (entries.findAny().isPresent()) {
                    throw new SynchronizedCopyException(
                            outDir + ": output directory exists and is not empty;" + " give a new or empty directory");
                }
            }
        }
        Files.createDirectories(outDir);
    }

    /**
     * Copies the trace's files that {@code keep} accepts (by relative path): those of its
     * directory and of its {@code index/}; other folders (traces of their own) are not this
     * trace's. Returns their relative paths.
     */
    static List<Path> copyTree(Path src, Path dst, Predicate<Path> keep) throws IOException {
        List<Path> written = new ArrayList<>();
        Files.walkFileTree(src, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path rel = src.relativize(dir);
                if (!rel.toString().isEmpty() && (!keep.test(rel) || !rel.startsWith("index"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (!rel.toString().isEmpty()) {
                    Files.createDirectory(
                            dst.resolve(rel.toString())); // in a folder made just before: never its parents again
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path rel = src.relativize(file);
                if (keep.test(rel)) {
                    Path to = dst.resolve(rel.toString());
                    try {
                        Files.copy(file, to);
                    } catch (FileSystemException e) {
                        // name the file written, not the one read (a full disk's error names both)
                        throw e.getClass() != FileSystemException.class || e.getOtherFile() == null
                                ? e
                                : new FileSystemException(to.toString(), null, e.getReason());
                    } catch (IOException e) {
                        throw writing(to, e);
                    }
                    written.add(rel);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return written;
    }

    static List<Path> sorted(List<Path> paths) {
        List<Path> out = new ArrayList<>(paths);
        out.sort(Comparator.comparing(Path::toString));
        return out;
    }

    /** Removes what a failed copy wrote (the directory was absent or empty before). */
    static void deleteQuietly(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException ignored) {
                    // best effort: the original error matters more
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
