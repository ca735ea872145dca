package dev.hetrace.tracer.c;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Generated tracers compile cleanly ({@code gcc -std=c99 -Wall -Wextra -Werror -pedantic}, and
 * for 32-bit targets with {@code -m32}), run on the linux-file platform, and hetrace's reader
 * decodes exactly the events the program emitted, values included, in both trace byte orders.
 * Needs gcc and gcc-multilib (see {@link Required}).
 */
class CTracerGccTest {
    private static final List<String> STRICT = List.of("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic");
    private static final int ROUNDS = 300;

    @TempDir
    Path dir;

    /**
     * {@code portable}: as if the compiler did not tell the host's byte order (byte-by-byte
     * stores); {@code inline-clock}: the clock read by a macro the build defines, not through the
     * platform's callback.
     */
    @ParameterizedTest(name = "byte order {0}")
    @ValueSource(strings = {"le", "be", "le portable", "be portable", "le inline-clock", "le m32", "be m32"})
    void theReaderDecodesEveryEmittedEventWithItsValues(String variant) throws Exception {
        Required.that(gccWorks(List.of()), "gcc is not installed: generated tracers not compiled");
        String byteOrder = variant.substring(0, 2);
        List<String> extra = new ArrayList<>();
        if (variant.endsWith("m32")) {
            // a 32-bit program, built and run (needs gcc-multilib, which CI installs)
            Required.that(gccLinks(List.of("-m32")), "no 32-bit C library (gcc-multilib): -m32 not built");
            Required.machineCan(
                    runs(dir.resolve("probe-main")), "run 32-bit programs (a kernel without IA-32 emulation)");
            extra.add("-m32");
        }
        if (variant.endsWith("portable")) {
            extra.add("-U__BYTE_ORDER__");
        }
        if (variant.endsWith("inline-clock")) {
            Files.writeString(dir.resolve("clock.h"), """
                #include <stdint.h>

                static uint64_t test_clock;

                #define TT_SYS_CLOCK_READ(data)	((void) (data), test_clock += 1000)
                """);
            extra.addAll(List.of("-include", "clock.h"));
        }
        Path config = dir.resolve("all-types.yaml");
        Files.writeString(
                config, resource("all-types.yaml").replace("native-byte-order: le", "native-byte-order: " + byteOrder));
        Configuration c = ConfigReader.read(config, List.of(dir));
        writeAll(CTracer.generate(c));
        writeAll(LinuxFilePlatform.generate(c));
        Files.writeString(dir.resolve("main.c"), resource("main.c"));
        Path trace = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(trace.resolve("metadata"), BarectfMetadata.of(c));

        List<String> compile = new ArrayList<>(List.of("gcc"));
        compile.addAll(STRICT);
        compile.addAll(List.of("-O2", "-c", "-o", "tt.o"));
        compile.addAll(extra);
        compile.add("tt.c");
        run(compile);
        compile = new ArrayList<>(List.of("gcc"));
        compile.addAll(STRICT);
        compile.addAll(extra.contains("-m32") ? List.of("-m32") : List.of());
        compile.addAll(List.of("-O2", "-o", "prog", "tt.o", "tt-platform-linux-file.c", "main.c"));
        run(compile);
        if (Required.ifPresent(gccWorks(List.of("-m32")), "gcc cannot compile for -m32 (gcc-multilib)")) {
            List<String> m32 = new ArrayList<>(List.of("gcc", "-m32"));
            m32.addAll(STRICT);
            m32.addAll(List.of("-O2", "-c", "-o", "tt32.o", "tt.c"));
            run(m32);
        }
        // 512-byte packets: the rounds span many packets
        run(List.of(
                dir.resolve("prog").toString(), trace.resolve("stream").toString(), "512", Integer.toString(ROUNDS)));

        List<String> seen = new ArrayList<>();
        long lastTime = Long.MIN_VALUE;
        try (CtfReader reader = CtfReader.open(trace)) {
            int n = 0;
            while (reader.next()) {
                Event e = reader.event();
                long i = n / 4;
                assertThat(e.timeNanos()).isGreaterThanOrEqualTo(lastTime);
                if (variant.endsWith("inline-clock")) {
                    // every clock read is the macro's: one more microsecond each time
                    assertThat(e.timeNanos()).isGreaterThan(lastTime);
                    assertThat(e.timeNanos() % 1000).isZero();
                }
                lastTime = e.timeNanos();
                assertThat(e.getLong("cpu")).isEqualTo(i % 32);
                String expectedName =
                        List.of("ints", "reals", "strings", "arrays").get(n % 4);
                assertThat(e.name()).as("event %d", n).isEqualTo(expectedName);
                switch (expectedName) {
                    case "ints" -> {
                        assertThat(e.getLong("u8")).isEqualTo(i & 0xff);
                        assertThat(e.getLong("s8")).isEqualTo(i % 256 - 128);
                        assertThat(e.getLong("u3")).isEqualTo(i % 8);
                        assertThat(e.getLong("s13")).isEqualTo(i * 123 % 8192 - 4096);
                        assertThat(e.getLong("u64")).isEqualTo(0xfedcba9876543210L + i);
                        assertThat(e.getLong("s64")).isEqualTo(-i * 1000000007L);
                        assertThat(e.getLong("s33")).isEqualTo(-i * 3);
                        assertThat(e.getLong("e")).isEqualTo(i % 128 - 64);
                        assertThat(e.getString("e"))
                                .isEqualTo(i % 128 - 64 < 0 ? "NEG" : i % 128 == 64 ? "ZERO" : "POS");
                    }
                    case "reals" -> {
                        assertThat(e.getDouble("f")).isEqualTo(i * 0.5);
                        assertThat(e.getDouble("d")).isEqualTo(i / 3.0);
                        assertThat(e.getDouble("bf")).isEqualTo((float) i);
                    }
                    case "strings" -> {
                        assertThat(e.getString("s")).isEqualTo("event " + i + "-".repeat((int) (i % 45)));
                        assertThat(e.getString("empty")).isEmpty();
                    }
                    default -> {
                        for (int k = 0; k < 3; k++) {
                            assertThat(e.getLong("sa[" + k + "]")).isEqualTo((i * 1000 + k) & 0xffff);
                        }
                        assertThat(e.length("da")).isEqualTo((int) (i % 5));
                        for (int k = 0; k < i % 5; k++) {
                            assertThat(e.getLong("da[" + k + "]")).isEqualTo((i + k) % 8);
                        }
                        assertThat(e.length("dstr")).isEqualTo((int) (i % 4));
                        for (int k = 0; k < i % 4; k++) {
                            assertThat(e.getString("dstr[" + k + "]"))
                                    .isEqualTo(List.of("a", "bb", "ccc").get(k));
                        }
                        assertThat(e.getLong("nested[0][0]")).isEqualTo(i % 100);
                        assertThat(e.getLong("nested[0][1]")).isEqualTo(-(i % 100));
                        assertThat(e.getLong("nested[1][0]")).isEqualTo(i % 50);
                        assertThat(e.getLong("nested[1][1]")).isEqualTo(-(i % 50));
                    }
                }
                seen.add(expectedName);
                n++;
            }
        }
        assertThat(seen).hasSize(4 * ROUNDS);
        // babeltrace2 decodes the same events with the same values
        Optional<String> bt2 = TraceEvents.babeltrace2(trace);
        if (bt2.isPresent()) {
            assertThat(bt2.get().lines().count()).isEqualTo(4L * ROUNDS);
            assertThat(bt2.get()).isEqualTo(TraceEvents.babeltraceText(trace));
        }
    }

    @Test
    void aTracepointInterruptingAnotherIsDiscardedAndCounted() throws Exception {
        Required.that(gccWorks(List.of()), "gcc is not installed: generated tracers not compiled");
        Path config = dir.resolve("all-types.yaml");
        Files.writeString(config, resource("all-types.yaml"));
        Configuration c = ConfigReader.read(config, List.of(dir));
        writeAll(CTracer.generate(c));
        Files.writeString(dir.resolve("isr.c"), resource("isr.c"));
        Path trace = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(trace.resolve("metadata"), BarectfMetadata.of(c));
        List<String> compile = new ArrayList<>(List.of("gcc"));
        compile.addAll(STRICT);
        compile.addAll(List.of("-O2", "-o", "isr", "tt.c", "isr.c"));
        run(compile);
        long nested = Long.parseLong(run(List.of(
                        dir.resolve("isr").toString(), trace.resolve("stream").toString()))
                .strip());
        assertThat(nested).isPositive();

        int n = 0;
        long discarded = 0;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                assertThat(e.getString("s")).isEqualTo("outer " + n);
                assertThat(e.getString("empty")).isEqualTo("x");
                assertThat(e.getLong("cpu")).isEqualTo(n % 32);
                assertThat(e.getLong("core")).isEqualTo(7);
                discarded = e.getLong("events_discarded");
                n++;
            }
        }
        assertThat(n).isEqualTo(100);
        assertThat(discarded).as("events_discarded of the last packet").isEqualTo(nested);
    }

    @Test
    void aWrapping32BitCounterExtendsToAMonotonic64BitClock() throws Exception {
        Required.that(gccWorks(List.of()), "gcc is not installed: generated tracers not compiled");
        Path config = dir.resolve("all-types.yaml");
        Files.writeString(config, resource("all-types.yaml"));
        writeAll(CTracer.generate(ConfigReader.read(config, List.of(dir))));
        Files.writeString(dir.resolve("wrap.c"), """
            #include <stdio.h>
            #include "tt.h"

            int main(void)
            {
            	static const uint32_t reads[] = {5, 0xfffffff0u, 0xffffffffu, 3, 3, 0x80000000u, 2, 1};
            	uint64_t last = 0;
            	unsigned int i;

            	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
            		printf("%llu\\n", (unsigned long long) tt_extend_counter32(&last, reads[i]));
            	}

            	return 0;
            }
            """);
        List<String> compile = new ArrayList<>(List.of("gcc"));
        compile.addAll(STRICT);
        compile.addAll(List.of("-o", "wrap", "wrap.c"));
        run(compile);
        long w = 1L << 32;
        assertThat(run(List.of(dir.resolve("wrap").toString()))
                        .lines()
                        .map(Long::parseLong)
                        .toList())
                .containsExactly(5L, 0xfffffff0L, 0xffffffffL, w + 3, w + 3, w + 0x80000000L, 2 * w + 2, 3 * w + 1);
    }

    @Test
    void theCallbackPlatformHandsOverPacketsAndCountsWhatABusyConsumerLoses() throws Exception {
        Required.that(gccWorks(List.of()), "gcc is not installed: generated tracers not compiled");
        Path config = dir.resolve("all-types.yaml");
        Files.writeString(config, resource("all-types.yaml"));
        Configuration c = ConfigReader.read(config, List.of(dir));
        writeAll(CTracer.generate(c));
        writeAll(CallbackPlatform.generate(c));
        Files.writeString(dir.resolve("callback.c"), resource("callback.c"));
        Path trace = Files.createDirectories(dir.resolve("trace"));
        Files.writeString(trace.resolve("metadata"), BarectfMetadata.of(c));
        List<String> compile = new ArrayList<>(List.of("gcc"));
        compile.addAll(STRICT);
        compile.addAll(List.of("-o", "callback", "tt.c", "tt-platform-callback.c", "callback.c"));
        run(compile);
        if (Required.ifPresent(
                gccWorks(List.of("-m32", "-ffreestanding")), "gcc cannot compile for -m32 (gcc-multilib)")) {
            // the tracer and this platform need no hosted C library
            List<String> freestanding = new ArrayList<>(List.of("gcc", "-m32", "-ffreestanding"));
            freestanding.addAll(STRICT);
            freestanding.addAll(List.of("-c", "tt.c", "tt-platform-callback.c"));
            run(freestanding);
        }
        long emitted = Long.parseLong(run(List.of(
                        dir.resolve("callback").toString(),
                        trace.resolve("stream").toString()))
                .strip());

        long decoded = 0;
        long discarded = 0;
        long lastIndex = -1;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                long index = Long.parseLong(e.getString("s").substring("event ".length()));
                assertThat(index).isGreaterThan(lastIndex);
                assertThat(e.getLong("cpu")).isEqualTo(index % 32);
                lastIndex = index;
                discarded = e.getLong("events_discarded");
                decoded++;
            }
        }
        assertThat(discarded).as("events lost while the consumer was busy").isPositive();
        assertThat(decoded + discarded).isEqualTo(emitted);
    }

    private void writeAll(Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(dir.resolve(f.getKey()), f.getValue());
        }
    }

    static String resource(String name) throws IOException {
        try (InputStream in = CTracerGccTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private boolean gccLinks(List<String> flags) throws IOException, InterruptedException {
        Path probe = dir.resolve("probe-main.c");
        Files.writeString(probe, "#include <stdio.h>\nint main(void) { return printf(\"\") < 0; }\n");
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(flags);
        cmd.addAll(List.of("-o", dir.resolve("probe-main").toString(), probe.toString()));
        return Processes.works(cmd, dir);
    }

    private boolean runs(Path program) throws IOException, InterruptedException {
        return Processes.works(List.of(program.toString()), dir);
    }

    private boolean gccWorks(List<String> flags) throws IOException, InterruptedException {
        Path probe = dir.resolve("probe.c");
        Files.writeString(probe, "#include <stdint.h>\n#include <string.h>\nint probe(void) { return 0; }\n");
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(flags);
        cmd.addAll(List.of("-c", "-o", dir.resolve("probe.o").toString(), probe.toString()));
        return Processes.works(cmd, dir);
    }

    private String run(List<String> cmd) throws IOException, InterruptedException {
        return Processes.run(dir, cmd);
    }
}
