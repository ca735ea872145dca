package dev.hetrace.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The Sobel image-filter pipeline: the master waits for an image, asks DSP 0 for
 * memory (a put/get ping-pong), splits the image into one part per slave, each slave filters
 * its part and replies, and the master joins the results; then the next image. The injected
 * faults change the slaves' programs.
 */
final class SobelScenario {
    static final String WORKER = "sobel";
    static final String FILTER = "sobel_filter";
    static final String TILE = "convolve_tile";
    static final int TILES = 4;

    /** The master application's functions and their addresses. */
    static Map<String, Long> symbols() {
        Map<String, Long> s = new LinkedHashMap<>();
        String[] funcs = {"main", "wait_image", "process_image", "alloc_buffers", "split_image", "join_results"};
        for (int i = 0; i < funcs.length; i++) {
            s.put(funcs[i], 0x401000L + 0x180L * i);
        }
        return s;
    }

    private final Board board;
    private final SimConfig config;
    private final MessageQueue allocReply;
    private final MessageQueue results;

    SobelScenario(Board board) {
        this.board = board;
        this.config = board.config;
        allocReply = board.queue(board.master, "alloc_reply");
        results = board.queue(board.master, "results");
    }

    long imageArrival(int k) {
        return config.imageArrivalNanos(k);
    }

    /** The image on which a hang strikes: the first to arrive from its time on, else the second. */
    private int hangImage(Fault.Hang h) {
        if (h.atNanos() < 0) {
            return Math.min(1, config.images() - 1);
        }
        int k = 0;
        while (imageArrival(k) < h.atNanos()) {
            k++;
        }
        return k;
    }

    void install() {
        int n = board.slaves.size();
        MessageQueue[] work = new MessageQueue[n];
        for (int i = 0; i < n; i++) {
            work[i] = board.queue(board.slaves.get(i), "work");
        }
        MessageQueue ctrl = board.queue(board.slaves.getFirst(), "alloc");
        board.master.addTask("sobel", 10, steps(k -> k >= config.images() ? null : masterImage(k, ctrl, work)));
        // DSP 0 serves allocations, above its worker
        board.slaves
                .getFirst()
                .addTask(
                        "alloc_server",
                        3,
                        steps(k -> List.of(
                                new Step.Get(ctrl),
                                new Step.Enter("mem_alloc"),
                                new Step.Compute(150_000),
                                new Step.Exit("mem_alloc"),
                                new Step.Put(allocReply, 64, k))));
        long part = config.processingNanos() * 8 / n;
        for (int i = 0; i < n; i++) {
            Core core = board.slaves.get(i);
            MessageQueue mine = work[i];
            int slave = i;
            board.slaves.get(i).addTask(WORKER, 2, steps(k -> worker(core, slave, k, mine, part)));
        }
        for (Fault f : config.faults()) {
            switch (f) {
                case Fault.Preempt p -> preempt(p);
                case Fault.Crash c -> {
                    Core core = board.slaves.get(c.slave());
                    long at = c.atNanos() >= 0
                            ? c.atNanos()
                            : imageArrival(Math.min(1, config.images() - 1)) + 30_000_000;
                    board.loop.at(at, core::crash);
                    board.truth.fault(new GroundTruth.FaultTruth(
                            "crash", List.of(core.name), at, "the core stops: no more events, no more answers"));
                }
                case Fault.Hang h -> {} // in the worker's program
                case Fault.DriftJump d -> {} // in the clock (Board)
            }
        }
        board.master.start();
        for (Core c : board.slaves) {
            c.start();
        }
    }

    private List<Step> masterImage(int k, MessageQueue ctrl, MessageQueue[] work) {
        List<Step> s = new ArrayList<>();
        s.add(new Step.Enter("wait_image"));
        s.add(new Step.Until(imageArrival(k)));
        s.add(new Step.Exit("wait_image"));
        s.add(new Step.Enter("process_image"));
        s.add(new Step.Enter("alloc_buffers"));
        s.add(new Step.Put(ctrl, 64, k));
        s.add(new Step.Get(allocReply));
        s.add(new Step.Exit("alloc_buffers"));
        s.add(new Step.Enter("split_image"));
        s.add(new Step.Compute(1_500_000 + (long) board.uniform(0, 500_000)));
        for (MessageQueue q : work) {
            s.add(new Step.Put(q, 128, k));
        }
        s.add(new Step.Exit("split_image"));
        s.add(new Step.Enter("join_results"));
        for (int i = 0; i < work.length; i++) {
            s.add(new Step.Get(results));
        }
        s.add(new Step.Exit("join_results"));
        s.add(new Step.Exit("process_image"));
        return s;
    }

    private List<Step> worker(Core core, int slave, int k, MessageQueue mine, long part) {
        boolean hangs = config.faults().stream()
                .anyMatch(f -> f instanceof Fault.Hang h && h.slave() == slave && hangImage(h) == k);
        long work = Math.max(TILES, (long) (part * (1 + 0.005 * board.random.nextDouble(-1, 1))));
        List<Step> s = new ArrayList<>();
        s.add(new Step.Get(mine));
        s.add(new Step.Enter(FILTER));
        for (int t = 0; t < TILES; t++) {
            s.add(new Step.Enter(TILE));
            s.add(new Step.Compute(work / TILES));
            s.add(new Step.Exit(TILE));
            if (hangs && t == 1) {
                // waits for a message (say, a neighbour's border rows) that nobody sends
                MessageQueue never = board.queue(core, "border");
                s.add(new Step.Note(() -> board.truth.fault(new GroundTruth.FaultTruth(
                        "hang",
                        List.of(core.name),
                        board.loop.now(),
                        "the worker waits forever for a message on queue " + never.id))));
                s.add(new Step.Get(never));
                return s;
            }
        }
        s.add(new Step.Exit(FILTER));
        s.add(new Step.Put(results, 64, k));
        return s;
    }

    /** A high-priority task on each core that computes, then messages the next faulty core and waits for the previous one's. */
    private void preempt(Fault.Preempt p) {
        List<Core> cores = p.slaves().stream().map(board.slaves::get).toList();
        MessageQueue[] inbox = new MessageQueue[cores.size()];
        for (int i = 0; i < cores.size(); i++) {
            inbox[i] = board.queue(cores.get(i), "interference");
        }
        long start = p.atNanos() >= 0 ? p.atNanos() : imageArrival(0);
        for (int i = 0; i < cores.size(); i++) {
            MessageQueue next = cores.size() > 1 ? inbox[(i + 1) % cores.size()] : null;
            MessageQueue own = inbox[i];
            cores.get(i).addTask("intruder", 5, steps(k -> {
                List<Step> s = new ArrayList<>();
                if (k == 0) {
                    s.add(new Step.Until(start));
                }
                s.add(new Step.Enter("interfere"));
                s.add(new Step.Compute(2_100_000));
                s.add(new Step.Exit("interfere"));
                if (next != null) {
                    s.add(new Step.Put(next, 256, k));
                }
                s.add(new Step.Sleep(1_000_000));
                if (next != null) {
                    s.add(new Step.Get(own));
                }
                return s;
            }));
        }
        board.truth.fault(new GroundTruth.FaultTruth(
                "preempt",
                cores.stream().map(c -> c.name).toList(),
                start,
                "a priority-5 task computes 2.1 ms of every ~3.1 ms"
                        + (cores.size() > 1 ? " and messages the next core" : "")));
    }

    /** A program made of iterations: iteration {@code k}'s steps, or null when the task ends. */
    private static Task.Program steps(Function<Integer, List<Step>> iteration) {
        ArrayDeque<Step> pending = new ArrayDeque<>();
        int[] k = {0};
        return task -> {
            if (pending.isEmpty()) {
                List<Step> next = iteration.apply(k[0]++);
                if (next == null) {
                    return new Step.Done();
                }
                pending.addAll(next);
            }
            return pending.poll();
        };
    }
}
