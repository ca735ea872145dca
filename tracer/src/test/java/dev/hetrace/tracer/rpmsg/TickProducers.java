package dev.hetrace.tracer.rpmsg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.tracer.Processes;
import dev.hetrace.tracer.TraceEvents;
import dev.hetrace.tracer.c.CTracer;
import dev.hetrace.tracer.config.ConfigReader;
import dev.hetrace.tracer.config.Configuration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The producer processes of the rpmsg and remoteproc-trace tests: the tracer of rpmsg.yaml (a
 * core tracing `tick` events whose fields follow from their number) with a platform, built by
 * gcc with strict warnings and the address and undefined-behaviour sanitizers.
 */
final class TickProducers {
    private TickProducers() {}

    /**
     * Writes the tracer and the files of its platform (made by {@code platformOf}) into
     * {@code dir}, with the producer program {@code program} (a resource), and builds
     * {@code producer} with {@code flags} added; returns the configuration.
     */
    static Configuration build(
            Path dir, Function<Configuration, Map<String, String>> platformOf, String program, String... flags)
            throws Exception {
        Required.that(Processes.works(List.of("gcc", "--version"), dir), "gcc is not installed: producer not built");
        Path yaml = dir.resolve("rpmsg.yaml");
        Files.writeString(yaml, resource("rpmsg.yaml"));
        Configuration config = ConfigReader.read(yaml, List.of(dir));
        writeAll(dir, CTracer.generate(config));
        Map<String, String> platform = platformOf.apply(config);
        writeAll(dir, platform);
        Files.writeString(dir.resolve(program), resource(program));
        List<String> cc = new ArrayList<>(List.of(
                "gcc",
                "-std=c99",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-g",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all"));
        cc.addAll(List.of(flags));
        cc.addAll(List.of("-o", "producer", "rm.c"));
        platform.keySet().stream().filter(f -> f.endsWith(".c")).forEach(cc::add);
        cc.add(program);
        Processes.run(dir, cc);
        return config;
    }

    /** The producers a test started, killed after it if still running (a failed test must not leave them spinning). */
    static final class Started {
        private final List<Process> processes = new ArrayList<>();

        /** Starts {@code cmd} in {@code dir}, its standard error inherited. */
        Process start(Path dir, List<String> cmd) throws IOException {
            Process p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            processes.add(p);
            return p;
        }

        void killAll() throws InterruptedException {
            for (Process p : processes) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * The words of the last line a producer wrote, "sent" then its counts, once it has ended
     * (within {@code timeoutSeconds}) with status 0.
     */
    static String[] sent(Process p, long timeoutSeconds) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("producer: %s", out).isZero();
        String[] f = out.lines().reduce((a, b) -> b).orElseThrow().split(" ");
        assertThat(f[0]).isEqualTo("sent");
        return f;
    }

    /** The trace holds the ticks 0 to {@code events - 1}, each whole, read alike by babeltrace2 if installed. */
    static void assertEveryEvent(Path trace, long events) throws Exception {
        long next = 0;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                Event e = reader.event();
                assertThat(e.getLong("seq")).isEqualTo(next);
                assertThat(e.getLong("value")).isEqualTo((int) (next * 7) - 1000);
                assertThat(e.getString("msg")).isEqualTo("event " + next);
                assertThat(e.timeNanos()).isEqualTo(1000 + next * 10);
                next++;
            }
        }
        assertThat(next).isEqualTo(events);
        Optional<String> bt2 = TraceEvents.babeltrace2(trace);
        if (bt2.isPresent()) {
            assertThat(bt2.get().lines().count()).isEqualTo(events);
            assertThat(bt2.get()).isEqualTo(TraceEvents.babeltraceText(trace));
        }
    }

    static void writeAll(Path dir, Map<String, String> files) throws IOException {
        for (Map.Entry<String, String> f : files.entrySet()) {
            Files.writeString(dir.resolve(f.getKey()), f.getValue());
        }
    }

    static String resource(String name) throws IOException {
        try (InputStream in = TickProducers.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
