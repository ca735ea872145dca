package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.sync.ConvexHullSync.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * Ground truth: a reference clock and another clock (offset up to ±1 h, drift up to ±200 ppm, a
 * nominal rate that may be 1.2 GHz read as 1 GHz or the reverse, or a wrapping 32-bit counter
 * extended to 64 bits) exchange messages with random latencies of at least L. Whatever the
 * draw, the true transform lies within the reported bounds, the chosen one is within the
 * accuracy of it at every matched instant, and no message is received before it was sent.
 */
class ConvexHullSyncTest {
    private static final long L = 2_000;

    /** A message as the two traces saw it: times on each trace's own clock. */
    record Sent(boolean toOther, long send, long receive) {}

    /** The other trace's clock as a function of true time (the reference's). */
    record Clock(double offsetNanos, double rate, boolean wraps32) {
        long at(double trueNanos) {
            return (long) Math.floor(offsetNanos + trueNanos * rate);
        }

        /** The true time of an instant this clock reads as {@code t}. */
        double truth(long t) {
            return (t - offsetNanos) / rate;
        }
    }

    @Property(tries = 300)
    void theTruthLiesWithinTheBoundsAndTheChosenTransformWithinTheAccuracy(
            @ForAll @LongRange(min = -3_600_000_000_000L, max = 3_600_000_000_000L) long offset,
            @ForAll @DoubleRange(min = -200, max = 200) double ppm,
            @ForAll @IntRange(min = 0, max = 2) int nominal,
            @ForAll @LongRange(min = 1_000_000_000L, max = 3_600_000_000_000L) long span,
            @ForAll @IntRange(min = 3, max = 400) int perDirection,
            @ForAll @LongRange(min = 0, max = 1_000_000) long latencySpread,
            @ForAll boolean epochReference,
            @ForAll long seed) {
        double rate = (1 + ppm * 1e-6) * new double[] {1, 1.2, 1 / 1.2}[nominal];
        // the reference counts from the epoch or from boot; the other from its own origin
        long t0 = epochReference ? 1_763_000_000_000_000_000L : 5_000_000_000L;
        Clock other = new Clock(offset + 7_200_000_000_000.0, rate, false);
        List<Sent> messages = exchange(new Random(seed), other, t0, span, perDirection, latencySpread);
        check(messages, other, Method.BISECTOR);
        check(messages, other, Method.AVERAGE);
    }

    @Property(tries = 50)
    void aWrapping32BitCounterExtendedTo64BitsSynchronizesLikeAnyClock(
            @ForAll @DoubleRange(min = -200, max = 200) double ppm,
            @ForAll @IntRange(min = 20, max = 200) int perDirection,
            @ForAll long seed) {
        // a 1 GHz counter wraps every 4.3 s: 60 s of messages cross it 14 times
        Clock counter = new Clock(123_456_789, 1 + ppm * 1e-6, true);
        List<Sent> raw = exchange(new Random(seed), counter, 1_000_000_000L, 60_000_000_000L, perDirection, 50_000);
        // the slave's tracer sees the counter's low 32 bits, in its own time order (its other
        // events read it at least once a second), and extends them
        List<long[]> reads = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Sent m = raw.get(i);
            reads.add(new long[] {m.toOther() ? m.receive() : m.send(), i});
        }
        for (int k = 0; k <= 62; k++) {
            reads.add(new long[] {counter.at(1e9 * k), -1});
        }
        reads.sort((a, b) -> Long.compare(a[0], b[0]));
        long last = 0;
        long[] extended = new long[raw.size()];
        for (long[] r : reads) {
            last = extend32(last, (int) r[0]);
            assertThat(last).isEqualTo(r[0]);
            if (r[1] >= 0) {
                extended[(int) r[1]] = last;
            }
        }
        List<Sent> messages = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            Sent m = raw.get(i);
            messages.add(
                    m.toOther() ? new Sent(true, m.send(), extended[i]) : new Sent(false, extended[i], m.receive()));
        }
        check(messages, counter, Method.BISECTOR);
    }

    @Property(tries = 50)
    void aClockJumpFailsAndNamesTheMessagesThatConflict(
            @ForAll @DoubleRange(min = -200, max = 200) double ppm,
            @ForAll @IntRange(min = 10, max = 200) int perDirection,
            @ForAll @LongRange(min = 10_000_000, max = 1_000_000_000) long jump,
            @ForAll boolean forward,
            @ForAll long seed) {
        Clock before = new Clock(5e9, 1 + ppm * 1e-6, false);
        Clock after = new Clock(5e9 + (forward ? jump : -jump), 1 + ppm * 1e-6, false);
        Random r = new Random(seed);
        List<Sent> messages = new ArrayList<>(exchange(r, before, 0, 10_000_000_000L, perDirection, 10_000));
        messages.addAll(exchange(r, after, 10_000_000_000L, 10_000_000_000L, perDirection, 10_000));
        ConvexHullSync sync = new ConvexHullSync();
        messages.forEach(m -> add(sync, m));
        SyncResult result = sync.result(Method.BISECTOR);
        assertThat(result.quality()).isEqualTo(SyncQuality.FAIL);
        assertThat(result.accuracyNanos()).isEmpty();
        // at least three messages no line keeps causal together, some before the jump, some after
        assertThat(result.conflict()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(result.conflict())
                .allSatisfy(c -> assertThat(messages).contains(new Sent(c.toOther(), c.sendNanos(), c.receiveNanos())));
        List<Sent> beforeJump = messages.subList(0, 2 * perDirection);
        List<Sent> afterJump = messages.subList(2 * perDirection, messages.size());
        assertThat(result.conflict())
                .anySatisfy(
                        c -> assertThat(beforeJump).contains(new Sent(c.toOther(), c.sendNanos(), c.receiveNanos())))
                .anySatisfy(
                        c -> assertThat(afterJump).contains(new Sent(c.toOther(), c.sendNanos(), c.receiveNanos())));
    }

    @Property(tries = 50)
    void messagesInOneDirectionOnlyBoundTheOffsetFromOneSide(
            @ForAll boolean toOther, @ForAll @IntRange(min = 1, max = 100) int n, @ForAll long seed) {
        Clock other = new Clock(-3e12, 1 + 50e-6, false);
        ConvexHullSync sync = new ConvexHullSync();
        List<Sent> messages = exchange(new Random(seed), other, 0, 1_000_000_000_000L, n, 10_000).stream()
                .filter(m -> m.toOther() == toOther)
                .toList();
        messages.forEach(m -> add(sync, m));
        SyncResult result = sync.result(Method.BISECTOR);
        assertThat(result.quality()).isEqualTo(SyncQuality.INCOMPLETE);
        assertThat(result.accuracyNanos()).isEmpty();
        assertThat(result.transform().slopeMinusOne()).isZero();
        // the offset is the tightest bound: causal, and one message at zero latency
        long tightest = Long.MAX_VALUE;
        for (Sent m : messages) {
            long slack = m.toOther()
                    ? result.transform().apply(m.receive()) - m.send()
                    : m.receive() - result.transform().apply(m.send());
            assertThat(slack).isNotNegative();
            tightest = Math.min(tightest, slack);
        }
        assertThat(tightest).isLessThanOrEqualTo(1);
    }

    @Test
    void noMessageIsAbsent() {
        SyncResult result = new ConvexHullSync().result(Method.BISECTOR);
        assertThat(result.quality()).isEqualTo(SyncQuality.ABSENT);
        assertThat(result.transform()).isEqualTo(ClockTransform.IDENTITY);
    }

    @Test
    void symmetricExchangesGiveTheExactOffsetAndTheLatencyAsAccuracy() {
        // the other clock is 1 s behind; every message takes 1 µs; ping-pongs at 0, 10 and 20 s
        ConvexHullSync sync = new ConvexHullSync();
        for (long t = 0; t <= 20_000_000_000L; t += 10_000_000_000L) {
            sync.messageToOther(t + 1_000_000_000L, t + 1_000);
            sync.messageToReference(t + 5_000, t + 1_000_000_000L + 6_000);
        }
        SyncResult result = sync.result(Method.BISECTOR);
        assertThat(result.quality()).isEqualTo(SyncQuality.ACCURATE);
        assertThat(result.transform().apply(0)).isEqualTo(1_000_000_000L);
        assertThat(result.transform().apply(20_000_000_000L)).isEqualTo(21_000_000_000L);
        // slopes 1 ± 1e-7 bisect to 1 within their squares
        assertThat(Math.abs(result.transform().slopeMinusOne())).isLessThan(1e-12);
        assertThat(result.accuracyNanos()).contains(1_000L);
        assertThat(result.toOther()).isEqualTo(3);
        assertThat(result.toReference()).isEqualTo(3);
    }

    private static void add(ConvexHullSync sync, Sent m) {
        if (m.toOther()) {
            sync.messageToOther(m.send(), m.receive());
        } else {
            sync.messageToReference(m.send(), m.receive());
        }
    }

    /** The tracer's {@code PREFIX_extend_counter32}, in Java. */
    static long extend32(long last, int counter) {
        long value = (last & ~0xffffffffL) | (counter & 0xffffffffL);
        if (value < last) {
            value += 1L << 32;
        }
        return value;
    }

    static List<Sent> exchange(Random r, Clock other, long t0, long span, int perDirection, long latencySpread) {
        List<Sent> out = new ArrayList<>();
        for (int i = 0; i < 2 * perDirection; i++) {
            boolean toOther = i % 2 == 0;
            double sent = t0 + r.nextDouble() * span;
            // mostly short latencies, sometimes long ones (a busy core): at least L
            double latency =
                    L + (r.nextInt(10) == 0 ? r.nextDouble() * 100 * latencySpread : r.nextDouble() * latencySpread);
            double received = sent + latency;
            out.add(
                    toOther
                            ? new Sent(true, (long) Math.floor(sent), other.at(received))
                            : new Sent(false, other.at(sent), (long) Math.floor(received)));
        }
        return out;
    }

    static void check(List<Sent> messages, Clock other, Method method) {
        ConvexHullSync sync = new ConvexHullSync();
        messages.forEach(m -> add(sync, m));
        SyncResult result = sync.result(method);
        assertThat(result.toOther() + result.toReference()).isEqualTo(messages.size());
        long minToOther = Long.MAX_VALUE;
        long maxToOther = Long.MIN_VALUE;
        long minToRef = Long.MAX_VALUE;
        long maxToRef = Long.MIN_VALUE;
        for (Sent m : messages) {
            long x = m.toOther() ? m.receive() : m.send();
            if (m.toOther()) {
                minToOther = Math.min(minToOther, x);
                maxToOther = Math.max(maxToOther, x);
            } else {
                minToRef = Math.min(minToRef, x);
                maxToRef = Math.max(maxToRef, x);
            }
        }
        boolean bothBounded = minToOther < maxToRef && minToRef < maxToOther;
        assertThat(result.quality()).isEqualTo(bothBounded ? SyncQuality.ACCURATE : SyncQuality.APPROXIMATE);

        ClockTransform chosen = result.transform();
        double trueSlope = 1 / other.rate();
        if (result.minSlope().isPresent()) {
            assertThat(result.minSlope().get().slopeMinusOne()).isLessThanOrEqualTo(trueSlope - 1 + 1e-12);
        }
        if (result.maxSlope().isPresent()) {
            assertThat(result.maxSlope().get().slopeMinusOne()).isGreaterThanOrEqualTo(trueSlope - 1 - 1e-12);
        }
        for (Sent m : messages) {
            long x = m.toOther() ? m.receive() : m.send();
            if (result.accuracyNanos().isPresent()) {
                double error = Math.abs(chosen.apply(x) - other.truth(x));
                assertThat(error)
                        .as("error at %d", x)
                        .isLessThanOrEqualTo(result.accuracyNanos().get() + 2.0);
            }
            if (m.toOther()) {
                assertThat(chosen.apply(m.receive())).as("received after sent").isGreaterThanOrEqualTo(m.send());
            } else {
                assertThat(chosen.apply(m.send())).as("sent before received").isLessThanOrEqualTo(m.receive());
            }
        }
    }

    /**
     * Messages that only a line running backwards would keep causal (a reply received on the
     * reference a millisecond before the message it answers was sent): no clock's line, so the
     * result fails, with a transform, rather than throwing.
     */
    @Example
    void messagesOnlyABackwardsLineFitsFail() {
        ConvexHullSync s = new ConvexHullSync();
        s.messageToOther(6_000_000_000L, 4_006_000_000_000L);
        s.messageToReference(4_006_000_001_000L, 5_999_000_000L);
        for (Method m : Method.values()) {
            SyncResult r = s.result(m);
            assertThat(r.quality()).isEqualTo(SyncQuality.FAIL);
            assertThat(r.transform().slopeMinusOne()).isGreaterThan(-1);
        }
    }
}
