package dev.hetrace.ctf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The heap behind every merge, against a sorted set of (key, id): the same least id after every step. */
class IndexHeapTest {
    @Property(tries = 200)
    void theTopIsAlwaysTheLeastKeyThenTheLeastId(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 40) int ids,
            @ForAll @IntRange(min = 1, max = 1000) int keyRange) {
        Random r = new Random(seed);
        long[] keys = new long[ids];
        IndexHeap byKeys = new IndexHeap(ids, keys);
        // the same order given as an Order, so that both ways of comparing are checked alike
        IndexHeap byOrder = new IndexHeap(ids, (a, b) -> keys[a] < keys[b] || (keys[a] == keys[b] && a < b));
        Comparator<Integer> order =
                Comparator.<Integer>comparingLong(i -> keys[i]).thenComparingInt(i -> i);
        TreeSet<Integer> truth = new TreeSet<>(order);
        boolean[] in = new boolean[ids];
        for (int step = 0; step < 500; step++) {
            int what = r.nextInt(3);
            if (what == 0) { // a source comes in
                int id = r.nextInt(ids);
                if (!in[id]) {
                    keys[id] = r.nextInt(keyRange) - keyRange / 2;
                    in[id] = true;
                    truth.add(id);
                    byKeys.push(id);
                    byOrder.push(id);
                }
            } else if (what == 1 && !truth.isEmpty()) { // the top moves on (its key grows, ties included)
                int top = truth.pollFirst();
                keys[top] += r.nextInt(3) == 0 ? 0 : r.nextInt(keyRange);
                truth.add(top);
                byKeys.topChanged();
                byOrder.topChanged();
            } else if (!truth.isEmpty()) { // the top ends
                int top = truth.pollFirst();
                in[top] = false;
                assertThat(byKeys.pop()).isEqualTo(top);
                assertThat(byOrder.pop()).isEqualTo(top);
            }
            assertThat(byKeys.size()).isEqualTo(truth.size());
            if (!truth.isEmpty()) {
                assertThat(byKeys.peek()).as("step %d", step).isEqualTo(truth.first());
                assertThat(byOrder.peek()).isEqualTo(truth.first());
                Integer second = truth.higher(truth.first());
                int expectedSecond = second == null ? -1 : second;
                assertThat(byKeys.peekSecond()).isEqualTo(expectedSecond);
            }
        }
    }
}
