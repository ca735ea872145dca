package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.RandomAccess;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The labels of an enumeration, stored as entries: one mapping, or a run of single-value
 * mappings whose labels are a prefix and a counter and whose values go up by one together
 * ({@code t0 = 0, t1 = 1, ... t67108863}: one entry). {@link #get(int)} makes the mapping of a
 * run on demand.
 */
public final class MappingList extends AbstractList<EnumMapping> implements RandomAccess {
    private int entries;
    private EnumMapping[] single = new EnumMapping[4];
    private String[] prefix = new String[4];
    private long[] firstNumber = new long[4];
    private long[] firstValue = new long[4];
    private int[] start = new int[5];
    private int size;
    private Map<String, Integer> labelIndex;
    private Map<String, TreeMap<Long, Integer>> runIndex;
    private Map<String, TreeSet<Long>> countedSingles;

    @Override
    public int size() {
        return size;
    }

    public int entryCount() {
        return entries;
    }

    public boolean isRun(int e) {
        return single[e] == null;
    }

    /** The mapping of a single entry. */
    public EnumMapping entryMapping(int e) {
        return single[e];
    }

    public String runPrefix(int e) {
        return prefix[e];
    }

    public long runFirstNumber(int e) {
        return firstNumber[e];
    }

    /** Value of the first mapping of run {@code e}; the k-th maps firstValue + k. */
    public long runFirstValue(int e) {
        return firstValue[e];
    }

    public int entrySize(int e) {
        return start[e + 1] - start[e];
    }

    private int entryOf(int index) {
        int lo = 0;
        int hi = entries - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (start[mid] <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    @Override
    public EnumMapping get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        int e = entryOf(index);
        if (single[e] != null) {
            return single[e];
        }
        long k = index - start[e];
        return new EnumMapping(prefix[e] + (firstNumber[e] + k), firstValue[e] + k, firstValue[e] + k);
    }

    @Override
    public boolean add(EnumMapping m) {
        labelIndex = null;
        runIndex = null;
        countedSingles = null;
        int last = entries - 1;
        if (last >= 0 && m.low() == m.high()) {
            CountedName c = CountedName.of(m.label());
            if (c != null) {
                String p;
                long nextNumber;
                long nextValue;
                if (single[last] != null) {
                    EnumMapping s = single[last];
                    CountedName lc = s.low() == s.high() ? CountedName.of(s.label()) : null;
                    p = lc == null ? null : lc.prefix();
                    nextNumber = lc == null ? 0 : lc.number() + 1;
                    nextValue = s.low() + 1;
                } else {
                    p = prefix[last];
                    nextNumber = firstNumber[last] + entrySize(last);
                    nextValue = firstValue[last] + entrySize(last);
                }
                if (p != null && p.equals(c.prefix()) && nextNumber == c.number() && nextValue == m.low()) {
                    if (single[last] != null) {
                        prefix[last] = p;
                        firstNumber[last] = nextNumber - 1;
                        firstValue[last] = nextValue - 1;
                        single[last] = null;
                    }
                    start[last + 1]++;
                    size++;
                    return true;
                }
            }
        }
        if (entries == single.length) {
            int n = entries * 2;
            single = Arrays.copyOf(single, n);
            prefix = Arrays.copyOf(prefix, n);
            firstNumber = Arrays.copyOf(firstNumber, n);
            firstValue = Arrays.copyOf(firstValue, n);
            start = Arrays.copyOf(start, n + 1);
        }
        single[entries] = m;
        start[entries] = size;
        size++;
        start[entries + 1] = size;
        entries++;
        return true;
    }

    private void buildIndex() {
        if (labelIndex != null) {
            return;
        }
        labelIndex = new HashMap<>();
        runIndex = new HashMap<>();
        countedSingles = new HashMap<>();
        for (int e = 0; e < entries; e++) {
            if (single[e] != null) {
                labelIndex.putIfAbsent(single[e].label(), e);
                CountedName c = CountedName.of(single[e].label());
                if (c != null) {
                    countedSingles
                            .computeIfAbsent(c.prefix(), k -> new TreeSet<>())
                            .add(c.number());
                }
            } else {
                runIndex.computeIfAbsent(prefix[e], k -> new TreeMap<>()).put(firstNumber[e], e);
            }
        }
    }

    /** Whether some mapping has this label. */
    public boolean hasLabel(String label) {
        buildIndex();
        if (labelIndex.containsKey(label)) {
            return true;
        }
        CountedName c = CountedName.of(label);
        return c != null && hasCountedLabel(c.prefix(), c.number(), c.number());
    }

    /** Whether some run has a label {@code prefix + n} with n in [from, to]. */
    public boolean hasCountedLabel(String labelPrefix, long from, long to) {
        buildIndex();
        TreeSet<Long> singles = countedSingles.get(labelPrefix);
        if (singles != null) {
            Long n = singles.ceiling(from);
            if (n != null && n <= to) {
                return true;
            }
        }
        TreeMap<Long, Integer> runs = runIndex.get(labelPrefix);
        if (runs == null) {
            return false;
        }
        for (Map.Entry<Long, Integer> r : runs.headMap(to, true).descendingMap().entrySet()) {
            if (r.getKey() + entrySize(r.getValue()) - 1 >= from) {
                return true;
            }
        }
        return false;
    }
}
