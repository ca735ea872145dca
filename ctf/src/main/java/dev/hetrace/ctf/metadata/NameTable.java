package dev.hetrace.ctf.metadata;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A map from names to values that stores runs of generated names ({@code t0, t1, t2...}) bound
 * to the same value as one entry: millions of {@code typedef ... tN;} cost a few bytes.
 */
final class NameTable<V> {
    private static final class Run<V> {
        final long first;
        long count;
        final V value;

        Run(long first, V value) {
            this.first = first;
            this.count = 1;
            this.value = value;
        }
    }

    private Map<String, V> plain;
    private Map<String, TreeMap<Long, Run<V>>> runs;
    private String lastPrefix;
    private Run<V> lastRun;

    V get(String name) {
        if (plain != null) {
            V v = plain.get(name);
            if (v != null) {
                return v;
            }
        }
        if (runs == null) {
            return null;
        }
        CountedName c = CountedName.of(name);
        if (c == null) {
            return null;
        }
        TreeMap<Long, Run<V>> byFirst = runs.get(c.prefix());
        if (byFirst == null) {
            return null;
        }
        Map.Entry<Long, Run<V>> e = byFirst.floorEntry(c.number());
        return e != null && c.number() - e.getValue().first < e.getValue().count ? e.getValue().value : null;
    }

    boolean containsKey(String name) {
        return get(name) != null;
    }

    /** Binds a name that is not bound yet ({@code value} not null). */
    void put(String name, V value) {
        CountedName c = CountedName.of(name);
        if (c == null) {
            if (plain == null) {
                plain = new HashMap<>();
            }
            plain.put(name, value);
            return;
        }
        if (lastRun != null
                && c.prefix().equals(lastPrefix)
                && c.number() == lastRun.first + lastRun.count
                && Types.same(lastRun.value, value)) {
            lastRun.count++;
            return;
        }
        if (runs == null) {
            runs = new HashMap<>();
        }
        Run<V> run = new Run<>(c.number(), value);
        runs.computeIfAbsent(c.prefix(), k -> new TreeMap<>()).put(c.number(), run);
        lastPrefix = c.prefix();
        lastRun = run;
    }
}
