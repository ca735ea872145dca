package dev.hetrace.analysis.index;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a folder kept in the cache held when it was written: each file's size and CRC-32C, in a
 * file {@value #FILE} beside them, written last. A file changed, cut short or removed since (by
 * a disk, a crash of another program, a hand) is found when the folder is opened, rather than
 * answered from: CRC-32C reads at memory speed (the JDK computes it with the CPU's instruction).
 */
public final class Checksums {
    /** The file that lists the others. */
    public static final String FILE = "checksums";

    private Checksums() {}

    /** Lists every regular file of {@code folder} (not in subfolders) with its size and CRC-32C. */
    public static void write(Path folder) throws IOException {
        StringBuilder b = new StringBuilder();
        byte[] buf = new byte[BUFFER];
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = f.getFileName().toString();
                if (!name.equals(FILE)) {
                    b.append(String.format(Locale.ROOT, "%08x %d %s%n", crc(f, buf), Files.size(f), name));
                }
            }
        }
        Files.writeString(folder.resolve(FILE), b.toString(), StandardCharsets.UTF_8);
    }

    /**
     * What in {@code folder} differs from its list ("events.parquet changed", "calls.parquet is
     * missing", "no list of checksums"), or null when every file listed is as it was written.
     */
    public static String mismatch(Path folder) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(folder.resolve(FILE), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "it has no list of checksums";
        }
        List<String> changed = new ArrayList<>();
        byte[] buf = new byte[BUFFER];
        for (String line : lines) {
            String[] p = line.split(" ", 3);
            if (p.length != 3) {
                return "its list of checksums is damaged";
            }
            Path f = folder.resolve(p[2]);
            if (!f.normalize().getParent().equals(folder.normalize())) {
                return "its list of checksums is damaged";
            }
            if (!Files.isRegularFile(f)) {
                changed.add(p[2] + " is missing");
            } else if (!Long.toString(Files.size(f)).equals(p[1])
                    || !String.format(Locale.ROOT, "%08x", crc(f, buf)).equals(p[0])) {
                changed.add(p[2] + " changed");
            }
        }
        return changed.isEmpty() ? null : String.join(", ", changed);
    }

    /**
     * How many bytes a file is read by, in one buffer for a whole folder: one per file was tens of
     * megabytes of garbage in a viewer's start, and each young collection it brought about there
     * copies what the start keeps.
     */
    private static final int BUFFER = 1 << 20;

    private static long crc(Path f, byte[] buf) throws IOException {
        CRC32C crc = new CRC32C();
        try (InputStream in = Files.newInputStream(f)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                crc.update(buf, 0, n);
            }
        }
        return crc.getValue();
    }
}
