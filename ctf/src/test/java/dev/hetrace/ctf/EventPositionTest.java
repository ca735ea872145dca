package dev.hetrace.ctf;

import static dev.hetrace.ctf.EventsByPosition.event;
import static dev.hetrace.ctf.EventsByPosition.findEveryEventAgain;
import static dev.hetrace.ctf.EventsByPosition.open;
import static dev.hetrace.ctf.EventsByPosition.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.EventsByPosition.Read;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Corpus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An event's position (stream file, packet offset, offset in the packet), as a tracker gives it
 * while a cursor reads, decodes that same event again on its own: the same name and fields as
 * the read in order, whatever order the events are asked for in, and without reading the events
 * before it in its packet; the positions are the same whether the cursor keeps a decoder per
 * stream or parks streams.
 */
class EventPositionTest {
    @TempDir
    Path dir;

    @Test
    void everyEventOfAnLttngTraceWithRotatedFilesIsFoundAgainByItsPosition() throws Exception {
        Path root = Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation");
        List<Read> events = findEveryEventAgain(root, 1);
        assertThat(read(open(root), 2)).as("parked streams").isEqualTo(events);
        Set<Integer> files = new HashSet<>();
        for (Read e : events) {
            files.add(e.streamFile());
        }
        assertThat(files.stream().map(f -> f & 0xFF).distinct().count())
                .as("files of a stream")
                .isGreaterThan(1);
        assertThat(files.stream().map(f -> f >> 8).distinct().count())
                .as("streams")
                .isGreaterThan(1);
        EventPosition position = new EventPosition(open(root));
        Read first = events.getFirst();
        assertThat(position.decode(first.streamFile(), first.packet(), 1L << 40))
                .as("past the packet")
                .isNull();
        assertThat(position.decode(first.streamFile(), first.packet(), 0))
                .as("in the packet's header")
                .isNull();
        assertThat(position.decode(first.streamFile(), 1L << 40, first.offset()))
                .as("past the file")
                .isNull();
        assertThat(position.decode(first.streamFile() + 200, first.packet(), first.offset()))
                .as("no such file")
                .isNull();
    }

    @Test
    void everyEventOfTheRealKernelAndPerfTracesIsFoundAgainByItsPosition() throws Exception {
        // LTTng kernel traces of 8 CPUs (packets of thousands of events), of both byte orders, and perf's CTF
        for (String trace : List.of("real/many-threads", "real/flipping-endianness", "real/perf-taskset2")) {
            assertThat(findEveryEventAgain(Corpus.trace(trace), trace.hashCode()))
                    .as(trace)
                    .isNotEmpty();
        }
    }

    @Test
    void everyEventOfEveryValidTraceOfTheConformanceSuitesIsFoundAgainByItsPosition() throws Exception {
        // babeltrace's and the CTF test suite's: variants and sequences tagged and sized from the
        // packet header and context and the event header, odd alignments, barectf and LTTng layouts
        long events = 0;
        int traces = 0;
        for (Corpus.Row row : Corpus.manifest()) {
            if (row.valid()) {
                events += findEveryEventAgain(
                                Corpus.trace(row.trace()), row.trace().hashCode())
                        .size();
                traces++;
            }
        }
        assertThat(traces).isGreaterThan(100);
        assertThat(events).isGreaterThan(100_000);
    }

    /**
     * The events before the one asked for in its packet are not read: with their bytes
     * overwritten, the event's fields are still found (a decode from the packet's start would
     * stop at the garbage or read the wrong event).
     */
    @Test
    void findingAnEventReadsNoneOfTheEventsBeforeItInItsPacket() throws Exception {
        Path original = Corpus.trace("real/many-threads");
        List<Read> events = read(open(original), EventCursor.DEFAULT_MAX_LIVE);
        // the packet with the most events, and its last event
        Map<List<Long>, List<Read>> byPacket = new HashMap<>();
        for (Read e : events) {
            byPacket.computeIfAbsent(List.of((long) e.streamFile(), e.packet()), k -> new ArrayList<>())
                    .add(e);
        }
        List<Read> packet = byPacket.values().stream()
                .max((a, b) -> Integer.compare(a.size(), b.size()))
                .orElseThrow();
        assertThat(packet).hasSizeGreaterThan(1000);
        Read first = packet.stream()
                .min((a, b) -> Long.compare(a.offset(), b.offset()))
                .orElseThrow();
        Read last = packet.stream()
                .max((a, b) -> Long.compare(a.offset(), b.offset()))
                .orElseThrow();

        Path copy = dir.resolve("many-threads");
        try (Stream<Path> files = Files.walk(original)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(original.relativize(f).toString()));
            }
        }
        List<CtfTrace> traces = open(copy);
        CtfTrace trace = traces.get(first.streamFile() >>> 24);
        Path file = trace.streams()
                .get((first.streamFile() >>> 8) & 0xFFFF)
                .get(first.streamFile() & 0xFF)
                .path();
        traces.forEach(CtfTrace::close);
        overwrite(file, first.packet() + (first.offset() >>> 3), last.offset() - first.offset() >>> 3);

        StreamDecoder d = new EventPosition(open(copy)).decode(last.streamFile(), last.packet(), last.offset());
        assertThat(d).isNotNull();
        assertThat(event(d)).isEqualTo(last.event());
    }

    /** Writes {@code length} bytes of 0xFF from {@code offset} on. */
    private static void overwrite(Path file, long offset, long length) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer ff = ByteBuffer.allocate((int) length);
            while (ff.hasRemaining()) {
                ff.put((byte) 0xFF);
            }
            ff.flip();
            c.write(ff, offset);
        }
    }
}
