package dev.hetrace.profile.perf;

import dev.hetrace.profile.ProfileException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a stressing co-runner accesses: {@code TARGET[:stride=BYTES][:rw=read|write|rmw]}, where
 * TARGET is {@code l1}, {@code l2}, {@code llc}, {@code dram} (a buffer sized from this machine's
 * caches, see {@link CacheSizes#bufferFor}) or a size such as {@code 64K} or {@code 8M}. E.g.
 * {@code dram:stride=64:rw=read}. Defaults: stride 64 (one access per cache line), rw read.
 *
 * @param target the target as written ({@code dram}, {@code 64K})
 * @param bytes  the buffer size it resolves to on this machine
 * @param stride bytes between consecutive accesses, a multiple of 8
 * @param access what each access does
 */
public record StressorSpec(String target, long bytes, long stride, Access access) {

    /** What one access does to the 8-byte word it touches. */
    public enum Access {
        READ,
        WRITE,
        RMW;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Parses a spec, resolving cache targets with this machine's cache sizes. */
    public static StressorSpec parse(String text) {
        return parse(text, CacheSizes.ofThisMachine());
    }

    public static StressorSpec parse(String text, CacheSizes caches) {
        String[] parts = text.strip().split(":", -1);
        String target = parts[0].strip();
        if (target.isEmpty()) {
            throw bad(text, "the target is missing (l1, l2, llc, dram or a size such as 64K)");
        }
        long bytes = size(text, target, caches);
        Map<String, String> options = options(text, parts, List.of("stride", "rw"));
        return new StressorSpec(
                target,
                bytes,
                stride(text, options.getOrDefault("stride", "64")),
                access(text, options.getOrDefault("rw", "read")));
    }

    /** The spec in its canonical form, e.g. {@code dram:stride=64:rw=read}. */
    @Override
    public String toString() {
        return target + ":stride=" + stride + ":rw=" + access.word();
    }

    /** The kernel's arguments for a run of this spec at a duty cycle (0 to 1), pinned to a CPU (-1: not pinned). */
    List<String> arguments(double duty, int cpu, double seconds) {
        List<String> a = new ArrayList<>(List.of(
                "mode=stress",
                "bytes=" + bytes,
                "stride=" + stride,
                "rw=" + access.word(),
                "duty=" + duty,
                "cpu=" + cpu));
        if (seconds > 0) {
            a.add("seconds=" + seconds);
        }
        return a;
    }

    static long size(String spec, String target, CacheSizes caches) {
        String t = target.toLowerCase(Locale.ROOT);
        if (t.equals("l1") || t.equals("l2") || t.equals("llc") || t.equals("dram")) {
            return caches.bufferFor(t);
        }
        try {
            long b = CacheSizes.bytes(target);
            if (b < 64) {
                throw bad(spec, "the buffer '" + target + "' is too small (at least 64 bytes)");
            }
            return b;
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(spec, "'" + target + "' is not a target: l1, l2, llc, dram or a size such as 64K, 8M");
        }
    }

    static Map<String, String> options(String spec, String[] parts, List<String> known) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw bad(spec, "'" + p + "' is not KEY=VALUE (keys: " + String.join(", ", known) + ")");
            }
            String key = p.substring(0, eq).strip().toLowerCase(Locale.ROOT);
            if (!known.contains(key)) {
                throw bad(spec, "unknown key '" + key + "' (keys: " + String.join(", ", known) + ")");
            }
            out.put(key, p.substring(eq + 1).strip());
        }
        return out;
    }

    static long stride(String spec, String value) {
        try {
            long s = CacheSizes.bytes(value);
            if (s < 8 || s % 8 != 0) {
                throw bad(
                        spec, "stride " + value + " must be a multiple of 8 bytes (the kernel accesses 8-byte words)");
            }
            return s;
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(spec, "stride '" + value + "' is not a number of bytes");
        }
    }

    static Access access(String spec, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "read", "r" -> Access.READ;
            case "write", "w" -> Access.WRITE;
            case "rmw", "read-modify-write" -> Access.RMW;
            default -> throw bad(spec, "rw '" + value + "' is not read, write or rmw");
        };
    }

    static ProfileException bad(String spec, String why) {
        return new ProfileException("stressor '" + spec + "': " + why);
    }
}
