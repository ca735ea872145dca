package dev.hetrace.ctf.api;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.testing.TraceWriter;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reading API on real traces: every value checked against what babeltrace2 printed. */
class CtfReaderTest {
    private static final DateTimeFormatter TIME_OF_DAY =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSSSSS").withZone(ZoneOffset.UTC);

    @TempDir
    Path tmp;

    private static String timeOfDay(long nanos) {
        return TIME_OF_DAY.format(Instant.ofEpochSecond(0, nanos));
    }

    /** The events babeltrace2 printed, matched line by line with {@code pattern}. */
    private static List<Matcher> expected(String trace, String pattern) throws Exception {
        Pattern p = Pattern.compile(pattern);
        List<Matcher> lines = new ArrayList<>();
        for (String line : Corpus.expected(trace)) {
            Matcher m = p.matcher(line);
            if (m.matches()) {
                lines.add(m);
            }
        }
        return lines;
    }

    @Test
    void aStringsHashReadInPlaceIsTheHashOfItsTextEqualForEqualStringsAndDistinctForDistinctOnes() throws Exception {
        try (CtfReader reader = CtfReader.open(Corpus.trace("babeltrace/succeed/lttng-crash"))) {
            Map<String, Long> seen = new HashMap<>();
            Event.Field status = Event.field("status");
            while (reader.next()) {
                Event e = reader.event();
                String text = e.getString("status");
                long hash = e.getStringHash("status");
                assertThat(hash).isEqualTo(Event.stringHash(text)).isEqualTo(e.getStringHash(status));
                assertThat(seen.computeIfAbsent(text, k -> hash)).isEqualTo(hash);
            }
            assertThat(seen).isNotEmpty();
            assertThat(new HashSet<>(seen.values())).hasSize(seen.size());
        }
        // every length around a word, and strings that differ in one byte or only in length
        Set<Long> hashes = new HashSet<>();
        StringBuilder sb = new StringBuilder();
        for (int len = 0; len < 40; len++) {
            assertThat(hashes.add(Event.stringHash(sb.toString()))).isTrue();
            assertThat(hashes.add(Event.stringHash(sb.toString() + "\u0001"))).isTrue();
            sb.append((char) ('a' + len % 26));
        }
    }

    @Test
    void readsNamesTimesAndFieldsOfEveryEventAsBabeltrace2PrintsThem() throws Exception {
        String trace = "babeltrace/succeed/lttng-crash";
        List<Matcher> lines = expected(
                trace,
                "\\[([0-9:.]+)\\] \\(\\S+\\) raton (\\S+): \\{ cpu_id = (\\d+) \\}, "
                        + "\\{ temp = (-?\\d+), status = \"(.*)\" \\}");
        assertThat(lines).hasSize(400);
        try (CtfReader reader = CtfReader.open(Corpus.trace(trace))) {
            for (Matcher line : lines) {
                assertThat(reader.next()).isTrue();
                Event e = reader.event();
                assertThat(timeOfDay(e.timeNanos())).isEqualTo(line.group(1));
                assertThat(e.name()).isEqualTo(line.group(2));
                assertThat(e.getLong("cpu_id")).isEqualTo(Long.parseLong(line.group(3))); // packet context
                assertThat(e.getLong("packet_context.cpu_id")).isEqualTo(Long.parseLong(line.group(3)));
                assertThat(e.getLong("temp")).isEqualTo(Long.parseLong(line.group(4))); // payload
                assertThat(e.getLong("payload._temp"))
                        .as("the name as the metadata writes it")
                        .isEqualTo(Long.parseLong(line.group(4)));
                assertThat(e.getDouble("temp")).isEqualTo(Double.parseDouble(line.group(4)));
                assertThat(e.getString("status")).isEqualTo(line.group(5));
                assertThat(e.streamId()).isZero();
                assertThat(e.trace().name()).isEqualTo("raton");
            }
            assertThat(reader.next()).isFalse();
        }
    }

    @Test
    void readsArraysSequencesTextAndEnumerations() throws Exception {
        String trace = "babeltrace/succeed/multi-domains";
        List<Matcher> lines = expected(
                trace,
                ".* lttng_test_filter_event: \\{ cpu_id = (\\d+) \\}, \\{ intfield = (\\d+), "
                        + "intfield2 = 0x([0-9A-F]+), .* arrfield1 = \\[ \\[0\\] = 1, \\[1\\] = 2, \\[2\\] = 3 \\], arrfield2 = \"test\", .*"
                        + "seqfield1 = \\[ \\[0\\] = 116, \\[1\\] = 101, \\[2\\] = 115, \\[3\\] = 116 \\], .* "
                        + "enum202 = \\( \"RANGE: 101 TO 303\" : container = 202 \\).*");
        assertThat(lines).hasSize(272);
        int seen = 0;
        try (CtfReader reader = CtfReader.open(Corpus.trace(trace))) {
            while (reader.next()) {
                Event e = reader.event();
                if (!e.name().equals("lttng_test_filter_event")) {
                    continue;
                }
                Matcher line = lines.get(seen++);
                assertThat(e.getLong("cpu_id")).isEqualTo(Long.parseLong(line.group(1)));
                assertThat(e.getLong("intfield")).isEqualTo(Long.parseLong(line.group(2)));
                assertThat(e.getLong("intfield2")).isEqualTo(Long.parseLong(line.group(3), 16));
                assertThat(e.length("arrfield1")).isEqualTo(3);
                assertThat(e.getLong("arrfield1[2]")).isEqualTo(3);
                assertThat(e.getString("arrfield2")).isEqualTo("test");
                assertThat(e.length("seqfield1")).isEqualTo(4);
                assertThat(e.getLong("seqfield1[3]")).isEqualTo(116);
                assertThat(e.getString("seqfield2")).isEqualTo("test");
                assertThat(e.getString("stringfield2")).isEqualTo("\\*");
                assertThat(e.getLong("bitfield_seq[65]")).isEqualTo(1);
                assertThat(e.getLong("enum202")).isEqualTo(202);
                assertThat(e.getString("enum202")).isEqualTo("RANGE: 101 TO 303");
            }
        }
        assertThat(seen).isEqualTo(272);
    }

    @Test
    void followsStructsVariantsAndSequencesAndSaysWhatIsMissing() throws Exception {
        try (CtfReader reader = CtfReader.open(Corpus.trace("babeltrace/succeed/struct-array-align-elem"))) {
            assertThat(reader.next()).isTrue();
            Event e = reader.event(); // ev: { x = 1, y = { a = 5, b = [ ] }, z = 9 }
            assertThat(e.getLong("x")).isEqualTo(1);
            assertThat(e.getLong("y.a")).isEqualTo(5);
            assertThat(e.length("y.b")).isZero();
            assertThat(e.getLong("z")).isEqualTo(9);
            assertThat(e.has("y.b[0]")).isFalse();
            assertThatThrownBy(() -> e.getLong("y"))
                    .isInstanceOf(FieldTypeException.class)
                    .hasMessage("field 'y' of event 'ev' is a structure, not an integer");
        }
        try (CtfReader reader = CtfReader.open(
                Corpus.trace("ctf-testsuite/regression/stream/pass/in-bound-variant-selected-element"))) {
            assertThat(reader.next()).isTrue();
            Event e = reader.event(); // myevent: { mytag = ( "sel2" : container = 0x2 ), v = { 0x42 } }
            assertThat(e.getString("mytag")).isEqualTo("sel2");
            assertThat(e.getLong("mytag")).isEqualTo(2);
            assertThat(e.getLong("v.sel2")).isEqualTo(0x42);
            assertThat(e.has("v.sel2")).isTrue();
            assertThat(e.has("v.sel0")).isFalse();
            assertThatThrownBy(() -> e.getLong("v.sel0[3]"))
                    .isInstanceOf(FieldNotFoundException.class)
                    .hasMessage("event 'myevent' has no field 'v.sel0[3]': in this event, the variant before 'sel0'"
                            + " selects 'sel2'");
        }
        try (CtfReader reader = CtfReader.open(Corpus.trace("babeltrace/succeed/sequence"))) {
            assertThat(reader.next()).isTrue();
            Event e = reader.event(); // seq_int_field = [ [0] = -1, ... [5] = -6 ], seq_long_field = [ ... [5] = 60 ]
            assertThat(e.getLong("seq_int_field[0]")).isEqualTo(-1);
            assertThat(e.getLong("seq_int_field[5]")).isEqualTo(-6);
            assertThat(e.getLong("seq_long_field[5]")).isEqualTo(60);
            assertThatThrownBy(() -> e.getLong("seq_int_field[6]"))
                    .isInstanceOf(FieldNotFoundException.class)
                    .hasMessageEndingWith("index 6 is past the end (length 6 in this event)");
        }
    }

    @Test
    void fieldHandlesReadWhatPathsReadAcrossEventClassesAndVariants() throws Exception {
        try (CtfReader reader = CtfReader.open(
                Corpus.trace("ctf-testsuite/regression/stream/pass/in-bound-variant-selected-element"))) {
            Event.Field selected = Event.field("v.sel2");
            Event.Field other = Event.field("v.sel0");
            Event.Field tag = Event.field("mytag");
            assertThat(reader.next()).isTrue();
            Event e = reader.event();
            assertThat(e.getLong(selected)).isEqualTo(0x42);
            assertThat(e.getString(tag)).isEqualTo("sel2");
            assertThat(e.has(selected)).isTrue();
            assertThat(e.has(other)).isFalse();
            assertThatThrownBy(() -> e.getLong(other)).isInstanceOf(FieldNotFoundException.class);
        }
        // one handle over the events of several classes: each read resolves in its own class
        try (CtfReader reader = CtfReader.open(Corpus.trace("babeltrace/succeed/multi-domains"))) {
            Event.Field text = Event.field("stringfield");
            Event.Field cpu = Event.field("cpu_id");
            long read = 0;
            while (reader.next()) {
                Event e = reader.event();
                boolean byPath = e.has("stringfield");
                assertThat(e.has(text)).isEqualTo(byPath);
                if (byPath) {
                    assertThat(e.getString(text))
                            .isEqualTo(e.getString("stringfield"))
                            .isEqualTo("test");
                    read++;
                }
                assertThat(e.getLong(cpu)).isEqualTo(e.getLong("cpu_id"));
            }
            assertThat(read).isEqualTo(272);
        }
    }

    /**
     * Members with counted names ({@code arg0, arg1}, as Zephyr's {@code named_event} has) are
     * stored as one run; each is still a field of its own name, packed or not.
     */
    @Test
    void membersWithCountedNamesAreFieldsOfTheirOwnNames() throws Exception {
        String tsdl = """
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 8; align = 8; signed = false; encoding = ASCII; } := char_t;
            struct event_header { uint32_t timestamp; uint8_t id; };
            trace { major = 1; minor = 8; byte_order = le; };
            stream { event.header := struct event_header; };
            event { name = named_event; id = 0x62;
                fields := struct { char_t name[20]; uint32_t arg0; uint32_t arg1; string s1; string s2; }; };
            """;
        Path dir = tmp.resolve("runs");
        try (dev.hetrace.ctf.write.CtfWriter w = dev.hetrace.ctf.write.CtfWriter.create(dir, tsdl)) {
            dev.hetrace.ctf.write.StreamWriter s =
                    w.stream(w.metadata().streams().firstKey());
            s.event(0x62, 1000, Map.of("name", "rpmsg_send", "arg0", 0x1e0400L, "arg1", 7L, "s1", "a", "s2", "bc"));
        }
        try (CtfReader reader = CtfReader.open(dir)) {
            assertThat(reader.next()).isTrue();
            Event e = reader.event();
            assertThat(e.fieldNames())
                    .containsExactly("payload.name", "payload.arg0", "payload.arg1", "payload.s1", "payload.s2");
            assertThat(e.getLong("arg0")).isEqualTo(0x1e0400L);
            assertThat(e.getLong("arg1")).isEqualTo(7);
            assertThat(e.getLong(Event.field("payload.arg1"))).isEqualTo(7);
            assertThat(e.has("arg2")).isFalse();
            assertThat(e.getString("s1")).isEqualTo("a");
            assertThat(e.getString("s2")).isEqualTo("bc");
            assertThat(e.getString("name")).isEqualTo("rpmsg_send");
        }
    }

    @Test
    void missingFieldsAndWrongTypesAreExplained() throws Exception {
        try (CtfReader reader = CtfReader.open(Corpus.trace("babeltrace/succeed/lttng-crash"))) {
            Event e = reader.event();
            assertThatThrownBy(() -> e.getLong("temp"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("call next() first");
            assertThat(reader.next()).isTrue();
            assertThatThrownBy(() -> e.getLong("tmp"))
                    .isInstanceOf(FieldNotFoundException.class)
                    .hasMessage(
                            "event 'my_app:current_temp' has no field 'tmp'; its fields: payload.temp, payload.status,"
                                    + " packet_context.timestamp_begin, packet_context.timestamp_end, packet_context.content_size,"
                                    + " packet_context.packet_size, packet_context.packet_seq_num, packet_context.events_discarded,"
                                    + " packet_context.cpu_id");
            assertThatThrownBy(() -> e.getLong("status"))
                    .isInstanceOf(FieldTypeException.class)
                    .hasMessage(
                            "field 'status' of event 'my_app:current_temp' is a string, not an integer (use getString)");
            assertThatThrownBy(() -> e.getString("temp"))
                    .isInstanceOf(FieldTypeException.class)
                    .hasMessage(
                            "field 'temp' of event 'my_app:current_temp' is an integer, not a string (use getLong)");
            assertThatThrownBy(() -> e.getLong("temp..x"))
                    .isInstanceOf(FieldNotFoundException.class)
                    .hasMessageContaining("is not a field path");
            // Headers are reached by naming them.
            assertThat(e.has("id")).isFalse();
            assertThat(e.getString("header.id")).isEqualTo("extended"); // LTTng's large event header
            assertThat(e.getLong("header.v.extended.id")).isZero();
            assertThat(e.has("header.v.compact.timestamp")).isFalse();
            assertThat(e.getLong("packet_header.magic")).isEqualTo(0xC1FC1FC1L);
        }
    }

    @Test
    void readsFloatingPointNumbers() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("floats"));
        Files.writeString(dir.resolve("metadata"), """
            /* CTF 1.8 */
            trace { major = 1; minor = 8; byte_order = le; };
            stream { event.header := struct { integer { size = 8; } id; }; };
            event { name = "sample"; id = 0; fields := struct {
                floating_point { exp_dig = 8; mant_dig = 24; align = 8; } f;
                floating_point { exp_dig = 11; mant_dig = 53; align = 8; } d;
                integer { size = 64; signed = false; align = 8; } big;
            }; };
            """);
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + 8 + 8).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0).putFloat(1.5f).putDouble(-2.25e-3).putLong(-1L);
        Files.write(dir.resolve("stream"), b.array());
        try (CtfReader reader = CtfReader.open(dir)) {
            assertThat(reader.next()).isTrue();
            Event e = reader.event();
            assertThat(e.getDouble("f")).isEqualTo(1.5);
            assertThat(e.getDouble("d")).isEqualTo(-2.25e-3);
            assertThat(e.getLong("big")).as("unsigned, all bits kept").isEqualTo(-1L);
            assertThat(e.getDouble("big")).isEqualTo(18446744073709551615.0);
            assertThat(e.hasTime()).isFalse();
            assertThatThrownBy(() -> e.getLong("f"))
                    .isInstanceOf(FieldTypeException.class)
                    .hasMessageEndingWith("is a floating point number, not an integer (use getDouble)");
        }
    }

    private Path lossyTrace() throws Exception {
        TraceWriter w = new TraceWriter(tmp.resolve("lossy")).withIndex();
        TraceWriter.Stream s = w.stream("chan_0", 0);
        long n = 0;
        for (int p = 0; p < 50; p++) {
            long begin = 1000L * p;
            s.packet(begin, begin + 900, p, p / 10 * 3, event(begin + 100, n++, "a"), event(begin + 800, n++, "b"));
        }
        return w.write();
    }

    @Test
    void seeksToATimeAndTellsOfLostEvents() throws Exception {
        long t0 = TraceWriter.OFFSET_SECONDS * 1_000_000_000L;
        try (CtfReader reader = CtfReader.open(lossyTrace())) {
            List<Discarded> losses = new ArrayList<>();
            reader.onDiscarded((items, trace, stream) -> losses.add(items));
            reader.seek(t0 + 25_500);
            assertThat(reader.next()).isTrue();
            assertThat(reader.event().timeNanos()).isEqualTo(t0 + 25_800);
            assertThat(reader.event().getLong("n")).isEqualTo(51);
            reader.stopAfter(t0 + 40_100);
            int events = 1;
            while (reader.next()) {
                events++;
            }
            assertThat(events).isEqualTo(1 + 2 * 14 + 1);
            // events_discarded goes up by 3 at packets 30 and 40: lost between the end of 29 and the end of 30
            assertThat(losses)
                    .containsExactly(
                            new Discarded(Discarded.Kind.EVENTS, 3, t0 + 29_900, t0 + 30_900),
                            new Discarded(Discarded.Kind.EVENTS, Discarded.UNKNOWN_COUNT, t0 + 39_900, t0 + 40_100));
            assertThat(reader.traces().getFirst().index(0).source().name()).isEqualTo("LTTNG_INDEX");
            assertThat(reader.warnings()).isEmpty();
        }
    }

    @Test
    void readingNumbersAllocatesNothing() throws Exception {
        TraceWriter w = new TraceWriter(tmp.resolve("many"));
        TraceWriter.Event[] events = new TraceWriter.Event[20_000];
        for (int i = 0; i < events.length; i++) {
            events[i] = event(10L * i, i, "m");
        }
        w.stream("chan_0", 0).packet(0, 10L * events.length, 0, 0, events);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (CtfReader reader = CtfReader.open(w.write())) {
            long sum = 0;
            for (int round = 0; round < 2; round++) { // the first round resolves the paths
                reader.seek(Long.MIN_VALUE);
                long before = threads.getCurrentThreadAllocatedBytes();
                while (reader.next()) {
                    Event e = reader.event();
                    sum += e.getLong("n") + e.getLong("cpu_id") + e.timeNanos() + (e.has("msg") ? 1 : 0);
                }
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                if (round == 1) {
                    assertThat(allocated)
                            .as("bytes allocated reading 20,000 events")
                            .isLessThan(20_000);
                }
            }
            assertThat(sum).isPositive();
        }
    }
}
