package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.Discarded;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.testing.TraceWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link EventCursor#seek}: after a seek to T, the cursor gives what a full read gives from T,
 * in the same order: the same events, those before T left out, and the losses babeltrace2's
 * seek keeps (those ending before T dropped, those straddling T starting at T with an unknown
 * count, in their place in the merge).
 */
class SeekTest {
    @TempDir
    Path tmp;

    /** An event (where it is in which stream) or a loss, as the cursor gives it. */
    record Item(String what, long time, boolean timed, Discarded loss, ClockClass clock) {}

    static List<Item> read(List<CtfTrace> traces, Long seekTo) throws Exception {
        EventCursor cursor = new EventCursor(traces);
        List<Item> items = new ArrayList<>();
        cursor.onDiscarded((loss, trace, stream) -> items.add(new Item(
                "loss " + trace.name() + " " + stream + " " + loss,
                loss.beginNanos(),
                loss.hasTimeRange(),
                loss,
                clock(trace, stream))));
        if (seekTo != null) {
            cursor.seek(seekTo);
        }
        while (cursor.next()) {
            StreamDecoder d = cursor.decoder();
            items.add(new Item(
                    "event " + traces.indexOf(cursor.trace()) + "/" + cursor.stream() + " file " + d.fileIndex()
                            + " bit " + d.eventBitOffset(),
                    cursor.timeNanos(),
                    cursor.hasTime(),
                    null,
                    null));
        }
        return items;
    }

    private static ClockClass clock(CtfTrace trace, int stream) {
        int c = trace.plan().streams.get(trace.streamClassId(stream)).defaultClock;
        return c < 0 ? null : trace.plan().clocks.get(c);
    }

    /** A full read seen from {@code t}: what a seek to {@code t} must give. */
    static List<Item> from(List<Item> full, long t) {
        List<Item> out = new ArrayList<>();
        for (Item i : full) {
            if (i.loss() == null) {
                if (!i.timed() || i.time() >= t) {
                    out.add(i);
                }
            } else if (!i.loss().hasTimeRange() || i.loss().beginNanos() >= t) {
                out.add(i);
            } else if (i.loss().endNanos() >= t) {
                Discarded cut = i.loss().startingAt(i.clock().snap(t));
                out.add(new Item(
                        i.what().replace(i.loss().toString(), cut.toString()), cut.beginNanos(), true, cut, i.clock()));
            }
        }
        return out;
    }

    /** Seek times worth trying: before everything, after everything, at and between a spread of event times. */
    static List<Long> seekTimes(List<Item> full) {
        TreeSet<Long> times = new TreeSet<>();
        for (Item i : full) {
            if (i.timed()) {
                times.add(i.time());
            }
        }
        List<Long> out = new ArrayList<>(List.of(Long.MIN_VALUE));
        if (times.isEmpty()) {
            return out;
        }
        List<Long> all = new ArrayList<>(times);
        int picks = Math.min(all.size(), full.size() > 5_000 ? 4 : 8);
        for (int k = 0; k < picks; k++) {
            long t = all.get((int) ((long) k * (all.size() - 1) / Math.max(1, picks - 1)));
            out.add(t);
            out.add(t + 1);
        }
        out.add(times.last() + 1);
        return out;
    }

    private static void checkSeeks(List<CtfTrace> traces) throws Exception {
        List<Item> full = read(traces, null);
        for (long t : seekTimes(full)) {
            assertThat(read(traces, t)).as("seek to %d", t).containsExactlyElementsOf(from(full, t));
        }
    }

    @TestFactory
    Stream<DynamicTest> onEveryCorpusTraceASeekGivesWhatAFullReadGivesFromThatTime() throws Exception {
        return Corpus.manifest().stream()
                .filter(r -> r.valid() && r.babeltraceStatus() == 0 && r.babeltraceLines() < 20_000)
                .map(r -> DynamicTest.dynamicTest(r.trace(), () -> {
                    List<CtfTrace> traces = new ArrayList<>();
                    try {
                        Path root = Corpus.trace(r.trace());
                        for (Path dir : CtfTrace.find(root)) {
                            traces.add(CtfTrace.open(dir, root, w -> {}));
                        }
                        checkSeeks(traces);
                    } finally {
                        traces.forEach(CtfTrace::close);
                    }
                }));
    }

    /** Four streams of 300 packets, some empty, with lost events and packets here and there. */
    private Path manyPackets(String name, boolean withIndex, long seed) throws Exception {
        Random random = new Random(seed);
        TraceWriter w = new TraceWriter(tmp.resolve(name));
        if (withIndex) {
            w.withIndex();
        }
        long n = 0;
        for (int s = 0; s < 4; s++) {
            TraceWriter.Stream stream = w.stream("chan_" + s, s);
            long t = 1000 + s;
            long seq = random.nextInt(3);
            long discarded = random.nextInt(2) * 4;
            for (int p = 0; p < 300; p++) {
                long begin = t;
                List<TraceWriter.Event> events = new ArrayList<>();
                for (int e = random.nextInt(8); e > 0; e--) {
                    t += random.nextInt(40); // equal times across streams and within a packet happen
                    events.add(TraceWriter.event(t, n++, "e" + n));
                }
                t += random.nextInt(20);
                stream.packet(begin, t, seq, discarded, events.toArray(TraceWriter.Event[]::new));
                seq += random.nextInt(20) == 0 ? 2 + random.nextInt(3) : 1;
                discarded += random.nextInt(15) == 0 ? 1 + random.nextInt(9) : 0;
                t += random.nextInt(30);
            }
        }
        return w.write();
    }

    @Test
    void onManyPacketsWithLossesASeekGivesWhatAFullReadGivesFromThatTime() throws Exception {
        for (boolean withIndex : new boolean[] {true, false}) {
            Path dir = manyPackets("trace-" + withIndex, withIndex, 42);
            try (CtfTrace trace = CtfTrace.open(dir, w -> {})) {
                List<CtfTrace> traces = List.of(trace);
                List<Item> full = read(traces, null);
                assertThat(full).filteredOn(i -> i.loss() != null).hasSizeGreaterThan(20);
                Random random = new Random(7);
                for (int k = 0; k < 30; k++) {
                    long t = full.get(random.nextInt(full.size())).time() + random.nextInt(3) - 1;
                    assertThat(read(traces, t)).as("seek to %d", t).containsExactlyElementsOf(from(full, t));
                }
                assertThat(trace.index(0).source())
                        .isEqualTo(withIndex ? PacketIndex.Source.LTTNG_INDEX : PacketIndex.Source.PACKETS);
            }
        }
    }

    @Test
    void aCursorCanSeekAgainWhileReading() throws Exception {
        try (CtfTrace trace = CtfTrace.open(manyPackets("again", false, 3), w -> {})) {
            List<CtfTrace> traces = List.of(trace);
            List<Item> full = read(traces, null);
            long late = full.get(full.size() * 3 / 4).time();
            long early = full.get(full.size() / 4).time();
            EventCursor cursor = new EventCursor(traces);
            cursor.seek(late);
            for (int k = 0; k < 10; k++) {
                assertThat(cursor.next()).isTrue();
            }
            cursor.seek(early);
            List<Long> times = new ArrayList<>();
            while (cursor.next()) {
                times.add(cursor.timeNanos());
            }
            assertThat(times)
                    .containsExactlyElementsOf(from(full, early).stream()
                            .filter(i -> i.loss() == null)
                            .map(Item::time)
                            .toList());
        }
    }
}
