package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.TextSink;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge of many streams keeps a bounded number of decoders: the other streams are parked
 * (where to decode their head event again, in arrays) and resumed when needed. Reading with
 * two live decoders gives exactly what reading with one per stream gives: events, order,
 * losses, seeks.
 */
class ParkedStreamsTest {
    /** Events and losses as the text output shows them, with {@code maxLive} decoders, after an optional seek. */
    static String read(List<CtfTrace> traces, int maxLive, Long seekTo) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        BabeltraceText text =
                new BabeltraceText(sink, new PrintStream(OutputStream.nullOutputStream()), ZoneOffset.UTC);
        EventCursor cursor = new EventCursor(traces, maxLive);
        cursor.onDiscarded((items, trace, stream) -> sink.put(text.discardedWarning(items, trace, stream)));
        if (seekTo != null) {
            cursor.seek(seekTo);
        }
        while (cursor.next()) {
            text.print(cursor);
            sink.lineDone();
        }
        sink.flush();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static List<CtfTrace> open(Path root) throws Exception {
        List<CtfTrace> traces = new ArrayList<>();
        for (Path dir : CtfTrace.find(root)) {
            traces.add(CtfTrace.open(dir, root, w -> {}));
        }
        return traces;
    }

    @TestFactory
    Stream<DynamicTest> everyCorpusTraceReadsTheSameWithTwoLiveDecoders() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Corpus.Row row : Corpus.manifest()) {
            if (!row.valid()) {
                continue;
            }
            tests.add(DynamicTest.dynamicTest(row.trace(), () -> {
                List<CtfTrace> traces;
                try {
                    traces = open(Corpus.trace(row.trace()));
                } catch (Exception e) {
                    return; // traces that do not open are not about the merge
                }
                try {
                    String all = read(traces, Integer.MAX_VALUE, null);
                    assertThat(read(traces, 2, null)).isEqualTo(all);
                    if (!all.isEmpty()) {
                        Long middle = middleTime(traces);
                        if (middle != null) {
                            assertThat(read(traces, 2, middle)).isEqualTo(read(traces, Integer.MAX_VALUE, middle));
                        }
                    }
                } catch (StreamDecodingException e) {
                    // a damaged trace: both reads must fail the same way
                    Assertions.assertThatThrownBy(() -> read(traces, 2, null)).hasMessage(e.getMessage());
                } finally {
                    traces.forEach(CtfTrace::close);
                }
            }));
        }
        return tests.stream();
    }

    /** The time of the event in the middle of the merge, or null when the events have no time. */
    private static Long middleTime(List<CtfTrace> traces) throws Exception {
        EventCursor cursor = new EventCursor(traces);
        List<Long> times = new ArrayList<>();
        while (cursor.next()) {
            if (cursor.hasTime()) {
                times.add(cursor.timeNanos());
            }
        }
        return times.isEmpty() ? null : times.get(times.size() / 2);
    }

    @Test
    void thousandsOfStreamsWithFewDecoders(@TempDir Path dir) throws Exception {
        // 3000 streams of 3 events each, the events of stream k at times k, k + 1000, k + 2000 (in
        // two packets: the second begins with a loss), merged with 8 live decoders.
        String metadata = """
            /* CTF 1.8 */
            typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
            typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
            typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := uint64_clock_t;
            trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
            clock { name = c; freq = 1000000000; };
            stream {
                packet.context := struct { uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                    uint32_t packet_size; uint32_t events_discarded; };
                event.header := struct { uint64_clock_t timestamp; };
            };
            event { name = e; fields := struct { uint32_t k; }; };
            """;
        Files.writeString(dir.resolve("metadata"), metadata);
        int streams = 3000;
        for (int k = 0; k < streams; k++) {
            ByteBuffer b = ByteBuffer.allocate(2 * 28 + 3 * 12).order(ByteOrder.LITTLE_ENDIAN);
            // packet 1: events at k and k + 1000
            b.putInt(0xC1FC1FC1)
                    .putLong(k)
                    .putLong(k + 1000)
                    .putInt(8 * (28 + 24))
                    .putInt(0);
            b.putLong(k).putInt(k).putLong(k + 1000).putInt(k + 1);
            // packet 2: 5 events lost, then the event at k + 2000
            b.putInt(0xC1FC1FC1)
                    .putLong(k + 2000)
                    .putLong(k + 2000)
                    .putInt(8 * (28 + 12))
                    .putInt(5);
            b.putLong(k + 2000).putInt(k + 2);
            Files.write(dir.resolve(String.format("s%05d", k)), Arrays.copyOf(b.array(), b.position()));
        }
        List<CtfTrace> traces = open(dir);
        try {
            String all = read(traces, Integer.MAX_VALUE, null);
            assertThat(all.lines().filter(l -> l.contains(" e: ")).count()).isEqualTo(3L * streams);
            assertThat(all.lines().filter(l -> l.startsWith("WARNING")).count()).isEqualTo(streams);
            assertThat(read(traces, 8, null)).isEqualTo(all);
            long t = traces.getFirst().plan().clocks.getFirst().nanosFromOrigin(1500);
            assertThat(read(traces, 8, t)).isEqualTo(read(traces, Integer.MAX_VALUE, t));
        } finally {
            traces.forEach(CtfTrace::close);
        }
    }
}
