package dev.hetrace.profile.stats;

import dev.hetrace.profile.ProfileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of each CPU (big.LITTLE's {@code big} and {@code LITTLE}), from the kernel's CPU
 * topology or from the user: metrics differ by core type (an Odroid XU4: IPC 1.5 on the
 * A15s, 0.75 on the A7s). A CPU no rule names is of type {@code cpu}.
 *
 * @param types CPU number to its type's name
 */
public record CoreTypes(Map<Integer, String> types) {

    public static final String UNKNOWN = "unknown";
    private static final Pattern CPU_DIR = Pattern.compile("cpu(\\d+)");
    private static final Pattern RULE = Pattern.compile("\\s*(\\d+)(?:\\s*-\\s*(\\d+))?\\s*=\\s*([\\w.+-]+)\\s*");

    public CoreTypes {
        types = Map.copyOf(types);
    }

    /** The type of {@code cpu}; {@link #UNKNOWN} for -1 (not known) and CPUs not described. */
    public String typeOf(int cpu) {
        return types.getOrDefault(cpu, UNKNOWN);
    }

    /** The distinct types, in CPU order. */
    public List<String> names() {
        return new ArrayList<>(new java.util.LinkedHashSet<>(new TreeMap<>(types).values()));
    }

    /**
     * The types from {@code root} (normally {@code /sys/devices/system/cpu}): CPUs grouped by
     * {@code cpuN/cpu_capacity}, else by {@code cpuN/cpufreq/cpuinfo_max_freq}. One group is type
     * {@code cpu}; two are {@code LITTLE} (the lower) and {@code big}; three add {@code medium}
     * between them; more are named {@code type1} (lowest) upwards. Without either file every
     * CPU found is of type {@code cpu}.
     */
    public static CoreTypes fromTopology(Path root) throws IOException {
        Map<Integer, Long> capacity = new TreeMap<>();
        Map<Integer, Long> freq = new TreeMap<>();
        List<Integer> cpus = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (var dirs = Files.list(root)) {
                for (Path d : dirs.toList()) {
                    Matcher m = CPU_DIR.matcher(d.getFileName().toString());
                    if (!m.matches()) {
                        continue;
                    }
                    int cpu = Integer.parseInt(m.group(1));
                    cpus.add(cpu);
                    read(d.resolve("cpu_capacity")).ifPresent(v -> capacity.put(cpu, v));
                    read(d.resolve("cpufreq/cpuinfo_max_freq")).ifPresent(v -> freq.put(cpu, v));
                }
            }
        }
        Map<Integer, Long> by = !capacity.isEmpty() && capacity.size() == cpus.size()
                ? capacity
                : !freq.isEmpty() && freq.size() == cpus.size() ? freq : Map.of();
        Map<Integer, String> out = new TreeMap<>();
        if (by.isEmpty()) {
            cpus.forEach(c -> out.put(c, "cpu"));
            return new CoreTypes(out);
        }
        List<Long> levels = new ArrayList<>(new TreeSet<>(by.values()));
        List<String> names = switch (levels.size()) {
            case 1 -> List.of("cpu");
            case 2 -> List.of("LITTLE", "big");
            case 3 -> List.of("LITTLE", "medium", "big");
            default -> {
                List<String> n = new ArrayList<>();
                for (int i = 1; i <= levels.size(); i++) {
                    n.add("type" + i);
                }
                yield n;
            }
        };
        by.forEach((cpu, v) -> out.put(cpu, names.get(levels.indexOf(v))));
        return new CoreTypes(out);
    }

    /** This machine's types. */
    public static CoreTypes ofThisMachine() throws IOException {
        return fromTopology(Path.of("/sys/devices/system/cpu"));
    }

    /** User labels: {@code 0-3=LITTLE,4-7=big} (a CPU or a range of CPUs each). */
    public static CoreTypes parse(String rules) {
        Map<Integer, String> out = new TreeMap<>();
        for (String rule : rules.split(",")) {
            Matcher m = RULE.matcher(rule);
            if (!m.matches()) {
                throw new ProfileException("core types: '" + rule.trim() + "' is not CPU=TYPE or FIRST-LAST=TYPE"
                        + " (e.g. 0-3=LITTLE,4-7=big)");
            }
            int from = Integer.parseInt(m.group(1));
            int to = m.group(2) == null ? from : Integer.parseInt(m.group(2));
            if (to < from) {
                throw new ProfileException("core types: '" + rule.trim() + "': the range ends before it starts");
            }
            for (int c = from; c <= to; c++) {
                if (out.put(c, m.group(3)) != null) {
                    throw new ProfileException("core types: CPU " + c + " is given two types");
                }
            }
        }
        return new CoreTypes(out);
    }

    private static java.util.Optional<Long> read(Path f) {
        try {
            return java.util.Optional.of(Long.parseLong(Files.readString(f).trim()));
        } catch (IOException | NumberFormatException e) {
            return java.util.Optional.empty();
        }
    }
}
