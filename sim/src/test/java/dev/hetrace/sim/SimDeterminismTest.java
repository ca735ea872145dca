package dev.hetrace.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run is a function of its configuration and seed: same seed, same bytes; another seed, another run. */
class SimDeterminismTest {
    @TempDir
    Path dir;

    private static Map<String, byte[]> files(Path root) throws Exception {
        Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(p).toString(), Files.readAllBytes(p));
            }
        }
        return files;
    }

    @Test
    void theSameSeedWritesTheSameBytesAndAnotherSeedOthers() throws Exception {
        SimConfig config = SimConfig.sobel(42)
                .withFaults(List.of(Fault.parse("preempt:dsp1,dsp2", 8), Fault.parse("drift-jump:dsp4", 8)));
        Map<String, byte[]> a = files(
                Simulation.sobel(config, dir.resolve("a")).groundTruthFile().getParent());
        Map<String, byte[]> b = files(
                Simulation.sobel(config, dir.resolve("b")).groundTruthFile().getParent());
        Map<String, byte[]> c =
                files(Simulation.sobel(SimConfig.sobel(43).withFaults(config.faults()), dir.resolve("c"))
                        .groundTruthFile()
                        .getParent());
        assertThat(a.keySet())
                .isEqualTo(b.keySet())
                .isEqualTo(c.keySet())
                .contains(
                        "ground-truth.json",
                        "master/metadata",
                        "master/channel0_0",
                        "master/channel0_1",
                        "dsp0/metadata",
                        "dsp0/stream");
        for (String f : a.keySet()) {
            assertThat(a.get(f)).as(f).isEqualTo(b.get(f));
        }
        for (String f : List.of("ground-truth.json", "master/channel0_0", "master/channel0_1", "dsp3/stream")) {
            assertThat(a.get(f)).as(f).isNotEqualTo(c.get(f));
        }
    }

    @Test
    void aFaultLeavesTheBoardsClocksAsTheyWere() throws Exception {
        GroundTruth plain =
                Simulation.sobel(SimConfig.sobel(44), dir.resolve("plain")).truth();
        GroundTruth faulty = Simulation.sobel(
                        SimConfig.sobel(44)
                                .withFaults(List.of(
                                        Fault.parse("drift-jump:dsp2", 8), Fault.parse("preempt:dsp1,dsp2", 8))),
                        dir.resolve("faulty"))
                .truth();
        for (GroundTruth.CoreTruth c : plain.cores()) {
            ClockModel k = faulty.core(c.name()).clock();
            assertThat(k.originCycles()).isEqualTo(c.clock().originCycles());
            assertThat(k.driftPpm()).isEqualTo(c.clock().driftPpm());
            assertThat(k.jumps()).isEqualTo(c.name().equals("dsp2"));
        }
    }
}
