package dev.hetrace.profile.perf;

import dev.hetrace.profile.ProfileException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running stressing co-runner: the memory kernel on each of its cores (one process per core,
 * pinned there), or, without gcc, Java threads striding an array (labelled {@code java}). Its
 * stress level sets its duty cycle: level L of {@link #MAX_LEVEL} spends L/MAX of its time
 * accessing memory in bursts and the rest in idle spins (METrICS' NOPs between accesses); level 0
 * is no co-runner at all, level {@link #MAX_LEVEL} accesses continuously.
 */
public final class Stressor implements AutoCloseable {

    /** The continuous level. */
    public static final int MAX_LEVEL = 8;

    /** Co-runners still running: killed if hetrace is, rather than left spinning on their cores. */
    private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "hetrace-stressor-cleanup"));
    }

    private final List<Process> processes;
    private final List<BufferedReader> outputs = new ArrayList<>();
    private final List<JavaStress> threads;
    private StressReport report;

    private Stressor(List<Process> processes, List<JavaStress> threads) {
        this.processes = processes;
        this.threads = threads;
    }

    /** The duty cycle of a level: level / {@link #MAX_LEVEL}. */
    public static double duty(int level) {
        if (level < 0 || level > MAX_LEVEL) {
            throw new ProfileException(
                    "stress level " + level + " is out of range: 0 (off) to " + MAX_LEVEL + " (continuous)");
        }
        return (double) level / MAX_LEVEL;
    }

    /**
     * Starts the co-runner on each of {@code cpus} and returns once every core is accessing its
     * buffer. {@code seconds} > 0 ends it by itself after that long ({@link #awaitEnd}); else it
     * runs until {@link #stop}. Without a kernel, the Java fallback runs.
     */
    public static Stressor start(
            StressorSpec spec, int level, List<Integer> cpus, double seconds, Optional<MemoryKernel> kernel) {
        double duty = duty(level);
        if (level == 0) {
            return new Stressor(List.of(), List.of());
        }
        if (kernel.isEmpty()) {
            List<JavaStress> ts = new ArrayList<>();
            for (int cpu : cpus) {
                ts.add(JavaStress.start(spec, duty, cpu, seconds));
            }
            return new Stressor(List.of(), ts);
        }
        List<Process> ps = new ArrayList<>();
        Stressor s = new Stressor(ps, List.of());
        try {
            for (int cpu : cpus) {
                Process p = new ProcessBuilder(kernel.get().command(spec.arguments(duty, cpu, seconds)))
                        .redirectErrorStream(true)
                        .start();
                ps.add(p);
                LIVE.add(p);
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                s.outputs.add(out);
                String first = out.readLine();
                if (!"ready".equals(first)) {
                    s.close();
                    throw new ProfileException("the stressor on CPU " + cpu + " did not start: "
                            + (first == null ? "it exited with status " + p.waitFor() : first));
                }
            }
        } catch (IOException e) {
            s.close();
            throw new ProfileException(
                    "cannot start the stressor " + kernel.get().binary() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            s.close();
            Thread.currentThread().interrupt();
            throw new ProfileException("interrupted while starting the stressor");
        }
        return s;
    }

    /** {@code gcc} or {@code java}: which co-runner runs. */
    public String engine() {
        return threads.isEmpty() ? "gcc" : "java";
    }

    /** Asks every core to stop (SIGTERM) and returns what they did. */
    public StressReport stop() {
        if (report == null) {
            // SIGTERM through the handle: Process.destroy would also close the pipe that carries the report
            processes.forEach(p -> p.toHandle().destroy());
            threads.forEach(JavaStress::stop);
            report = collect();
        }
        return report;
    }

    /** Waits for a timed co-runner to end by itself and returns what it did. */
    public StressReport awaitEnd() {
        if (report == null) {
            report = collect();
        }
        return report;
    }

    private StressReport collect() {
        List<StressReport> parts = new ArrayList<>();
        try {
            for (int i = 0; i < processes.size(); i++) {
                Process p = processes.get(i);
                String out = String.join("\n", outputs.get(i).lines().toList());
                p.waitFor(30, TimeUnit.SECONDS);
                LIVE.remove(p);
                String last = out.lines()
                        .filter(l -> l.startsWith("accesses="))
                        .reduce((a, b) -> b)
                        .orElse(null);
                if (last == null) {
                    throw new ProfileException("the stressor (pid " + p.pid() + ") gave no report"
                            + (out.isBlank()
                                    ? ""
                                    : ": " + out.lines().findFirst().orElse("")));
                }
                parts.add(StressReport.parse("gcc", last));
            }
            for (JavaStress t : threads) {
                parts.add(t.await());
            }
        } catch (java.io.UncheckedIOException e) {
            throw new ProfileException("cannot read the stressor's report: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProfileException("interrupted while stopping the stressor");
        }
        return StressReport.sum(parts);
    }

    /** Stops the co-runner if still running. */
    @Override
    public void close() {
        processes.forEach(Process::destroyForcibly);
        processes.forEach(LIVE::remove);
        threads.forEach(JavaStress::stop);
    }

    /** The fallback co-runner: a thread striding a long[] with the same duty cycle, pinned through sched_setaffinity. */
    private static final class JavaStress {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private volatile StressReport report;

        private JavaStress(StressorSpec spec, double duty, int cpu, double seconds) {
            this.thread = Thread.ofPlatform()
                    .daemon()
                    .name("hetrace-stressor-cpu" + cpu)
                    .unstarted(() -> {
                        pin(cpu);
                        report = loop(spec, duty, seconds);
                    });
        }

        static JavaStress start(StressorSpec spec, double duty, int cpu, double seconds) {
            JavaStress s = new JavaStress(spec, duty, cpu, seconds);
            s.thread.start();
            return s;
        }

        void stop() {
            stop.set(true);
        }

        StressReport await() throws InterruptedException {
            thread.join();
            return report;
        }

        private StressReport loop(StressorSpec spec, double duty, double seconds) {
            long[] buf = new long[(int) Math.min(Integer.MAX_VALUE - 8, spec.bytes() / 8)];
            for (int i = 0; i < buf.length; i++) {
                buf[i] = i;
            }
            int step = (int) (spec.stride() / 8 % buf.length);
            int op = spec.access().ordinal();
            long count = 0;
            long sink = 0;
            long busy = 0;
            long idle = 0;
            int idx = 0;
            long start = System.nanoTime();
            while (!stop.get()) {
                long t0 = System.nanoTime();
                for (int k = 0; k < 1024; k++) {
                    switch (op) {
                        case 0 -> sink += buf[idx];
                        case 1 -> buf[idx] = count + k;
                        default -> buf[idx]++;
                    }
                    idx += step;
                    if (idx >= buf.length) {
                        idx -= buf.length;
                    }
                }
                count += 1024;
                long t1 = System.nanoTime();
                busy += t1 - t0;
                if (duty < 1) {
                    double want = busy * (1 - duty) / duty;
                    while (idle < want && !stop.get()) {
                        Thread.onSpinWait();
                        long t2 = System.nanoTime();
                        idle += t2 - t1;
                        t1 = t2;
                    }
                }
                if (seconds > 0 && t1 - start >= seconds * 1e9) {
                    break;
                }
            }
            double s = (System.nanoTime() - start) / 1e9;
            if (sink == 42) {
                Thread.onSpinWait();
            }
            return new StressReport("java", count, s, count / s, count * 8.0 / s, busy / 1e9 / s);
        }

        private static void pin(int cpu) {
            if (cpu < 0) {
                return;
            }
            try {
                Linker linker = Linker.nativeLinker();
                MethodHandle setaffinity = linker.downcallHandle(
                        linker.defaultLookup().find("sched_setaffinity").orElseThrow(),
                        FunctionDescriptor.of(
                                ValueLayout.JAVA_INT,
                                ValueLayout.JAVA_INT,
                                ValueLayout.JAVA_LONG,
                                ValueLayout.ADDRESS));
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment set = arena.allocate(128);
                    set.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
                    int unused = (int) setaffinity.invokeExact(0, 128L, set);
                }
            } catch (Throwable e) {
                // not pinned: the fallback still stresses, wherever the scheduler puts it
            }
        }
    }
}
