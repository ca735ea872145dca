package dev.hetrace.sync;

import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Puts several traces on one clock: matches their messages, relates each pair of traces that
 * exchanged some with a {@link ConvexHullSync}, and composes the pairs along the tree that
 * reaches every trace from the reference with the least accumulated error. Traces whose clocks
 * are one clock ({@link TraceClock}) are related by their metadata, exactly. Traces that nothing
 * connects to the reference are reported as such, never guessed.
 */
public final class Synchronizer {
    private Synchronizer() {}

    /** Told how far a long synchronization is, about once per million events read. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param pass    1 for the matching pass, 2 for the causality check (when one is needed)
         * @param events  events read in this pass
         * @param matched messages matched in this pass
         */
        void update(int pass, long events, long matched);

        Progress NONE = (pass, events, matched) -> {};
    }

    /**
     * The synchronization of a set of traces.
     *
     * @param reference index of the reference trace
     * @param traces    per trace, in the order given
     * @param pairs     every pair of traces that exchanged messages
     * @param rules     what each rule matched
     * @param matches   every message matched, in the order they were matched (empty unless asked for)
     */
    public record Report(
            int reference,
            List<TraceSync> traces,
            List<PairSync> pairs,
            List<MessageMatcher.RuleStats> rules,
            Matches matches) {
        /**
         * Why trace {@code i} is not on the reference clock, in words that name the traces and
         * what may help; empty when it is on it.
         */
        public Optional<String> notConnected(int i) {
            if (traces.get(i).connected()) {
                return Optional.empty();
            }
            for (PairSync p : pairs) {
                if (p.result().quality() == SyncQuality.FAIL && (p.reference() == i || p.other() == i)) {
                    return Optional.of("its messages with "
                            + traces.get(p.reference() == i ? p.other() : p.reference())
                                    .path()
                            + " fit no single clock line (a drift that changes: --piecewise DURATION follows it;"
                            + " or a clock jump, or a wrong match rule)");
                }
            }
            if (pairs.stream().anyMatch(p -> p.reference() == i || p.other() == i)) {
                return Optional.of("its messages connect it only to traces that are not on the reference clock either");
            }
            long seen = rules.stream()
                    .mapToLong(r -> r.matched() + r.unmatchedSends() + r.unmatchedReceives())
                    .sum();
            return Optional.of(
                    seen == 0
                            ? "the traces have none of the events the match rules name ("
                                    + String.join(
                                            ", ",
                                            rules.stream()
                                                    .flatMap(r -> r.rule().events().stream())
                                                    .distinct()
                                                    .toList())
                                    + "): say which events are messages with --match"
                            : "no message matched between it and the other traces (say which events are messages with --match)");
        }
    }

    /**
     * How traces are put on one clock.
     *
     * @param rules          what pairs a send with its receive
     * @param method         how a pair's transform is chosen between its bounds
     * @param reference      index of the reference trace
     * @param piecewiseNanos when positive, pieces of at most this long ({@link PiecewiseSync}); else one line per pair
     */
    public record Options(List<MatchRule> rules, ConvexHullSync.Method method, int reference, long piecewiseNanos) {
        /** hetrace's sync handshake and TCP ({@link MatchRules#DEFAULT}), bisector, on the first trace's clock, linear. */
        public static final Options DEFAULT = new Options(MatchRules.DEFAULT, ConvexHullSync.Method.BISECTOR, 0, 0);

        public Options {
            rules = List.copyOf(rules);
            if (reference < 0) {
                throw new IllegalArgumentException("the reference trace's index must not be negative: " + reference);
            }
        }
    }

    /**
     * The messages a synchronization matched, one by one: the points its hulls were made of. A
     * message is its rule (an index into {@link Report#rules}), its sender's trace and send
     * time, its receiver's trace and receive time, each time on its own trace's clock.
     */
    public static final class Matches {
        /** Per message, four longs: send time, receive time, sender and receiver (high, low halves), rule. */
        private long[] rows = new long[4 * 64];

        private int size;

        void add(int rule, int from, long send, int to, long receive) {
            if (4 * size == rows.length) {
                if (rows.length > Integer.MAX_VALUE / 2 - 8) {
                    throw new IllegalStateException("more than " + size + " matched messages");
                }
                rows = Arrays.copyOf(rows, 2 * rows.length);
            }
            int o = 4 * size++;
            rows[o] = send;
            rows[o + 1] = receive;
            rows[o + 2] = (long) from << 32 | (to & 0xFFFFFFFFL);
            rows[o + 3] = rule;
        }

        public int size() {
            return size;
        }

        public long send(int i) {
            return rows[4 * Objects.checkIndex(i, size)];
        }

        public long receive(int i) {
            return rows[4 * Objects.checkIndex(i, size) + 1];
        }

        public int from(int i) {
            return (int) (rows[4 * Objects.checkIndex(i, size) + 2] >>> 32);
        }

        public int to(int i) {
            return (int) rows[4 * Objects.checkIndex(i, size) + 2];
        }

        public int rule(int i) {
            return (int) rows[4 * Objects.checkIndex(i, size) + 3];
        }
    }

    /**
     * One trace on the reference clock.
     *
     * @param path        the trace
     * @param map         its map to the reference clock (identity for the reference and for traces not connected);
     *                    linear unless synchronized piecewise
     * @param quality     the worst quality along its path to the reference ({@link SyncQuality#ABSENT} when not connected)
     * @param via         the trace it is related through (itself for the reference; −1 when not connected)
     * @param matchesOut  messages it sent to {@code via}
     * @param matchesIn   messages it received from {@code via}
     * @param accuracyNanos the accumulated accuracy bound along its path (empty when unbounded)
     * @param violations  messages to or from it that the transforms make arrive before they left
     */
    public record TraceSync(
            Path path,
            PiecewiseMap map,
            SyncQuality quality,
            int via,
            long matchesOut,
            long matchesIn,
            Optional<Long> accuracyNanos,
            long violations) {
        /** The map as one line: itself when linear, else the line through its first and last knots. */
        public ClockTransform transform() {
            return map.overall();
        }

        public boolean connected() {
            return via >= 0;
        }
    }

    /**
     * The relation between two traces: {@code result} relates {@code other}'s clock to
     * {@code reference}'s, and {@code map} maps it (its transform, or the pieces of a piecewise one).
     */
    public record PairSync(int reference, int other, SyncResult result, PiecewiseMap map) {}

    /**
     * Synchronizes {@code traces} on {@code reference}'s clock; the report's {@link Report#matches}
     * is empty.
     *
     * @param warnings receives the readers' warnings, prefixed with the trace
     */
    public static Report run(
            List<Path> traces,
            List<MatchRule> rules,
            ConvexHullSync.Method method,
            int reference,
            Consumer<String> warnings)
            throws IOException, MetadataException, StreamDecodingException {
        return run(traces, rules, method, reference, 0, warnings, Progress.NONE, false);
    }

    /**
     * Synchronizes {@code traces} on {@code reference}'s clock, piecewise with pieces of at most
     * {@code piecewiseNanos} when positive ({@link PiecewiseSync}); the report's
     * {@link Report#matches} is empty.
     */
    public static Report run(
            List<Path> traces,
            List<MatchRule> rules,
            ConvexHullSync.Method method,
            int reference,
            long piecewiseNanos,
            Consumer<String> warnings,
            Progress progress)
            throws IOException, MetadataException, StreamDecodingException {
        return run(traces, rules, method, reference, piecewiseNanos, warnings, progress, false);
    }

    /**
     * As {@link #run(List, List, ConvexHullSync.Method, int, long, Consumer, Progress)}; with
     * {@code keepMatches}, the report keeps every matched message (32 bytes each).
     */
    public static Report run(
            List<Path> traces,
            List<MatchRule> rules,
            ConvexHullSync.Method method,
            int reference,
            long piecewiseNanos,
            Consumer<String> warnings,
            Progress progress,
            boolean keepMatches)
            throws IOException, MetadataException, StreamDecodingException {
        return run(traces, new Options(rules, method, reference, piecewiseNanos), warnings, progress, keepMatches);
    }

    /**
     * Synchronizes {@code traces} as {@code options} say; with {@code keepMatches}, the report
     * keeps every matched message (32 bytes each).
     */
    public static Report run(
            List<Path> traces, Options options, Consumer<String> warnings, Progress progress, boolean keepMatches)
            throws IOException, MetadataException, StreamDecodingException {
        return run(traces, options, warnings, progress, keepMatches, FirstLook.KEPT_RECORDS);
    }

    /**
     * As {@link #run(List, Options, Consumer, Progress, boolean)}, the first look keeping at most
     * {@code keptRecords} sends and receives beyond the samples (the traces whose records do not
     * fit are read again by the matching pass).
     */
    static Report run(
            List<Path> traces,
            Options options,
            Consumer<String> warnings,
            Progress progress,
            boolean keepMatches,
            long keptRecords)
            throws IOException, MetadataException, StreamDecodingException {
        List<MatchRule> rules = options.rules();
        int n = traces.size();
        // a first look at the beginning of each trace: rough transforms, so that the full pass
        // can visit the traces in (nearly) the reference's time order and messages wait little
        // for their other half
        // (a trace read whole then is not read again: the look keeps its sends and receives)
        FirstLook[] looks = FirstLook.of(traces, rules, keptRecords);
        Map<Long, ConvexHullSync> sample = new HashMap<>();
        MessageMatcher sampler = new MessageMatcher(rules, hullSink(sample));
        for (int i = 0; i < n; i++) {
            looks[i].sample(i, sampler);
        }
        return synchronize(
                traces,
                options,
                progress,
                keepMatches,
                sample,
                (matcher, order, first, last, pass) -> MessagePass.merged(
                        traces,
                        looks,
                        order,
                        matcher,
                        first,
                        last,
                        pass == 1 ? warnings : w -> {},
                        (events, matched) -> progress.update(pass, events, matched)));
    }

    /**
     * The sends and receives a reader of the trace found (with {@link MessageMatcher.Keys} of the
     * same rules), in the trace's order, so that a pass that reads the traces anyway (the state
     * model's) synchronizes them without reading them again: per record its time (on the
     * trace's clock), role, key and the index of its event in the trace.
     */
    public static final class Found {
        private long[] data = new long[5 * 64];
        private int size;
        private long events;
        private long first = Long.MAX_VALUE;
        private long last = Long.MIN_VALUE;

        /** Takes an event with a time: {@code roles} records of {@link MessageMatcher.Keys#of} in {@code keys}. */
        public void event(long time, long[] keys, int roles) {
            first = Math.min(first, time);
            last = Math.max(last, time);
            for (int j = 0; j < roles; j++) {
                if (5 * size == data.length) {
                    data = Arrays.copyOf(data, data.length * 2);
                }
                int o = 5 * size++;
                data[o] = time;
                data[o + 1] = keys[3 * j];
                data[o + 2] = keys[3 * j + 1];
                data[o + 3] = keys[3 * j + 2];
                data[o + 4] = events;
            }
            events++;
        }

        /** Counts an event without a time. */
        public void untimed() {
            events++;
        }
    }

    /**
     * Synchronizes traces whose sends and receives a pass already found ({@code found}, per trace
     * in the order given, made with {@link MatchRules}' keys for {@code rules}): the same result
     * as {@link #run} without reading the traces, every matched message kept ({@link Report#matches}:
     * the pass that found them builds an index, whose {@code sync_messages} table holds them).
     */
    public static Report run(
            List<Path> traces, List<Found> found, List<MatchRule> rules, ConvexHullSync.Method method, int reference)
            throws IOException, MetadataException, StreamDecodingException {
        return run(traces, found, new Options(rules, method, reference, 0));
    }

    /** As {@link #run(List, List, List, ConvexHullSync.Method, int)}, as {@code options} say. */
    public static Report run(List<Path> traces, List<Found> found, Options options)
            throws IOException, MetadataException, StreamDecodingException {
        List<MatchRule> rules = options.rules();
        int n = traces.size();
        Map<Long, ConvexHullSync> sample = new HashMap<>();
        MessageMatcher sampler = new MessageMatcher(rules, hullSink(sample));
        for (int i = 0; i < n; i++) {
            Found f = found.get(i);
            long[] d = f.data;
            // as a first look's sample: the first messages, within the first events
            for (int k = 0;
                    k < f.size && k < FirstLook.SAMPLE_MESSAGES && d[5 * k + 4] < FirstLook.SAMPLE_EVENTS;
                    k++) {
                sampler.offer(i, (int) d[5 * k + 1], d[5 * k + 2], d[5 * k + 3], d[5 * k]);
            }
        }
        return synchronize(traces, options, Progress.NONE, true, sample, (matcher, order, first, last, pass) -> {
            MessagePass.Source[] sources = new MessagePass.Source[n];
            for (int i = 0; i < n; i++) {
                Found f = found.get(i);
                first[i] = Math.min(first[i], f.first);
                last[i] = Math.max(last[i], f.last);
                sources[i] = new MessagePass.Source() {
                    int at = -1;

                    @Override
                    public boolean next() {
                        return ++at < f.size;
                    }

                    @Override
                    public long time() {
                        return f.data[5 * at];
                    }

                    @Override
                    public int role() {
                        return (int) f.data[5 * at + 1];
                    }

                    @Override
                    public long h1() {
                        return f.data[5 * at + 2];
                    }

                    @Override
                    public long h2() {
                        return f.data[5 * at + 3];
                    }
                };
            }
            try {
                MessagePass.merge(sources, order, matcher, () -> 0, (events, matched) -> {});
            } catch (InterruptedException e) {
                throw new IllegalStateException(e); // records in memory: nothing waits
            }
        });
    }

    /** A pass over every trace's sends and receives, in the order {@code order} estimates, into {@code matcher}. */
    @FunctionalInterface
    private interface Pass {
        void run(MessageMatcher matcher, PiecewiseMap[] order, long[] first, long[] last, int pass)
                throws IOException, MetadataException, StreamDecodingException;
    }

    private static Report synchronize(
            List<Path> traces,
            Options options,
            Progress progress,
            boolean keepMatches,
            Map<Long, ConvexHullSync> sample,
            Pass pass)
            throws IOException, MetadataException, StreamDecodingException {
        List<MatchRule> rules = options.rules();
        ConvexHullSync.Method method = options.method();
        int reference = options.reference();
        long piecewiseNanos = options.piecewiseNanos();
        int n = traces.size();
        if (reference >= n) {
            throw new IllegalArgumentException("reference trace " + reference + " of " + n);
        }
        TraceClock[] clocks = new TraceClock[n];
        for (int i = 0; i < n; i++) {
            clocks[i] = TraceClock.of(traces.get(i));
        }
        TraceSync[] rough =
                ReferenceTree.tree(traces, reference, sameClock(results(sample, method, null, null), clocks));
        PiecewiseMap[] order = new PiecewiseMap[n];
        for (int i = 0; i < n; i++) {
            order[i] = rough[i].map();
        }

        Map<Long, ConvexHullSync> hulls = new HashMap<>();
        long[] first = new long[n];
        long[] last = new long[n];
        Arrays.fill(first, Long.MAX_VALUE);
        Arrays.fill(last, Long.MIN_VALUE);
        Map<Long, PiecewiseSync> pieces = new HashMap<>();
        Matches matches = new Matches();
        MessageMatcher.Sink hulled = hullSink(hulls);
        MessageMatcher.Sink hullSink = !keepMatches
                ? hulled
                : (rule, from, send, to, receive) -> {
                    matches.add(rule, from, send, to, receive);
                    hulled.message(rule, from, send, to, receive);
                };
        MessageMatcher matcher = new MessageMatcher(
                rules,
                piecewiseNanos <= 0
                        ? hullSink
                        : (rule, from, send, to, receive) -> {
                            hullSink.message(rule, from, send, to, receive);
                            int lo = Math.min(from, to);
                            int hi = Math.max(from, to);
                            PiecewiseSync p =
                                    pieces.computeIfAbsent(pairKey(lo, hi), k -> new PiecewiseSync(piecewiseNanos));
                            if (from == lo) {
                                p.messageToOther(send, receive);
                            } else {
                                p.messageToReference(send, receive);
                            }
                        });
        pass.run(matcher, order, first, last, 1);
        List<PairSync> pairs = results(hulls, method, first, last);
        if (piecewiseNanos > 0) {
            List<PairSync> piecewise = new ArrayList<>();
            for (PairSync p : pairs) {
                PiecewiseSync.Result r =
                        pieces.get(pairKey(p.reference(), p.other())).result(method, first[p.other()], last[p.other()]);
                SyncResult whole = p.result();
                piecewise.add(new PairSync(
                        p.reference(),
                        p.other(),
                        new SyncResult(
                                r.quality(),
                                r.map().overall(),
                                Optional.empty(),
                                Optional.empty(),
                                whole.toOther(),
                                whole.toReference(),
                                r.accuracyNanos(),
                                whole.conflict()),
                        r.map()));
            }
            pairs = piecewise;
        }
        pairs = sameClock(pairs, clocks);
        TraceSync[] out = ReferenceTree.tree(traces, reference, pairs);

        // messages the transforms make acausal: none if no hull vertex is (the usual case); else count them
        long[] violations = new long[n];
        boolean count = false;
        for (Map.Entry<Long, ConvexHullSync> en : hulls.entrySet()) {
            int lo = (int) (en.getKey() >>> 32);
            int hi = (int) (long) en.getKey();
            if (out[lo].connected()
                    && out[hi].connected()
                    && (!out[lo].map().linear()
                            || !out[hi].map().linear()
                            || en.getValue().mayBeAcausal(out[lo].transform(), out[hi].transform()))) {
                count = true;
            }
        }
        if (count) {
            MessageMatcher check = new MessageMatcher(rules, (rule, from, send, to, receive) -> {
                if (out[from].connected()
                        && out[to].connected()
                        && out[from].map().apply(send) > out[to].map().apply(receive)) {
                    violations[from]++;
                    violations[to]++;
                }
            });
            PiecewiseMap[] exact = new PiecewiseMap[n];
            for (int i = 0; i < n; i++) {
                exact[i] = out[i].map();
            }
            pass.run(check, exact, first.clone(), last.clone(), 2);
        }
        List<TraceSync> result = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            TraceSync t = out[i];
            result.add(new TraceSync(
                    t.path(),
                    t.map(),
                    t.quality(),
                    t.via(),
                    t.matchesOut(),
                    t.matchesIn(),
                    t.accuracyNanos(),
                    violations[i]));
        }
        return new Report(reference, result, pairs, matcher.stats(), matches);
    }

    private static MessageMatcher.Sink hullSink(Map<Long, ConvexHullSync> hulls) {
        return (rule, from, send, to, receive) -> {
            int lo = Math.min(from, to);
            int hi = Math.max(from, to);
            ConvexHullSync h = hulls.computeIfAbsent(pairKey(lo, hi), k -> new ConvexHullSync());
            if (from == lo) {
                h.messageToOther(send, receive);
            } else {
                h.messageToReference(send, receive);
            }
        };
    }

    /**
     * {@code pairs} with every pair of traces on one clock ({@link TraceClock#to}) related by
     * their metadata instead of their messages, and such pairs added where no message connects
     * them: each trace with the first trace of its clock.
     */
    private static List<PairSync> sameClock(List<PairSync> pairs, TraceClock[] clocks) {
        int n = clocks.length;
        // each trace's first trace on the same clock (itself when none comes before it)
        int[] head = new int[n];
        for (int i = 0; i < n; i++) {
            head[i] = i;
            for (int j = 0; j < i && head[i] == i; j++) {
                if (head[j] == j && clocks[i] != null && clocks[j] != null && clocks[i].to(clocks[j]) != null) {
                    head[i] = j;
                }
            }
        }
        Map<Long, PairSync> byKey = new TreeMap<>();
        for (PairSync p : pairs) {
            byKey.put(pairKey(p.reference(), p.other()), p);
        }
        for (int i = 0; i < n; i++) {
            if (head[i] != i) {
                byKey.putIfAbsent(pairKey(head[i], i), null);
            }
        }
        List<PairSync> out = new ArrayList<>();
        for (Map.Entry<Long, PairSync> en : byKey.entrySet()) {
            int lo = (int) (en.getKey() >>> 32);
            int hi = (int) (long) en.getKey();
            PairSync messages = en.getValue();
            if (head[lo] != head[hi]) {
                out.add(messages);
                continue;
            }
            ClockTransform t = clocks[hi].to(clocks[lo]);
            out.add(new PairSync(
                    lo,
                    hi,
                    new SyncResult(
                            SyncQuality.SAME_CLOCK,
                            t,
                            Optional.of(t),
                            Optional.of(t),
                            messages == null ? 0 : messages.result().toOther(),
                            messages == null ? 0 : messages.result().toReference(),
                            Optional.of(0L),
                            List.of()),
                    PiecewiseMap.of(t)));
        }
        return out;
    }

    /** Each pair's result, the accuracy over the other trace's span when known. */
    private static List<PairSync> results(
            Map<Long, ConvexHullSync> hulls, ConvexHullSync.Method method, long[] first, long[] last) {
        List<PairSync> pairs = new ArrayList<>();
        hulls.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(en -> {
            int lo = (int) (en.getKey() >>> 32);
            int hi = (int) (long) en.getKey();
            SyncResult r = first == null || first[hi] > last[hi]
                    ? en.getValue().result(method)
                    : en.getValue().result(method, first[hi], last[hi]);
            pairs.add(new PairSync(lo, hi, r, PiecewiseMap.of(r.transform())));
        });
        return pairs;
    }

    private static long pairKey(int lo, int hi) {
        return ((long) lo << 32) | hi;
    }
}
