package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.RandomAccess;
import java.util.TreeMap;

/**
 * The members of a struct (or options of a variant), stored as entries: a single member, or a
 * run of members of the same type whose names are a prefix and a counter going up by one
 * ({@code f0, f1, ... f67108863}: one entry). {@link #get(int)} makes the {@link Member} of a
 * run on demand; single members are kept as given, so their identity is stable.
 */
public final class MemberList extends AbstractList<Member> implements RandomAccess {
    /** Beyond this many entries, names are found through an index rather than by scanning. */
    private static final int INDEX_FROM = 16;

    private int entries;
    /** Per entry: the member (single), or null for a run. */
    private Member[] single = new Member[4];
    /** Per run entry: name prefix, first counter, type. */
    private String[] prefix = new String[4];

    private long[] first = new long[4];
    private FieldType[] type = new FieldType[4];
    /** Index of the first member of each entry, and one past the last member of the list. */
    private int[] start = new int[5];
    /** Entries that a reference named: never merged into a run. */
    private boolean[] pinned = new boolean[4];

    private int size;

    private Map<String, Integer> singleIndex;
    private Map<String, TreeMap<Long, Integer>> runIndex;
    private int alignment = -1;

    public MemberList() {}

    public MemberList(Iterable<Member> members) {
        for (Member m : members) {
            add(m);
        }
    }

    @Override
    public int size() {
        return size;
    }

    /** Number of entries (single members and runs). */
    public int entryCount() {
        return entries;
    }

    /** Index of the first member of entry {@code e}. */
    public int entryStart(int e) {
        return start[e];
    }

    /** Number of members of entry {@code e}. */
    public int entrySize(int e) {
        return start[e + 1] - start[e];
    }

    /** Whether entry {@code e} is a run (its names are {@link #runPrefix} + counter). */
    public boolean isRun(int e) {
        return single[e] == null;
    }

    public String runPrefix(int e) {
        return prefix[e];
    }

    public long runFirst(int e) {
        return first[e];
    }

    public FieldType entryType(int e) {
        return single[e] != null ? single[e].type() : type[e];
    }

    /** The member of a single entry; for a run, its first member. */
    public Member entryMember(int e) {
        return single[e] != null ? single[e] : new Member(prefix[e] + first[e], type[e]);
    }

    /** Entry holding member {@code index}. */
    public int entryOf(int index) {
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
    public Member get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        int e = entryOf(index);
        return single[e] != null ? single[e] : new Member(prefix[e] + (first[e] + index - start[e]), type[e]);
    }

    @Override
    public boolean add(Member m) {
        alignment = -1;
        int last = entries - 1;
        CountedName c = CountedName.of(m.name());
        if (last >= 0 && c != null && !pinned[last] && Types.same(entryType(last), m.type())) {
            String p;
            long next;
            if (single[last] != null) {
                CountedName lc = CountedName.of(single[last].name());
                p = lc == null ? null : lc.prefix();
                next = lc == null ? -1 : lc.number() + 1;
            } else {
                p = prefix[last];
                next = first[last] + entrySize(last);
            }
            if (p != null && p.equals(c.prefix()) && next == c.number()) {
                if (single[last] != null) {
                    unindex(last);
                    prefix[last] = p;
                    first[last] = next - 1;
                    type[last] = single[last].type();
                    single[last] = null;
                    index(last);
                }
                start[last + 1]++;
                size++;
                return true;
            }
        }
        grow();
        single[entries] = m;
        start[entries] = size;
        size++;
        start[entries + 1] = size;
        entries++;
        index(entries - 1);
        return true;
    }

    private void grow() {
        if (entries == single.length) {
            int n = single.length * 2;
            single = Arrays.copyOf(single, n);
            prefix = Arrays.copyOf(prefix, n);
            first = Arrays.copyOf(first, n);
            type = Arrays.copyOf(type, n);
            pinned = Arrays.copyOf(pinned, n);
            start = Arrays.copyOf(start, n + 1);
        }
    }

    private void index(int e) {
        if (singleIndex == null) {
            if (entries < INDEX_FROM) {
                return;
            }
            singleIndex = new HashMap<>();
            runIndex = new HashMap<>();
            for (int i = 0; i < entries; i++) {
                if (i != e) {
                    index(i);
                }
            }
        }
        if (single[e] != null) {
            singleIndex.put(single[e].name(), e);
        } else {
            runIndex.computeIfAbsent(prefix[e], k -> new TreeMap<>()).put(first[e], e);
        }
    }

    private void unindex(int e) {
        if (singleIndex == null) {
            return;
        }
        if (single[e] != null) {
            singleIndex.remove(single[e].name());
        } else {
            TreeMap<Long, Integer> runs = runIndex.get(prefix[e]);
            if (runs != null) {
                runs.remove(first[e]);
            }
        }
    }

    /** Index of the member with this name, or -1. */
    public int indexOf(String name) {
        int e = entryNamed(name);
        if (e < 0) {
            return -1;
        }
        return single[e] != null
                ? start[e]
                : start[e] + (int) (CountedName.of(name).number() - first[e]);
    }

    @Override
    public int indexOf(Object o) {
        return o instanceof Member m
                        && indexOf(m.name()) >= 0
                        && get(indexOf(m.name())).equals(m)
                ? indexOf(m.name())
                : -1;
    }

    private int entryNamed(String name) {
        if (singleIndex == null) {
            CountedName c = null;
            boolean parsed = false;
            for (int e = 0; e < entries; e++) {
                if (single[e] != null) {
                    if (single[e].name().equals(name)) {
                        return e;
                    }
                } else {
                    if (!parsed) {
                        c = CountedName.of(name);
                        parsed = true;
                    }
                    if (c != null
                            && c.prefix().equals(prefix[e])
                            && c.number() >= first[e]
                            && c.number() - first[e] < entrySize(e)) {
                        return e;
                    }
                }
            }
            return -1;
        }
        Integer e = singleIndex.get(name);
        if (e != null) {
            return e;
        }
        CountedName c = CountedName.of(name);
        if (c == null) {
            return -1;
        }
        TreeMap<Long, Integer> runs = runIndex.get(c.prefix());
        if (runs == null) {
            return -1;
        }
        Map.Entry<Long, Integer> r = runs.floorEntry(c.number());
        return r != null && c.number() - r.getKey() < entrySize(r.getValue()) ? r.getValue() : -1;
    }

    /**
     * The member with this name, or null. A member of a run is split out of it first, so that
     * the returned member is the one the list keeps (references to it compare by identity).
     */
    public Member find(String name) {
        int e = entryNamed(name);
        if (e < 0) {
            return null;
        }
        if (single[e] == null) {
            long k = CountedName.of(name).number() - first[e];
            e = split(e, k);
        }
        pinned[e] = true;
        return single[e];
    }

    /** Splits run {@code e} so that its member {@code k} is a single entry; returns that entry. */
    private int split(int e, long k) {
        int n = entrySize(e);
        String p = prefix[e];
        long f = first[e];
        FieldType t = type[e];
        int s = start[e];
        unindex(e);
        // Entries after e move by up to two places.
        int extra = (k > 0 ? 1 : 0) + (k < n - 1 ? 1 : 0);
        for (int i = 0; i < extra; i++) {
            grow();
            entries++;
        }
        int shift = extra;
        if (shift > 0) {
            System.arraycopy(single, e + 1, single, e + 1 + shift, entries - shift - e - 1);
            System.arraycopy(prefix, e + 1, prefix, e + 1 + shift, entries - shift - e - 1);
            System.arraycopy(first, e + 1, first, e + 1 + shift, entries - shift - e - 1);
            System.arraycopy(type, e + 1, type, e + 1 + shift, entries - shift - e - 1);
            System.arraycopy(pinned, e + 1, pinned, e + 1 + shift, entries - shift - e - 1);
            System.arraycopy(start, e + 1, start, e + 1 + shift, entries - shift - e);
        }
        int at = e;
        if (k > 0) {
            setRun(at, p, f, t, s);
            at++;
        }
        single[at] = new Member(p + (f + k), t);
        prefix[at] = null;
        type[at] = null;
        pinned[at] = false;
        start[at] = s + (int) k;
        int result = at;
        if (k < n - 1) {
            at++;
            setRun(at, p, f + k + 1, t, s + (int) k + 1);
        }
        start[entries] = size;
        if (singleIndex != null) {
            singleIndex = null;
            runIndex = null;
            if (entries >= INDEX_FROM) {
                index(0);
            }
        }
        return result;
    }

    private void setRun(int at, String p, long f, FieldType t, int s) {
        single[at] = null;
        prefix[at] = p;
        first[at] = f;
        type[at] = t;
        pinned[at] = false;
        start[at] = s;
    }

    /** Whether a reference named one of the members (see {@link #find}). */
    boolean hasPinned() {
        for (int e = 0; e < entries; e++) {
            if (pinned[e]) {
                return true;
            }
        }
        return false;
    }

    /** Largest alignment of the members that are not variants. */
    int maxAlignment() {
        if (alignment < 0) {
            int a = 1;
            for (int e = 0; e < entries; e++) {
                FieldType t = entryType(e);
                if (!(t instanceof VariantType)) {
                    a = Math.max(a, t.alignment());
                }
            }
            alignment = a;
        }
        return alignment;
    }
}
