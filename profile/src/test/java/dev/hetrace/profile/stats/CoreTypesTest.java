package dev.hetrace.profile.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.profile.plan.Experiment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Core types from a CPU topology (a sysfs-shaped tree, and this machine's), from user labels; experiments saved and loaded. */
class CoreTypesTest {

    @TempDir
    Path dir;

    void cpu(int n, String file, long value) throws Exception {
        Path f = dir.resolve("cpu" + n).resolve(file);
        Files.createDirectories(f.getParent());
        Files.writeString(f, value + "\n");
    }

    @Test
    void anOdroidXu4LikeTopologyHasBigAndLittleCores() throws Exception {
        for (int c = 0; c < 8; c++) {
            cpu(c, "cpufreq/cpuinfo_max_freq", c < 4 ? 1_400_000 : 2_000_000);
        }
        Files.createDirectories(dir.resolve("cpufreq"));
        CoreTypes t = CoreTypes.fromTopology(dir);
        assertThat(t.typeOf(0)).isEqualTo("LITTLE");
        assertThat(t.typeOf(7)).isEqualTo("big");
        assertThat(t.typeOf(-1)).isEqualTo(CoreTypes.UNKNOWN);
        assertThat(t.names()).containsExactly("LITTLE", "big");
    }

    @Test
    void capacityWinsOverFrequency() throws Exception {
        for (int c = 0; c < 3; c++) {
            cpu(c, "cpu_capacity", new long[] {160, 512, 1024}[c]);
            cpu(c, "cpufreq/cpuinfo_max_freq", 2_000_000);
        }
        assertThat(CoreTypes.fromTopology(dir).types()).isEqualTo(Map.of(0, "LITTLE", 1, "medium", 2, "big"));
    }

    @Test
    void thisMachineHasOneTypeWhenItsCoresAreAlike() throws Exception {
        CoreTypes t = CoreTypes.ofThisMachine();
        int cpus = Runtime.getRuntime().availableProcessors();
        assertThat(t.types().size()).isGreaterThanOrEqualTo(cpus);
        assertThat(t.names()).isNotEmpty();
    }

    @Test
    void userLabelsAndTheirErrors() {
        assertThat(CoreTypes.parse("0-3=LITTLE,4-7=big").typeOf(5)).isEqualTo("big");
        assertThatThrownBy(() -> CoreTypes.parse("0-3")).hasMessageContaining("'0-3' is not CPU=TYPE");
        assertThatThrownBy(() -> CoreTypes.parse("0-3=a,3=b")).hasMessageContaining("CPU 3 is given two types");
    }

    @Test
    void experimentsSaveAndLoadWithPmcNames() throws Exception {
        Experiment e =
                new Experiment("llc", List.of("instructions", "cycles", "llc_misses"), Map.of("ipc", "pmc0 / pmc1"));
        Path f = dir.resolve("llc.json");
        e.write(f);
        Experiment back = Experiment.read(f);
        assertThat(back).isEqualTo(e);
        double ipc =
                back.parsedMetrics().get(0).formula().evaluate(back.lookup(Map.of("instructions", 3.0, "cycles", 2.0)));
        assertThat(ipc).isEqualTo(1.5);
        double byName = Experiment.read(f)
                .parsedMetrics()
                .get(0)
                .formula()
                .evaluate(back.lookup(Map.of("pmc0", 4.0, "pmc1", 2.0)));
        assertThat(byName).isEqualTo(2.0);
        Files.writeString(f, "{\"name\": \"x\", \"counters\": [], \"metrics\": {\"bad\": \"a + \"}}");
        assertThatThrownBy(() -> Experiment.read(f)).hasMessageStartingWith(f + ": metric bad: ");
        Files.writeString(f, "{\"name\": \"x\",\n \"counters\": 3}");
        assertThatThrownBy(() -> Experiment.read(f)).hasMessageStartingWith(f + ":2:");
    }
}
