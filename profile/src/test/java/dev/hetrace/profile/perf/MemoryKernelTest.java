package dev.hetrace.profile.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory kernel compiled with gcc: the stressor's levels, its report on SIGTERM, the workloads, the Java fallback. */
class MemoryKernelTest {
    @TempDir
    static Path cache;

    static MemoryKernel kernel;

    private static final StressorSpec L2_READ = StressorSpec.parse("256K:stride=64:rw=read");

    @BeforeAll
    static void compile() {
        PerfAvailable.assumeGcc();
        kernel = MemoryKernel.in(cache).orElseThrow();
    }

    @Test
    void theKernelIsCompiledOnceAndReusedWhileItsSourceIsUnchanged() throws Exception {
        Path bin = kernel.binary();
        assertThat(bin).isExecutable().startsWith(cache);
        var modified = Files.getLastModifiedTime(bin);
        assertThat(MemoryKernel.in(cache).orElseThrow().binary()).isEqualTo(bin);
        assertThat(Files.getLastModifiedTime(bin)).isEqualTo(modified);
        assertThat(Files.readString(bin.resolveSibling("hetrace-memkernel.c"))).isEqualTo(MemoryKernel.SOURCE);
    }

    @Test
    void aTimedStressorReportsNonZeroBandwidthAtTheEnd() {
        for (var access : StressorSpec.Access.values()) {
            StressorSpec spec = new StressorSpec("256K", 256 << 10, 64, access);
            try (Stressor s = Stressor.start(
                    spec, Stressor.MAX_LEVEL, List.of(PerfAvailable.other()), 0.3, Optional.of(kernel))) {
                StressReport r = s.awaitEnd();
                assertThat(r.engine()).isEqualTo("gcc");
                assertThat(r.accesses()).as(access.name()).isPositive();
                assertThat(r.seconds()).isBetween(0.3, 30.0);
                assertThat(r.bytesPerSecond())
                        .isEqualTo(
                                r.accessesPerSecond() * 8,
                                org.assertj.core.data.Offset.offset(r.bytesPerSecond() * 1e-6));
                assertThat(r.duty()).isGreaterThan(0.9);
            }
        }
    }

    @Test
    void anUntimedStressorReportsWhatItDidWhenStopped() throws Exception {
        try (Stressor s = Stressor.start(L2_READ, 4, List.of(PerfAvailable.first()), 0, Optional.of(kernel))) {
            Thread.sleep(200);
            StressReport r = s.stop();
            assertThat(r.accesses()).isPositive();
            assertThat(r.seconds()).isGreaterThanOrEqualTo(0.15);
        }
    }

    @Test
    void theKernelReportsOnSigint() throws Exception {
        Process p = new ProcessBuilder(kernel.command(L2_READ.arguments(1, -1, 0)))
                .redirectErrorStream(true)
                .start();
        var out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()));
        assertThat(out.readLine()).isEqualTo("ready");
        Thread.sleep(200); // a signal right after "ready" may come before the first access: let it stress a while
        new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        String report = out.readLine();
        assertThat(report).startsWith("accesses=");
        assertThat(StressReport.parse("gcc", report).accesses()).isPositive();
    }

    @Test
    void higherLevelsAccessALargerShareOfTheTimeEachNearLevelEighths() {
        List<Double> duties = new ArrayList<>();
        for (int level : new int[] {1, 2, 4, 8}) {
            try (Stressor s =
                    Stressor.start(L2_READ, level, List.of(PerfAvailable.other()), 0.2, Optional.of(kernel))) {
                double duty = s.awaitEnd().duty();
                assertThat(duty).as("level " + level).isCloseTo(level / 8.0, org.assertj.core.data.Offset.offset(0.08));
                duties.add(duty);
            }
        }
        assertThat(duties).isSorted();
    }

    @Test
    void levelZeroIsNoCoRunnerAndALevelOutOfRangeIsRefused() {
        try (Stressor s = Stressor.start(L2_READ, 0, List.of(1), 0, Optional.of(kernel))) {
            assertThat(s.stop()).isEqualTo(StressReport.NONE);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Stressor.duty(9))
                .hasMessage("stress level 9 is out of range: 0 (off) to 8 (continuous)");
    }

    @Test
    void aStressorOnACpuThatDoesNotExistSaysSo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> Stressor.start(L2_READ, 8, List.of(4095), 0, Optional.of(kernel)))
                .hasMessageStartingWith(
                        "the stressor on CPU 4095 did not start: hetrace memory kernel: cannot run on CPU 4095");
    }

    @Test
    void theWorkloadsMakeTheirAccessesAndEnd() throws Exception {
        for (String spec : List.of(
                "chase:size=1M:accesses=200K",
                "stream:size=1M:accesses=300K:stride=128:rw=rmw",
                "chase:size=64:accesses=1K",
                "stream:size=64K:accesses=1K:stride=1M:rw=write")) {
            WorkloadSpec w = WorkloadSpec.parse(spec);
            Process p = new ProcessBuilder(kernel.command(w.arguments()))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor()).as(out).isZero();
            assertThat(StressReport.parse("gcc", out.strip()).accesses()).isEqualTo(w.accesses());
        }
    }

    @Test
    void withoutGccAJavaThreadStressesInsteadLabelledSo() {
        try (Stressor s = Stressor.start(L2_READ, 4, List.of(PerfAvailable.first()), 0.2, Optional.empty())) {
            assertThat(s.engine()).isEqualTo("java");
            StressReport r = s.awaitEnd();
            assertThat(r.engine()).isEqualTo("java");
            assertThat(r.accesses()).isPositive();
            assertThat(r.duty()).as(r.toString()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(0.15));
        }
    }
}
