package dev.hetrace.profile.perf;

import dev.hetrace.profile.ProfileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** The CPUs this process may run on (a container or taskset may allow fewer than the machine has), and CPU lists such as {@code 0,2-3}. */
public final class Cpus {
    private Cpus() {}

    /** From {@code Cpus_allowed_list} in {@code /proc/self/status}; 0 to n-1 when it cannot be read. */
    public static List<Integer> allowed() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring(line.indexOf(':') + 1));
                }
            }
        } catch (IOException | ProfileException e) {
            // below
        }
        List<Integer> all = new ArrayList<>();
        for (int c = 0; c < Runtime.getRuntime().availableProcessors(); c++) {
            all.add(c);
        }
        return all;
    }

    /** Parses {@code 0,2-3,7} into its CPUs, in increasing order. */
    public static List<Integer> parse(String list) {
        TreeSet<Integer> out = new TreeSet<>();
        for (String part : list.strip().split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            try {
                int dash = p.indexOf('-');
                int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).strip());
                int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1).strip());
                if (lo < 0 || hi < lo) {
                    throw new NumberFormatException();
                }
                for (int c = lo; c <= hi; c++) {
                    out.add(c);
                }
            } catch (NumberFormatException e) {
                throw new ProfileException(
                        "'" + list.strip() + "' is not a CPU list (e.g. 1 or 1,2 or 1-3): '" + p + "'");
            }
        }
        return List.copyOf(out);
    }

    /** {@code 0-1,4}: a list for people. */
    public static String format(List<Integer> cpus) {
        StringBuilder sb = new StringBuilder();
        List<Integer> s = new ArrayList<>(new TreeSet<>(cpus));
        for (int i = 0; i < s.size(); i++) {
            int j = i;
            while (j + 1 < s.size() && s.get(j + 1) == s.get(j) + 1) {
                j++;
            }
            sb.append(sb.isEmpty() ? "" : ",").append(s.get(i));
            if (j > i) {
                sb.append('-').append(s.get(j));
            }
            i = j;
        }
        return sb.toString();
    }
}
