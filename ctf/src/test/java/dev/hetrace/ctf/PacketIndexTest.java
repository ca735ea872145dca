package dev.hetrace.ctf;

import static dev.hetrace.ctf.testing.TraceWriter.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.testing.Corpus;
import dev.hetrace.ctf.testing.TraceWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packet index: what it holds, where it comes from, and what it never reads. */
class PacketIndexTest {
    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    /** One line per packet, every field the index holds. */
    static List<String> entries(PacketIndex idx) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < idx.size(); i++) {
            lines.add(idx.file(i) + "#" + idx.numberInFile(i) + " @" + idx.offsetBytes(i) + " size " + idx.packetBits(i)
                    + " content " + idx.contentBits(i) + " time " + idx.beginCycles(i) + ".." + idx.endCycles(i) + " = "
                    + idx.beginNanos(i) + ".." + idx.endNanos(i) + " ns, discarded " + idx.eventsDiscarded(i) + ", seq "
                    + idx.sequenceNumber(i));
        }
        return lines;
    }

    private Path threeStreams(boolean withIndex) throws IOException {
        TraceWriter w = new TraceWriter(tmp.resolve(withIndex ? "indexed" : "plain"));
        if (withIndex) {
            w.withIndex();
        }
        for (int s = 0; s < 3; s++) {
            TraceWriter.Stream stream = w.stream("chan_" + s, s);
            for (int p = 0; p < 40; p++) {
                long begin = 1000L * p + s;
                stream.packet(
                        begin,
                        begin + 900,
                        p + (p > 20 ? 2 : 0),
                        p / 10,
                        event(begin + 10, p, "x".repeat(p % 7)),
                        event(begin + 500, p, "y"));
            }
        }
        return w.write();
    }

    @Test
    void indexingWithinABudgetOfPackets() throws Exception {
        // 3 streams of 40 packets, from index files or from the packets: 120 packets fit, 119 do not.
        for (boolean withIndex : new boolean[] {true, false}) {
            Path dir = threeStreams(withIndex);
            try (CtfTrace over = CtfTrace.open(dir, warnings::add);
                    CtfTrace fits = CtfTrace.open(dir, warnings::add)) {
                assertThat(CtfTrace.indexAll(List.of(over), 119)).isFalse();
                assertThat(CtfTrace.indexAll(List.of(fits), 120)).isTrue();
                assertThat(fits.index(2).size()).isEqualTo(40);
                // Nothing was kept for the trace over the budget: indexed in full when asked.
                assertThat(entries(over.index(1))).isEqualTo(entries(fits.index(1)));
            }
        }
        assertThat(warnings).isEmpty();
    }

    @Test
    void lttngIndexFilesAndThePacketHeadersSayTheSame() throws Exception {
        List<Path> traces = List.of(
                threeStreams(true),
                Corpus.trace("babeltrace/succeed/trace-with-index"),
                Corpus.trace("babeltrace/packet-seq-num/7-lost-between-2-with-index"));
        for (Path dir : traces) {
            try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
                for (int s = 0; s < trace.streams().size(); s++) {
                    PacketIndex fromFiles = trace.index(s);
                    PacketIndex walked =
                            PacketIndex.walk(trace.plan(), trace.streams().get(s));
                    assertThat(fromFiles.source()).as(dir + " stream " + s).isEqualTo(PacketIndex.Source.LTTNG_INDEX);
                    assertThat(walked.source()).isEqualTo(PacketIndex.Source.PACKETS);
                    assertThat(entries(fromFiles))
                            .as(dir + " stream " + s)
                            .isEqualTo(entries(walked))
                            .isNotEmpty();
                }
            }
        }
        assertThat(warnings).isEmpty();
    }

    @Test
    void holdsWhatEachPacketContextSays() throws Exception {
        try (CtfTrace trace = CtfTrace.open(threeStreams(false), warnings::add)) {
            PacketIndex idx = trace.index(1);
            assertThat(idx.source()).isEqualTo(PacketIndex.Source.PACKETS);
            assertThat(idx.size()).isEqualTo(40);
            assertThat(idx.seekable()).isTrue();
            long offset = 0;
            for (int p = 0; p < 40; p++) {
                assertThat(idx.offsetBytes(p)).isEqualTo(offset);
                offset += idx.packetBits(p) / 8;
                assertThat(idx.beginCycles(p)).isEqualTo(1000L * p + 1);
                assertThat(idx.endCycles(p)).isEqualTo(1000L * p + 901);
                assertThat(idx.beginNanos(p)).isEqualTo(TraceWriter.OFFSET_SECONDS * 1_000_000_000L + 1000L * p + 1);
                assertThat(idx.sequenceNumber(p)).isEqualTo(p + (p > 20 ? 2 : 0));
                assertThat(idx.eventsDiscarded(p)).isEqualTo(p / 10);
            }
            assertThat(offset)
                    .isEqualTo(Files.size(trace.streams().get(1).getFirst().path()));
            long t = idx.beginNanos(17) + 950; // after packet 17 ends, before 18 begins
            assertThat(idx.firstEndingAtOrAfter(t)).isEqualTo(18);
            assertThat(idx.firstEndingAtOrAfter(idx.endNanos(17))).isEqualTo(17);
            assertThat(idx.firstEndingAtOrAfter(Long.MIN_VALUE)).isZero();
            assertThat(idx.firstEndingAtOrAfter(Long.MAX_VALUE)).isEqualTo(40);
        }
    }

    /** Rewrites bytes of an index file. */
    private static void patch(Path file, int at, long value) throws IOException {
        byte[] b = Files.readAllBytes(file);
        ByteBuffer.wrap(b).putLong(at, value);
        Files.write(file, b);
    }

    @Test
    void indexFilesThatDisagreeWithTheirStreamAreSetAsideWithAWarning() throws Exception {
        // entry i starts at byte 16 + 72 i: offset, packet size, content size, begin, end, ...
        record Damage(String name, String says, PatchAction action) {}
        List<Damage> damages = List.of(
                new Damage("truncated", "not a whole number of 72-byte entries", f -> {
                    byte[] b = Files.readAllBytes(f);
                    Files.write(f, Arrays.copyOf(b, b.length - 5));
                }),
                new Damage("offset", "entry 3 says the packet starts at byte 7", f -> patch(f, 16 + 72 * 3, 7)),
                new Damage("size", "do not fit the", f -> patch(f, 16 + 72 * 39 + 8, 1L << 40)),
                new Damage("short", "its packets cover", f -> {
                    byte[] b = Files.readAllBytes(f);
                    Files.write(f, Arrays.copyOf(b, b.length - 72));
                }),
                new Damage("time", "disagrees with the first packet", f -> patch(f, 16 + 24, 12345)),
                new Damage("magic", "bad magic", f -> patch(f, 0, 0)));
        PacketIndex reference;
        try (CtfTrace trace = CtfTrace.open(threeStreams(false), warnings::add)) {
            reference = trace.index(0);
        }
        for (Damage d : damages) {
            Path dir = tmp.resolve(d.name());
            copy(threeStreams(true), dir);
            Path idxFile = dir.resolve("index/chan_0.idx");
            d.action().apply(idxFile);
            warnings.clear();
            try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
                PacketIndex idx = trace.index(0);
                assertThat(idx.source()).as(d.name()).isEqualTo(PacketIndex.Source.PACKETS);
                assertThat(entries(idx)).isEqualTo(entries(reference));
                assertThat(warnings)
                        .as(d.name())
                        .singleElement()
                        .asString()
                        .startsWith(idxFile.toString())
                        .contains(d.says())
                        .endsWith("; indexing the stream from its packets instead");
                assertThat(trace.index(1).source()).isEqualTo(PacketIndex.Source.LTTNG_INDEX);
            }
        }
    }

    interface PatchAction {
        void apply(Path file) throws IOException;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (var walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    @Test
    void readsPacketHeadersAndContextsOnlyNeverEvents() throws Exception {
        Path dir = new TraceWriter(tmp.resolve("bad-events"))
                .stream("chan_0", 0)
                        .packet(100, 200, 0, 0, event(150, 1, "fine"))
                        .damagedPacket(300, 400, 1, event(350, 2, "undeclared event id"))
                        .packet(500, 600, 2, 0, event(550, 3, "fine"))
                        .done()
                        .write();
        try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
            PacketIndex idx = trace.index(0);
            assertThat(idx.size()).isEqualTo(3);
            assertThat(idx.damage()).isNull();
            StreamDecoder events = trace.decoder(0);
            assertThat(events.next()).isTrue();
            assertThatThrownBy(events::next)
                    .isInstanceOf(StreamDecodingException.class)
                    .hasMessageContaining("packet 1")
                    .hasMessageContaining("event id 7 is not declared");
        }
    }

    @Test
    void stopsAtADamagedPacketHeaderAndSaysWhere() throws Exception {
        Path dir = threeStreams(false);
        Path chan = dir.resolve("chan_2");
        PacketInfo third;
        try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
            StreamDecoder d = trace.decoder(2);
            d.nextPacket();
            d.nextPacket();
            d.nextPacket();
            third = d.packet();
        }
        byte[] b = Files.readAllBytes(chan);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt((int) (third.offsetBits() / 8), 0xBADC0FFE);
        Files.write(chan, b);
        try (CtfTrace trace = CtfTrace.open(dir, warnings::add)) {
            PacketIndex idx = trace.index(2);
            assertThat(idx.size()).isEqualTo(2);
            assertThat(idx.damage())
                    .hasMessageContaining("packet 2")
                    .hasMessageContaining("bad packet magic 0xBADC0FFE");
        }
    }

    @Test
    void indexesEveryStreamOfSeveralTracesAtOnce() throws Exception {
        List<CtfTrace> traces = List.of(
                CtfTrace.open(threeStreams(false), warnings::add),
                CtfTrace.open(Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation/kernel"), warnings::add));
        try {
            CtfTrace.indexAll(traces);
            for (CtfTrace trace : traces) {
                for (int s = 0; s < trace.streams().size(); s++) {
                    assertThat(entries(trace.index(s)))
                            .isEqualTo(entries(PacketIndex.walk(
                                    trace.plan(), trace.streams().get(s))));
                }
            }
            // rotated files of one stream: packets are numbered within their file
            PacketIndex rotated = traces.get(1).index(0);
            assertThat(traces.get(1).streams().getFirst()).hasSizeGreaterThan(1);
            assertThat(rotated.file(rotated.size() - 1)).isPositive();
            assertThat(rotated.numberInFile(0)).isZero();
        } finally {
            traces.forEach(CtfTrace::close);
        }
    }
}
