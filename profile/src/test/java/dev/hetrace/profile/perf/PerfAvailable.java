package dev.hetrace.profile.perf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The tests' precondition for real perf runs: perf installed, and allowed to count this user's processes. */
final class PerfAvailable {
	private PerfAvailable() {
	}

	static void assume() throws Exception {
		Assumptions.assumeTrue(PerfStat.onPath("perf"), "perf is not installed (Debian: linux-perf): real perf runs skipped");
		Path paranoid = Path.of("/proc/sys/kernel/perf_event_paranoid");
		if (Files.exists(paranoid)) {
			int level = Integer.parseInt(Files.readString(paranoid).strip());
			Assumptions.assumeTrue(level <= 2, "kernel.perf_event_paranoid is " + level
					+ ": this user may not count its own processes; real perf runs skipped");
		}
		Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "task-clock", "--", "true")
				.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
		Assumptions.assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
				"'perf stat -e task-clock -- true' fails here: real perf runs skipped");
	}

	static void assumeGcc() {
		Assumptions.assumeTrue(MemoryKernel.gccInstalled(), "gcc is not installed: the compiled memory kernel is skipped");
	}
}
