package dev.hetrace.profile.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.TreeMap;

/**
 * The data cache sizes of CPU 0 ({@code /sys/devices/system/cpu/cpu0/cache/index*}), and the
 * buffer size that makes a memory kernel hit each level: half of L1 (fits in L1), half of L2
 * (fits in L2, not in L1), half of the last level (fits in it, not in L2), and four times the
 * last level (DRAM).
 *
 * @param l1  the L1 data cache in bytes
 * @param l2  the L2 cache in bytes, 0 when there is none
 * @param llc the last-level cache in bytes
 */
public record CacheSizes(long l1, long l2, long llc) {

    /** Used when sysfs does not say (e.g. in a container without it): a common desktop layout. */
    public static final CacheSizes TYPICAL = new CacheSizes(32 << 10, 512 << 10, 8 << 20);

    private static final Path SYSFS = Path.of("/sys/devices/system/cpu/cpu0/cache");

    /** This machine's caches, or {@link #TYPICAL} when sysfs does not list them. */
    public static CacheSizes ofThisMachine() {
        return read(SYSFS);
    }

    static CacheSizes read(Path folder) {
        TreeMap<Integer, Long> byLevel = new TreeMap<>();
        try (var dirs = Files.list(folder)) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("index"))
                    .toList()) {
                String type = Files.readString(d.resolve("type")).strip();
                if (type.equals("Instruction")) {
                    continue;
                }
                int level =
                        Integer.parseInt(Files.readString(d.resolve("level")).strip());
                byLevel.merge(level, bytes(Files.readString(d.resolve("size")).strip()), Math::max);
            }
        } catch (IOException | RuntimeException e) {
            return TYPICAL;
        }
        if (byLevel.isEmpty()) {
            return TYPICAL;
        }
        long l1 = byLevel.getOrDefault(1, TYPICAL.l1());
        return new CacheSizes(
                l1, byLevel.getOrDefault(2, 0L), byLevel.lastEntry().getValue());
    }

    /** The buffer size for a target: {@code l1}, {@code l2}, {@code llc} or {@code dram}. */
    public long bufferFor(String target) {
        return switch (target.toLowerCase(Locale.ROOT)) {
            case "l1" -> l1 / 2;
            case "l2" -> (l2 > 0 ? l2 : l1 * 4) / 2;
            case "llc" -> llc / 2;
            case "dram" -> Math.max(4 * llc, 64L << 20);
            default -> throw new IllegalArgumentException(target);
        };
    }

    /** Parses a size such as {@code 32K}, {@code 8M}, {@code 1G} or {@code 4096} (K = 1024). */
    public static long bytes(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        if (t.endsWith("B")) {
            t = t.substring(0, t.length() - 1);
        }
        long unit = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
        }
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        long n = Long.parseLong(digits);
        if (n < 0) {
            throw new NumberFormatException(text);
        }
        return Math.multiplyExact(n, unit);
    }

    /** A size for people: 16K, 256K, 16M, 128M (exact when a whole number of units). */
    public static String format(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return bytes / (1L << 30) + "G";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return bytes / (1L << 20) + "M";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return bytes / (1L << 10) + "K";
        }
        return Long.toString(bytes);
    }
}
