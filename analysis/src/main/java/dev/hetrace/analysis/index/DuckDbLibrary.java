package dev.hetrace.analysis.index;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.duckdb.DuckDBDriver;

/**
 * Where DuckDB's JDBC driver finds its native library, checked before the driver is first used:
 * in its jar (the driver unpacks it to a temporary file on each run), else, as hetrace's build
 * puts it, beside the jar that holds the driver, else on {@code java.library.path}. A library in
 * none of them is told in one line naming the file looked for, not by the driver's stack trace.
 */
final class DuckDbLibrary {
    private DuckDbLibrary() {}

    /** The failure found by the first check, or "" when the library is there. */
    private static volatile String problem;

    /** Throws, naming the file, when DuckDB's native library for this machine is in none of its places. */
    static void require() throws IOException {
        String p = problem;
        if (p == null) {
            p = find();
            problem = p;
        }
        if (!p.isEmpty()) {
            throw new IOException(p);
        }
    }

    private static String find() {
        String name = fileName();
        if (DuckDBDriver.class.getResource("/" + name) != null) {
            return "";
        }
        Path jarDir;
        try {
            var source = DuckDBDriver.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return ""; // not loaded from a file: the driver's own error, if any, says the rest
            }
            jarDir = Path.of(source.getLocation().toURI()).getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return "";
        }
        return problem(name, jarDir, System.getProperty("java.library.path", ""));
    }

    /**
     * For a driver jar without the library {@code name} in it: "" when it is in {@code jarDir}
     * or its system name ({@code libduckdb_java.so}) in one of {@code libraryPath}'s directories,
     * else the line that says what is missing.
     */
    static String problem(String name, Path jarDir, String libraryPath) {
        Path beside = jarDir.resolve(name);
        if (Files.isRegularFile(beside)) {
            return "";
        }
        String mapped = System.mapLibraryName("duckdb_java");
        for (String dir : libraryPath.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isRegularFile(Path.of(dir, mapped))) {
                return "";
            }
        }
        return "DuckDB's native library is missing: " + beside + " (hetrace's build puts it beside the jar: keep"
                + " the libduckdb_java files with hetrace.jar when moving it)";
    }

    /** The library's name as DuckDB's driver looks for it: libduckdb_java.so_OS_ARCH. */
    static String fileName() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).trim();
        os = os.startsWith("windows")
                ? "windows"
                : os.startsWith("mac") ? "osx" : os.startsWith("linux") ? "linux" : os.replaceAll("[^a-z0-9_\\-.]", "");
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).trim();
        arch = switch (arch) {
            case "x86_64", "amd64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            default -> arch.replaceAll("[^a-z0-9_\\-.]", "");
        };
        return "libduckdb_java.so_" + os + "_" + (os.equals("osx") ? "universal" : arch);
    }
}
