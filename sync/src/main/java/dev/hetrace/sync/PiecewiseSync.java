package dev.hetrace.sync;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Relates two clocks whose drift changes over a long trace (temperature, frequency scaling):
 * one convex hull per piece of the other trace's time, and a continuous piecewise-linear map
 * whose every piece is a causal line of its messages, so every message stays causal. Pieces
 * are made of consecutive 32nds of the window, as many as keep a causal line (so that a drift
 * change ends a piece) and bound the slope from both sides, up to the window's length.
 *
 * <p>Each piece maps its messages' span with its own transform (the bisector or average of its
 * bounds); between the last message of a piece and the first of the next, where no message
 * lies, a connecting segment joins them. The accuracy bound holds over the pieces' spans; in a
 * connecting segment the clocks are not observed.
 */
public final class PiecewiseSync {
    /** Pieces are at most this long. */
    private final long window;
    /** Messages are kept per fine window, a 32nd of a window: pieces are made of whole fine windows. */
    private final long fine;

    private final TreeMap<Long, ConvexHullSync> windows = new TreeMap<>();
    private long toOther;
    private long toReference;

    /** @param windowNanos the window length on the other trace's clock */
    public PiecewiseSync(long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("the piecewise window must be positive, not " + windowNanos + " ns");
        }
        this.window = windowNanos;
        this.fine = Math.max(1, windowNanos / 32);
    }

    private static ConvexHullSync copy(ConvexHullSync s) {
        ConvexHullSync c = new ConvexHullSync();
        c.absorb(s);
        return c;
    }

    public void messageToOther(long refSendNanos, long receiveNanos) {
        at(receiveNanos).messageToOther(refSendNanos, receiveNanos);
        toOther++;
    }

    public void messageToReference(long sendNanos, long refReceiveNanos) {
        at(sendNanos).messageToReference(sendNanos, refReceiveNanos);
        toReference++;
    }

    private ConvexHullSync at(long t) {
        return windows.computeIfAbsent(Math.floorDiv(t, fine), k -> new ConvexHullSync());
    }

    /**
     * The piecewise result.
     *
     * @param quality   {@link SyncQuality#ACCURATE} when every piece is; else the quality of the
     *                  whole as one line ({@link SyncQuality#FAIL} also when pieces cannot be joined)
     * @param map       the map to the reference clock (a single piece when the windows had to be
     *                  merged into one)
     * @param accuracyNanos the largest accuracy bound of the pieces, over their spans
     * @param problem   why it failed, if it did
     */
    public record Result(
            SyncQuality quality,
            PiecewiseMap map,
            long toOther,
            long toReference,
            Optional<Long> accuracyNanos,
            Optional<String> problem) {}

    public Result result(ConvexHullSync.Method method, long spanStart, long spanEnd) {
        // groups of consecutive fine windows, as long as the window at most; a group also ends
        // where the next fine window would leave it no causal line (a drift change), so that
        // changes fall between pieces. A fine window with no causal line of its own holds an
        // abrupt change: it is bridged, the pieces on either side meeting where their lines cross.
        List<ConvexHullSync> groups = new ArrayList<>();
        List<long[]> bridged = new ArrayList<>();
        ConvexHullSync current = null;
        long start = 0;
        for (Map.Entry<Long, ConvexHullSync> w : windows.entrySet()) {
            long wStart = w.getKey() * fine;
            long wEnd = wStart + fine;
            if (w.getValue().result(method).quality() == SyncQuality.FAIL) {
                if (current != null) {
                    groups.add(current);
                    current = null;
                }
                bridged.add(new long[] {w.getValue().firstTime(), w.getValue().lastTime()});
                continue;
            }
            if (current == null) {
                current = copy(w.getValue());
                start = wStart;
                continue;
            }
            ConvexHullSync joined = copy(current);
            joined.absorb(w.getValue());
            SyncQuality now = current.result(method).quality();
            SyncQuality then = joined.result(method).quality();
            if (then == SyncQuality.FAIL || (now == SyncQuality.ACCURATE && wEnd - start > window)) {
                groups.add(current);
                current = copy(w.getValue());
                start = wStart;
            } else {
                current = joined;
            }
        }
        if (current != null) {
            groups.add(current);
        }
        if (groups.isEmpty()) {
            return new Result(
                    SyncQuality.FAIL,
                    PiecewiseMap.of(ClockTransform.IDENTITY),
                    toOther,
                    toReference,
                    Optional.empty(),
                    Optional.of("no stretch of the messages keeps a causal line: the clock jumps or changes"
                            + " its rate faster than the messages' latencies can follow"));
        }
        // a group that does not bound its slope joins a neighbour when their messages allow it
        for (int i = 0; i < groups.size() && groups.size() > 1; i++) {
            if (groups.get(i).result(method).quality() == SyncQuality.ACCURATE) {
                continue;
            }
            for (int j : new int[] {i + 1, i - 1}) {
                if (j < 0 || j >= groups.size()) {
                    continue;
                }
                ConvexHullSync joined = copy(groups.get(Math.min(i, j)));
                joined.absorb(groups.get(Math.max(i, j)));
                if (joined.result(method).quality() != SyncQuality.FAIL) {
                    groups.set(Math.min(i, j), joined);
                    groups.remove(Math.max(i, j));
                    i = -1; // start over: the merged group may now be accurate
                    break;
                }
            }
        }
        // neighbours whose lines no increasing segment can join (the next line lies below the
        // previous one where they meet, as when the pieces were cut in the middle of a round
        // trip) become one piece when one causal line fits both; else the clock jumps there
        while (groups.size() > 1) {
            Joined joined = join(groups, bridged.isEmpty(), method, spanStart, spanEnd);
            if (joined.backwardsAt() < 0) {
                return joined.result();
            }
            int i = joined.backwardsAt();
            ConvexHullSync both = copy(groups.get(i - 1));
            both.absorb(groups.get(i));
            if (both.result(method).quality() == SyncQuality.FAIL) {
                return joined.result();
            }
            groups.set(i - 1, both);
            groups.remove(i);
        }
        if (!bridged.isEmpty()) {
            // one piece (from the start or once merged): its line maps the whole span; the bridged
            // windows' messages fit no line, so it is approximate (the whole with them would fail)
            return join(groups, false, method, spanStart, spanEnd).result();
        }
        ConvexHullSync whole = new ConvexHullSync();
        windows.values().forEach(whole::absorb);
        SyncResult r = whole.result(method, spanStart, spanEnd);
        return new Result(
                r.quality(),
                PiecewiseMap.of(r.transform()),
                toOther,
                toReference,
                r.accuracyNanos(),
                r.quality() == SyncQuality.FAIL ? Optional.of("the messages conflict") : Optional.empty());
    }

    /** The joined pieces, or where they cannot be joined: the group that would start with the clock running backwards. */
    private record Joined(Result result, int backwardsAt) {}

    private Joined join(
            List<ConvexHullSync> groups, boolean bounded, ConvexHullSync.Method method, long spanStart, long spanEnd) {
        // each group keeps its own transform from its first to its last message; between groups
        // (where no message lies, or only those of a bridged window) the two transforms meet
        // where they cross when that is in between, else a segment joins them: continuous, and
        // every message outside the bridged windows is mapped by its own group's causal line
        int w = groups.size();
        List<Long> kl = new ArrayList<>();
        List<Long> vl = new ArrayList<>();
        // the exact transform of the piece that starts at each knot (null: the segment to the next knot)
        List<ClockTransform> exact = new ArrayList<>();
        long accuracy = 0;
        ClockTransform previous = null;
        long previousEnd = 0;
        for (int i = 0; i < w; i++) {
            ConvexHullSync g = groups.get(i);
            long from = i == 0 ? Math.min(spanStart, g.firstTime()) : g.firstTime();
            long to = i == w - 1 ? Math.max(spanEnd, g.lastTime()) : g.lastTime();
            SyncResult r = g.result(method, from, to);
            if (r.quality() != SyncQuality.ACCURATE) {
                bounded = false;
            }
            accuracy = Math.max(accuracy, r.accuracyNanos().orElse(0L));
            ClockTransform t = r.transform();
            if (previous != null) {
                // where the two lines cross: t0 + d with previous(t0 + d) = t(t0 + d)
                long t0 = previousEnd;
                double gap = t.apply(t0) - previous.apply(t0);
                double rate = previous.slopeMinusOne() - t.slopeMinusOne();
                boolean crossed = false;
                if (rate != 0) {
                    double d = gap / rate;
                    if (d > 0 && t0 + d < from) {
                        long cross = t0 + Math.round(d);
                        if (cross > t0 && cross < from) {
                            // the previous line goes on to the crossing
                            exact.set(exact.size() - 1, previous);
                            kl.add(cross);
                            vl.add(previous.apply(cross));
                            exact.add(t); // and this one from it
                            crossed = true;
                        }
                    }
                }
                if (!crossed && (from <= t0 || t.apply(from) <= previous.apply(t0))) {
                    return new Joined(
                            new Result(
                                    SyncQuality.FAIL,
                                    PiecewiseMap.of(
                                            groups.getFirst().result(method).transform()),
                                    toOther,
                                    toReference,
                                    Optional.empty(),
                                    Optional.of("the pieces cannot be joined between " + t0 + " and " + from
                                            + " ns: the clock would run backwards there (a clock jump)")),
                            i);
                }
            }
            kl.add(from);
            vl.add(t.apply(from));
            exact.add(t);
            long end = Math.max(to, from + 1);
            kl.add(end);
            vl.add(t.apply(end));
            exact.add(null); // to the next group's start, or the last knot
            previous = t;
            previousEnd = end;
        }
        long[] knots = kl.stream().mapToLong(Long::longValue).toArray();
        long[] values = vl.stream().mapToLong(Long::longValue).toArray();
        for (int j = 1; j < knots.length; j++) {
            if (knots[j] <= knots[j - 1] || values[j] <= values[j - 1]) {
                // within a piece (a line that does not increase) or at a crossing that rounding undid
                return new Joined(
                        new Result(
                                SyncQuality.FAIL,
                                PiecewiseMap.of(groups.getFirst().result(method).transform()),
                                toOther,
                                toReference,
                                Optional.empty(),
                                Optional.of("the pieces cannot be joined between " + knots[j - 1] + " and " + knots[j]
                                        + " ns: the clock would run backwards there (a clock jump)")),
                        -1);
            }
        }
        return new Joined(
                new Result(
                        bounded ? SyncQuality.ACCURATE : SyncQuality.APPROXIMATE,
                        new PiecewiseMap(
                                knots,
                                values,
                                exact.subList(0, knots.length - 1).toArray(ClockTransform[]::new)),
                        toOther,
                        toReference,
                        bounded ? Optional.of(accuracy) : Optional.empty(),
                        Optional.empty()),
                -1);
    }
}
