package dev.hetrace.profile.perf;

import dev.hetrace.profile.ProfileException;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * hetrace's built-in memory-bound workload: {@code chase|stream[:size=TARGET][:accesses=N]
 * [:stride=BYTES][:rw=read|write|rmw]}. {@code chase} follows a random cycle of pointers, one per
 * cache line, through the buffer (every load waits for the previous one: latency-bound);
 * {@code stream} walks it at a stride (bandwidth-bound). TARGET as in {@link StressorSpec}
 * (default {@code dram}); accesses accept K, M, G (powers of 1000; default 10M).
 *
 * @param kind     {@code chase} or {@code stream}
 * @param target   the buffer's target as written
 * @param bytes    the buffer size on this machine
 * @param accesses how many accesses the workload makes
 * @param stride   bytes between accesses of a stream
 * @param access   what each access of a stream does
 */
public record WorkloadSpec(
        String kind, String target, long bytes, long accesses, long stride, StressorSpec.Access access) {

    public static WorkloadSpec parse(String text) {
        return parse(text, CacheSizes.ofThisMachine());
    }

    public static WorkloadSpec parse(String text, CacheSizes caches) {
        String[] parts = text.strip().split(":", -1);
        String kind = parts[0].strip().toLowerCase(Locale.ROOT);
        if (!kind.equals("chase") && !kind.equals("stream")) {
            throw bad(text, "'" + parts[0] + "' is not a workload: chase or stream");
        }
        Map<String, String> o;
        try {
            o = StressorSpec.options(text, parts, List.of("size", "accesses", "stride", "rw"));
        } catch (ProfileException e) {
            throw bad(text, e.getMessage().substring(e.getMessage().indexOf(": ") + 2));
        }
        String target = o.getOrDefault("size", "dram");
        long accesses = count(text, o.getOrDefault("accesses", "10M"));
        try {
            return new WorkloadSpec(
                    kind,
                    target,
                    StressorSpec.size(text, target, caches),
                    accesses,
                    StressorSpec.stride(text, o.getOrDefault("stride", "64")),
                    StressorSpec.access(text, o.getOrDefault("rw", "read")));
        } catch (ProfileException e) {
            throw bad(text, e.getMessage().substring(e.getMessage().indexOf(": ") + 2));
        }
    }

    /** The memory kernel's arguments for this workload ({@link MemoryKernel#command}). */
    public List<String> arguments() {
        return List.of(
                "mode=" + kind, "bytes=" + bytes, "accesses=" + accesses, "stride=" + stride, "rw=" + access.word());
    }

    @Override
    public String toString() {
        return kind + ":size=" + target + ":accesses=" + accesses
                + (kind.equals("stream") ? ":stride=" + stride + ":rw=" + access.word() : "");
    }

    private static long count(String spec, String value) {
        String v = value.strip().toUpperCase(Locale.ROOT);
        long unit = switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
            case 'K' -> 1_000L;
            case 'M' -> 1_000_000L;
            case 'G' -> 1_000_000_000L;
            default -> 1L;
        };
        try {
            long n = Long.parseLong(unit == 1 ? v : v.substring(0, v.length() - 1));
            if (n <= 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(n, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw bad(spec, "accesses '" + value + "' is not a positive count (e.g. 5M)");
        }
    }

    private static ProfileException bad(String spec, String why) {
        return new ProfileException("workload '" + spec + "': " + why);
    }
}
