package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/**
 * A clock whose drift changes twice during a 10-minute trace (a warming crystal, then frequency
 * scaling): one line cannot keep every message causal, the piecewise map can, and stays within
 * its bound of the truth.
 */
class PiecewiseSyncTest {
    /** Local time of true time t: rate r1 until t1, r2 until t2, r3 after; continuous. */
    record Clock(double origin, double r1, double t1, double r2, double t2, double r3) {
        double at(double t) {
            if (t < t1) {
                return origin + t * r1;
            }
            if (t < t2) {
                return origin + t1 * r1 + (t - t1) * r2;
            }
            return origin + t1 * r1 + (t2 - t1) * r2 + (t - t2) * r3;
        }

        double truth(double local) {
            double a = origin + t1 * r1;
            if (local < a) {
                return (local - origin) / r1;
            }
            double b = a + (t2 - t1) * r2;
            if (local < b) {
                return t1 + (local - a) / r2;
            }
            return t2 + (local - b) / r3;
        }
    }

    @Property(tries = 60)
    void driftThatChangesIsFollowedPieceByPieceAndEveryMessageStaysCausal(
            @ForAll @DoubleRange(min = -150, max = 150) double ppm1,
            @ForAll @DoubleRange(min = -150, max = 150) double ppm2,
            @ForAll @DoubleRange(min = -150, max = 150) double ppm3,
            @ForAll @LongRange(min = 5_000_000_000L, max = 30_000_000_000L) long window,
            @ForAll long seed) {
        double span = 600e9;
        Clock c = new Clock(4e12, 1 + ppm1 * 1e-6, 200e9, 1 + ppm2 * 1e-6, 420e9, 1 + ppm3 * 1e-6);
        Random r = new Random(seed);
        PiecewiseSync piecewise = new PiecewiseSync(window);
        ConvexHullSync whole = new ConvexHullSync();
        long[][] messages = new long[6000][];
        int n = 0;
        for (double t = 50e6; t < span; t += 100e6) {
            double l1 = 2_000 + r.nextInt(30_000);
            double l2 = 2_000 + r.nextInt(30_000);
            long refSend = (long) t;
            long receive = (long) c.at(t + l1);
            long send = (long) c.at(t + l1 + 1_000);
            long refReceive = (long) (t + l1 + 1_000 + l2);
            piecewise.messageToOther(refSend, receive);
            piecewise.messageToReference(send, refReceive);
            whole.messageToOther(refSend, receive);
            whole.messageToReference(send, refReceive);
            messages[n++] = new long[] {refSend, receive, send, refReceive};
        }
        PiecewiseSync.Result result =
                piecewise.result(ConvexHullSync.Method.BISECTOR, (long) c.at(0), (long) c.at(span));
        assertThat(result.problem()).isEmpty();
        // accurate; approximate when a change fell inside one 32nd of a window that no line fits (bridged)
        assertThat(result.quality()).isIn(SyncQuality.ACCURATE, SyncQuality.APPROXIMATE);
        PiecewiseMap map = result.map();
        for (int i = 0; i < n; i++) {
            long[] m = messages[i];
            assertThat(map.apply(m[1]))
                    .as("message to the other, received at %d", m[1])
                    .isGreaterThanOrEqualTo(m[0]);
            assertThat(map.apply(m[2]))
                    .as("message to the reference, sent at %d", m[2])
                    .isLessThanOrEqualTo(m[3]);
        }
        // within the bound of the truth at every matched instant of a piece where the clock is
        // linear (a piece is a window long at most: a window away from the drift changes)
        if (result.accuracyNanos().isEmpty()) {
            return;
        }
        long accuracy = result.accuracyNanos().get();
        for (int i = 0; i < n; i++) {
            double t = messages[i][0];
            if (Math.abs(t - c.t1()) < window || Math.abs(t - c.t2()) < window) {
                continue;
            }
            for (long local : new long[] {messages[i][1], messages[i][2]}) {
                assertThat(Math.abs(map.apply(local) - c.truth(local)))
                        .as("at %d", local)
                        .isLessThanOrEqualTo(accuracy + 2.0);
            }
        }
        // drift changes of 60 ppm or more over minutes move the clocks by milliseconds: no single line fits
        if (Math.max(Math.abs(ppm1 - ppm2), Math.abs(ppm2 - ppm3)) > 60) {
            assertThat(whole.result(ConvexHullSync.Method.BISECTOR).quality()).isEqualTo(SyncQuality.FAIL);
        }
    }

    /** A piece ended on a message's receipt and the next began with the reply, sent 1 µs later, its line lower. */
    @Example
    void piecesCutInTheMiddleOfARoundTripAreJoined() {
        driftThatChangesIsFollowedPieceByPieceAndEveryMessageStaysCausal(-48.46, 0, 0, 5_011_191_680L, 86161712539L);
    }

    /**
     * One stretch of messages keeps one line, and a window of its own has messages no line fits
     * (a clock jump back and forth within it): that window is bridged, the stretch's line maps
     * the whole span, approximate, as when several pieces were merged into one.
     */
    @Example
    void oneStretchWithABridgedWindowKeepsItsLine() {
        long origin = 4_000_000_000_000L;
        PiecewiseSync piecewise = new PiecewiseSync(10_000_000_000L);
        Random r = new Random(7);
        for (long t = 50_000_000L; t < 5_000_000_000L; t += 100_000_000L) {
            long l1 = 2_000 + r.nextInt(30_000);
            long l2 = 2_000 + r.nextInt(30_000);
            piecewise.messageToOther(t, origin + t + l1);
            piecewise.messageToReference(origin + t + l1 + 1_000, t + l1 + 1_000 + l2);
        }
        // in one window, 6 s in: received after a send at T, then a reply received 1 ms before T
        long local = origin + 6_000_000_000L;
        piecewise.messageToOther(6_000_000_000L, local);
        piecewise.messageToReference(local + 1_000, 6_000_000_000L - 1_000_000L);
        PiecewiseSync.Result result = piecewise.result(ConvexHullSync.Method.BISECTOR, origin, origin + 7_000_000_000L);
        assertThat(result.problem()).isEmpty();
        assertThat(result.quality()).isEqualTo(SyncQuality.APPROXIMATE);
        for (long t = 0; t <= 7_000_000_000L; t += 500_000_000L) {
            assertThat(Math.abs(result.map().apply(origin + t) - t))
                    .as("at %d", t)
                    .isLessThan(40_000L);
        }
    }
}
