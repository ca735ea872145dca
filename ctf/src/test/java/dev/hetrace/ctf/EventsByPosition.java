package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.text.JsonText;
import dev.hetrace.ctf.text.TextSink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * For tests: every event of a trace read in order with its position ({@link EventPosition.Tracker}),
 * then found again by that position ({@link EventPosition#decode}) and compared.
 */
public final class EventsByPosition {
    private EventsByPosition() {}

    /** An event's position and what the read in order gave of it: its class's name and its fields as JSON. */
    public record Read(int streamFile, long packet, long offset, String event) {}

    /** The traces under {@code root}, opened. */
    public static List<CtfTrace> open(Path root) throws Exception {
        List<CtfTrace> traces = new ArrayList<>();
        for (Path d : CtfTrace.find(root)) {
            traces.add(CtfTrace.open(d, root, w -> {}));
        }
        return traces;
    }

    /** The event {@code d} stands on: its class's name and its fields as JSON. */
    public static String event(StreamDecoder d) {
        TextSink sink = new TextSink(null);
        new JsonText(sink).fields(d);
        return d.event().cls.name() + " " + new String(sink.buffer(), 0, sink.length(), StandardCharsets.UTF_8);
    }

    /** Every event in merged order, with a cursor of at most {@code maxLive} decoders. */
    public static List<Read> read(List<CtfTrace> traces, int maxLive) throws Exception {
        EventCursor cursor = new EventCursor(traces, maxLive);
        EventPosition.Tracker where = new EventPosition.Tracker(traces);
        List<Read> out = new ArrayList<>();
        while (cursor.next()) {
            where.update(cursor);
            out.add(new Read(where.streamFile(), where.packetOffset(), where.eventOffset(), event(cursor.decoder())));
        }
        return out;
    }

    /**
     * Decodes every event of the traces under {@code root} by its position, in an order shuffled
     * by {@code seed} (events of one packet far apart and backwards, packets interleaved), from
     * the traces opened anew, and checks each against the read in order; returns the events.
     */
    public static List<Read> findEveryEventAgain(Path root, long seed) throws Exception {
        List<Read> events = read(open(root), EventCursor.DEFAULT_MAX_LIVE);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(seed));
        EventPosition position = new EventPosition(open(root));
        for (int i : order) {
            Read e = events.get(i);
            StreamDecoder d = position.decode(e.streamFile(), e.packet(), e.offset());
            assertThat(d).as("%s: event %d at %s", root, i, e).isNotNull();
            assertThat(event(d)).as("%s: event %d at %s", root, i, e).isEqualTo(e.event());
        }
        return events;
    }
}
