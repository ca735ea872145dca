package dev.hetrace.tracer.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.metadata.MetadataReader;
import dev.hetrace.ctf.metadata.TraceClass;
import dev.hetrace.tracer.BarectfCorpus;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * For every configuration of barectf's tracing tests, the trace class read (by hetrace's CTF
 * reader) from hetrace's metadata equals the one read from the metadata barectf generated,
 * environment aside.
 */
class BarectfMetadataTest {
    @TestFactory
    Stream<DynamicTest> metadataDescribesTheSameTraceClassAsBarectfs() throws IOException {
        Path root = BarectfCorpus.root();
        Path tracing = root.resolve("tracing");
        Path expected = root.resolve("tracing-expected-metadata");
        List<DynamicTest> tests = new ArrayList<>();
        try (Stream<Path> groups = Files.list(tracing)) {
            for (Path group : groups.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.walk(group)) {
                    for (Path config : files.filter(f -> f.toString().endsWith(".yaml"))
                            .sorted()
                            .toList()) {
                        String rel = group.relativize(config).toString();
                        Path expect = expected.resolve(group.getFileName())
                                .resolve(rel.substring(0, rel.length() - ".yaml".length()) + ".metadata.expect");
                        if (!Files.isRegularFile(expect)) {
                            continue; // a partial configuration of the group (base.yaml...), not a test
                        }
                        tests.add(DynamicTest.dynamicTest(
                                group.getFileName() + "/" + rel, () -> check(config, group, expect)));
                    }
                }
            }
        }
        assertThat(tests).as("tracing configurations with expected metadata").hasSize(79);
        return tests.stream();
    }

    private static void check(Path config, Path group, Path expect) throws Exception {
        Configuration c = ConfigReader.read(config, List.of(group));
        String ours = BarectfMetadata.of(c);
        TraceClass actual = MetadataReader.parse(ours.getBytes(StandardCharsets.UTF_8), w -> {});
        TraceClass wanted = MetadataReader.parse(Files.readAllBytes(expect), w -> {});
        String diff = TraceClassDiff.firstDifference(actual, wanted);
        assertThat(diff)
                .as("first difference (hetrace vs barectf) for %s; hetrace's metadata:%n%s", config, ours)
                .isNull();
    }
}
