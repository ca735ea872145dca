package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An event's position (stream file, packet offset, index in the packet), as a tracker gives it
 * while a cursor reads, decodes that same event again: same time, name and fields; the
 * positions are the same whether the cursor keeps a decoder per stream or parks streams.
 */
class EventPositionTest {
    private static List<CtfTrace> open(Path root) throws Exception {
        List<CtfTrace> traces = new ArrayList<>();
        for (Path dir : CtfTrace.find(root)) {
            traces.add(CtfTrace.open(dir, root, w -> { }));
        }
        return traces;
    }

    private static String fields(JsonText json, TextSink sink, StreamDecoder d) {
        sink.clear();
        json.fields(d);
        return new String(sink.buffer(), 0, sink.length(), StandardCharsets.UTF_8);
    }

    /** Per event in merged order: position, time, name and fields, with a cursor of at most {@code maxLive} decoders. */
    private static List<String> read(List<CtfTrace> traces, int maxLive, List<long[]> positions) throws Exception {
        TextSink sink = new TextSink(null);
        JsonText json = new JsonText(sink);
        EventCursor cursor = new EventCursor(traces, maxLive);
        EventPosition.Tracker where = new EventPosition.Tracker(traces);
        List<String> out = new ArrayList<>();
        while (cursor.next()) {
            where.update(cursor);
            positions.add(new long[] {where.streamFile(), where.packetOffset(), where.index()});
            out.add(where.streamFile() + " " + where.packetOffset() + " " + where.index() + " " + cursor.timeNanos() + " "
                + cursor.decoder().event().cls.name() + " " + fields(json, sink, cursor.decoder()));
        }
        return out;
    }

    @Test
    void everyEventOfAnLttngTraceWithRotatedFilesIsFoundAgainByItsPosition() throws Exception {
        Path root = Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation");
        List<CtfTrace> traces = open(root);
        List<long[]> positions = new ArrayList<>();
        List<String> events = read(traces, EventCursor.DEFAULT_MAX_LIVE, positions);
        assertThat(read(open(root), 2, new ArrayList<>())).as("parked streams").isEqualTo(events);

        TextSink sink = new TextSink(null);
        JsonText json = new JsonText(sink);
        EventPosition position = new EventPosition(traces);
        Set<Long> files = new HashSet<>();
        Set<Long> packets = new HashSet<>();
        for (int i = 0; i < events.size(); i++) {
            long[] p = positions.get(i);
            StreamDecoder d = position.decode((int) p[0], p[1], (int) p[2]);
            assertThat(d).isNotNull();
            assertThat(p[0] + " " + p[1] + " " + p[2] + " " + EventPosition.timeNanos(d) + " " + d.event().cls.name() + " "
                + fields(json, sink, d)).isEqualTo(events.get(i));
            files.add(p[0]);
            packets.add(p[0] << 40 ^ p[1]);
        }
        assertThat(files.stream().map(f -> f & 0xFF).distinct().count()).as("files of a stream").isGreaterThan(1);
        assertThat(files.stream().map(f -> f >> 8).distinct().count()).as("streams").isGreaterThan(1);
        assertThat(packets).hasSameSizeAs(files); // this trace has a packet per file: several packets of a file are the simulator's (IndexTest)
        assertThat(position.decode((int) positions.getFirst()[0], positions.getFirst()[1], 1 << 20)).as("past the packet").isNull();
    }
}
