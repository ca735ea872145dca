package dev.hetrace.sync;

import dev.hetrace.sync.SyncResult.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Relates a trace's clock to the reference clock from the messages matched between them (Duda
 * et al. 1987, Poirier et al. 2010). Each message is a point (time on this trace, time on the
 * reference): one sent by the reference must be received after it was sent, so its point lies
 * on or below the line {@code t_ref = f(t)}; one sent to the reference lies on or above it. The
 * upper hull of the first set and the lower hull of the second bound every line that keeps all
 * messages causal; among them the lines of smallest and largest slope are the bounds, and the
 * chosen transform lies between them: the bisector of their angle (Duda), or their average
 * (as Trace Compass does).
 *
 * <p>Only the two hull chains are kept (plus a batch of recent points): memory depends on the
 * hull size, not on the number of messages.
 *
 * <p>The geometry is done on (t, t_ref − t), which only shears the plane (lines stay lines, hulls
 * stay hulls) but keeps the numbers small: clocks that tick at nearly the same rate give nearly
 * horizontal lines, whose slopes (drifts, 1e-6 to 1e-3) and offsets are exact in doubles.
 */
public final class ConvexHullSync {
    /** How the transform is chosen between the two bounding lines. */
    public enum Method {
        /** The bisector of the angle between the two lines (Duda et al.). */
        BISECTOR,
        /** The average of their slopes and of their offsets (Trace Compass). */
        AVERAGE
    }

    /** Points of messages sent by the reference: the line must pass on or above them. */
    private final HullChain below = new HullChain(true);
    /** Points of messages sent to the reference: the line must pass on or below them. */
    private final HullChain above = new HullChain(false);

    private long minTime = Long.MAX_VALUE;
    private long maxTime = Long.MIN_VALUE;

    /** A message sent by the reference at {@code refSendNanos}, received here at {@code receiveNanos}. */
    public void messageToOther(long refSendNanos, long receiveNanos) {
        below.add(receiveNanos, refSendNanos - receiveNanos);
        span(receiveNanos);
    }

    /** A message sent here at {@code sendNanos}, received by the reference at {@code refReceiveNanos}. */
    public void messageToReference(long sendNanos, long refReceiveNanos) {
        above.add(sendNanos, refReceiveNanos - sendNanos);
        span(sendNanos);
    }

    private void span(long t) {
        minTime = Math.min(minTime, t);
        maxTime = Math.max(maxTime, t);
    }

    /**
     * Whether some message may arrive before it left once the reference's times go through
     * {@code reference} and this trace's through {@code other} (both to a common clock). Checked
     * on the hull vertices, which hold the messages closest to acausal for any linear map; a
     * vertex within 2 ns of it counts, since rounding may tip a message next to it.
     */
    public boolean mayBeAcausal(ClockTransform reference, ClockTransform other) {
        for (int i = 0; i < below.size(); i++) {
            long receive = below.x(i);
            long send = below.y(i) + receive;
            if (other.apply(receive) - reference.apply(send) < 2) {
                return true;
            }
        }
        for (int i = 0; i < above.size(); i++) {
            long send = above.x(i);
            long receive = above.y(i) + send;
            if (reference.apply(receive) - other.apply(send) < 2) {
                return true;
            }
        }
        return false;
    }

    /**
     * The corners of the set of causal lines (slope and offset pairs), as transforms: every
     * causal line's value at any instant lies between the corners' values there. Empty unless
     * the quality is {@link SyncQuality#ACCURATE}.
     */
    public List<ClockTransform> causalCorners() {
        if (below.points() == 0 || above.points() == 0) {
            return List.of();
        }
        Geometry g = new Geometry(below, above);
        Bounds b = g.bounds();
        if (b == null || Double.isInfinite(b.min) || Double.isInfinite(b.max)) {
            return List.of();
        }
        List<ClockTransform> out = new ArrayList<>();
        for (double[] v : g.vertices(b)) {
            out.add(g.transform(v[0], v[1]));
        }
        return out;
    }

    /** Adds the messages another synchronization holds that bound the lines (its hull vertices). */
    public void absorb(ConvexHullSync other) {
        for (int i = 0; i < other.below.size(); i++) {
            below.add(other.below.x(i), other.below.y(i));
        }
        for (int i = 0; i < other.above.size(); i++) {
            above.add(other.above.x(i), other.above.y(i));
        }
        if (other.minTime <= other.maxTime) {
            span(other.minTime);
            span(other.maxTime);
        }
    }

    /** The earliest matched instant on this trace's clock (Long.MAX_VALUE without messages). */
    public long firstTime() {
        return minTime;
    }

    /** The latest matched instant on this trace's clock (Long.MIN_VALUE without messages). */
    public long lastTime() {
        return maxTime;
    }

    /** The result, its accuracy taken over the span of the matched instants. */
    public SyncResult result(Method method) {
        return result(method, minTime, maxTime);
    }

    /** The result, its accuracy taken over {@code [spanStart, spanEnd]} on this trace's clock (e.g. the whole trace). */
    public SyncResult result(Method method, long spanStart, long spanEnd) {
        long nb = below.points();
        long na = above.points();
        if (nb == 0 && na == 0) {
            return new SyncResult(
                    SyncQuality.ABSENT,
                    ClockTransform.IDENTITY,
                    Optional.empty(),
                    Optional.empty(),
                    0,
                    0,
                    Optional.empty(),
                    List.of());
        }
        Geometry g = new Geometry(below, above);
        long start = Math.min(spanStart, minTime);
        long end = Math.max(spanEnd, maxTime);
        if (nb == 0 || na == 0) {
            // one direction: the offset is bounded from one side only; slope 1 and the bound
            double b = nb > 0 ? g.f(0) : g.g(0);
            return new SyncResult(
                    SyncQuality.INCOMPLETE,
                    g.transform(0, b),
                    Optional.empty(),
                    Optional.empty(),
                    nb,
                    na,
                    Optional.empty(),
                    List.of());
        }
        Bounds bounds = g.bounds();
        if (bounds != null && bounds.max <= -1) {
            bounds = null; // every line the messages allow runs backwards (slope ≤ 0): none is a clock's
        } else if (bounds != null && bounds.min <= -1) {
            bounds = new Bounds(Double.NEGATIVE_INFINITY, bounds.max); // only the clock's forward run bounds it below
        }
        if (bounds == null) {
            return new SyncResult(
                    SyncQuality.FAIL,
                    g.transform(0, (g.f(0) + g.g(0)) / 2),
                    Optional.empty(),
                    Optional.empty(),
                    nb,
                    na,
                    Optional.empty(),
                    g.conflict());
        }
        Optional<ClockTransform> lmin = Double.isInfinite(bounds.min)
                ? Optional.empty()
                : Optional.of(g.transform(bounds.min, g.f(bounds.min)));
        Optional<ClockTransform> lmax = Double.isInfinite(bounds.max)
                ? Optional.empty()
                : Optional.of(g.transform(bounds.max, g.f(bounds.max)));
        if (lmin.isEmpty() || lmax.isEmpty()) {
            // both directions, but the slope is free on one side: the nominal slope, clamped
            double s = Math.max(bounds.min, Math.min(0, bounds.max));
            return new SyncResult(
                    SyncQuality.APPROXIMATE,
                    g.transform(s, (g.f(s) + g.g(s)) / 2),
                    lmin,
                    lmax,
                    nb,
                    na,
                    Optional.empty(),
                    List.of());
        }
        double s1 = bounds.min;
        double b1 = g.f(s1);
        double s2 = bounds.max;
        double b2 = g.f(s2);
        double s;
        double b;
        if (method == Method.AVERAGE) {
            s = (s1 + s2) / 2;
            b = (b1 + b2) / 2;
        } else {
            // the bisector goes through the lines' crossing: at any time it divides the gap
            // between them as its slope divides theirs, w = (tan θ − tan θ1) / (tan θ2 − tan θ1)
            // with θ the mean angle; written with the angle between the lines, Δ, which is
            // exact even when the slopes differ by 1e-12
            double a1 = 1 + s1;
            double a2 = 1 + s2;
            double delta = Math.atan((s2 - s1) / (1 + a1 * a2));
            double theta = Math.atan(a1) + delta / 2;
            double w = Math.cos(Math.atan(a2)) / (2 * Math.cos(delta / 2) * Math.cos(theta));
            s = s1 + w * (s2 - s1);
            b = b1 + w * (b2 - b1);
        }
        double accuracy = 0;
        for (long t : new long[] {start, end}) {
            double x = g.x(t);
            double c = s * x + b;
            for (double[] v : g.vertices(bounds)) {
                double y = v[0] * x + v[1];
                accuracy = Math.max(accuracy, Math.abs(y - c));
            }
        }
        return new SyncResult(
                SyncQuality.ACCURATE,
                g.transform(s, b),
                lmin,
                lmax,
                nb,
                na,
                Optional.of((long) Math.ceil(accuracy - 1e-3)),
                List.of());
    }

    /** The slopes (sheared: slope − 1) of the lines that keep every message causal. */
    private record Bounds(double min, double max) {}

    /**
     * The two hull chains relative to a pivot, and the functions of the dual: for a slope s, the
     * lowest offset a causal line of that slope may have ({@code f}, set by the messages sent by
     * the reference) and the highest ({@code g}, set by the others). Causal lines of slope s exist
     * iff {@code f(s) ≤ g(s)}; f is convex, g concave, so their gap is concave in s and the causal
     * slopes form an interval.
     */
    private static final class Geometry {
        final long x0;
        final long y0;
        final long[] bxl;
        final long[] byl;
        final long[] axl;
        final long[] ayl;
        final double[] bx;
        final double[] by;
        final double[] ax;
        final double[] ay;
        /** Slopes of the upper chain's edges (decreasing) and of the lower chain's (increasing). */
        final double[] be;

        final double[] ae;

        Geometry(HullChain below, HullChain above) {
            int nb = below.size();
            int na = above.size();
            bxl = new long[nb];
            byl = new long[nb];
            axl = new long[na];
            ayl = new long[na];
            for (int i = 0; i < nb; i++) {
                bxl[i] = below.x(i);
                byl[i] = below.y(i);
            }
            for (int i = 0; i < na; i++) {
                axl[i] = above.x(i);
                ayl[i] = above.y(i);
            }
            x0 = nb > 0 ? bxl[0] : axl[0];
            y0 = nb > 0 ? byl[0] : ayl[0];
            bx = rel(bxl, x0);
            by = rel(byl, y0);
            ax = rel(axl, x0);
            ay = rel(ayl, y0);
            be = edges(bx, by);
            ae = edges(ax, ay);
        }

        private static double[] rel(long[] v, long origin) {
            double[] d = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = (double) (v[i] - origin);
            }
            return d;
        }

        private static double[] edges(double[] x, double[] y) {
            double[] e = new double[Math.max(0, x.length - 1)];
            for (int i = 1; i < x.length; i++) {
                e[i - 1] = (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
            }
            return e;
        }

        double x(long t) {
            return (double) (t - x0);
        }

        ClockTransform transform(double s, double b) {
            // t_ref − t = s (t − x0) + b + y0  ⇒  t_ref = x0 + y0 + b + (1 + s)(t − x0)
            return new ClockTransform(x0, x0 + y0 + Math.round(b), s);
        }

        /** The vertex of the upper chain where Y − sX is largest. */
        int activeBelow(double s) {
            int lo = 0;
            int hi = be.length; // answer in [0, be.length]: the first i whose next edge is not steeper than s
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (be[mid] > s) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** The vertex of the lower chain where Y − sX is smallest. */
        int activeAbove(double s) {
            int lo = 0;
            int hi = ae.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (ae[mid] < s) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        double f(double s) {
            int i = activeBelow(s);
            return by[i] - s * bx[i];
        }

        double g(double s) {
            int i = activeAbove(s);
            return ay[i] - s * ax[i];
        }

        double h(double s) {
            return g(s) - f(s);
        }

        /** The breakpoints of f and g, sorted, or {0} when both chains are single points. */
        double[] breakpoints() {
            double[] s = new double[be.length + ae.length];
            System.arraycopy(be, 0, s, 0, be.length);
            System.arraycopy(ae, 0, s, be.length, ae.length);
            Arrays.sort(s);
            return s.length == 0 ? new double[] {0} : s;
        }

        /** The interval of causal slopes, or null when none is. */
        Bounds bounds() {
            double[] s = breakpoints();
            double[] v = new double[s.length];
            int best = 0;
            for (int i = 0; i < s.length; i++) {
                v[i] = h(s[i]);
                if (v[i] > v[best]) {
                    best = i;
                }
            }
            // h's slope beyond the breakpoints: leftmost "below" x minus rightmost "above" x to
            // the right; rightmost "below" minus leftmost "above" to the left
            double rightSlope = bx[0] - ax[ax.length - 1];
            double leftSlope = bx[bx.length - 1] - ax[0];
            int last = s.length - 1;
            double max;
            double min;
            if (v[best] < 0) {
                if (rightSlope > 0) {
                    return new Bounds(s[last] - v[last] / rightSlope, Double.POSITIVE_INFINITY);
                }
                if (leftSlope < 0) {
                    return new Bounds(Double.NEGATIVE_INFINITY, s[0] - v[0] / leftSlope);
                }
                return null;
            }
            // to the right of the best breakpoint: the last one still causal, then h's root
            int i = best;
            while (i < last && v[i + 1] >= 0) {
                i++;
            }
            if (i < last) {
                max = s[i] + v[i] * (s[i + 1] - s[i]) / (v[i] - v[i + 1]);
            } else {
                max = rightSlope < 0 ? s[last] + v[last] / -rightSlope : Double.POSITIVE_INFINITY;
            }
            i = best;
            while (i > 0 && v[i - 1] >= 0) {
                i--;
            }
            if (i > 0) {
                min = s[i] - v[i] * (s[i] - s[i - 1]) / (v[i] - v[i - 1]);
            } else {
                min = leftSlope > 0 ? s[0] - v[0] / leftSlope : Double.NEGATIVE_INFINITY;
            }
            return new Bounds(min, max);
        }

        /** The corners of the set of causal lines, as {slope, offset}: where the extreme lines lie. */
        List<double[]> vertices(Bounds bounds) {
            List<double[]> out = new ArrayList<>();
            out.add(new double[] {bounds.min, f(bounds.min)});
            out.add(new double[] {bounds.max, f(bounds.max)});
            for (double s : breakpoints()) {
                if (s > bounds.min && s < bounds.max) {
                    out.add(new double[] {s, f(s)});
                    out.add(new double[] {s, g(s)});
                }
            }
            return out;
        }

        /** The messages that decide the failure: the active points where the bounds cross least. */
        List<Message> conflict() {
            double[] s = breakpoints();
            int best = 0;
            for (int i = 1; i < s.length; i++) {
                if (h(s[i]) > h(s[best])) {
                    best = i;
                }
            }
            double sb = s[best];
            List<Message> out = new ArrayList<>();
            double fb = f(sb);
            double gb = g(sb);
            double tol = 1e-9 * (1 + Math.abs(fb) + Math.abs(gb));
            for (int i = 0; i < bx.length; i++) {
                if (Math.abs(by[i] - sb * bx[i] - fb) <= tol) {
                    out.add(new Message(true, byl[i] + bxl[i], bxl[i]));
                }
            }
            for (int i = 0; i < ax.length; i++) {
                if (Math.abs(ay[i] - sb * ax[i] - gb) <= tol) {
                    out.add(new Message(false, axl[i], ayl[i] + axl[i]));
                }
            }
            return out;
        }
    }
}
