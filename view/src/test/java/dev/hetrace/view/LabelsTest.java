package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.StateBuilder;
import dev.hetrace.analysis.StateModel;
import dev.hetrace.ctf.testing.Required;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The palette: no two names of a trace set share a color, whatever the order they are met in; states are greys. */
class LabelsTest {
    @TempDir
    static Path dir;

    /** The names' colors, checked distinct from each other and from the states' greys, by name. */
    private static Map<String, String> distinct(Labels labels) {
        Map<String, String> byName = new HashMap<>();
        Set<String> names = new HashSet<>();
        Set<String> states = new HashSet<>();
        for (int i = 0; i < labels.size(); i++) {
            String c = labels.color(i);
            assertThat(c).matches("#[0-9a-f]{6}");
            byName.put(labels.name(i), c);
            if (Labels.stateOf(labels.name(i)) >= 0) {
                states.add(c);
            } else {
                assertThat(names.add(c))
                        .as("%s's color %s is another name's", labels.name(i), c)
                        .isTrue();
            }
        }
        assertThat(names).doesNotContainAnyElementsOf(states);
        return byName;
    }

    @Test
    void theDemoBoardsNamesEachHaveTheirOwnColor() throws Exception {
        Timeline t = Timeline.of(FaultBoard.make(dir.resolve("board")).model());
        Map<String, String> colors = distinct(t.labels());
        // the names that shared a color when the color was the name's hash alone
        assertThat(colors.get("intruder")).isNotEqualTo(colors.get("convolve_tile"));
        assertThat(colors.get("sobel")).isNotEqualTo(colors.get("alloc_buffers"));
        assertThat(colors.get("alloc_server")).isNotEqualTo(colors.get("join_results"));
        // the same names met in another order get the same colors
        List<String> names = new ArrayList<>(colors.keySet());
        Collections.shuffle(names, new java.util.Random(7));
        Labels again = new Labels();
        names.forEach(again::id);
        assertThat(distinct(again)).isEqualTo(colors);
    }

    @Test
    void aDesktopKernelTracesThreadsEachHaveTheirOwnColor() throws Exception {
        Path trace = Required.corpus("real", "many-threads");
        StateModel m =
                StateBuilder.build(StateBuilder.synchronize(List.of(trace), w -> {}), StateBuilder.Options.of(w -> {}));
        Timeline t = Timeline.of(m);
        assertThat(t.labels().size()).isGreaterThan(Labels.PALETTE.length);
        distinct(t.labels());
    }

    @Test
    void moreNamesThanHandPickedColorsStillNeverShareOne() {
        SplittableRandom r = new SplittableRandom(3);
        for (int n : new int[] {1, 24, 25, 100, 1000, 5000}) {
            Labels labels = new Labels();
            for (int s = 0; s < 7; s++) {
                labels.id(Labels.state(s));
            }
            while (labels.size() < n + 7) {
                labels.id("name" + r.nextInt(1_000_000));
            }
            distinct(labels);
        }
        assertThat(Labels.palette(24)).hasSize(Labels.PALETTE.length);
        assertThat(Labels.palette(3000)).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(3000);
    }
}
