package dev.hetrace.tracer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Running the tools the C tests need (gcc, barectf, the programs they build). */
public final class Processes {
    private Processes() {}

    /** Whether the command runs and succeeds (e.g. {@code gcc --version}: is gcc installed?). */
    public static boolean works(List<String> cmd, Path dir) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs the command in {@code dir}, asserts it succeeds, and returns its output. */
    public static String run(Path dir, List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", cmd).isTrue();
        assertThat(p.exitValue()).as("%s exit status; output:%n%s", cmd, out).isZero();
        return out;
    }

    /**
     * Compiles {@code sources} in {@code dir} (objects only) as for a core with no C library: freestanding, no
     * system headers but the compiler's own, strict C99 with every warning an error.
     */
    public static void compileFreestanding(Path dir, String... sources) throws IOException, InterruptedException {
        List<String> cc = new ArrayList<>(List.of(
                "gcc",
                "-ffreestanding",
                "-nostdinc",
                "-isystem",
                run(dir, List.of("gcc", "-print-file-name=include")).strip(),
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-c"));
        cc.addAll(List.of(sources));
        run(dir, cc);
    }
}
