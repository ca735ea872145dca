package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.MemberList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Which option of a variant a tag value selects: entries {@code [lo, hi] -> base + step * (v - lo)}
 * built from the tag's labels and the option names, runs of labels matching runs of options in
 * one entry. As in CTF, the selected option is the first (in declaration order) whose name is a
 * label of the value.
 */
final class VariantSelector {
    private final boolean signed;
    private final long[] lo;
    private final long[] hi;
    private final long[] base;
    private final long[] step;
    private final int[] sorted;

    private VariantSelector(boolean signed, long[] lo, long[] hi, long[] base, long[] step) {
        this.signed = signed;
        this.lo = lo;
        this.hi = hi;
        this.base = base;
        this.step = step;
        this.sorted = EnumTable.disjointOrder(lo, hi, signed);
    }

    boolean isEmpty() {
        return lo.length == 0;
    }

    static VariantSelector of(EnumTable tag, MemberList options) {
        List<long[]> entries = new ArrayList<>();
        boolean signed = tag.signed();
        for (int s = 0; s < tag.segmentCount(); s++) {
            String label = new String(tag.prefix(s), StandardCharsets.UTF_8);
            if (tag.hasRanges()) {
                int option = options.indexOf(label);
                if (option >= 0) {
                    long[] r = tag.ranges(s);
                    for (int k = 0; k < r.length; k += 2) {
                        entries.add(new long[] {r[k], r[k + 1], option, 0});
                    }
                }
            } else if (!tag.isRun(s)) {
                int option = options.indexOf(label);
                if (option >= 0) {
                    entries.add(new long[] {tag.low(s), tag.high(s), option, 0});
                }
            } else {
                long n0 = tag.number(s, tag.low(s));
                long n1 = n0 + (tag.high(s) - tag.low(s));
                for (int e = 0; e < options.entryCount(); e++) {
                    if (options.isRun(e)) {
                        if (!options.runPrefix(e).equals(label)) {
                            continue;
                        }
                        long m0 = options.runFirst(e);
                        long m1 = m0 + options.entrySize(e) - 1;
                        long a = Math.max(n0, m0);
                        long b = Math.min(n1, m1);
                        if (a <= b) {
                            long v = tag.low(s) + (a - n0);
                            entries.add(new long[] {v, v + (b - a), options.entryStart(e) + (a - m0), 1});
                        }
                    } else {
                        Member m = options.entryMember(e);
                        if (m.name().startsWith(label) && m.name().length() > label.length()) {
                            String digits = m.name().substring(label.length());
                            if (digits.chars().allMatch(c -> c >= '0' && c <= '9')
                                    && digits.length() <= 18
                                    && (digits.length() == 1 || digits.charAt(0) != '0')) {
                                long n = Long.parseLong(digits);
                                if (n >= n0 && n <= n1) {
                                    long v = tag.low(s) + (n - n0);
                                    entries.add(new long[] {v, v, options.entryStart(e), 0});
                                }
                            }
                        }
                    }
                }
            }
        }
        int n = entries.size();
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] base = new long[n];
        long[] step = new long[n];
        for (int i = 0; i < n; i++) {
            long[] x = entries.get(i);
            lo[i] = x[0];
            hi[i] = x[1];
            base[i] = x[2];
            step[i] = x[3];
        }
        return new VariantSelector(signed, lo, hi, base, step);
    }

    /** A CTF 2 selector: option {@code i} is selected by the values of {@code ranges.get(i)}. */
    static VariantSelector ofRanges(boolean signed, List<List<EnumMapping>> ranges) {
        int n = ranges.stream().mapToInt(List::size).sum();
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] base = new long[n];
        int k = 0;
        for (int option = 0; option < ranges.size(); option++) {
            for (EnumMapping r : ranges.get(option)) {
                lo[k] = r.low();
                hi[k] = r.high();
                base[k] = option;
                k++;
            }
        }
        return new VariantSelector(signed, lo, hi, base, new long[n]);
    }

    private boolean contains(int i, long v) {
        return EnumTable.compare(lo[i], v, signed) <= 0 && EnumTable.compare(v, hi[i], signed) <= 0;
    }

    /** Options of the small tag values 0 to 63 (event headers' ids), looked up directly; built on first use. */
    private int[] small;

    /** The option selected by tag value {@code v}, or -1. */
    int select(long v) {
        int[] table = small;
        if (table == null) {
            table = new int[64];
            for (int k = 0; k < table.length; k++) {
                table[k] = search(k);
            }
            small = table;
        }
        if (v >= 0 && v < 64) {
            return table[(int) v];
        }
        return search(v);
    }

    private int search(long v) {
        if (sorted != null) {
            int a = 0;
            int b = sorted.length - 1;
            int found = -1;
            while (a <= b) {
                int mid = (a + b) >>> 1;
                if (EnumTable.compare(lo[sorted[mid]], v, signed) <= 0) {
                    found = mid;
                    a = mid + 1;
                } else {
                    b = mid - 1;
                }
            }
            if (found < 0 || !contains(sorted[found], v)) {
                return -1;
            }
            int i = sorted[found];
            return (int) (base[i] + step[i] * (v - lo[i]));
        }
        long best = -1;
        for (int i = 0; i < lo.length; i++) {
            if (contains(i, v)) {
                long option = base[i] + step[i] * (v - lo[i]);
                if (best < 0 || option < best) {
                    best = option;
                }
            }
        }
        return (int) best;
    }
}
