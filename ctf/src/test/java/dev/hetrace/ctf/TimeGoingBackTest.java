package dev.hetrace.ctf;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.TraceWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Times that go back within a stream, which babeltrace2 refuses: hetrace reads every event, says
 * once per stream where time first went back (an event before the one preceding it; a packet
 * beginning before the previous one ends), and its reader ({@link CtfReader}, what analyses read)
 * never gives a stream a time earlier than the one before, while the cursor that {@code print}
 * uses gives the times as recorded.
 */
class TimeGoingBackTest {
    @TempDir
    Path dir;

    /**
     * chan_0 goes back 4,900 ns in its second packet, then twice more; chan_1 and chan_2 are in order. Times
     * are ns after 2023-11-14 22:13:20 UTC.
     */
    private Path backwards() throws Exception {
        return new TraceWriter(dir.resolve("back"))
                .stream("chan_0", 0)
                        .packet(1_000, 2_000, 0, 0, event(1_100, 1, "a"), event(1_900, 2, "b"))
                        .packet(
                                10_000,
                                20_000,
                                1,
                                0,
                                event(10_000, 3, "c"),
                                event(5_100, 4, "d"),
                                event(12_000, 5, "e"),
                                event(11_000, 6, "f"))
                        .packet(30_000, 40_000, 2, 0, event(30_100, 7, "g"), event(30_000, 8, "h"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(
                                1_000,
                                40_000,
                                0,
                                0,
                                event(1_050, 10, "x"),
                                event(6_000, 11, "y"),
                                event(11_500, 12, "z"))
                        .done()
                        .stream("chan_2", 2)
                        .packet(1_000, 40_000, 0, 0, event(3_000, 20, "p"), event(15_000, 21, "q"))
                        .done()
                        .write();
    }

    /** chan_0's packets after the first each begin 50 ns before the previous one ends; chan_1's do not. Events are in order. */
    private Path overlapping() throws Exception {
        return new TraceWriter(dir.resolve("overlap"))
                .stream("chan_0", 0)
                        .packet(100, 500, 0, 0, event(110, 1, "a"), event(490, 2, "b"))
                        .packet(450, 900, 1, 0, event(500, 3, "c"), event(890, 4, "d"))
                        .packet(850, 1_300, 2, 0, event(900, 5, "e"))
                        .packet(1_250, 1_700, 3, 0, event(1_400, 6, "f"))
                        .done()
                        .stream("chan_1", 1)
                        .packet(100, 500, 0, 0, event(200, 10, "x"))
                        .packet(500, 900, 1, 0, event(600, 11, "y"))
                        .done()
                        .write();
    }

    private static final String BACK_WARNING = ": packet 1 (at byte 120), event at byte 222: time goes back, from"
            + " 2023-11-14 22:13:20.000010000 UTC (the event before) to 2023-11-14 22:13:20.000005100 UTC (4,900 ns"
            + " earlier); events are printed as recorded and analysed at the time of the event before (said once per"
            + " stream)";

    @Test
    void anEventBeforeThePreviousOneIsSaidOncePerStreamAndReadAtThePreviousTime() throws Exception {
        Path trace = backwards();
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        List<String> order = new ArrayList<>();
        Map<Long, Long> times = new HashMap<>();
        try (CtfReader reader = CtfReader.open(List.of(trace), warnings::add)) {
            Event.Field n = Event.field("n");
            while (reader.next()) {
                long value = reader.event().getLong(n);
                order.add(Long.toString(value));
                times.put(value, reader.event().timeNanos() - TraceWriter.OFFSET_SECONDS * 1_000_000_000L);
            }
        }
        assertThat(warnings).containsExactly(trace.resolve("chan_0") + BACK_WARNING);
        // every event, each stream's times never going back: d at c's time, f at e's, h at g's
        assertThat(times)
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                        Map.entry(1L, 1_100L),
                        Map.entry(2L, 1_900L),
                        Map.entry(3L, 10_000L),
                        Map.entry(4L, 10_000L),
                        Map.entry(5L, 12_000L),
                        Map.entry(6L, 12_000L),
                        Map.entry(7L, 30_100L),
                        Map.entry(8L, 30_100L),
                        Map.entry(10L, 1_050L),
                        Map.entry(11L, 6_000L),
                        Map.entry(12L, 11_500L),
                        Map.entry(20L, 3_000L),
                        Map.entry(21L, 15_000L)));
        assertThat(order).containsExactly("10", "1", "2", "20", "11", "3", "4", "12", "5", "6", "21", "7", "8");
    }

    @Test
    void theCursorGivesTheTimesAsRecordedInTheSameOrderWhateverTheDecodersParked() throws Exception {
        Path trace = backwards();
        List<String> first = recorded(trace, Integer.MAX_VALUE);
        // the merge takes each stream's head as it is: d (5,100) right after c (10,000), its stream's head then
        assertThat(first)
                .containsExactly(
                        "10@1050",
                        "1@1100",
                        "2@1900",
                        "20@3000",
                        "11@6000",
                        "3@10000",
                        "4@5100",
                        "12@11500",
                        "5@12000",
                        "6@11000",
                        "21@15000",
                        "7@30100",
                        "8@30000");
        // two decoders for three streams: one is parked and resumed again and again
        assertThat(recorded(trace, 2)).isEqualTo(first);
        assertThat(recorded(trace, Integer.MAX_VALUE)).isEqualTo(first);
    }

    /** "n@time" of each event as the cursor gives it, with at most {@code maxLive} decoders; checks the one warning. */
    private static List<String> recorded(Path trace, int maxLive) throws Exception {
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        List<String> out = new ArrayList<>();
        try (CtfTrace t = CtfTrace.open(trace, warnings::add)) {
            EventCursor cursor = new EventCursor(List.of(t), maxLive);
            while (cursor.next()) {
                long n = cursor.decoder().tape()[cursor.decoder().payloadStart()];
                out.add(n + "@" + (cursor.timeNanos() - TraceWriter.OFFSET_SECONDS * 1_000_000_000L));
            }
        }
        assertThat(warnings).containsExactly(trace.resolve("chan_0") + BACK_WARNING);
        return out;
    }

    @Test
    void packetsBeginningBeforeThePreviousEndsAreSaidOncePerStream() throws Exception {
        Path trace = overlapping();
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        int events = 0;
        try (CtfReader reader = CtfReader.open(List.of(trace), warnings::add)) {
            while (reader.next()) {
                events++;
            }
        }
        assertThat(events).isEqualTo(8);
        assertThat(warnings)
                .containsExactly(trace.resolve("chan_0") + ": packet 1 (at byte 120) begins at"
                        + " 2023-11-14 22:13:20.000000450 UTC, before the previous packet ends at 2023-11-14 22:13:20.000000500 UTC"
                        + " (50 ns earlier); read as it is (said once per stream)");
    }

    @Test
    void seekingPastTheFirstOverlapStillSaysItOnceAndOnlyForThePacketsRead() throws Exception {
        Path trace = overlapping();
        List<String> warnings = Collections.synchronizedList(new ArrayList<>());
        try (CtfReader reader = CtfReader.open(List.of(trace), warnings::add)) {
            reader.seek(TraceWriter.OFFSET_SECONDS * 1_000_000_000L + 1_350);
            int events = 0;
            while (reader.next()) {
                events++;
            }
            assertThat(events).isEqualTo(1);
        }
        // the seek starts one packet early (packet 2), whose predecessor's end the index knows
        assertThat(warnings)
                .containsExactly(trace.resolve("chan_0") + ": packet 2 (at byte 240) begins at"
                        + " 2023-11-14 22:13:20.000000850 UTC, before the previous packet ends at 2023-11-14 22:13:20.000000900 UTC"
                        + " (50 ns earlier); read as it is (said once per stream)");
    }

    /**
     * One stream of four packets of about 400 KB, each decoded by a worker of its own when read in
     * parallel: packet 2's first event is 4,000 ns before packet 1's last (no packet overlaps
     * there), packet 3 begins 50,000 ns before packet 2 ends and goes back again inside.
     */
    private Path segments() throws Exception {
        String msg = "m".repeat(1000);
        TraceWriter.Stream stream = new TraceWriter(dir.resolve("segments")).stream("chan_0", 0);
        long[][] packets = {
            {1_000, 500_000, 1_000},
            {500_000, 1_000_000, 500_000},
            {1_000_000, 1_500_000, 1_000_000},
            {1_450_000, 2_000_000, 1_500_000}
        };
        for (int k = 0; k < packets.length; k++) {
            TraceWriter.Event[] events = new TraceWriter.Event[400];
            for (int i = 0; i < events.length; i++) {
                long t = packets[k][2] + i * 1_000L;
                if (k == 2 && i == 0) {
                    t = 895_000;
                } else if (k == 3 && i == 10) {
                    t = 1_505_000;
                }
                events[i] = event(t, k * 1000 + i, msg);
            }
            stream.packet(packets[k][0], packets[k][1], k, 0, events);
        }
        return stream.done().write();
    }

    @Test
    void aStreamDecodedInParallelSegmentsSaysTheSameFirstPlacesAsOneDecoder() throws Exception {
        Path trace = segments();
        List<String> alone = Collections.synchronizedList(new ArrayList<>());
        List<Long> times = new ArrayList<>();
        try (CtfTrace t = CtfTrace.open(trace, alone::add)) {
            EventCursor cursor = new EventCursor(List.of(t));
            while (cursor.next()) {
                times.add(cursor.timeNanos());
            }
        }
        long packetBytes = TraceWriter.PACKET_HEADER_BYTES + 400 * (4 + 8 + 4 + 1000 + 1);
        assertThat(alone)
                .containsExactly(
                        trace.resolve("chan_0") + ": packet 2 (at byte " + 2 * packetBytes + "), event at byte "
                                + (2 * packetBytes + TraceWriter.PACKET_HEADER_BYTES)
                                + ": time goes back, from 2023-11-14"
                                + " 22:13:20.000899000 UTC (the event before) to 2023-11-14 22:13:20.000895000 UTC (4,000 ns earlier);"
                                + " events are printed as recorded and analysed at the time of the event before (said once per stream)",
                        trace.resolve("chan_0") + ": packet 3 (at byte " + 3 * packetBytes + ") begins at 2023-11-14"
                                + " 22:13:20.001450000 UTC, before the previous packet ends at 2023-11-14 22:13:20.001500000 UTC"
                                + " (50,000 ns earlier); read as it is (said once per stream)");
        for (int run = 0; run < 3; run++) {
            List<String> parallel = Collections.synchronizedList(new ArrayList<>());
            List<Long> merged = new ArrayList<>();
            try (CtfTrace t = CtfTrace.open(trace, parallel::add)) {
                assertThat(t.index(0).size()).isEqualTo(4);
                try (ParallelMerge merge = new ParallelMerge(List.of(t), () -> null, 2)) {
                    while (merge.next()) {
                        merged.add(merge.timeNanos());
                    }
                }
            }
            assertThat(merged).isEqualTo(times);
            assertThat(parallel).isEqualTo(alone);
        }
    }
}
