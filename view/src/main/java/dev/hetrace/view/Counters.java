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
        long before = row.depth() == LOAD ? busyUntil(source, a) : t.firstStartingFrom(source, a);
        long runValue = 0;
        int runX = 0;
        for (int x = 0; x < width; x++) {
            long b = columnStart(f, e, width, x + 1);
            long v;
            if (row.depth() == LOAD) {
                long now = busyUntil(source, b);
                v = b > a ? Math.min(1000, Math.max(0, Math.round((now - before) * 1000.0 / (b - a)))) : 0;
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

    /** How long core row {@code r} was busy before {@code time}: its runs do not overlap. */
    long busyUntil(int r, long time) {
        int k = t.firstStartingFrom(r, time) - 1;
        if (k < t.offset[r]) {
            return 0;
        }
        return t.extraOf(k) + Math.max(0, Math.min(time, t.endOf(k)) - t.startOf(k));
    }
}
