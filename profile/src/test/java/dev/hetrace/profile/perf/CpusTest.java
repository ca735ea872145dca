package dev.hetrace.profile.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** CPU lists as Linux writes them (Cpus_allowed_list, taskset -c). */
class CpusTest {
    @Test
    void listsParseAndFormatAsLinuxWritesThem() {
        assertThat(Cpus.parse("0-2,5, 7-8\n")).containsExactly(0, 1, 2, 5, 7, 8);
        assertThat(Cpus.format(List.of(8, 0, 1, 2, 5, 7))).isEqualTo("0-2,5,7-8");
        assertThat(Cpus.format(List.of(3))).isEqualTo("3");
        assertThatThrownBy(() -> Cpus.parse("3-1")).hasMessage("'3-1' is not a CPU list (e.g. 1 or 1,2 or 1-3): '3-1'");
    }

    @Test
    void thisProcessMayRunOnTheCpusItsStatusLists() {
        List<Integer> allowed = Cpus.allowed();
        assertThat(allowed).isNotEmpty().isSorted();
        assertThat(allowed.size()).isLessThanOrEqualTo(Runtime.getRuntime().availableProcessors());
    }
}
