package dev.hetrace.bench;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.EventPosition;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reading one event's fields by its position ({@link EventPosition#decode}, what the index's
 * {@code hetrace_fields} does, then the fields as JSON), measured on the largest packet of a
 * trace: its first event against its last, and the last decoded from the packet's start up to
 * it (how a position was read before positions kept the event's offset); with, as the floor, the
 * fields of every event read in order, and every event found by its position in the order the
 * index keeps them (what {@code hetrace export --parquet} asks for). Thread CPU time, medians of
 * the rounds after the first two.
 *
 * <p>Run: {@code java -cp hetrace-bench.jar dev.hetrace.bench.FieldsBench ROUNDS TRACE}.
 */
public final class FieldsBench {
    private FieldsBench() {}

    private static final int WARM_UP = 2;
    private static final String[] LABELS = {
        "the first event of the packet, by its position",
        "the last event of the packet, by its position",
        "the last event of the packet, decoded from the packet's start (the earlier way)",
        "every event in order (reader + fields as JSON), per event",
        "every event by its position, in the index's order, per event"
    };
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** An event's position, as the index keeps it. */
    private record At(int streamFile, long packet, long offset) {}

    private static final TextSink SINK = new TextSink(null);
    private static final JsonText JSON = new JsonText(SINK);
    private static long sink;

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        Path trace = Path.of(args[1]);
        try (CtfReader reader = CtfReader.open(List.of(trace), w -> {})) {
            List<CtfTrace> traces = reader.traces();
            List<At> all = positions(traces);
            // the packet with the most events: its first and last
            Map<List<Long>, int[]> counts = new HashMap<>();
            for (At a : all) {
                counts.computeIfAbsent(List.of((long) a.streamFile(), a.packet()), k -> new int[1])[0]++;
            }
            List<Long> largest = counts.entrySet().stream()
                    .max((x, y) -> Integer.compare(x.getValue()[0], y.getValue()[0]))
                    .orElseThrow()
                    .getKey();
            At first = null;
            At last = null;
            for (At a : all) {
                if (a.streamFile() == largest.get(0) && a.packet() == largest.get(1)) {
                    first = first == null || a.offset() < first.offset() ? a : first;
                    last = last == null || a.offset() > last.offset() ? a : last;
                }
            }
            int inPacket = counts.get(largest)[0];
            EventPosition position = new EventPosition(traces);
            StreamDecoder walker = traces.get(largest.get(0).intValue() >>> 24)
                    .decoder((largest.get(0).intValue() >>> 8) & 0xFFFF);
            int repeat = 200_000;
            int walks = Math.max(10, 20_000_000 / inPacket / 50);
            long[][] ns = new long[LABELS.length][rounds];
            for (int r = 0; r < rounds; r++) {
                At f = first;
                At l = last;
                ns[0][r] = perEvent(repeat, () -> fields(position, f, repeat));
                ns[1][r] = perEvent(repeat, () -> fields(position, l, repeat));
                ns[2][r] = perEvent(walks, () -> fromStart(walker, l, inPacket, walks));
                ns[3][r] = perEvent(all.size(), () -> inOrder(trace));
                ns[4][r] = perEvent(all.size(), () -> byPosition(position, all));
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s: %,d events; the largest packet holds %,d events (%,d bytes from its first"
                            + " event to its last); %d rounds, medians of rounds %d to %d%n%n",
                    trace,
                    all.size(),
                    inPacket,
                    (last.offset() - first.offset()) / 8,
                    rounds,
                    WARM_UP + 1,
                    rounds);
            System.out.printf("| fields as JSON of | ns of CPU per event |%n|---|---:|%n");
            for (int k = 0; k < LABELS.length; k++) {
                long[] t = Arrays.copyOfRange(ns[k], Math.min(WARM_UP, rounds - 1), rounds);
                Arrays.sort(t);
                System.out.printf(Locale.ROOT, "| %s | %,d |%n", LABELS[k], t[t.length / 2]);
            }
            System.err.println(sink == 42 ? "" : "done");
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /** The thread's CPU time for {@code s}, per event of the {@code events} it reads. */
    private static long perEvent(long events, Step s) throws Exception {
        long t0 = THREADS.getCurrentThreadCpuTime();
        s.run();
        return (THREADS.getCurrentThreadCpuTime() - t0) / events;
    }

    /** Every event's position, in the order a reader (and the index) takes them. */
    private static List<At> positions(List<CtfTrace> traces) throws Exception {
        List<At> out = new ArrayList<>();
        EventCursor cursor = new EventCursor(traces);
        EventPosition.Tracker where = new EventPosition.Tracker(traces);
        while (cursor.next()) {
            where.update(cursor);
            out.add(new At(where.streamFile(), where.packetOffset(), where.eventOffset()));
        }
        return out;
    }

    private static void json(StreamDecoder d) {
        SINK.clear();
        JSON.fields(d);
        sink += SINK.length();
    }

    /** The event at {@code a}, {@code n} times. */
    private static void fields(EventPosition position, At a, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            json(position.decode(a.streamFile(), a.packet(), a.offset()));
        }
    }

    /** The event at {@code a}, the {@code count}-th of its packet, decoded from the packet's first event, {@code n} times. */
    private static void fromStart(StreamDecoder d, At a, int count, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            d.seek(a.streamFile() & 0xFF, a.packet() * 8, 0, false, Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE);
            d.nextPacket();
            for (int k = 0; k < count; k++) {
                d.next();
            }
            json(d);
        }
    }

    private static void inOrder(Path trace) throws Exception {
        try (CtfReader r = CtfReader.open(List.of(trace), w -> {})) {
            while (r.next()) {
                json(r.cursor().decoder());
            }
        }
    }

    private static void byPosition(EventPosition position, List<At> all) throws Exception {
        for (At a : all) {
            json(position.decode(a.streamFile(), a.packet(), a.offset()));
        }
    }
}
