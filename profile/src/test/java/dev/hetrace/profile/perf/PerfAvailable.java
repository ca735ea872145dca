package dev.hetrace.profile.perf;

import dev.hetrace.ctf.testing.Required;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The tests' precondition for real perf runs: perf installed, and allowed to count this user's processes. */
final class PerfAvailable {
    private PerfAvailable() {}

    /** A working perf (see {@link Required}). */
    static void assume() throws Exception {
        Required.that(PerfStat.onPath("perf"), "perf is not installed (Debian: linux-perf): real perf runs skipped");
        // a trial rather than kernel.perf_event_paranoid: root counts whatever its level
        Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "task-clock", "--", "true")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        Required.that(
                p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "'perf stat -e task-clock -- true' fails here (kernel.perf_event_paranoid " + paranoid()
                        + ", or perf_event_open forbidden in this container): real perf runs skipped");
    }

    private static String paranoid() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid"))
                    .strip();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** A CPU this process may run on, and another when there is one (else the same). */
    static int first() {
        return Cpus.allowed().getFirst();
    }

    static int other() {
        var cpus = Cpus.allowed();
        return cpus.size() > 1 ? cpus.get(1) : cpus.getFirst();
    }

    static void assumeGcc() {
        Required.that(MemoryKernel.gccInstalled(), "gcc is not installed: the compiled memory kernel is skipped");
    }
}
