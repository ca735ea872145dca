package dev.hetrace.analysis;

import dev.hetrace.ctf.IndexHeap;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldTypeException;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.sync.PiecewiseMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * KPTrace's pattern search: the occurrences of an event A followed by an event B, over the
 * merged events of one or several traces on the reference clock. An A waits for the next B
 * with the same key (the values of the {@code --where} fields, the core with
 * {@code sameCore}); an A whose key already waits replaces it (the older one is ignored), a B
 * that no A waits for is ignored.
 */
public final class PatternSearch {
    /** What to look for: event name patterns ({@code *} matches anything), fields of A equal to fields of B, same core. */
    public record Spec(String first, String then, List<String[]> where, boolean sameCore) {
        public Spec {
            where = List.copyOf(where);
            for (String[] w : where) {
                if (w.length != 2) {
                    throw new IllegalArgumentException("a --where condition is FIELD_OF_A=FIELD_OF_B");
                }
            }
        }
    }

    /** An occurrence: A at {@code start} on trace and core {@code startCore}, B at {@code end}. */
    public record Occurrence(long start, long end, int startTrace, String startCore, int endTrace, String endCore) {
        public long duration() {
            return end - start;
        }
    }

    /** The occurrences in the order of their Bs, and the As and Bs that found no partner. */
    public record Result(
            Spec spec,
            List<Occurrence> occurrences,
            long ignoredFirst,
            long ignoredThen,
            long events,
            long begin,
            List<String> traceNames) {
        public long minDuration() {
            return occurrences.stream().mapToLong(Occurrence::duration).min().orElse(-1);
        }

        public long maxDuration() {
            return occurrences.stream().mapToLong(Occurrence::duration).max().orElse(-1);
        }

        public double avgDuration() {
            return occurrences.stream()
                    .mapToLong(Occurrence::duration)
                    .average()
                    .orElse(Double.NaN);
        }

        /** The delays from the end of each occurrence to the start of the next (occurrences by start). */
        public long[] delays() {
            List<Occurrence> byStart = new ArrayList<>(occurrences);
            byStart.sort((x, y) -> Long.compare(x.start(), y.start()));
            long[] d = new long[Math.max(0, byStart.size() - 1)];
            for (int i = 1; i < byStart.size(); i++) {
                d[i - 1] = byStart.get(i).start() - byStart.get(i - 1).end();
            }
            return d;
        }

        /** A histogram of the durations: {@code bins} equal bins from the shortest to the longest. */
        public long[] histogram(int bins) {
            long[] h = new long[bins];
            long min = minDuration();
            long max = maxDuration();
            for (Occurrence o : occurrences) {
                int b = max == min ? 0 : (int) Math.min(bins - 1, (o.duration() - min) * bins / (max - min));
                h[b]++;
            }
            return h;
        }
    }

    private PatternSearch() {}

    /** Searches the traces of {@code input} (synchronized by {@link StateBuilder#synchronize}). */
    public static Result run(StateBuilder.Input input, Spec spec, Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        int n = input.traces().size();
        CtfReader[] readers = new CtfReader[n];
        try {
            List<String> names = StateBuilder.traceNames(input.traces());
            for (int i = 0; i < n; i++) {
                readers[i] = CtfReader.open(List.of(input.traces().get(i)), warnings);
            }
            return new Search(readers, input.maps().toArray(PiecewiseMap[]::new), spec, names).run();
        } finally {
            for (CtfReader r : readers) {
                if (r != null) {
                    r.close();
                }
            }
        }
    }

    /** An event name pattern: {@code *} matches any text, the rest itself. */
    static Pattern glob(String name) {
        List<String> parts = new ArrayList<>();
        for (String part : name.split("\\*", -1)) {
            parts.add(Pattern.quote(part));
        }
        return Pattern.compile(String.join(".*", parts));
    }

    private static final class Search {
        private static final int FIRST = 1;
        private static final int THEN = 2;

        final CtfReader[] readers;
        final PiecewiseMap[] maps;
        final Spec spec;
        final List<String> names;
        final Pattern first;
        final Pattern then;
        /** Per event name: FIRST, THEN or both, decided once. */
        final Map<String, Integer> roles = new HashMap<>();
        /** In front of that: the role of each event class met, by the class's identity. */
        final ClassCache<Integer> roleOf = new ClassCache<>(e -> roles.computeIfAbsent(e.name(), this::role));

        final Event.Field[] firstFields;
        final Event.Field[] thenFields;
        final Event.Field cpu = Event.field("packet_context.cpu_id");
        /**
         * The pending As: by a 64-bit hash of their key, a slot of {@link #pendingTime},
         * {@link #pendingTrace} and {@link #pendingCore} (slots freed by a match are reused), so
         * that nothing is allocated per event.
         */
        final LongIntMap pending = new LongIntMap();

        long[] pendingTime = new long[64];
        int[] pendingTrace = new int[64];
        long[] pendingCore = new long[64];
        int[] freeSlots = new int[64];
        int free;
        int slots;
        final List<Occurrence> found = new ArrayList<>();
        final Map<Long, String> coreNames = new HashMap<>();
        long ignoredFirst;
        long ignoredThen;
        long events;
        long begin = Long.MAX_VALUE;

        Search(CtfReader[] readers, PiecewiseMap[] maps, Spec spec, List<String> names) {
            this.readers = readers;
            this.maps = maps;
            this.spec = spec;
            this.names = names;
            first = glob(spec.first());
            then = glob(spec.then());
            firstFields = spec.where().stream().map(w -> Event.field(w[0])).toArray(Event.Field[]::new);
            thenFields = spec.where().stream().map(w -> Event.field(w[1])).toArray(Event.Field[]::new);
        }

        Result run() throws StreamDecodingException {
            int n = readers.length;
            long[] keys = new long[n];
            IndexHeap heap = new IndexHeap(n, (x, y) -> keys[x] < keys[y] || (keys[x] == keys[y] && x < y));
            for (int i = 0; i < n; i++) {
                if (next(i)) {
                    keys[i] = maps[i].apply(readers[i].event().timeNanos());
                    heap.push(i);
                }
            }
            while (heap.size() > 0) {
                int i = heap.peek();
                long t = keys[i];
                Event e = readers[i].event();
                events++;
                begin = Math.min(begin, t);
                int role = role(e);
                if ((role & THEN) != 0) {
                    long key = key(e, thenFields, i);
                    int a = pending.remove(key);
                    if (a == LongIntMap.ABSENT) {
                        ignoredThen++;
                    } else {
                        freeSlot(a);
                        found.add(new Occurrence(
                                pendingTime[a],
                                t,
                                pendingTrace[a],
                                coreName(pendingTrace[a], pendingCore[a]),
                                i,
                                coreName(i, core(e))));
                    }
                }
                if ((role & FIRST) != 0) {
                    long key = key(e, firstFields, i);
                    int a = pending.get(key);
                    if (a != LongIntMap.ABSENT) {
                        ignoredFirst++; // an A after an A of the same key: the later one counts
                    } else {
                        a = slot();
                        pending.put(key, a);
                    }
                    pendingTime[a] = t;
                    pendingTrace[a] = i;
                    pendingCore[a] = core(e);
                }
                if (next(i)) {
                    keys[i] = maps[i].apply(readers[i].event().timeNanos());
                    heap.topChanged();
                } else {
                    heap.pop();
                }
            }
            ignoredFirst += pending.size();
            return new Result(
                    spec,
                    List.copyOf(found),
                    ignoredFirst,
                    ignoredThen,
                    events,
                    begin == Long.MAX_VALUE ? 0 : begin,
                    names);
        }

        /** The next event of trace {@code i} that has a time: untimed events have no place in a pattern. */
        private boolean next(int i) throws StreamDecodingException {
            while (readers[i].next()) {
                if (readers[i].event().hasTime()) {
                    return true;
                }
            }
            return false;
        }

        /** The role of the event's class: looked up by name once per class. */
        private int role(Event e) {
            return roleOf.of(e);
        }

        private int role(String name) {
            return (first.matcher(name).matches() ? FIRST : 0)
                    | (then.matcher(name).matches() ? THEN : 0);
        }

        /** A free slot for a pending A. */
        private int slot() {
            if (free > 0) {
                return freeSlots[--free];
            }
            if (slots == pendingTime.length) {
                int n = slots * 2;
                pendingTime = Arrays.copyOf(pendingTime, n);
                pendingTrace = Arrays.copyOf(pendingTrace, n);
                pendingCore = Arrays.copyOf(pendingCore, n);
            }
            return slots++;
        }

        private void freeSlot(int a) {
            if (free == freeSlots.length) {
                freeSlots = Arrays.copyOf(freeSlots, free * 2);
            }
            freeSlots[free++] = a;
        }

        private long core(Event e) {
            return e.has(cpu) ? e.getLong(cpu) : -1;
        }

        private String coreName(long trace, long cpu) {
            return coreNames.computeIfAbsent(
                    trace << 32 | (cpu & 0xffffffffL), k -> names.get((int) trace) + (cpu >= 0 ? "/cpu" + cpu : ""));
        }

        /**
         * The event's key: a 64-bit hash of its fields' values (strings by the hash of their
         * bytes) and, with {@code --same-core}, of its trace and core. Two keys of different
         * values share a hash with a chance of about one in 10^19 per pair.
         */
        private long key(Event e, Event.Field[] fields, int trace) {
            long h = 0x9E3779B97F4A7C15L;
            for (int k = 0; k < fields.length; k++) {
                if (!e.has(fields[k])) {
                    throw new IllegalArgumentException(
                            "--where " + String.join("=", spec.where().get(k)) + ": event " + e.name()
                                    + " has no field " + fields[k].path());
                }
                long v;
                try {
                    v = e.getLong(fields[k]);
                } catch (FieldTypeException notAnInteger) {
                    v = e.getStringHash(fields[k]);
                }
                h = mix(h ^ v);
            }
            if (spec.sameCore()) {
                h = mix(h ^ trace);
                h = mix(h ^ core(e));
            }
            return h;
        }

        /** A 64-bit finalizer (SplitMix64's): every input bit moves every output bit. */
        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return (z ^ (z >>> 31)) + 0x632BE59BD9B4E5BBL;
        }
    }
}
