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
    PMCTRACK("pmctrack"),
    PERF_STAT("perf-stat"),
    CTF("ctf"),
    PROBES("probes");

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
     * The campaign of several files: their runs in order, each with the {@code labels} added to
     * its configuration (e.g. {@code stress=2} for runs measured under that stress), numbered
     * among the runs of the same configuration.
     */
    public Campaign campaign(String name, List<Path> files, Map<String, String> labels) throws IOException {
        List<Run> all = new ArrayList<>();
        for (Path f : files) {
            all.addAll(runs(f));
        }
        return new Campaign(name, Map.of("imported", format), relabel(all, labels), List.of());
    }

    /** {@code runs} with {@code labels} added to their configuration and renumbered per configuration. */
    public static List<Run> relabel(List<Run> runs, Map<String, String> labels) {
        List<Run> out = new ArrayList<>();
        Map<Map<String, String>, Integer> reps = new HashMap<>();
        for (Run r : runs) {
            Map<String, String> config = new java.util.TreeMap<>(r.config());
            config.putAll(labels);
            int rep = reps.merge(config, 1, Integer::sum) - 1;
            out.add(new Run(
                    r.workload(),
                    config,
                    rep,
                    r.runtimeSeconds(),
                    r.userSeconds(),
                    r.systemSeconds(),
                    r.counters(),
                    r.unsupported(),
                    r.samples()));
        }
        return out;
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
