package dev.hetrace.sync.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.CtfTrace;
import dev.hetrace.ctf.EventCursor;
import dev.hetrace.ctf.api.PacketInfo;
import dev.hetrace.ctf.decode.FieldValues;
import dev.hetrace.ctf.decode.StreamDecoder;
import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.ctf.text.BabeltraceText;
import dev.hetrace.ctf.text.TextSink;
import dev.hetrace.ctf.write.Ctf2Writer;
import dev.hetrace.ctf.write.CtfVersion;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.SampleTrace;
import dev.hetrace.ctf.write.StreamWriter;
import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.out.SynchronizedCopy.Method;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class SynchronizedCopyTest {
    /** 37 ppm fast and three hours behind the reference. */
    private static final double DRIFT = 37e-6;

    private static final long THREE_HOURS = 3L * 3600 * 1_000_000_000L;
    /** The payload fields of the test traces that are mapped to a clock. */
    private static final String CLOCK_PAYLOAD = "(sent|t24)=\\d+";

    /**
     * Big-endian, a 1 GHz clock with an offset in cycles, LTTng-style compact (27-bit) and
     * extended headers, and a payload that leaves events at odd bit positions (so the partial
     * timestamps are not byte-aligned) and holds a 64-bit field mapped to the clock.
     */
    static final String BIG_ENDIAN = """
        /* CTF 1.8 */
        typealias integer { size = 2; align = 1; signed = false; } := uint2_t;
        typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 27; align = 1; signed = false; map = clock.cpu.value; } := uint27_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.cpu.value; } := uint64_clock_t;
        trace {
            major = 1; minor = 8; byte_order = be;
            uuid = "9d2a0f1e-3c4b-4a59-8e7d-6c5b4a392817";
            packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id; };
        };
        clock { name = cpu; /* the DSP's cycle counter */ freq = 1000000000; offset_s = 1700000000; offset = 500; };
        stream {
            id = 0;
            packet.context := struct {
                uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end;
                uint64_t content_size; uint64_t packet_size;
            };
            event.header := struct {
                enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
                variant <id> {
                    struct { uint27_clock_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_t timestamp; } extended;
                } v;
            };
        };
        event { name = "rx"; id = 0; stream_id = 0;
                fields := struct { uint64_clock_t sent; uint32_t n; uint2_t flags; }; };
        event { name = "tx"; id = 1; stream_id = 0; fields := struct { uint32_t n; uint2_t flags; }; };
        """;

    @TempDir
    Path tmp;

    private Path sample;
    private Path bigEndian;

    @BeforeEach
    void writeTraces() throws Exception {
        sample = tmp.resolve("sample");
        SampleTrace.write(sample, 6000, 2, 4096);
        bigEndian = tmp.resolve("big-endian");
        writeBigEndian(bigEndian, 3000, 1_000_000L);
    }

    /** Events mostly a few hundred ns apart, now and then after an idle (extended headers). */
    private static void writeBigEndian(Path dir, int events, long idle) throws Exception {
        try (CtfWriter trace = CtfWriter.create(dir, BIG_ENDIAN)) {
            StreamWriter s = trace.stream(0).packetSize(1024);
            SplittableRandom random = new SplittableRandom(7);
            long t = 2_000_000L;
            for (int i = 0; i < events; i++) {
                t += random.nextInt(200) == 0 ? idle + random.nextInt(1000) : 1 + random.nextInt(700);
                if (i % 3 == 0) {
                    s.event(0, t, Map.of("sent", t - 5, "n", (long) i, "flags", (long) (i & 3)));
                } else {
                    s.event(1, t, Map.of("n", (long) i, "flags", (long) (i % 4)));
                }
            }
        }
    }

    /** The test transform for a trace: drift and offset, pivoted at the trace's first time. */
    private static ClockTransform transformFor(Path trace) throws Exception {
        long first = firstNanos(trace);
        return new ClockTransform(first, first - THREE_HOURS, DRIFT);
    }

    // ------------------------------------------------------------------ metadata route

    @Test
    void metadataCopyOfACompactHeaderTraceReadsEveryEventAtTheTransformedTime() throws Exception {
        ClockTransform transform = transformFor(sample);
        Path out = tmp.resolve("out");
        CopyReport report = SynchronizedCopy.write(sample, transform, out, Method.METADATA);

        assertThat(report.method()).isEqualTo(Method.METADATA);
        assertThat(report.files()).contains(Path.of("metadata"), Path.of("stream_0_0"), Path.of("stream_0_1"));
        for (String f : List.of("stream_0_0", "stream_0_1")) {
            assertThat(Files.mismatch(sample.resolve(f), out.resolve(f)))
                    .as("stream files copied byte for byte")
                    .isEqualTo(-1);
        }
        String metadata = Files.readString(out.resolve("metadata"));
        assertThat(metadata)
                .startsWith("/* CTF 1.8 */")
                .contains("description = \"Monotonic Clock\"")
                .doesNotContain("freq = 1000000000;");
        // Readers truncate each time to the nanosecond, the original's as the copy's.
        assertRetimed(sample, out, transform::apply, report.maxErrorNanos() + 2);
        assertBabeltraceAgrees(out);
    }

    @Test
    void metadataCopyOfABigEndianTraceReadsEveryEventAtTheTransformedTime() throws Exception {
        ClockTransform transform = transformFor(bigEndian);
        Path out = tmp.resolve("out");
        CopyReport report = SynchronizedCopy.write(bigEndian, transform, out, Method.METADATA);

        String metadata = Files.readString(out.resolve("metadata"));
        assertThat(metadata).contains("/* the DSP's cycle counter */").contains("name = cpu;");
        ClockClass clock = readClock(out);
        assertThat(clock.frequency()).isEqualTo(Math.round(1e9 / (1 + DRIFT)));
        assertThat(clock.offsetCycles()).isBetween(0L, clock.frequency() - 1);
        assertRetimed(bigEndian, out, transform::apply, report.maxErrorNanos() + 2);
        assertBabeltraceAgrees(out);
    }

    @Test
    void packetizedMetadataIsRewrittenAndPackedAgainInItsByteOrder() throws Exception {
        Path packetized = tmp.resolve("packetized");
        Files.createDirectories(packetized);
        for (String f : List.of("stream_0_0")) {
            Files.copy(bigEndian.resolve(f), packetized.resolve(f));
        }
        byte[] text = Files.readAllBytes(bigEndian.resolve("metadata"));
        byte[] uuid = uuidBytes("9d2a0f1e-3c4b-4a59-8e7d-6c5b4a392817");
        Files.write(packetized.resolve("metadata"), MetadataClocks.packetize(text, uuid, ByteOrder.BIG_ENDIAN));
        ClockTransform transform = transformFor(packetized);
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(packetized, transform, out, Method.METADATA);

        byte[] written = Files.readAllBytes(out.resolve("metadata"));
        assertThat(Arrays.copyOf(written, 4)).containsExactly(0x75, 0xD1, 0x1D, 0x57);
        assertThat(Arrays.copyOfRange(written, 4, 20)).isEqualTo(uuid);
        assertRetimed(packetized, out, transform::apply, report.maxErrorNanos() + 2);
        assertBabeltraceAgrees(out);
    }

    // ------------------------------------------------------------------ packet route

    @Test
    void packetCopyOfACompactHeaderTraceHoldsExactlyTheTransformedTimes() throws Exception {
        ClockTransform transform = transformFor(sample);
        Path out = tmp.resolve("out");
        CopyReport report = SynchronizedCopy.write(sample, transform, out, Method.PACKETS);

        assertThat(report.method()).isEqualTo(Method.PACKETS);
        assertThat(report.maxErrorNanos()).isZero();
        // Three hours back is before the clock's origin: only offset_s moves, by whole seconds.
        ClockClass before = readClock(sample);
        ClockClass after = readClock(out);
        assertThat(after.frequency()).isEqualTo(before.frequency());
        assertThat(after.offsetCycles()).isEqualTo(before.offsetCycles());
        assertThat(after.offsetSeconds()).isEqualTo(before.offsetSeconds() - 3 * 3600);
        assertRetimed(sample, out, transform::apply, 0);
        assertBabeltraceAgrees(out);
    }

    @Test
    void packetCopyOfABigEndianTraceWithUnalignedPartialTimestampsHoldsExactlyTheTransformedTimes() throws Exception {
        ClockTransform transform = transformFor(bigEndian);
        Path out = tmp.resolve("out");
        CopyReport report = SynchronizedCopy.write(bigEndian, transform, out, Method.PACKETS);

        assertThat(report.maxErrorNanos()).isZero();
        assertRetimed(bigEndian, out, transform::apply, 0);
        assertBabeltraceAgrees(out);
    }

    /** 13-bit compact timestamps after a 3-bit id, and a big-endian 24-bit clock field after a sequence and a string. */
    static final String FIELDS_EVERYWHERE = """
        /* CTF 1.8 */
        typealias integer { size = 3; align = 1; signed = false; } := uint3_t;
        typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
        typealias integer { size = 16; align = 16; signed = false; } := uint16_t;
        typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
        typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
        typealias integer { size = 13; align = 1; signed = false; map = clock.c.value; } := uint13_clock_t;
        typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := uint64_clock_t;
        typealias integer { size = 24; align = 8; signed = false; byte_order = be; map = clock.c.value; } := be24_clock_t;
        trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };
        clock { name = c; freq = %d; offset_s = 1700000000; };
        stream {
            id = 0;
            packet.context := struct {
                uint64_clock_t timestamp_begin; uint64_clock_t timestamp_end; uint64_t content_size; uint64_t packet_size;
            };
            event.header := struct {
                enum : uint3_t { compact = 0 ... 6, extended = 7 } id;
                variant <id> {
                    struct { uint13_clock_t timestamp; } compact;
                    struct { uint32_t id; uint64_clock_t timestamp; } extended;
                } v;
            };
        };
        event { name = "e"; id = 0; stream_id = 0;
                fields := struct { uint8_t n; uint16_t xs[n]; string s; be24_clock_t t24; uint3_t tail; }; };
        """;

    /**
     * Strings are never empty: babeltrace2 2.0.4 prints some empty strings of this layout as
     * an earlier event's string (the original trace shows it too; nothing to do with copying).
     */
    static void writeFieldsEverywhere(Path dir, long frequency) throws Exception {
        try (CtfWriter w = CtfWriter.create(dir, FIELDS_EVERYWHERE.formatted(frequency))) {
            StreamWriter s = w.stream(0).packetSize(512);
            long t = 1000;
            for (int i = 0; i < 800; i++) {
                t += i % 50 == 0 ? 100_000 : 1 + i % 900;
                List<Long> xs = LongStream.range(0, i % 4).boxed().toList();
                s.event(
                        0,
                        t,
                        Map.of(
                                "n",
                                (long) xs.size(),
                                "xs",
                                xs,
                                "s",
                                "x".repeat(1 + i % 3),
                                "t24",
                                t & 0xFFFFFF,
                                "tail",
                                (long) (i & 7)));
            }
        }
    }

    @Test
    void packetCopyRewritesClockFieldsWhereverTheyAreInAnEvent() throws Exception {
        Path trace = tmp.resolve("fields");
        writeFieldsEverywhere(trace, 1_000_000_000L);
        ClockTransform transform = transformFor(trace);
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(trace, transform, out, Method.PACKETS);

        assertThat(report.maxErrorNanos()).isZero();
        assertRetimed(trace, out, transform::apply, 0);
        assertBabeltraceAgrees(out);
    }

    @Test
    void packetCopyOnASlowerClockIsWithinHalfATickOfTheTransformedTimes() throws Exception {
        Path trace = tmp.resolve("fields");
        writeFieldsEverywhere(trace, 100_000_000L);
        ClockTransform transform = transformFor(trace);
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(trace, transform, out, Method.PACKETS);

        assertThat(report.maxErrorNanos()).isBetween(1L, 5L);
        assertRetimed(trace, out, transform::apply, report.maxErrorNanos());
        assertBabeltraceAgrees(out);
    }

    @Test
    void anyMonotonicMapIsWrittenIntoThePackets() throws Exception {
        long first = firstNanos(bigEndian);
        // Piecewise: one drift before the first millisecond, another after it.
        long knee = first + 1_000_000;
        LongUnaryOperator map = t -> t < knee ? t + 1000 : knee + 1000 + Math.round((t - knee) * (1 - 20e-6));
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(bigEndian, map, out);

        assertThat(report.method()).isEqualTo(Method.PACKETS);
        assertThat(Files.mismatch(bigEndian.resolve("metadata"), out.resolve("metadata")))
                .isEqualTo(-1);
        assertRetimed(bigEndian, out, map, 0);
        assertBabeltraceAgrees(out);
    }

    // ------------------------------------------------------------------ real traces

    /**
     * LTTng traces (packetized metadata, index files, file rotation, a crashed session, events
     * after their packet's end), a big-endian trace, and others, by both routes.
     */
    static Stream<Arguments> corpusTraces() {
        return Stream.of(
                        "babeltrace/succeed/trace-with-index",
                        "babeltrace/succeed/lttng-tracefile-rotation/kernel",
                        "babeltrace/succeed/wk-heartbeat-u",
                        "babeltrace/succeed/multi-domains/ust",
                        "babeltrace/succeed/lttng-crash",
                        "babeltrace/succeed/lttng-event-after-packet",
                        "babeltrace/succeed/2packets",
                        "babeltrace/succeed/debug-info",
                        "babeltrace/packet-seq-num/no-lost",
                        "ctf-testsuite/regression/stream/pass/lttng-ust-heartbeat-event")
                .flatMap(t -> Stream.of(Arguments.of(t, Method.METADATA), Arguments.of(t, Method.PACKETS)));
    }

    @ParameterizedTest(name = "{0} through the {1}")
    @MethodSource("corpusTraces")
    void aCorpusTraceCopiedEitherWayReadsAtTheTransformedTimes(String name, Method method) throws Exception {
        Path original = Required.corpus(name);
        ClockTransform transform = transformFor(original);
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(original, transform, out, method);

        assertThat(report.method()).isEqualTo(method);
        if (Files.isDirectory(original.resolve("index"))) {
            // Index files give packet times in cycles: right as they are with new clock blocks, rewritten with new
            // packets.
            assertThat(report.files().stream().anyMatch(f -> f.startsWith("index")))
                    .isTrue();
            assertIndexesUsable(out);
        }
        assertRetimed(
                original,
                out,
                transform::apply,
                method == Method.PACKETS ? report.maxErrorNanos() : report.maxErrorNanos() + 2);
        assertBabeltraceAgrees(out);
    }

    // ------------------------------------------------------------------ choice of route

    @Test
    void theMetadataCarriesATransformWhoseFrequencyRoundingErrsAtMostOneNanosecond() throws Exception {
        // A short trace (~15 ms): the integer frequency errs by far less than a nanosecond over it.
        Path out = tmp.resolve("out");
        CopyReport report = SynchronizedCopy.write(bigEndian, transformFor(bigEndian), out);

        assertThat(report.method()).isEqualTo(Method.METADATA);
        assertThat(report.maxErrorNanos()).isLessThanOrEqualTo(1);
    }

    @Test
    void thePacketsCarryATransformWhoseFrequencyRoundingErrsMoreThanOneNanosecond() throws Exception {
        // Idles of 2 s make the trace span minutes: 0.37 ppb of frequency error is many nanoseconds.
        Path longTrace = tmp.resolve("long");
        writeBigEndian(longTrace, 3000, 2_000_000_000L);
        ClockTransform transform = transformFor(longTrace);
        Path forced = tmp.resolve("forced");
        long metadataError = SynchronizedCopy.write(longTrace, transform, forced, Method.METADATA)
                .maxErrorNanos();
        Path out = tmp.resolve("out");

        CopyReport report = SynchronizedCopy.write(longTrace, transform, out);

        assertThat(metadataError).isGreaterThan(1);
        assertThat(report.method()).isEqualTo(Method.PACKETS);
        assertThat(report.maxErrorNanos()).isZero();
        assertRetimed(longTrace, out, transform::apply, 0);
    }

    @Test
    void copiesWithAbsoluteClocksAreReadTogetherByBabeltrace() throws Exception {
        // Two traces of different clocks (one with a clock UUID, one without): babeltrace2 muxes
        // them only when their clocks say they are global references.
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        SynchronizedCopy.write(sample, ClockTransform.IDENTITY, a, new SynchronizedCopy.Options(null, true));
        CopyReport rb = SynchronizedCopy.write(
                bigEndian, transformFor(bigEndian), b, new SynchronizedCopy.Options(Method.PACKETS, true));

        assertThat(rb.notes()).contains("clock cpu: absolute = true");
        assertThat(readClock(a).absolute()).isTrue();
        assertThat(readClock(b).absolute()).isTrue();
        assertBabeltraceAgrees(a, b);
    }

    // ------------------------------------------------------------------ CTF 2 and the version of the copy

    /** {@code dir}'s files, its metadata rewritten as CTF 2 by hetrace's writer. */
    private Path asCtf2(Path dir) throws Exception {
        Path twin = Files.createDirectories(tmp.resolve(dir.getFileName() + "-ctf2"));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, twin.resolve(f.getFileName()));
            }
        }
        Ctf2Writer.rewrite(twin.resolve("metadata"));
        return twin;
    }

    /**
     * The big-endian trace with its payload's {@code sent} a plain integer: CTF 2 maps only
     * timestamps in headers and packet contexts to a clock.
     */
    private Path bigEndianPlainPayload() throws Exception {
        Path plain = Files.createDirectories(tmp.resolve("big-endian-plain"));
        Files.copy(bigEndian.resolve("stream_0_0"), plain.resolve("stream_0_0"));
        String metadata = Files.readString(bigEndian.resolve("metadata"));
        assertThat(metadata).contains("uint64_clock_t sent;");
        Files.writeString(plain.resolve("metadata"), metadata.replace("uint64_clock_t sent;", "uint64_t sent;"));
        return plain;
    }

    /** The clock a reader gives the copy, but for its UUID (CTF 2 clock classes have none). */
    private static ClockClass readClockButUuid(Path trace) throws Exception {
        ClockClass c = readClock(trace);
        return new ClockClass(
                c.name(),
                c.description(),
                null,
                c.frequency(),
                c.precision(),
                c.offsetSeconds(),
                c.offsetCycles(),
                c.absolute());
    }

    private static boolean isCtf2(Path copy) throws IOException {
        return Files.readAllBytes(copy.resolve("metadata"))[0] == 0x1E;
    }

    @ParameterizedTest(name = "through the {0}")
    @EnumSource(Method.class)
    void aCtf2TraceIsCopiedInCtf2ReadsAtTheTransformedTimesAndPrintsAsItsCtf18TwinsCopy(Method method)
            throws Exception {
        for (Path original : List.of(sample, bigEndianPlainPayload())) {
            Path ctf2 = asCtf2(original);
            ClockTransform transform = transformFor(ctf2);
            Path out = tmp.resolve("out-" + original.getFileName());
            Path twin = tmp.resolve("twin-" + original.getFileName());

            CopyReport report =
                    SynchronizedCopy.write(ctf2, transform, out, new SynchronizedCopy.Options(method, true));
            CopyReport twinReport =
                    SynchronizedCopy.write(original, transform, twin, new SynchronizedCopy.Options(method, true));

            assertThat(report.version()).isEqualTo(CtfVersion.V2);
            assertThat(isCtf2(out)).isTrue();
            assertThat(report.maxErrorNanos()).isEqualTo(twinReport.maxErrorNanos());
            assertThat(report.files()).isEqualTo(twinReport.files());
            assertThat(readClockButUuid(out)).isEqualTo(readClockButUuid(twin));
            assertThat(readClock(out).absolute()).isTrue();
            assertRetimed(
                    ctf2,
                    out,
                    transform::apply,
                    method == Method.PACKETS ? report.maxErrorNanos() : report.maxErrorNanos() + 2);
            assertThat(hetraceText(out)).isNotEmpty().isEqualTo(hetraceText(twin));
        }
    }

    @ParameterizedTest(name = "through the {0}")
    @EnumSource(Method.class)
    void aCopyIsWrittenInTheCtfVersionAskedForAndDecodesAsInTheTracesOwn(Method method) throws Exception {
        Path plain = bigEndianPlainPayload();
        Path ctf2 = asCtf2(plain);
        ClockTransform transform = transformFor(plain);
        Path as18 = tmp.resolve("as-1.8");
        Path as2 = tmp.resolve("as-2");
        Path own = tmp.resolve("own");

        CopyReport r18 = SynchronizedCopy.write(
                ctf2, transform, as18, new SynchronizedCopy.Options(method, true).in(CtfVersion.V1_8));
        CopyReport r2 = SynchronizedCopy.write(
                plain, transform, as2, new SynchronizedCopy.Options(method, true).in(CtfVersion.V2));
        SynchronizedCopy.write(plain, transform, own, new SynchronizedCopy.Options(method, true));

        assertThat(r18.version()).isEqualTo(CtfVersion.V1_8);
        assertThat(Files.readString(as18.resolve("metadata"))).startsWith("/* CTF 1.8 */");
        assertThat(r2.version()).isEqualTo(CtfVersion.V2);
        assertThat(isCtf2(as2)).isTrue();
        String text = hetraceText(own);
        assertThat(hetraceText(as18)).isEqualTo(text);
        assertThat(hetraceText(as2)).isEqualTo(text);
        assertRetimed(
                plain,
                as18,
                transform::apply,
                method == Method.PACKETS ? r18.maxErrorNanos() : r18.maxErrorNanos() + 2);
        assertBabeltraceAgrees(as18);
    }

    @Test
    void aCopyWhoseOtherVersionWouldDecodeOtherwiseIsRefusedAndNothingIsLeft() throws Exception {
        // CTF 2 says by a role what CTF 1.8 says by the name content_size: renamed, the role is
        // lost in TSDL, and the packets' content would run to their padding
        Path ctf2 = asCtf2(sample);
        String json = Files.readString(ctf2.resolve("metadata"));
        assertThat(json).contains("\"content_size\"");
        Files.writeString(ctf2.resolve("metadata"), json.replace("\"content_size\"", "\"filled\""));
        Path own = tmp.resolve("own");
        SynchronizedCopy.write(ctf2, transformFor(ctf2), own, Method.METADATA);
        Path out = tmp.resolve("out");

        assertThatThrownBy(() -> SynchronizedCopy.write(
                        ctf2,
                        transformFor(ctf2),
                        out,
                        new SynchronizedCopy.Options(Method.METADATA, false).in(CtfVersion.V1_8)))
                .isInstanceOf(SynchronizedCopyException.class)
                .hasMessageContaining(
                        "CTF 1.8 cannot say what the trace's metadata says: the copy's packet context would"
                                + " decode otherwise (" + out.resolve("stream_0_0") + ", packet 0)");
        try (var left = Files.list(out)) {
            assertThat(left).isEmpty();
        }
        assertThat(hetraceText(own)).isNotEmpty(); // the CTF 2 copy reads
    }

    @Test
    void theMetadataFileComesLastUnderTheNameAskedFor() throws Exception {
        Path out = tmp.resolve("out");

        SynchronizedCopy.write(
                sample,
                transformFor(sample),
                out,
                new SynchronizedCopy.Options(Method.PACKETS, true).metadataAs(".held"));

        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted())
                    .containsExactly(".held", "stream_0_0", "stream_0_1");
        }
        assertThat(CtfTrace.find(out)).isEmpty();
        Files.move(out.resolve(".held"), out.resolve("metadata"));
        assertRetimed(sample, out, transformFor(sample)::apply, 0);
    }

    // ------------------------------------------------------------------ errors

    @Test
    void refusesAnOutputDirectoryThatIsNotEmpty() throws Exception {
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.writeString(out.resolve("keep.txt"), "mine");

        assertThatThrownBy(() -> SynchronizedCopy.write(sample, transformFor(sample), out))
                .isInstanceOf(SynchronizedCopyException.class)
                .hasMessageContaining("output directory exists and is not empty");
        assertThat(Files.readString(out.resolve("keep.txt"))).isEqualTo("mine");
    }

    @Test
    void refusesAnOutputDirectoryInsideTheTrace() {
        assertThatThrownBy(() -> SynchronizedCopy.write(sample, transformFor(sample), sample.resolve("synced")))
                .isInstanceOf(SynchronizedCopyException.class)
                .hasMessageContaining("may not be in the trace directory");
        assertThat(sample.resolve("synced")).doesNotExist();
    }

    @Test
    void refusesAMapThatIsNotMonotonicAndLeavesNothingBehind() throws Exception {
        long first = firstNanos(bigEndian);
        Path out = tmp.resolve("out");

        assertThatThrownBy(() -> SynchronizedCopy.write(bigEndian, t -> first + 10_000_000_000L - (t - first), out))
                .isInstanceOf(SynchronizedCopyException.class)
                .hasMessageContaining("not monotonic");
        try (var left = Files.list(out)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void refusesAPartialTimestampThatCannotSpanItsStretchedGap() throws Exception {
        // Gaps just under 2^27 ns fit a compact header; stretched by 1 %, they no longer do.
        Path tight = tmp.resolve("tight");
        try (CtfWriter trace = CtfWriter.create(tight, BIG_ENDIAN)) {
            StreamWriter s = trace.stream(0).packetSize(1 << 16);
            long t = 2_000_000L;
            for (int i = 0; i < 4; i++) {
                t += 134_000_000L;
                s.event(1, t, Map.of("n", (long) i, "flags", 0L));
            }
        }
        long first = firstNanos(tight);
        Path out = tmp.resolve("out");

        assertThatThrownBy(() ->
                        SynchronizedCopy.write(tight, new ClockTransform(first, first, 0.01), out, Method.PACKETS))
                .isInstanceOf(SynchronizedCopyException.class)
                .hasMessageContaining("stream_0_0: packet 0 at bit ")
                .hasMessageContaining("27-bit clock field cannot hold");
    }

    // ------------------------------------------------------------------ checks

    /**
     * Reads both traces stream by stream: every event of the copy has the original's class and
     * payload, and its time is {@code map} of the original's within {@code tolerance} ns; so are
     * the packets' begin and end times.
     */
    static void assertRetimed(Path original, Path copy, LongUnaryOperator map, long tolerance) throws Exception {
        long events = 0;
        try (CtfTrace a = CtfTrace.open(original, w -> {});
                CtfTrace b = CtfTrace.open(copy, w -> {})) {
            assertThat(b.streamCount()).isEqualTo(a.streamCount());
            for (int s = 0; s < a.streamCount(); s++) {
                StreamDecoder da = a.decoder(s);
                StreamDecoder db = b.decoder(s);
                while (da.next()) {
                    assertThat(db.next()).isTrue();
                    assertThat(db.event().cls.id()).isEqualTo(da.event().cls.id());
                    // Payload fields mapped to the clock (sent, t24) move with it; the rest stays.
                    assertThat(FieldValues.payload(db).toString().replaceAll(CLOCK_PAYLOAD, ""))
                            .isEqualTo(FieldValues.payload(da).toString().replaceAll(CLOCK_PAYLOAD, ""));
                    long want = map.applyAsLong(da.defaultClock().nanosFromOrigin(da.clockValue()));
                    long got = db.defaultClock().nanosFromOrigin(db.clockValue());
                    assertThat(got).as("event %d of stream %d", events, s).isCloseTo(want, Offset.offset(tolerance));
                    events++;
                }
                assertThat(db.next()).isFalse();
                da = a.decoder(s);
                db = b.decoder(s);
                while (da.nextPacket()) {
                    assertThat(db.nextPacket()).isTrue();
                    PacketInfo pa = da.packet();
                    PacketInfo pb = db.packet();
                    for (long[] ts : new long[][] {
                        {pa.timestampBegin(), pb.timestampBegin()}, {pa.timestampEnd(), pb.timestampEnd()}
                    }) {
                        if (ts[0] == PacketInfo.ABSENT || ts[0] == 0) {
                            // absent, or a crashed session's unknown end: kept as it was
                            assertThat(ts[1]).isEqualTo(ts[0]);
                            continue;
                        }
                        long want = map.applyAsLong(da.defaultClock().nanosFromOrigin(ts[0]));
                        long got = db.defaultClock().nanosFromOrigin(ts[1]);
                        assertThat(got).isCloseTo(want, Offset.offset(tolerance));
                    }
                }
            }
        }
        assertThat(events).isPositive();
    }

    /** hetrace's packet index takes the copy's LTTng index files (it warns about those that disagree with the packets). */
    private static void assertIndexesUsable(Path copy) throws Exception {
        List<String> warnings = new ArrayList<>();
        try (CtfTrace t = CtfTrace.open(copy, warnings::add)) {
            for (int s = 0; s < t.streamCount(); s++) {
                t.index(s);
            }
        }
        assertThat(warnings).isEmpty();
    }

    /** babeltrace2 prints the copy exactly as hetrace does (times included). */
    private static void assertBabeltraceAgrees(Path... copies) throws Exception {
        Required.tool("babeltrace2", "--version");
        List<String> command = new ArrayList<>(List.of("babeltrace2"));
        for (Path c : copies) {
            command.add(c.toString());
        }
        Path copy = copies[0];
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("TZ", "UTC");
        Path outFile = Files.createTempFile("bt2", ".txt");
        pb.redirectOutput(outFile.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String babeltrace = Files.readString(outFile);
        Files.delete(outFile);
        assertThat(p.exitValue()).as("babeltrace2 exit status").isZero();
        String hetrace = hetraceText(copies);
        assertThat(babeltrace).isNotEmpty();
        // Line by line, so that a failure shows the first line that differs rather than all of them.
        String[] b = babeltrace.split("\n", -1);
        String[] h = hetrace.split("\n", -1);
        for (int i = 0; i < Math.min(b.length, h.length); i++) {
            assertThat(h[i]).as("line %d of %s", i + 1, copy).isEqualTo(b[i]);
        }
        assertThat(h.length).as("lines").isEqualTo(b.length);
    }

    private static String hetraceText(Path... dirs) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TextSink sink = new TextSink(bytes);
        List<CtfTrace> traces = new ArrayList<>();
        try {
            for (Path dir : dirs) {
                traces.add(CtfTrace.open(dir, w -> {}));
            }
            EventCursor cursor = new EventCursor(traces);
            BabeltraceText text =
                    new BabeltraceText(sink, new PrintStream(new ByteArrayOutputStream()), ZoneOffset.UTC);
            while (cursor.next()) {
                text.print(cursor);
                sink.lineDone();
            }
            sink.flush();
        } finally {
            traces.forEach(CtfTrace::close);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    static long firstNanos(Path trace) throws Exception {
        long first = Long.MAX_VALUE;
        try (CtfTrace t = CtfTrace.open(trace, w -> {})) {
            for (int s = 0; s < t.streamCount(); s++) {
                StreamDecoder d = t.decoder(s);
                if (d.next()) {
                    first = Math.min(first, d.defaultClock().nanosFromOrigin(d.clockValue()));
                }
            }
        }
        assertThat(first).as("a first event").isNotEqualTo(Long.MAX_VALUE);
        return first;
    }

    private static ClockClass readClock(Path trace) throws Exception {
        try (CtfTrace t = CtfTrace.open(trace, w -> {})) {
            return t.metadata().clocks().values().iterator().next();
        }
    }

    private static byte[] uuidBytes(String uuid) {
        UUID u = UUID.fromString(uuid);
        return ByteBuffer.allocate(16)
                .putLong(u.getMostSignificantBits())
                .putLong(u.getLeastSignificantBits())
                .array();
    }
}
