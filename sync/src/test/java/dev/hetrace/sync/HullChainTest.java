package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The hull chain holds every point on its side, keeps only input points, and stays strictly convex. */
class HullChainTest {
    @Property(tries = 40)
    void theChainBoundsEveryPointWhateverTheOrderAndTheBatches(
            @ForAll boolean upper, @ForAll @IntRange(min = 1, max = 80_000) int n, @ForAll long seed) {
        Random r = new Random(seed);
        long[] x = new long[n];
        long[] y = new long[n];
        HullChain chain = new HullChain(upper);
        Set<String> input = new HashSet<>();
        for (int i = 0; i < n; i++) {
            // hour-long spans at the epoch, offsets a few microseconds apart: the real scale
            x[i] = 1_763_000_000_000_000_000L + (long) (r.nextDouble() * 3_600_000_000_000L);
            y[i] = (long) (r.nextGaussian() * 5_000) + (r.nextInt(4) == 0 ? x[i] / 1_000_000 : 0);
            chain.add(x[i], y[i]);
            input.add(x[i] + "," + y[i]);
        }
        int m = chain.size();
        assertThat(chain.points()).isEqualTo(n);
        for (int i = 0; i < m; i++) {
            assertThat(input).contains(chain.x(i) + "," + chain.y(i));
            if (i > 0) {
                assertThat(chain.x(i)).isGreaterThan(chain.x(i - 1));
            }
            if (i > 1) {
                int turn = HullChain.compareProducts(
                        chain.x(i - 1) - chain.x(i - 2),
                        chain.y(i) - chain.y(i - 2),
                        chain.y(i - 1) - chain.y(i - 2),
                        chain.x(i) - chain.x(i - 2));
                assertThat(turn).isEqualTo(upper ? -1 : 1);
            }
        }
        for (int k = 0; k < n; k++) {
            // the chain's segment over x[k]: the point is on its side
            int j = 0;
            while (j < m - 1 && chain.x(j + 1) < x[k]) {
                j++;
            }
            if (m == 1) {
                assertThat(x[k]).isEqualTo(chain.x(0));
                assertThat(upper ? y[k] <= chain.y(0) : y[k] >= chain.y(0)).isTrue();
                continue;
            }
            int side = HullChain.compareProducts(
                    chain.x(j + 1) - chain.x(j), y[k] - chain.y(j), chain.y(j + 1) - chain.y(j), x[k] - chain.x(j));
            assertThat(upper ? side <= 0 : side >= 0)
                    .as("point %d,%d", x[k], y[k])
                    .isTrue();
        }
    }
}
