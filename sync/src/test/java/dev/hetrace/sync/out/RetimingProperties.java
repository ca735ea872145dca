package dev.hetrace.sync.out;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.sync.ClockTransform;
import dev.hetrace.sync.out.SynchronizedCopy.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** Whatever the drift and offset, each route gives every event its transformed time, as it says. */
class RetimingProperties {
    private static Path dir;
    private static Path trace;
    private static long first;

    @BeforeContainer
    static void writeTrace() throws Exception {
        dir = Files.createTempDirectory("retiming");
        trace = dir.resolve("trace");
        SynchronizedCopyTest.writeFieldsEverywhere(trace, 1_000_000_000L);
        first = SynchronizedCopyTest.firstNanos(trace);
    }

    @AfterContainer
    static void removeTrace() throws Exception {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Property(tries = 25)
    void bothRoutesPutEveryEventAtItsTransformedTime(
            @ForAll @LongRange(min = -200_000, max = 200_000) long driftPpb,
            @ForAll @LongRange(min = -86_400_000_000_000L, max = 86_400_000_000_000L) long offset)
            throws Exception {
        ClockTransform transform = new ClockTransform(first, first + offset, driftPpb * 1e-9);
        Path packets = Files.createTempDirectory(dir, "p");
        Path metadata = Files.createTempDirectory(dir, "m");

        CopyReport p = SynchronizedCopy.write(trace, transform, packets, Method.PACKETS);
        CopyReport m = SynchronizedCopy.write(trace, transform, metadata, Method.METADATA);

        assertThat(p.maxErrorNanos()).isZero();
        SynchronizedCopyTest.assertRetimed(trace, packets, transform::apply, 0);
        SynchronizedCopyTest.assertRetimed(trace, metadata, transform::apply, m.maxErrorNanos() + 2);
    }
}
