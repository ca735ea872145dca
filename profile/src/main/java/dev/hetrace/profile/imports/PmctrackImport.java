package dev.hetrace.profile.imports;

import dev.hetrace.profile.Run;
import dev.hetrace.profile.Sample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code pmctrack}'s output (PMCTrack's command-line tool), as its documentation shows it:
 *
 * <pre>
 * [Event-to-counter mappings]
 * pmc1=instr
 * pmc2=llc_misses
 * [Event counts]
 * nsample  pid      event      pmc1      pmc2
 *   1  11960    tick      797055120  8912054
 *   2  11960    tick      316689383 11242700
 * </pre>
 *
 * The mapping section is optional (without it counters keep their {@code pmcN} names); the
 * table's columns are {@code nsample pid event}, optionally {@code expid} (multiplexed
 * experiments) and {@code cpu}, then counters {@code pmcN} and virtual counters {@code virtN}.
 * Each row is one sample: the counts since the previous sample of that pid. {@code event} is
 * {@code tick} for time-based sampling (a sample every period, 1 s by default: sample k is at
 * k × period) and otherwise the counter whose overflow took the sample (event-based: no time).
 * A multithreaded program's rows carry each thread's id in {@code pid}. Blank lines, lines
 * starting with {@code #} and a line {@code ...} (an elision in examples) are skipped. The run's
 * counters are the sums of its samples; its runtime is the number of ticks × period for
 * time-based sampling, else unknown.
 */
public final class PmctrackImport {

    public static final double PERIOD_SECONDS = 1.0;
    private static final Pattern MAPPING = Pattern.compile("\\s*((?:pmc|virt)\\d+)\\s*=\\s*(\\S+)\\s*");
    private static final Pattern COUNTER = Pattern.compile("(?:pmc|virt)\\d+");

    private PmctrackImport() {}

    public static List<Run> read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Map<String, String> names = new LinkedHashMap<>();
        String[] header = null;
        int ns = -1;
        int pidCol = -1;
        int eventCol = -1;
        int cpuCol = -1;
        List<Integer> counterCols = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        Map<String, Double> totals = new TreeMap<>();
        Map<Long, Integer> ticksPerPid = new LinkedHashMap<>();
        String section = "";
        for (int i = 0; i < lines.size(); i++) {
            int no = i + 1;
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.equals("...")) {
                continue;
            }
            if (line.startsWith("[")) {
                section = line;
                continue;
            }
            if (header == null) {
                Matcher m = MAPPING.matcher(line);
                if (m.matches()) {
                    names.put(m.group(1), m.group(2));
                    continue;
                }
                String[] cols = line.split("\\s+");
                if (!cols[0].equals("nsample")) {
                    throw Importer.malformed(
                            file,
                            no,
                            section.startsWith("[Event-to-counter")
                                    ? "expected a mapping such as pmc0=instr, found '" + line + "'"
                                    : "expected pmctrack's header 'nsample pid event pmc0 ...', found '" + line + "'");
                }
                header = cols;
                for (int c = 0; c < cols.length; c++) {
                    switch (cols[c]) {
                        case "nsample" -> ns = c;
                        case "pid" -> pidCol = c;
                        case "event" -> eventCol = c;
                        case "cpu", "core" -> cpuCol = c;
                        case "expid" -> {}
                        default -> {
                            if (!COUNTER.matcher(cols[c]).matches()) {
                                throw Importer.malformed(
                                        file,
                                        no,
                                        "unknown pmctrack column '" + cols[c]
                                                + "' (expected nsample, pid, event, expid, cpu, pmcN or virtN)");
                            }
                            counterCols.add(c);
                        }
                    }
                }
                if (pidCol < 0 || eventCol < 0) {
                    throw Importer.malformed(file, no, "pmctrack's header lacks the pid or event column");
                }
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length != header.length) {
                throw Importer.malformed(
                        file,
                        no,
                        "expected " + header.length + " columns (" + String.join(" ", header) + "), found " + f.length);
            }
            Importer.number(file, no, f[ns], "nsample");
            long pid = (long) Importer.number(file, no, f[pidCol], "pid");
            String event = f[eventCol];
            int cpu = cpuCol < 0 ? -1 : (int) Importer.number(file, no, f[cpuCol], "cpu");
            Map<String, Double> counters = new LinkedHashMap<>();
            for (int c : counterCols) {
                String name = names.getOrDefault(header[c], header[c]);
                if (f[c].equals("-")) {
                    continue;
                }
                double v = Importer.number(file, no, f[c], header[c]);
                counters.put(name, v);
                totals.merge(name, v, Double::sum);
            }
            double time = Double.NaN;
            if (event.equals("tick")) {
                int k = ticksPerPid.merge(pid, 1, Integer::sum);
                time = k * PERIOD_SECONDS;
            }
            samples.add(new Sample(time, pid, pid, "", cpu, event, counters));
        }
        if (header == null) {
            throw Importer.malformed(file, lines.size(), "no pmctrack table (no 'nsample pid event ...' header)");
        }
        boolean timeBased =
                !samples.isEmpty() && samples.stream().allMatch(s -> s.trigger().equals("tick"));
        double runtime = timeBased
                ? ticksPerPid.values().stream()
                                .mapToInt(Integer::intValue)
                                .max()
                                .orElse(0)
                        * PERIOD_SECONDS
                : Double.NaN;
        String workload = String.valueOf(file.getFileName());
        Map<String, String> config = new TreeMap<>();
        config.put("sampling", timeBased ? "time" : "event");
        return List.of(new Run(workload, config, 0, runtime, Double.NaN, Double.NaN, totals, Map.of(), samples));
    }
}
