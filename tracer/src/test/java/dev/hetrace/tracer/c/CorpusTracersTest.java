package dev.hetrace.tracer.c;

import static dev.hetrace.tracer.Processes.run;
import static dev.hetrace.tracer.Processes.works;
import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.BarectfCorpus;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import dev.hetrace.tracer.metadata.BarectfMetadata;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * For barectf's tracing configurations: hetrace's tracer builds with gcc's strict flags, a
 * program calling every tracing function writes a trace hetrace's reader decodes, and, when
 * barectf is installed, barectf's tracer built from the same program writes byte-identical
 * streams (little-endian traces: barectf writes aligned fields in the host's byte order). A
 * sample of configurations by default (the program is compiled twice per configuration);
 * {@code -Dhetrace.tracer.allCorpusTracers=true} runs all 79.
 */
class CorpusTracersTest {
    /** Configurations that caught generator bugs or cover a feature the others do not. */
    private static final List<String> SAMPLE = List.of(
            "basic/int/sint-bit-fields.yaml",
            "basic/enum/senum64.yaml",
            "basic/static-array/zero-len.yaml",
            "basic/static-array/of-static-array-of-str.yaml",
            "basic/dynamic-array/of-static-array-of-double.yaml",
            "basic/struct/empty.yaml",
            "basic/byte-order/trace-byte-order-big-endian.yaml",
            "basic-extra-pc-ft-members/extra-pc-ft-members/extra-pc-ft-members.yaml",
            "counter-clock/trace-type-features/uuid.yaml",
            "counter-clock/dst/er-common-ctx.yaml",
            "packet-set-buf/packet-set-buf/packet-set-buf.yaml");

    private static final List<String> STRICT =
            List.of("gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1");

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> corpusTracersBuildRunAndMatchBarectfs() throws IOException, InterruptedException {
        Path tracing = BarectfCorpus.root().resolve("tracing");
        Required.that(works(List.of("gcc", "--version"), tmp), "gcc is not installed: tracers not built");
        boolean all = Boolean.getBoolean("hetrace.tracer.allCorpusTracers");
        boolean barectf = Required.ifPresent(
                works(List.of("barectf", "--version"), tmp),
                "barectf is not installed: streams not compared with barectf's");
        List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> groups = Files.list(tracing)) {
            for (Path group : groups.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.walk(group)) {
                    for (Path config : files.filter(f -> f.toString().endsWith(".yaml")
                                    && !f.getParent().equals(group))
                            .sorted()
                            .toList()) {
                        String name = group.getFileName() + "/" + group.relativize(config);
                        if (all || SAMPLE.contains(name)) {
                            tests.add(DynamicTest.dynamicTest(name, () -> check(config, group, name, barectf)));
                        }
                    }
                }
            }
        }
        assertThat(tests).hasSize(all ? 79 : SAMPLE.size());
        return tests.stream();
    }

    private void check(Path config, Path group, String name, boolean barectf) throws Exception {
        Configuration c = ConfigReader.read(config, List.of(group));
        Path dir = Files.createDirectories(tmp.resolve(name.replace('/', '_')));
        String file = c.options().fileNamePrefix();
        String program = CallsProgram.source(c, file + ".h", 256, 40);

        Path ours = Files.createDirectories(dir.resolve("hetrace"));
        for (Map.Entry<String, String> f : CTracer.generate(c).entrySet()) {
            Files.writeString(ours.resolve(f.getKey()), f.getValue());
        }
        Files.writeString(ours.resolve("main.c"), program);
        Files.createDirectories(ours.resolve("trace"));
        Files.writeString(ours.resolve("trace/metadata"), BarectfMetadata.of(c));
        List<String> build = new ArrayList<>(STRICT);
        build.addAll(List.of("-o", "prog", file + ".c", "main.c"));
        run(ours, build);
        run(ours, List.of(ours.resolve("prog").toString(), "trace"));
        List<String> events = TraceEvents.json(ours.resolve("trace"));
        assertThat(events).as("events decoded from hetrace's trace").isNotEmpty();

        if (barectf && c.trace().type().nativeByteOrder() == Configuration.ByteOrder.LITTLE_ENDIAN) {
            Path theirs = Files.createDirectories(dir.resolve("barectf"));
            Files.createDirectories(theirs.resolve("trace"));
            run(theirs, List.of("barectf", "generate", "-I", group.toString(), "-m", "trace", config.toString()));
            Files.writeString(theirs.resolve("main.c"), program);
            run(theirs, List.of("gcc", "-std=c99", "-O1", "-o", "prog", file + ".c", "main.c"));
            run(theirs, List.of(theirs.resolve("prog").toString(), "trace"));
            try (Stream<Path> streams = Files.list(ours.resolve("trace"))) {
                for (Path s : streams.filter(p -> p.getFileName().toString().startsWith("stream_"))
                        .toList()) {
                    assertThat(Files.readAllBytes(s))
                            .as("stream %s identical to barectf's", s.getFileName())
                            .isEqualTo(
                                    Files.readAllBytes(theirs.resolve("trace").resolve(s.getFileName())));
                }
            }
            assertThat(events).isEqualTo(TraceEvents.json(theirs.resolve("trace")));
        }
    }
}
