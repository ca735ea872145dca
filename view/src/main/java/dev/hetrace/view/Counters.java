package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
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

    /** What a counter of {@code measure} is called in {@code /api/meta}: load, rate, level. */
    static String measureName(int measure) {
        return switch (measure) {
            case LOAD -> "load";
            case RATE -> "rate";
            default -> "level";
        };
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
