package dev.hetrace.profile.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Which events to count in which run when a core has fewer counter registers than events are
 * wanted (METrICS: ~50 events about shared resources, 4–6 registers). Two plans:
 *
 * <ul>
 * <li><b>every event</b>: ⌈N/R⌉ runs, the minimum, events dealt out in order, the runs as equal
 * in size as possible;</li>
 * <li><b>every pair</b>: runs of at most R events such that any two events are counted together
 * in some run (so that their correlation can be measured): a covering design C(N, R, 2). The
 * smallest number of runs is at least the Schönheim bound L(N, R) = ⌈N/R · ⌈(N−1)/(R−1)⌉⌉
 * (each event must meet N − 1 others, at most R − 1 per run it is in). The plan is the best
 * of a projective-plane construction (when N ≤ q² + q + 1 for the prime q = R − 1, the lines
 * of PG(2, q) cover every pair of its points exactly once: the bound itself when N = q² + q + 1)
 * and of seeded greedy coverings (each run grown from the event with the most uncovered pairs
 * by the event that covers the most new pairs, redundant runs dropped), each tried
 * {@link #GREEDY_TRIES} times; then, as Nurmela and Östergård's covering search, one run fewer
 * is tried again and again: the run whose loss uncovers the fewest pairs is dropped, and a
 * simulated annealing moves events between runs (an uncovered pair's second event replaces
 * another in a run holding the first) until every pair is covered again, or gives up after
 * {@link #ANNEALING_MOVES} moves.</li>
 * </ul>
 *
 * @param events    the events, in the order given
 * @param registers counter registers per run
 * @param pairs     whether every pair is covered, not only every event
 * @param runs      the events of each run
 * @param lowerBound the fewest runs any plan can have: ⌈N/R⌉, or the Schönheim bound for pairs
 */
public record CounterPlan(List<String> events, int registers, boolean pairs, List<List<String>> runs, int lowerBound) {

    public static final int GREEDY_TRIES = 64;
    public static final int ANNEALING_MOVES = 400_000;

    public CounterPlan {
        events = List.copyOf(events);
        runs = runs.stream().map(List::copyOf).toList();
    }

    /** The plan's runs over the lower bound (1.0 is optimal). */
    public double factor() {
        return (double) runs.size() / lowerBound;
    }

    /** The plan that counts every event once, in ⌈N/R⌉ runs. */
    public static CounterPlan everyEvent(List<String> events, int registers) {
        check(events, registers);
        int n = events.size();
        int count = (n + registers - 1) / registers;
        List<List<String>> runs = new ArrayList<>();
        int at = 0;
        for (int i = 0; i < count; i++) {
            // the first n mod count runs take one more: sizes differ by at most one
            int size = n / count + (i < n % count ? 1 : 0);
            runs.add(events.subList(at, at + size));
            at += size;
        }
        return new CounterPlan(events, registers, false, runs, count);
    }

    /** A plan that counts every pair of events together in some run. */
    public static CounterPlan everyPair(List<String> events, int registers) {
        check(events, registers);
        int n = events.size();
        if (n <= registers) {
            return new CounterPlan(events, registers, true, List.of(events), 1);
        }
        if (registers < 2) {
            throw new IllegalArgumentException("pairs of events need at least 2 counter registers, not " + registers);
        }
        int[][] best = projective(n, registers);
        for (int t = 0; t < GREEDY_TRIES; t++) {
            int[][] g = greedy(n, registers, new SplittableRandom(t));
            if (best == null || g.length < best.length) {
                best = g;
            }
        }
        best = shrink(n, registers, best, new SplittableRandom(n * 31L + registers));
        List<List<String>> runs = new ArrayList<>();
        for (int[] b : best) {
            runs.add(Arrays.stream(b).sorted().mapToObj(events::get).toList());
        }
        return new CounterPlan(events, registers, true, runs, schonheim(n, registers));
    }

    /** The Schönheim lower bound on the runs of R events that cover every pair of N events. */
    public static int schonheim(int n, int r) {
        if (n <= r) {
            return 1;
        }
        long inner = ceilDiv(n - 1, r - 1);
        return (int) ceilDiv((long) n * inner, r);
    }

    /** Whether every event is in some run (and, for a pairs plan, every pair), and no run exceeds the registers. */
    public boolean covers() {
        int n = events.size();
        BitSet seen = new BitSet(n);
        BitSet pair = new BitSet(n * n);
        for (List<String> run : runs) {
            if (run.size() > registers || new LinkedHashSet<>(run).size() != run.size()) {
                return false;
            }
            int[] idx = run.stream().mapToInt(events::indexOf).toArray();
            for (int a : idx) {
                if (a < 0) {
                    return false;
                }
                seen.set(a);
                for (int b : idx) {
                    pair.set(a * n + b);
                }
            }
        }
        if (seen.cardinality() != n) {
            return false;
        }
        if (pairs) {
            for (int a = 0; a < n; a++) {
                for (int b = a + 1; b < n; b++) {
                    if (!pair.get(a * n + b)) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static void check(List<String> events, int registers) {
        if (registers < 1) {
            throw new IllegalArgumentException("the number of counter registers must be at least 1, not " + registers);
        }
        if (events.isEmpty()) {
            throw new IllegalArgumentException("no events to plan");
        }
        if (new LinkedHashSet<>(events).size() != events.size()) {
            throw new IllegalArgumentException("an event is listed twice: " + events);
        }
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * The lines of PG(2, q), q = r − 1 prime, restricted to the first n of its q² + q + 1 points
     * (lines left with fewer than two of them dropped, unless a point would be left out); null
     * when q is not prime or n is larger than the plane.
     */
    static int[][] projective(int n, int r) {
        int q = r - 1;
        if (q < 2 || !java.math.BigInteger.valueOf(q).isProbablePrime(30) || n > q * q + q + 1) {
            return null;
        }
        // points and lines are the normalized nonzero vectors of GF(q)³: first nonzero coordinate 1
        List<int[]> points = new ArrayList<>();
        for (int a = 0; a < q; a++) {
            for (int b = 0; b < q; b++) {
                points.add(new int[] {1, a, b});
            }
        }
        for (int b = 0; b < q; b++) {
            points.add(new int[] {0, 1, b});
        }
        points.add(new int[] {0, 0, 1});
        List<int[]> blocks = new ArrayList<>();
        BitSet covered = new BitSet(n);
        for (int[] line : points) {
            List<Integer> on = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                int[] x = points.get(p);
                if ((line[0] * x[0] + line[1] * x[1] + line[2] * x[2]) % q == 0) {
                    on.add(p);
                }
            }
            if (on.size() >= 2) {
                blocks.add(on.stream().mapToInt(Integer::intValue).toArray());
                on.forEach(covered::set);
            }
        }
        if (covered.cardinality() < n) {
            return null;
        }
        return blocks.toArray(int[][]::new);
    }

    /** A greedy covering of the pairs of n points by blocks of r, ties broken by {@code random}. */
    static int[][] greedy(int n, int r, SplittableRandom random) {
        boolean[][] covered = new boolean[n][n];
        int[] open = new int[n];
        Arrays.fill(open, n - 1);
        long remaining = (long) n * (n - 1) / 2;
        List<int[]> blocks = new ArrayList<>();
        while (remaining > 0) {
            int[] block = new int[r];
            boolean[] in = new boolean[n];
            int size = 0;
            // the point with the most uncovered pairs starts the block
            int first = argmax(n, random, p -> open[p]);
            block[size++] = first;
            in[first] = true;
            while (size < r) {
                final int s = size;
                int next = argmax(n, random, p -> {
                    if (in[p]) {
                        return -1;
                    }
                    int gain = 0;
                    for (int i = 0; i < s; i++) {
                        if (!covered[p][block[i]]) {
                            gain++;
                        }
                    }
                    // prefer the gain, then the points with most left to cover
                    return gain * (n + 1) + open[p];
                });
                if (next < 0) {
                    break;
                }
                block[size++] = next;
                in[next] = true;
            }
            int[] b = Arrays.copyOf(block, size);
            for (int i = 0; i < size; i++) {
                for (int j = i + 1; j < size; j++) {
                    int x = b[i];
                    int y = b[j];
                    if (!covered[x][y]) {
                        covered[x][y] = covered[y][x] = true;
                        open[x]--;
                        open[y]--;
                        remaining--;
                    }
                }
            }
            blocks.add(b);
        }
        return dropRedundant(n, blocks).toArray(int[][]::new);
    }

    /** The blocks with one fewer each time the annealing covers every pair again. */
    static int[][] shrink(int n, int r, int[][] start, SplittableRandom random) {
        int[][] best = start;
        while (best.length > schonheim(n, r)) {
            int[][] fewer = anneal(n, r, withoutLeastNeeded(n, best), random);
            if (fewer == null) {
                break;
            }
            best = fewer;
        }
        return best;
    }

    private static int[][] withoutLeastNeeded(int n, int[][] blocks) {
        int[][] times = new int[n][n];
        for (int[] b : blocks) {
            forPairs(b, (x, y) -> times[x][y]++);
        }
        int drop = 0;
        int least = Integer.MAX_VALUE;
        for (int k = 0; k < blocks.length; k++) {
            int[] only = {0};
            forPairs(blocks[k], (x, y) -> only[0] += times[x][y] == 1 ? 1 : 0);
            if (only[0] < least) {
                least = only[0];
                drop = k;
            }
        }
        int[][] out = new int[blocks.length - 1][];
        for (int k = 0, j = 0; k < blocks.length; k++) {
            if (k != drop) {
                // full blocks: a short block gets the points it can take
                out[j++] = blocks[k].clone();
            }
        }
        return out;
    }

    /** Simulated annealing on the blocks (sizes kept) until no pair is uncovered; null when it gives up. */
    static int[][] anneal(int n, int r, int[][] blocks, SplittableRandom random) {
        int[][] b = new int[blocks.length][];
        for (int k = 0; k < blocks.length; k++) {
            b[k] = blocks[k].clone();
        }
        int[] times = new int[n * n];
        // the uncovered pairs (x < y) in an array with swap removal, for a random pick in O(1)
        int[] uncovered = new int[n * n];
        int[] where = new int[n * n];
        Arrays.fill(where, -1);
        int[] count = {0};
        for (int[] blk : b) {
            forPairs(blk, (x, y) -> times[x * n + y]++);
        }
        for (int x = 0; x < n; x++) {
            for (int y = x + 1; y < n; y++) {
                if (times[x * n + y] == 0) {
                    where[x * n + y] = count[0];
                    uncovered[count[0]++] = x * n + y;
                }
            }
        }
        // blocks holding each point
        List<List<Integer>> holding = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            holding.add(new ArrayList<>());
        }
        for (int k = 0; k < b.length; k++) {
            for (int p : b[k]) {
                holding.get(p).add(k);
            }
        }
        double temperature = 1.0;
        for (int move = 0; move < ANNEALING_MOVES && count[0] > 0; move++) {
            if (move % 1000 == 999) {
                temperature *= 0.99;
            }
            int pair = uncovered[random.nextInt(count[0])];
            int x = pair / n;
            int y = pair % n;
            if (random.nextBoolean()) {
                int t = x;
                x = y;
                y = t;
            }
            List<Integer> hx = holding.get(x);
            if (hx.isEmpty()) {
                continue;
            }
            int k = hx.get(random.nextInt(hx.size()));
            int[] blk = b[k];
            int zi = random.nextInt(blk.length);
            int z = blk[zi];
            if (z == x || contains(blk, y)) {
                continue;
            }
            // pairs z loses and y gains with the rest of the block
            int delta = 0;
            for (int p : blk) {
                if (p != z) {
                    if (times[key(n, p, z)] == 1) {
                        delta++;
                    }
                    if (times[key(n, p, y)] == 0) {
                        delta--;
                    }
                }
            }
            if (delta > 0 && random.nextDouble() >= Math.exp(-delta / temperature)) {
                continue;
            }
            for (int p : blk) {
                if (p != z) {
                    int lost = key(n, p, z);
                    if (--times[lost] == 0) {
                        where[lost] = count[0];
                        uncovered[count[0]++] = lost;
                    }
                    int won = key(n, p, y);
                    if (times[won]++ == 0) {
                        int at = where[won];
                        int last = uncovered[--count[0]];
                        uncovered[at] = last;
                        where[last] = at;
                        where[won] = -1;
                    }
                }
            }
            blk[zi] = y;
            holding.get(z).remove(Integer.valueOf(k));
            holding.get(y).add(k);
        }
        return count[0] == 0 ? b : null;
    }

    private static int key(int n, int a, int b) {
        return a < b ? a * n + b : b * n + a;
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    /** Drops blocks whose every pair another block covers too, last blocks first. */
    private static List<int[]> dropRedundant(int n, List<int[]> blocks) {
        int[][] times = new int[n][n];
        for (int[] b : blocks) {
            forPairs(b, (x, y) -> times[x][y]++);
        }
        List<int[]> kept = new ArrayList<>(blocks);
        for (int k = kept.size() - 1; k >= 0; k--) {
            int[] b = kept.get(k);
            boolean[] needed = {false};
            forPairs(b, (x, y) -> needed[0] |= times[x][y] == 1);
            if (!needed[0]) {
                forPairs(b, (x, y) -> times[x][y]--);
                kept.remove(k);
            }
        }
        return kept;
    }

    private interface PairAction {
        void on(int x, int y);
    }

    private static void forPairs(int[] b, PairAction a) {
        for (int i = 0; i < b.length; i++) {
            for (int j = i + 1; j < b.length; j++) {
                a.on(Math.min(b[i], b[j]), Math.max(b[i], b[j]));
            }
        }
    }

    private static int argmax(int n, SplittableRandom random, java.util.function.IntUnaryOperator score) {
        int best = -1;
        int bestScore = -1;
        int ties = 0;
        for (int p = 0; p < n; p++) {
            int s = score.applyAsInt(p);
            if (s < 0) {
                continue;
            }
            if (s > bestScore) {
                best = p;
                bestScore = s;
                ties = 1;
            } else if (s == bestScore && random.nextInt(++ties) == 0) {
                best = p;
            }
        }
        return best;
    }
}
