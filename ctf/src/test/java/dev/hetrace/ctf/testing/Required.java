package dev.hetrace.ctf.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from outside the build (a tool such as babeltrace2, barectf, gcc with a
 * 32-bit C library, perf; the shared corpus). Where it is missing, the test is skipped on a
 * developer's machine and fails under {@code CI=true}, where everything must be present: no
 * test can show green without having checked what it says it checks.
 */
public final class Required {
    private static final ConcurrentHashMap<List<String>, Boolean> RUNS = new ConcurrentHashMap<>();

    private Required() {}

    /** Whether the tests run under continuous integration ({@code CI=true}). */
    public static boolean underCi() {
        return "true".equals(System.getenv("CI"));
    }

    /** Goes on if {@code holds}; else skips the test here, and fails it under CI, saying what is missing. */
    public static void that(boolean holds, String missing) {
        if (!holds) {
            missing(missing);
        }
    }

    /** Skips the test here and fails it under CI: {@code what} is missing. */
    public static void missing(String what) {
        if (underCi()) {
            fail(what + " (required under CI=true)");
        }
        Assumptions.abort(what + ": skipped here (required under CI=true)");
    }

    /**
     * Skips the test, under CI too, when this machine cannot do what it needs and no package
     * can give it (e.g. a kernel that runs no 32-bit programs); the reason is shown as skipped.
     */
    public static void machineCan(boolean can, String what) {
        Assumptions.assumeTrue(can, "this machine cannot " + what + ": skipped (no package provides it)");
    }

    /**
     * For a check a test adds where something is present (a comparison with babeltrace2 after
     * hetrace's own checks): whether it is present; when it is not, fails under CI, else says
     * so on the standard error and returns false so that the rest of the test still runs.
     */
    public static boolean ifPresent(boolean present, String missing) {
        if (!present && underCi()) {
            fail(missing + " (required under CI=true)");
        }
        if (!present) {
            System.err.println("test: " + missing + ": that comparison is left out here (required under CI=true)");
        }
        return present;
    }

    /** Whether {@code command} runs and exits with status 0 (within a minute); remembered per command. */
    public static boolean runs(String... command) {
        return RUNS.computeIfAbsent(List.of(command), Required::tryRun);
    }

    private static boolean tryRun(List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Requires a tool: {@code command} (e.g. {@code babeltrace2 --version}) must run. */
    public static void tool(String... command) {
        that(runs(command), command[0] + " is not installed (or `" + String.join(" ", command) + "` fails)");
    }

    /** {@link #ifPresent} for a tool: whether {@code command} runs. */
    public static boolean hasTool(String... command) {
        return ifPresent(
                runs(command), command[0] + " is not installed (or `" + String.join(" ", command) + "` fails)");
    }

    /** babeltrace2, for comparisons with the reference reader. */
    public static boolean hasBabeltrace2() {
        return hasTool("babeltrace2", "--version");
    }

    /**
     * The shared corpus ({@code -Dhetrace.corpus=DIR}, else {@code ../../shared/corpus} from a
     * module's folder), or {@code relative} in it; skips here and fails under CI when absent.
     */
    public static Path corpus(String... relative) {
        String prop = System.getProperty("hetrace.corpus");
        Path root = (prop != null ? Path.of(prop) : Path.of("../../shared/corpus"))
                .toAbsolutePath()
                .normalize();
        that(
                Files.isRegularFile(root.resolve("expected/manifest.tsv")),
                "the shared corpus is not at " + root + " (set -Dhetrace.corpus=DIR)");
        Path p = root;
        for (String r : relative) {
            p = p.resolve(r);
        }
        that(Files.exists(p), "the shared corpus has no " + root.relativize(p));
        return p;
    }
}
