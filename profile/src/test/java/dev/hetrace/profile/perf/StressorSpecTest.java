package dev.hetrace.profile.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.profile.ProfileException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Stressor and workload specs on the command line, and the cache sizes that resolve their targets. */
class StressorSpecTest {
    private static final CacheSizes CACHES = new CacheSizes(32 << 10, 512 << 10, 32 << 20);

    @Test
    void targetsResolveFromTheCachesAndOptionsHaveDefaults() {
        assertThat(StressorSpec.parse("l1", CACHES))
                .isEqualTo(new StressorSpec("l1", 16 << 10, 64, StressorSpec.Access.READ));
        assertThat(StressorSpec.parse("l2:rw=write", CACHES).bytes()).isEqualTo(256 << 10);
        assertThat(StressorSpec.parse("llc:stride=128", CACHES).bytes()).isEqualTo(16 << 20);
        assertThat(StressorSpec.parse("dram:stride=64:rw=rmw", CACHES))
                .isEqualTo(new StressorSpec("dram", 128 << 20, 64, StressorSpec.Access.RMW));
        assertThat(StressorSpec.parse("8M:stride=4K", CACHES).stride()).isEqualTo(4096);
        assertThat(StressorSpec.parse("dram:stride=64:rw=read", CACHES)).hasToString("dram:stride=64:rw=read");
    }

    @Test
    void badSpecsAreOneLineNamingTheSpecAndWhatIsWrong() {
        assertThatThrownBy(() -> StressorSpec.parse("l4", CACHES))
                .isInstanceOf(ProfileException.class)
                .hasMessage("stressor 'l4': 'l4' is not a target: l1, l2, llc, dram or a size such as 64K, 8M");
        assertThatThrownBy(() -> StressorSpec.parse("dram:stride=12", CACHES))
                .hasMessage(
                        "stressor 'dram:stride=12': stride 12 must be a multiple of 8 bytes (the kernel accesses 8-byte words)");
        assertThatThrownBy(() -> StressorSpec.parse("dram:rw=copy", CACHES))
                .hasMessage("stressor 'dram:rw=copy': rw 'copy' is not read, write or rmw");
        assertThatThrownBy(() -> StressorSpec.parse("dram:speed=3", CACHES))
                .hasMessage("stressor 'dram:speed=3': unknown key 'speed' (keys: stride, rw)");
        assertThatThrownBy(() -> StressorSpec.parse("dram:64", CACHES))
                .hasMessage("stressor 'dram:64': '64' is not KEY=VALUE (keys: stride, rw)");
        assertThatThrownBy(() -> StressorSpec.parse("", CACHES))
                .hasMessage("stressor '': the target is missing (l1, l2, llc, dram or a size such as 64K)");
        assertThatThrownBy(() -> WorkloadSpec.parse("matmul", CACHES))
                .hasMessage("workload 'matmul': 'matmul' is not a workload: chase or stream");
        assertThatThrownBy(() -> WorkloadSpec.parse("chase:accesses=-3", CACHES))
                .hasMessage("workload 'chase:accesses=-3': accesses '-3' is not a positive count (e.g. 5M)");
        assertThatThrownBy(() -> WorkloadSpec.parse("chase:level=3", CACHES))
                .hasMessage("workload 'chase:level=3': unknown key 'level' (keys: size, accesses, stride, rw)");
    }

    @Test
    void workloadSpecsCountAccessesInThousandsAndMillions() {
        WorkloadSpec w = WorkloadSpec.parse("chase:size=llc:accesses=5M", CACHES);
        assertThat(w.bytes()).isEqualTo(16 << 20);
        assertThat(w.accesses()).isEqualTo(5_000_000);
        assertThat(WorkloadSpec.parse("stream", CACHES).bytes()).isEqualTo(128 << 20);
        assertThat(WorkloadSpec.parse("stream:accesses=2K", CACHES).accesses()).isEqualTo(2000);
    }

    @Test
    void cacheSizesAreReadFromSysfsDataAndUnifiedCachesOnly(@TempDir Path sys) throws Exception {
        cache(sys, 0, 1, "Data", "48K");
        cache(sys, 1, 1, "Instruction", "32K");
        cache(sys, 2, 2, "Unified", "2048K");
        cache(sys, 3, 3, "Unified", "30720K");
        assertThat(CacheSizes.read(sys)).isEqualTo(new CacheSizes(48 << 10, 2 << 20, 30 << 20));
        assertThat(CacheSizes.read(sys.resolve("absent"))).isEqualTo(CacheSizes.TYPICAL);
    }

    @Test
    void sizesParseWithBinaryUnits() {
        assertThat(CacheSizes.bytes("64K")).isEqualTo(65536);
        assertThat(CacheSizes.bytes("8MB")).isEqualTo(8 << 20);
        assertThat(CacheSizes.bytes("1g")).isEqualTo(1L << 30);
        assertThat(CacheSizes.bytes("4096")).isEqualTo(4096);
        assertThat(CacheSizes.format(256 << 10)).isEqualTo("256K");
        assertThat(CacheSizes.format(100)).isEqualTo("100");
    }

    private static void cache(Path sys, int index, int level, String type, String size) throws Exception {
        Path d = Files.createDirectories(sys.resolve("index" + index));
        Files.writeString(d.resolve("level"), level + "\n");
        Files.writeString(d.resolve("type"), type + "\n");
        Files.writeString(d.resolve("size"), size + "\n");
    }
}
