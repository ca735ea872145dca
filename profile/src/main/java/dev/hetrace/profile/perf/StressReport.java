package dev.hetrace.profile.perf;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a stressing co-runner did, summed over its cores: its accesses, their rate, the bytes
 * accessed per second (8 per access) and the fraction of its time spent accessing (the duty
 * cycle it achieved, against the one its level asked for).
 *
 * @param engine            {@code gcc} for the compiled kernel, {@code java} for the fallback
 * @param accesses          accesses made on all its cores
 * @param seconds           how long it ran (the longest of its cores)
 * @param accessesPerSecond accesses per second, summed over its cores
 * @param bytesPerSecond    bytes accessed per second, summed over its cores
 * @param duty              the fraction of time spent accessing, averaged over its cores
 */
public record StressReport(
        String engine, long accesses, double seconds, double accessesPerSecond, double bytesPerSecond, double duty) {

    public static final StressReport NONE = new StressReport("none", 0, 0, 0, 0, 0);

    /** Parses the kernel's report line {@code accesses=N bytes=N seconds=S ... duty=D}. */
    static StressReport parse(String engine, String line) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String kv : line.strip().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                f.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        if (!f.containsKey("accesses") || !f.containsKey("accesses_per_second")) {
            throw new IllegalArgumentException("not a memory kernel report: " + line);
        }
        return new StressReport(
                engine,
                Long.parseLong(f.get("accesses")),
                Double.parseDouble(f.get("seconds")),
                Double.parseDouble(f.get("accesses_per_second")),
                Double.parseDouble(f.get("bytes_per_second")),
                Double.parseDouble(f.getOrDefault("duty", "1")));
    }

    /** The report of several cores together. */
    static StressReport sum(List<StressReport> parts) {
        if (parts.isEmpty()) {
            return NONE;
        }
        long accesses = 0;
        double seconds = 0;
        double aps = 0;
        double bps = 0;
        double duty = 0;
        for (StressReport r : parts) {
            accesses += r.accesses;
            seconds = Math.max(seconds, r.seconds);
            aps += r.accessesPerSecond;
            bps += r.bytesPerSecond;
            duty += r.duty;
        }
        return new StressReport(parts.getFirst().engine, accesses, seconds, aps, bps, duty / parts.size());
    }

    /** The figures as the strings of a campaign's {@code hardware} entry. */
    public Map<String, String> fields() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("engine", engine);
        m.put("accesses", Long.toString(accesses));
        m.put("seconds", String.format(Locale.ROOT, "%.6f", seconds));
        m.put("accesses_per_second", String.format(Locale.ROOT, "%.1f", accessesPerSecond));
        m.put("bytes_per_second", String.format(Locale.ROOT, "%.1f", bytesPerSecond));
        m.put("duty", String.format(Locale.ROOT, "%.4f", duty));
        return m;
    }
}
