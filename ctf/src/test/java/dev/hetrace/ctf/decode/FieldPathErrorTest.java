package dev.hetrace.ctf.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import dev.hetrace.ctf.testing.Corpus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stream that cannot be decoded is said with the field being decoded: the event class and
 * the field's path (as {@link dev.hetrace.ctf.api.Event} takes paths), or the packet field,
 * whether the scope was walked or ran compiled.
 */
class FieldPathErrorTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        out-of-bound-integer                         | event 'evname' (id 0), field 'payload.blah': an integer in the event payload (32 bits) goes past the end
        cross-packet-event-struct                    | event 'myevent' (id 0), field 'payload.s.f': an integer in the event payload (64 bits) goes past the end
        out-of-bound-variant-selected-element        | event 'myevent' (id 0), field 'payload.v.sel0': array of 300 elements
        variant-out-of-range-enum-selector           | event 'test' (id 0), field 'payload.v': variant tag value 1 in the event payload selects no option
        out-of-bound-len-of-sequence                 | event 'evname' (id 0), field 'payload.len': an integer
        out-of-bound-packet-header                   | field 'packet_header.uuid': array of 16 elements in the packet header
        less-than-1-byte-packet-size                 | field 'packet_context.packet_size': packet_size 4 bits is not a positive whole number of bytes
        """)
    void theConformanceSuitesFailingStreamsNameTheField(String trace, String expected) {
        Path path = Corpus.trace("ctf-testsuite/regression/stream/fail/" + trace);
        assertThatThrownBy(() -> readAll(path))
                .isInstanceOf(StreamDecodingException.class)
                .hasMessageContaining(", offset ")
                .hasMessageContaining(": " + expected);
    }

    /**
     * A real LTTng kernel trace whose packet content is cut one bit before the end of an event
     * late in its packet, when the decoder has compiled the scopes of its event class: the last
     * payload field is named, as the walk of the nodes names it. Cut one bit after the event's
     * start, the event header's id is.
     */
    @Test
    void aRealTraceCutInsideACompiledEventNamesItsLastField() throws Exception {
        Path original = Corpus.trace("real/many-threads");
        Cut cut = findCut(original);
        assertThat(cut)
                .as("an event after the 100th of its packet, of a compiled class ending in an integer")
                .isNotNull();

        Path payloadCut = copy(original, dir.resolve("payload"));
        setContentSize(payloadCut.resolve(cut.file), cut.contentSizeByte, cut.nextBits - cut.packetOffsetBits - 1);
        StreamDecodingException e = failure(payloadCut);
        assertThat(e.file()).isEqualTo(payloadCut.resolve(cut.file));
        assertThat(e.event()).isEqualTo("event '" + cut.event + "' (id " + cut.eventId + ")");
        assertThat(e.field()).isEqualTo("payload." + cut.lastField);
        assertThat(e.getMessage())
                .contains(": packet " + cut.packet + ", offset ")
                .contains(", field 'payload." + cut.lastField + "': an integer in the event payload")
                .endsWith("goes past the end of the packet content");

        Path headerCut = copy(original, dir.resolve("header"));
        setContentSize(headerCut.resolve(cut.file), cut.contentSizeByte, cut.eventBits - cut.packetOffsetBits + 1);
        StreamDecodingException h = failure(headerCut);
        assertThat(h.bitOffset()).isEqualTo(cut.eventBits);
        assertThat(h.field()).isEqualTo("header.id");
        assertThat(h.getMessage()).contains(": field 'header.id': an integer in the event header");
    }

    /**
     * Bytes of a real LTTng trace overwritten with 0xFF: the event header's 5-bit id says
     * "extended" (31) and the extended id, in the variant option, is what names no event class.
     */
    @Test
    void anEventIdThatNamesNoClassIsNamedByTheHeaderFieldThatHeldIt() throws Exception {
        Path trace = copy(Corpus.trace("real/many-threads"), dir.resolve("ids"));
        Path stream = trace.resolve("channel0_0");
        stream.toFile().setWritable(true);
        try (FileChannel ch = FileChannel.open(stream, StandardOpenOption.WRITE)) {
            ByteBuffer ff = ByteBuffer.allocate(64);
            while (ff.hasRemaining()) {
                ff.put((byte) 0xFF);
            }
            ch.write(ff.flip(), 70_000);
        }
        StreamDecodingException e = failure(trace);
        assertThat(e.field()).isEqualTo("header.v.extended.id");
        assertThat(e.getMessage())
                .isEqualTo(stream + ": packet 0, offset 70053: field 'header.v.extended.id': event id 4294967295 is"
                        + " not declared in stream class 0");
    }

    /** An element of an array of structs: the path has its index. */
    @Test
    void aFieldInAnArrayElementIsNamedWithItsIndex() throws Exception {
        Path trace = dir.resolve("array");
        Files.createDirectories(trace);
        Files.writeString(trace.resolve("metadata"), """
                /* CTF 1.8 */
                typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
                typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
                trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; }; };
                stream { packet.context := struct { uint32_t content_size; uint32_t packet_size; }; };
                event {
                    name = "regs_dump";
                    fields := struct { uint8_t n; struct { uint8_t id; string value; } regs[n]; };
                };
                """);
        // n = 3; regs[0] = {1, "a"}, regs[1] = {2, "bc"}, regs[2] = {3, "d" with no NUL}
        byte[] payload = {3, 1, 'a', 0, 2, 'b', 'c', 0, 3, 'd'};
        ByteBuffer b = ByteBuffer.allocate(12 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0xC1FC1FC1)
                .putInt((12 + payload.length) * 8)
                .putInt((12 + payload.length) * 8)
                .put(payload);
        Files.write(trace.resolve("stream"), b.array());
        StreamDecodingException e = failure(trace);
        assertThat(e.getMessage())
                .isEqualTo(trace.resolve("stream") + ": packet 0, offset 21: event 'regs_dump' (id 0), field"
                        + " 'payload.regs[2].value': string in the event payload has no terminating NUL before the"
                        + " end of the packet content");
    }

    /**
     * Structs nested in one another with counted names, decoded as one chain or level by level:
     * the same path, through the levels, to a member before the next level, in the core, and
     * after it (strings without their NUL, so that the chain's size is not what fails).
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        5_4_                | s_depth_4.s_depth_3.s_depth_2.a
        5_4_3_2_1_fhi       | s_depth_4.s_depth_3.s_depth_2.s_depth_1.s_depth_0.s
        5_4_3_2_1_fhi_b_    | s_depth_4.s_depth_3.s_depth_2.s_depth_1.b
        """)
    void aFieldInNestedStructsIsNamedThroughTheLevelsChainedOrNot(String good, String path) throws Exception {
        StringBuilder tsdl = new StringBuilder("""
                /* CTF 1.8 */
                typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
                trace { major = 1; minor = 8; byte_order = le; };
                event { name = ev; fields := struct {
                """);
        int levels = 5;
        tsdl.append("struct { string a;\n".repeat(levels)).append("uint8_t field; string s;\n");
        for (int i = 0; i < levels; i++) {
            tsdl.append("string _b; } s_depth_").append(i).append(";\n");
        }
        tsdl.append("}; };\n");
        Path trace = dir.resolve("chain");
        Files.createDirectories(trace);
        Files.writeString(trace.resolve("metadata"), tsdl);
        // a of each level (outermost first), the core (field, s), b of each level (innermost first):
        // the strings up to the one that fails end with their NUL ('_'), then none does
        Files.writeString(
                trace.resolve("stream"), good.replace('_', '\0') + "x".repeat(40), StandardCharsets.ISO_8859_1);
        try (CtfTrace t = CtfTrace.open(trace, w -> {})) {
            TracePlan chained = TracePlan.compile(t.metadata(), 2);
            assertThat(chained.stream(0).event(0).payload.children[0].kind).isEqualTo(Node.CHAIN);
            TracePlan nested = TracePlan.compile(t.metadata(), Integer.MAX_VALUE);
            for (TracePlan plan : List.of(chained, nested)) {
                StreamDecoder d = new StreamDecoder(plan, t.streams().get(0));
                assertThatThrownBy(() -> {
                            while (d.next()) {
                                // decoding is what fails
                            }
                        })
                        .isInstanceOfSatisfying(
                                StreamDecodingException.class,
                                e -> assertThat(e.field()).isEqualTo("payload." + path));
            }
        }
    }

    private static void readAll(Path trace) throws Exception {
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                // decoding is what fails
            }
        }
    }

    private static StreamDecodingException failure(Path trace) {
        try {
            readAll(trace);
        } catch (StreamDecodingException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError(trace + " was read without error");
    }

    /** Where to cut a packet: the event, the one after it, and where the packet says its content size. */
    private record Cut(
            String file,
            long packet,
            long packetOffsetBits,
            long contentSizeByte,
            long eventBits,
            long nextBits,
            String event,
            long eventId,
            String lastField) {}

    private static Cut findCut(Path trace) throws Exception {
        CtfTrace t = CtfTrace.open(trace, w -> {});
        EventCursor c = new EventCursor(List.of(t));
        PacketInfo packet = null;
        long inPacket = 0;
        EventPlan previous = null;
        long previousBits = -1;
        while (c.next()) {
            StreamDecoder d = c.decoder();
            if (d.packet() != packet) {
                packet = d.packet();
                inPacket = 0;
                previous = null;
            }
            inPacket++;
            if (previous != null
                    && inPacket > 100
                    && packet.contentBits() != packet.packetBits()
                    && compiledEndingInInteger(previous)) {
                return new Cut(
                        d.file().getFileName().toString(),
                        packet.number(),
                        packet.offsetBits(),
                        contentSizeByte(d.file(), packet),
                        previousBits,
                        d.eventBitOffset(),
                        previous.cls.name(),
                        previous.cls.id(),
                        previous.payload.names[previous.payload.names.length - 1]);
            }
            previous = d.event();
            previousBits = d.eventBitOffset();
        }
        return null;
    }

    private static Node last(EventPlan ep) {
        return ep.payload == null || ep.payload.children.length == 0
                ? null
                : ep.payload.children[ep.payload.children.length - 1];
    }

    private static boolean compiledEndingInInteger(EventPlan ep) {
        Node last = last(ep);
        return ep.payload != null && ep.payload.code != null && last != null && last.kind == Node.INT;
    }

    /** The byte of the packet's content_size field: where its value is in the packet header and context. */
    private static long contentSizeByte(Path file, PacketInfo p) throws IOException {
        try (FileChannel ch = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocate((int) (p.eventsBits() / 8)).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, p.offsetBits() / 8);
            long found = -1;
            for (int i = 0; i + 8 <= b.capacity(); i++) {
                if (b.getLong(i) == p.contentBits()) {
                    assertThat(found)
                            .as("one content_size in the packet header and context")
                            .isEqualTo(-1);
                    found = p.offsetBits() / 8 + i;
                }
            }
            assertThat(found).isNotEqualTo(-1);
            return found;
        }
    }

    private static void setContentSize(Path file, long at, long bits) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, bits), at);
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        return to;
    }
}
