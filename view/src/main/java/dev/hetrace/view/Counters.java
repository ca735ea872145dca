package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.hetrace.analysis.StateModel;
import java.io.IOException;

/**
 * The values of a COUNTER row per pixel column, exact at any zoom and read with two binary
 * searches per column: a CPU's load (the share of the column its core was busy, from the busy
 * time before each run that a core row keeps) or an interrupt line's rate (how many of its
 * handlers start in the column). Column {@code x} of a request for [from, to) at {@code width}
 * pixels covers [from + ⌊x·(to − from) / width⌋, from + ⌊(x + 1)·(to − from) / width⌋).
 */
final class Counters {
    /** A COUNTER row's measure: its core's busy share, ‰. */
    static final int LOAD = 0;

    /** A COUNTER row's measure: how many of its own intervals start in each column. */
    static final int RATE = 1;

    /** A COUNTER row's measure: a step function's average over each column, in thousandths (threads waiting for a CPU). */
    static final int LEVEL = 2;

    /** A COUNTER row's measure: a counter series the traces carry, its values as sampled (each until the next). */
    static final int VALUE = 3;

    /** A COUNTER row's measure: a series of a running total (a hardware counter), shown as its rate per second. */
    static final int TOTAL = 4;

    /** A COUNTER row's measure: the events a stream lost, as the packets told them, summed per column. */
    static final int LOST = 5;

    /** What a counter of {@code measure} is called in {@code /api/meta}: load, rate, level, value, total, lost. */
    static String measureName(int measure) {
        return switch (measure) {
            case LOAD -> "load";
            case RATE -> "rate";
            case LEVEL -> "level";
            case VALUE -> "value";
            case TOTAL -> "total";
            default -> "lost";
        };
    }

    /** The measure of a row showing a counter series of {@code kind} ({@link StateModel#COUNTER_VALUE}...). */
    static int measureOf(int kind) {
        return switch (kind) {
            case StateModel.COUNTER_VALUE -> VALUE;
            case StateModel.COUNTER_TOTAL -> TOTAL;
            default -> LOST;
        };
    }

    /** Whether a row of {@code measure} shows a counter series of the model (its samples, {@link #writeSamples}). */
    static boolean sampled(int measure) {
        return measure >= VALUE;
    }

    /** The label of a step of {@code level} threads waiting for a CPU. */
    static String waitingLabel(int level) {
        return level == 1 ? "1 thread waiting" : level + " threads waiting";
    }

    private final Timeline t;
    private final Numbers numbers;

    Counters(Timeline t, Numbers numbers) {
        this.t = t;
        this.numbers = numbers;
    }

    /** The start of column {@code x} of [f, e) at {@code width} pixels. */
    static long columnStart(long f, long e, int width, int x) {
        return f + Math.floorDiv((e - f) * x, width);
    }

    /**
     * Writes row {@code r}'s values over [f, e) (absolute ns) as {@code values}: runs of equal
     * columns, each {@link Wire#VALUE} (x, how many, value); columns of value 0 are left out.
     */
    void write(JsonGenerator g, int r, long f, long e, int width) throws IOException {
        Timeline.Row row = t.rows.get(r);
        if (sampled(row.depth())) {
            writeSamples(g, r, row.depth(), f, e, width);
            return;
        }
        int source = row.depth() == LOAD ? row.parent() : r;
        Numbers out = numbers.start();
        long a = f;
        int measure = row.depth();
        long before = measure == LOAD
                ? busyUntil(source, a)
                : measure == LEVEL ? areaUntil(r, a) : t.firstStartingFrom(source, a);
        long runValue = 0;
        int runX = 0;
        for (int x = 0; x < width; x++) {
            long b = columnStart(f, e, width, x + 1);
            long v;
            if (measure == LOAD) {
                long now = busyUntil(source, b);
                v = b > a ? Math.min(1000, Math.max(0, Math.round((now - before) * 1000.0 / (b - a)))) : 0;
                before = now;
            } else if (measure == LEVEL) {
                long now = areaUntil(r, b);
                v = b > a ? Math.max(0, Math.round((now - before) * 1000.0 / (b - a))) : 0;
                before = now;
            } else {
                long now = t.firstStartingFrom(source, b);
                v = now - before;
                before = now;
            }
            if (v != runValue || x == 0) {
                if (runValue != 0) {
                    out.add(runX);
                    out.add(x - runX);
                    out.add(runValue);
                }
                runX = x;
                runValue = v;
            }
            a = b;
        }
        if (runValue != 0) {
            out.add(runX);
            out.add(width - runX);
            out.add(runValue);
        }
        out.writeField(g, "values");
    }

    /**
     * Writes a counter series' row over [f, e) as {@code samples}: runs of equal columns, each
     * {@link Wire#SAMPLE} (x, how many, min, max, average over the column). A value holds from its
     * sample to the next (the last to the end of the trace), a running total's rate from a sample to
     * the next; the average is over the part of the column they cover, and a column they do not
     * cover is left out. Of events lost, each column's sum (min, max and average alike). One sweep
     * over the samples in range: exact at any zoom.
     */
    void writeSamples(JsonGenerator g, int r, int measure, long f, long e, int width) throws IOException {
        g.writeArrayFieldStart("samples");
        int hi = t.offset[r + 1];
        int i = measure == LOST ? t.firstStartingFrom(r, f) : t.firstEndingAfter(r, f);
        long a = f;
        double runMin = 0;
        double runMax = 0;
        double runAvg = 0;
        int runX = -1;
        int runN = 0;
        for (int x = 0; x < width; x++) {
            long b = columnStart(f, e, width, x + 1);
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            double area = 0;
            long covered = 0;
            boolean any = false;
            if (measure == LOST) {
                double sum = 0;
                for (; i < hi && t.startOf(i) < b; i++) {
                    sum += value(i);
                    any = true;
                }
                min = sum;
                max = sum;
                area = sum;
                covered = 1;
            } else {
                while (i < hi && t.startOf(i) < b) {
                    long s = Math.max(t.startOf(i), a);
                    long end = t.endOf(i);
                    long to = Math.min(end, b);
                    if (to > s) {
                        double v = measure == VALUE ? value(i) : rate(i);
                        min = Math.min(min, v);
                        max = Math.max(max, v);
                        area += v * (to - s);
                        covered += to - s;
                        any = true;
                    }
                    if (end > b) {
                        break; // it goes on into the next column
                    }
                    i++;
                }
            }
            if (any) {
                // an average of values between min and max is too, whatever the rounding
                double avg = Math.min(max, Math.max(min, area / covered));
                if (runN > 0 && runX + runN == x && min == runMin && max == runMax && avg == runAvg) {
                    runN++;
                } else {
                    sampleRun(g, runX, runN, runMin, runMax, runAvg);
                    runX = x;
                    runN = 1;
                    runMin = min;
                    runMax = max;
                    runAvg = avg;
                }
            }
            a = b;
        }
        sampleRun(g, runX, runN, runMin, runMax, runAvg);
        g.writeEndArray();
    }

    private static void sampleRun(JsonGenerator g, int x, int n, double min, double max, double avg)
            throws IOException {
        if (n == 0) {
            return;
        }
        g.writeNumber(x);
        g.writeNumber(n);
        g.writeNumber(min);
        g.writeNumber(max);
        g.writeNumber(avg);
    }

    /** Sample {@code i}'s value, as the model gives it. */
    private double value(int i) {
        return Double.longBitsToDouble(t.extraOf(i));
    }

    /** A running total's rate per second from sample {@code i} to the next (which ends its step). */
    private double rate(int i) {
        return (value(i + 1) - value(i)) * 1e9 / (t.endOf(i) - t.startOf(i));
    }

    /**
     * The area under step-function row {@code r} before {@code time}: its steps are contiguous, each
     * holding the area up to its end, so a step's level is its area over its length.
     */
    long areaUntil(int r, long time) {
        int k = t.firstStartingFrom(r, time) - 1;
        if (k < t.offset[r]) {
            return 0;
        }
        long prev = k > t.offset[r] ? t.extraOf(k - 1) : 0;
        long len = t.endOf(k) - t.startOf(k);
        long level = len > 0 ? (t.extraOf(k) - prev) / len : 0;
        return prev + level * (Math.min(time, t.endOf(k)) - t.startOf(k));
    }

    /** How long core row {@code r} was busy before {@code time}: its runs do not overlap. */
    long busyUntil(int r, long time) {
        int k = t.firstStartingFrom(r, time) - 1;
        if (k < t.offset[r]) {
            return 0;
        }
        return t.extraOf(k) + Math.max(0, Math.min(time, t.endOf(k)) - t.startOf(k));
    }
}
