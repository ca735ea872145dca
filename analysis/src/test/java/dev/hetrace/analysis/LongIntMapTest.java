package dev.hetrace.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/** {@link LongIntMap} does what a {@link HashMap} does, through growth and backward-shift removals. */
class LongIntMapTest {

    @Property(tries = 300)
    void behavesAsAHashMap(
            @ForAll @Size(max = 400) List<@IntRange(min = 0, max = 2) Integer> kinds,
            @ForAll @Size(min = 400, max = 400) List<@LongRange(min = -40, max = 60) Long> keys,
            @ForAll @Size(min = 400, max = 400) List<Integer> values) {
        LongIntMap map = new LongIntMap();
        Map<Long, Integer> expected = new HashMap<>();
        for (int k = 0; k < kinds.size(); k++) {
            long key = keys.get(k) * 1024; // keys that share low bits: long probe runs
            int value = values.get(k) == LongIntMap.ABSENT ? 0 : values.get(k);
            switch (kinds.get(k)) {
                case 0 -> {
                    map.put(key, value);
                    expected.put(key, value);
                }
                case 1 ->
                    assertThat(map.remove(key))
                            .isEqualTo(expected.containsKey(key) ? expected.remove(key) : LongIntMap.ABSENT);
                default -> assertThat(map.get(key)).isEqualTo(expected.getOrDefault(key, LongIntMap.ABSENT));
            }
            assertThat(map.size()).isEqualTo(expected.size());
        }
        for (long key = -40 * 1024; key <= 60 * 1024; key += 1024) {
            assertThat(map.get(key)).isEqualTo(expected.getOrDefault(key, LongIntMap.ABSENT));
        }
    }
}
