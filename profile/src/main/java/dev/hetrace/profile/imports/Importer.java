package dev.hetrace.profile.imports;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.Run;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The formats {@code hetrace profile import} reads into a campaign, each documented in
 * docs/profiling.md: {@code pmctrack} output, {@code perf-stat} CSV ({@code perf stat -x,}),
 * {@code ctf} traces with perf counter contexts, and {@code probes} (METrICS-like probe
 * exports). Malformed input gets a {@link ProfileException} naming the file, the line and
 * what is wrong.
 */
public enum Importer {
	PMCTRACK("pmctrack"), PERF_STAT("perf-stat"), CTF("ctf"), PROBES("probes");

	private final String format;

	Importer(String format) {
		this.format = format;
	}

	public String format() {
		return format;
	}

	public static Importer named(String format) {
		for (Importer i : values()) {
			if (i.format.equals(format.toLowerCase(Locale.ROOT))) {
				return i;
			}
		}
		throw new ProfileException("unknown import format '" + format + "': pmctrack, perf-stat, ctf or probes");
	}

	/** The runs of one file (a CTF trace: its directory). */
	public List<Run> runs(Path file) throws IOException {
		return switch (this) {
			case PMCTRACK -> PmctrackImport.read(file);
			case PERF_STAT -> PerfStatImport.read(file);
			case CTF -> CtfCounterImport.read(file);
			case PROBES -> ProbeImport.read(file);
		};
	}

	/**
	 * The campaign of several files: their runs in order, each labelled {@code source=FILE-NAME}
	 * unless it has that label, and numbered among the runs of the same configuration.
	 */
	public Campaign campaign(String name, List<Path> files) throws IOException {
		List<Run> all = new ArrayList<>();
		Map<Map<String, String>, Integer> reps = new HashMap<>();
		for (Path f : files) {
			for (Run r : runs(f)) {
				Map<String, String> config = new java.util.TreeMap<>(r.config());
				if (files.size() > 1) {
					config.putIfAbsent("source", String.valueOf(f.getFileName()));
				}
				int rep = reps.merge(config, 1, Integer::sum) - 1;
				all.add(new Run(r.workload(), config, rep, r.runtimeSeconds(), r.userSeconds(), r.systemSeconds(),
						r.counters(), r.unsupported(), r.samples()));
			}
		}
		return new Campaign(name, Map.of("imported", format), all, List.of());
	}

	/** {@code file:line: what}. */
	static ProfileException malformed(Path file, int line, String what) {
		return new ProfileException(file + ":" + line + ": " + what);
	}

	static double number(Path file, int line, String text, String what) {
		try {
			return Double.parseDouble(text.trim());
		} catch (NumberFormatException e) {
			throw malformed(file, line, what + " is not a number: '" + text.trim() + "'");
		}
	}
}
