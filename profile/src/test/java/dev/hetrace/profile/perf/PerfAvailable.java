package dev.hetrace.profile.perf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The tests' precondition for real perf runs: perf installed, and allowed to count this user's processes. */
final class PerfAvailable {
	private PerfAvailable() {
	}

	/** Skips the test without a working perf; under CI=true, where .ci/run installs it, fails it instead. */
	static void assume() throws Exception {
		require(PerfStat.onPath("perf"), "perf is not installed (Debian: linux-perf): real perf runs skipped");
		// a trial rather than kernel.perf_event_paranoid: root counts whatever its level
		Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "task-clock", "--", "true")
				.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
		require(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
				"'perf stat -e task-clock -- true' fails here (kernel.perf_event_paranoid " + paranoid()
						+ ", or perf_event_open forbidden in this container): real perf runs skipped");
	}

	private static void require(boolean available, String why) {
		if (!available && "true".equals(System.getenv("CI"))) {
			throw new AssertionError(why.replace("skipped", "required under CI=true"));
		}
		Assumptions.assumeTrue(available, why);
	}

	private static String paranoid() {
		try {
			return Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).strip();
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
		require(MemoryKernel.gccInstalled(), "gcc is not installed: the compiled memory kernel is skipped");
	}
}
