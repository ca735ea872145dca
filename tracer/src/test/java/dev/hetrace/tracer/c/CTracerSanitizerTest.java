package dev.hetrace.tracer.c;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every generated platform, in both trace byte orders, built with AddressSanitizer and
 * UndefinedBehaviorSanitizer (any report aborts the program) and run on random event records
 * ({@code fuzz.c}: deterministic seeds; strings from empty to longer than a packet, dynamic
 * arrays, 64-bit aligned fields after variable-size ones, tracepoints nested as an ISR makes
 * them) for packet sizes from the smallest the tracer accepts upwards: no report, a size below
 * the smallest is refused, and hetrace's reader finds every record that fits a packet with its
 * values, the others counted as discarded. Skipped when gcc cannot build with the sanitizers,
 * unless CI=true.
 */
class CTracerSanitizerTest {
    private static final List<String> FLAGS = List.of(
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
            "-g",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer");
    private static final int EVENTS = 300;

    @TempDir
    Path dir;

    static Stream<Arguments> platforms() {
        return Stream.of("linux-file", "callback", "shm-ring", "rpmsg", "remoteproc-trace")
                .flatMap(platform -> Stream.of(Arguments.of(platform, "le"), Arguments.of(platform, "be")));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("platforms")
    void randomRecordsStayInThePacketsAndReadBack(String platform, String byteOrder) throws Exception {
        int min = build(platform, byteOrder);
        // multiples of 8 bytes: shm-ring slots are, and hetrace's reader misplaces 64-bit aligned
        // fields in packets of other sizes (babeltrace2 reads them)
        int smallest = (min + 7) / 8 * 8;
        for (int size : List.of(smallest, smallest + 8, smallest + 16, 128, 136, 256, 264, 512, 1024, 65536)) {
            check(fuzz(size, size, EVENTS, false), size);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"le", "be"})
    void aStringOrArrayOf2To29BytesIsDiscardedAndCounted(String byteOrder) throws Exception {
        build("linux-file", byteOrder);
        // 2^32 bits each: 32-bit sizes would wrap to a record that fits
        check(fuzz(4096, 1, 20, true), 4096);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"linux-file", "callback", "shm-ring", "rpmsg", "remoteproc-trace"})
    void aPacketTooSmallForTheHeadersAndAnEventIsRefused(String platform) throws Exception {
        int min = build(platform, "le");
        // 48 bytes: smaller than the packet header and context
        for (int size : List.of(min - 1, 64, 48)) {
            assertThat(fuzz(size, 1, 20, false)).as("packets of %d bytes", size).isEqualTo("refused\n");
        }
        int smallest = (min + 7) / 8 * 8;
        check(fuzz(smallest, 2, EVENTS, false), smallest);
    }

    @Test
    void aPacketContextStringThatLeavesNoRoomForAnEventOpensNoPacket() throws Exception {
        assumeSanitizers();
        Path config = dir.resolve("fuzz.yaml");
        Files.writeString(
                config,
                resource("fuzz.yaml")
                        .replace("- core: uint8", "- core: uint8\n          - label: {field-type: {class: str}}"));
        writeAll(CTracer.generate(ConfigReader.read(config, List.of(dir))));
        Files.writeString(dir.resolve("label.c"), resource("label.c"));
        gcc(List.of("-o", "label", "tt.c", "label.c"));
        assertThat(Processes.run(dir, List.of(dir.resolve("label").toString()))).isEqualTo("0 1\n1 1\n");
    }

    /** Builds the random program on a platform; returns the smallest packet the tracer accepts. */
    private int build(String platform, String byteOrder) throws Exception {
        assumeSanitizers();
        Path config = dir.resolve("fuzz.yaml");
        Files.writeString(
                config, resource("fuzz.yaml").replace("native-byte-order: le", "native-byte-order: " + byteOrder));
        Configuration c = ConfigReader.read(config, List.of(dir));
        writeAll(CTracer.generate(c));
        writeAll(
                switch (platform) {
                    case "linux-file" -> LinuxFilePlatform.generate(c);
                    case "callback" -> CallbackPlatform.generate(c);
                    // small messages: most packets are cut into many
                    case "rpmsg" -> RpmsgPlatform.generate(c, 64);
                    case "remoteproc-trace" -> RemoteprocTracePlatform.generate(c);
                    default -> ShmRingPlatform.generate(c);
                });
        Files.writeString(dir.resolve("fuzz.c"), resource("fuzz.c"));
        Files.writeString(dir.resolve("fuzz-clock.h"), resource("fuzz-clock.h"));
        // only the tracer reads the clock through the program: the platform keeps its own headers first
        gcc(List.of("-include", "fuzz-clock.h", "-c", "-o", "tt.o", "tt.c"));
        gcc(List.of(
                "-DPLATFORM_" + platform.toUpperCase().replace('-', '_'),
                // a 64-bit program: no resource table
                "-DTT_REMOTEPROC_TRACE_NO_RESOURCE_TABLE",
                "-o",
                "fuzz",
                "tt.o",
                "tt-platform-" + platform + ".c",
                "fuzz.c"));
        return CTracer.minPacketBytes(c);
    }

    private void gcc(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(FLAGS);
        cmd.addAll(args);
        Processes.run(dir, cmd);
    }

    /** Runs the program, which aborts on any sanitizer report; returns its output. */
    private String fuzz(int packetSize, int seed, int events, boolean huge) throws Exception {
        Path trace = dir.resolve("trace-" + packetSize);
        Files.createDirectories(trace);
        Files.writeString(
                trace.resolve("metadata"),
                BarectfMetadata.of(ConfigReader.read(dir.resolve("fuzz.yaml"), List.of(dir))));
        List<String> cmd = new ArrayList<>(List.of(
                dir.resolve("fuzz").toString(),
                trace.resolve("stream").toString(),
                Integer.toString(packetSize),
                Integer.toString(seed),
                Integer.toString(events)));
        if (huge) {
            cmd.add("huge");
        }
        return Processes.run(dir, cmd);
    }

    /** The trace holds, in order and with their values, the records the program asked for but those counted as discarded. */
    private void check(String out, int packetSize) throws Exception {
        Map<Long, String[]> asked = new HashMap<>();
        long nested = -1;
        List<Long> smallOnes = new ArrayList<>();
        for (String line : out.lines().toList()) {
            String[] f = line.split(" ");
            if (f[0].equals("nested")) {
                nested = Long.parseLong(f[1]);
            } else {
                asked.put(Long.parseLong(f[1]), f);
                if (f[0].equals("ints")) {
                    smallOnes.add(Long.parseLong(f[1]));
                }
            }
        }
        assertThat(nested).as("the program finished").isNotNegative();
        long decoded = 0;
        long discarded = 0;
        long lastTag = 0;
        List<Long> seenInts = new ArrayList<>();
        try (CtfReader reader = CtfReader.open(dir.resolve("trace-" + packetSize))) {
            while (reader.next()) {
                Event e = reader.event();
                long tag = e.getLong("tag");
                String[] f = asked.get(tag);
                assertThat(f)
                        .as("packets of %d bytes: a record with tag %d was asked for", packetSize, tag)
                        .isNotNull();
                assertThat(e.name()).isEqualTo(f[0]);
                assertThat(tag).as("order").isGreaterThan(lastTag);
                switch (f[0]) {
                    case "ints" -> seenInts.add(tag);
                    case "strings" -> {
                        assertThat(e.getString("s")).hasSize(Integer.parseInt(f[2]));
                        assertThat(e.getString("t")).hasSize(Integer.parseInt(f[3]));
                    }
                    case "arrays" -> {
                        assertThat(e.length("bits")).isEqualTo(Integer.parseInt(f[2]));
                        assertThat(e.length("bytes")).isEqualTo(Integer.parseInt(f[3]));
                        assertThat(e.length("words")).isEqualTo(Integer.parseInt(f[4]));
                        if (e.length("bits") > 0) {
                            assertThat(e.getLong("bits[" + (e.length("bits") - 1) + "]"))
                                    .isEqualTo((e.length("bits") - 1) % 8);
                        }
                    }
                    default -> {
                        assertThat(e.getString("s")).hasSize(Integer.parseInt(f[2]));
                        assertThat(e.getLong("x")).isEqualTo(~tag);
                    }
                }
                lastTag = tag;
                discarded = e.getLong("events_discarded");
                decoded++;
            }
        }
        assertThat(seenInts)
                .as("packets of %d bytes: every small record is in the trace", packetSize)
                .isEqualTo(smallOnes);
        assertThat(decoded + discarded)
                .as("packets of %d bytes: records decoded + discarded", packetSize)
                .isEqualTo(asked.size() + nested);
        assertThat(decoded)
                .as("packets of %d bytes: records decoded", packetSize)
                .isGreaterThan(asked.size() / 3);
    }

    private void assumeSanitizers() throws Exception {
        Path probe = dir.resolve("probe.c");
        Files.writeString(probe, "#include <stdlib.h>\nint main(void) { return 0; }\n");
        boolean works = Processes.works(
                        List.of(
                                "gcc",
                                "-fsanitize=address,undefined",
                                "-o",
                                dir.resolve("probe").toString(),
                                probe.toString()),
                        dir)
                && Processes.works(List.of(dir.resolve("probe").toString()), dir);
        Required.that(
                works,
                "gcc cannot build and run a program with -fsanitize=address,undefined: generated tracers not sanitized");
    }

    private void writeAll(Map<String, String> files) throws IOException {
        for (String name : files.keySet()) {
            Files.writeString(dir.resolve(name), files.get(name));
        }
    }

    private static String resource(String name) throws IOException {
        return CTracerGccTest.resource(name);
    }
}
