package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.MappingList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The labels of an enumeration, ready for lookups by value. Each segment is a label with its
 * range of values; a segment may stand for a run of labels {@code prefix + counter} mapping
 * consecutive values, so an enumeration of 67 million labels takes a few bytes. When the
 * segments do not overlap, a value is looked up by binary search.
 */
public final class EnumTable {
    private final boolean signed;
    private final long[] lo;
    private final long[] hi;
    /** Label (or, for a run, its prefix) in UTF-8. */
    private final byte[][] label;
    /** Counter of the first label of a run segment, or -1. */
    private final long[] runFirst;
    /** When a label has several ranges: its ranges {@code [lo0, hi0, ...]} (then lo/hi are unused). */
    private final long[][] ranges;
    /** Segments sorted by their low value, when they do not overlap; else null. */
    private final int[] sorted;

    private EnumTable(boolean signed, long[] lo, long[] hi, byte[][] label, long[] runFirst, long[][] ranges) {
        this.signed = signed;
        this.lo = lo;
        this.hi = hi;
        this.label = label;
        this.runFirst = runFirst;
        this.ranges = ranges;
        this.sorted = ranges == null ? disjointOrder(lo, hi, signed) : null;
    }

    static int compare(long a, long b, boolean signed) {
        return signed ? Long.compare(a, b) : Long.compareUnsigned(a, b);
    }

    /** Segment indices by low value if no two segments overlap, else null. */
    static int[] disjointOrder(long[] lo, long[] hi, boolean signed) {
        Integer[] order = new Integer[lo.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> compare(lo[a], lo[b], signed));
        int[] result = new int[order.length];
        for (int i = 0; i < order.length; i++) {
            result[i] = order[i];
            if (i > 0 && compare(hi[order[i - 1]], lo[order[i]], signed) >= 0) {
                return null;
            }
        }
        return result;
    }

    public static EnumTable of(EnumType et) {
        boolean signed = et.container().signed();
        MappingList m;
        if (et.mappings() instanceof MappingList ml) {
            m = ml;
        } else {
            m = new MappingList();
            m.addAll(et.mappings());
        }
        if (labelsAreDistinct(m)) {
            int n = m.entryCount();
            long[] lo = new long[n];
            long[] hi = new long[n];
            byte[][] label = new byte[n][];
            long[] runFirst = new long[n];
            for (int e = 0; e < n; e++) {
                if (m.isRun(e)) {
                    lo[e] = m.runFirstValue(e);
                    hi[e] = lo[e] + m.entrySize(e) - 1;
                    label[e] = m.runPrefix(e).getBytes(StandardCharsets.UTF_8);
                    runFirst[e] = m.runFirstNumber(e);
                } else {
                    EnumMapping x = m.entryMapping(e);
                    lo[e] = x.low();
                    hi[e] = x.high();
                    label[e] = x.label().getBytes(StandardCharsets.UTF_8);
                    runFirst[e] = -1;
                }
            }
            return new EnumTable(signed, lo, hi, label, runFirst, null);
        }
        // A label with several ranges: one segment per distinct label, in order of first appearance.
        Map<String, List<Long>> byLabel = new LinkedHashMap<>();
        for (EnumMapping x : m) {
            List<Long> r = byLabel.computeIfAbsent(x.label(), k -> new ArrayList<>());
            r.add(x.low());
            r.add(x.high());
        }
        int n = byLabel.size();
        byte[][] label = new byte[n][];
        long[][] ranges = new long[n][];
        long[] runFirst = new long[n];
        int k = 0;
        for (Map.Entry<String, List<Long>> e : byLabel.entrySet()) {
            label[k] = e.getKey().getBytes(StandardCharsets.UTF_8);
            ranges[k] = e.getValue().stream().mapToLong(Long::longValue).toArray();
            runFirst[k] = -1;
            k++;
        }
        return new EnumTable(signed, null, null, label, runFirst, ranges);
    }

    private static boolean labelsAreDistinct(MappingList m) {
        Set<String> singles = new HashSet<>();
        Map<String, List<long[]>> runs = new HashMap<>();
        for (int e = 0; e < m.entryCount(); e++) {
            if (m.isRun(e)) {
                runs.computeIfAbsent(m.runPrefix(e), k -> new ArrayList<>())
                        .add(new long[] {m.runFirstNumber(e), m.runFirstNumber(e) + m.entrySize(e) - 1});
            } else if (!singles.add(m.entryMapping(e).label())) {
                return false;
            }
        }
        if (runs.isEmpty()) {
            return true;
        }
        for (List<long[]> r : runs.values()) {
            r.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < r.size(); i++) {
                if (r.get(i)[0] <= r.get(i - 1)[1]) {
                    return false;
                }
            }
        }
        for (String s : singles) {
            int i = s.length();
            while (i > 0 && Character.isDigit(s.charAt(i - 1)) && s.charAt(i - 1) < 0x80) {
                i--;
            }
            if (i == s.length() || s.length() - i > 18 || (s.length() - i > 1 && s.charAt(i) == '0')) {
                continue;
            }
            List<long[]> r = runs.get(s.substring(0, i));
            if (r != null) {
                long v = Long.parseLong(s.substring(i));
                for (long[] x : r) {
                    if (v >= x[0] && v <= x[1]) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    public int segmentCount() {
        return label.length;
    }

    private boolean contains(int s, long v) {
        if (ranges != null) {
            return Node.inRanges(ranges[s], v, signed);
        }
        return compare(lo[s], v, signed) <= 0 && compare(v, hi[s], signed) <= 0;
    }

    /** The first segment (in declaration order) whose labels include value {@code v}, or -1. */
    public int first(long v) {
        if (sorted != null) {
            int a = 0;
            int b = sorted.length - 1;
            int found = -1;
            while (a <= b) {
                int mid = (a + b) >>> 1;
                if (compare(lo[sorted[mid]], v, signed) <= 0) {
                    found = mid;
                    a = mid + 1;
                } else {
                    b = mid - 1;
                }
            }
            return found >= 0 && contains(sorted[found], v) ? sorted[found] : -1;
        }
        return next(v, -1);
    }

    /** The next segment after {@code s} whose labels include {@code v}, or -1. */
    public int next(long v, int s) {
        if (sorted != null) {
            return -1;
        }
        for (int i = s + 1; i < label.length; i++) {
            if (contains(i, v)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether segment {@code s} is a run: its label for value v is {@link #prefix} + {@link #number}. */
    public boolean isRun(int s) {
        return runFirst[s] >= 0;
    }

    /** The label of a segment that is no run, or the prefix of a run, in UTF-8. */
    public byte[] prefix(int s) {
        return label[s];
    }

    /** The counter of the label of value {@code v} in run segment {@code s}. */
    public long number(int s, long v) {
        return runFirst[s] + (v - lo[s]);
    }

    /** The label of value {@code v} in segment {@code s}. */
    public String label(int s, long v) {
        String p = new String(label[s], StandardCharsets.UTF_8);
        return isRun(s) ? p + number(s, v) : p;
    }

    /** Low and high values of segment {@code s} (compact segments only). */
    long low(int s) {
        return lo[s];
    }

    long high(int s) {
        return hi[s];
    }

    boolean hasRanges() {
        return ranges != null;
    }

    long[] ranges(int s) {
        return ranges[s];
    }

    boolean signed() {
        return signed;
    }
}
