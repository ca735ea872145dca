package dev.hetrace.sim;

import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.write.CtfWriter;
import dev.hetrace.ctf.write.StreamWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Runs a simulated board and writes what its tracers produced: one CTF trace per core
 * ({@code master} in LTTng-UST's layout, {@code dsp0}, {@code dsp1}, ... in the layout of
 * hetrace's generated tracer) and {@code ground-truth.json}. Everything is a function of the
 * {@link SimConfig}, its seed included: the same configuration gives the same bytes.
 */
public final class Simulation {
    /** Where the run wrote its traces, and what really happened. */
    public record Result(Path master, List<Path> slaves, Path groundTruthFile, GroundTruth truth, long events) {
        /** Every trace, the master's first. */
        public List<Path> traces() {
            List<Path> all = new ArrayList<>();
            all.add(master);
            all.addAll(slaves);
            return all;
        }
    }

    private Simulation() {}

    /**
     * Simulates the Sobel scenario of {@code config} and writes its traces into {@code out},
     * which must be absent or empty.
     */
    public static Result sobel(SimConfig config, Path out) throws IOException {
        checkOut(out);
        Board board = new Board(config, SobelScenario.symbols());
        new SobelScenario(board).install();
        board.startSyncDaemon();
        board.startDraining();
        board.run();

        Files.createDirectories(out);
        long events = board.masterLog.events();
        Path master = out.resolve("master");
        UUID uuid = new UUID(0x48455452_41434500L ^ config.seed(), config.slaves());
        String masterTsdl =
                MasterTracer.metadata(uuid, board.master.clock.frequencyHz(), board.master.clock.offsetSeconds());
        write(master, masterTsdl, board.masterLog, 2, 4096, true);
        List<Path> slaves = new ArrayList<>();
        for (int i = 0; i < board.slaves.size(); i++) {
            Core core = board.slaves.get(i);
            Path dir = out.resolve(core.name);
            SlaveTraceClass cls = board.slaveClasses.get(core.clock.frequencyHz());
            write(
                    dir,
                    cls.metadata(core.name, place(i, board.slaves.size())),
                    board.slaveLogs.get(i),
                    1,
                    config.packetBytes(),
                    false);
            slaves.add(dir);
            events += board.slaveLogs.get(i).events();
        }
        Path truthFile = out.resolve("ground-truth.json");
        board.truth.write(truthFile);
        return new Result(master, slaves, truthFile, board.truth, events);
    }

    /** The cores of an Epiphany-like chip. */
    static final int CHIP_CORES = 16;

    /** The cores of a cluster: four chips, a 2×2 tile of the mesh. */
    static final int CLUSTER_CORES = 64;

    /**
     * Where slave {@code i} of {@code n} sits, as its trace's environment says it: past one chip,
     * on Epiphany-like 16-core chips ({@code chip}: chip0, chip1...), and past one cluster, in
     * clusters of four chips, 2×2 tiles of the chips' mesh ({@code cluster}: cluster0...); 1,024
     * cores are 16 clusters of 4 chips. Empty for a board of one chip.
     */
    static Map<String, String> place(int i, int n) {
        if (n <= CHIP_CORES) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        if (n > CLUSTER_CORES) {
            out.put("cluster", "cluster" + i / CLUSTER_CORES);
        }
        out.put("chip", "chip" + i / CHIP_CORES);
        return out;
    }

    private static void checkOut(Path out) throws IOException {
        if (Files.isDirectory(out)) {
            try (Stream<Path> s = Files.list(out)) {
                if (s.findAny().isPresent()) {
                    throw new IOException(out + ": not empty (the simulator writes into an absent or empty directory)");
                }
            }
        } else if (Files.exists(out)) {
            throw new IOException(out + ": not a directory");
        }
    }

    /**
     * Simulates the i.MX8-like board of {@code config} and writes into {@code out} (absent or
     * empty) {@code linux/} (LTTng-UST's layout, a stream per Cortex-A core), {@code m0/} ...
     * (Zephyr's CTF: its metadata and one packetless stream each) and {@code ground-truth.json}.
     * The result's master is the Linux trace.
     */
    public static Result imx8(Imx8Config config, Path out) throws IOException {
        checkOut(out);
        Imx8Board board = new Imx8Board(config);
        board.run();
        Files.createDirectories(out);
        Path linux = out.resolve("linux");
        UUID uuid = new UUID(0x494d5838_52504d00L ^ config.seed(), config.mCores());
        write(
                linux,
                LinuxRpmsgTracer.metadata(uuid, board.linuxClock.offsetSeconds()),
                board.linuxLog,
                Imx8Board.A_CORES,
                4096,
                true);
        long events = board.linuxLog.events();
        List<Path> cores = new ArrayList<>();
        for (Imx8Board.ZephyrCore m : board.mCores) {
            Path dir = out.resolve(m.name);
            m.tracer.write(dir);
            cores.add(dir);
            events += m.tracer.events();
        }
        Path truthFile = out.resolve("ground-truth.json");
        board.truth.write(truthFile);
        return new Result(linux, cores, truthFile, board.truth, events);
    }

    private static void write(Path dir, String tsdl, TraceLog log, int streams, int packetBytes, boolean lttng)
            throws IOException {
        try (CtfWriter trace = CtfWriter.create(dir, tsdl)) {
            long streamClass = trace.metadata().streams().firstKey();
            List<StreamWriter> writers = new ArrayList<>();
            for (int s = 0; s < streams; s++) {
                StreamWriter w = trace.stream(streamClass, s, lttng ? "channel0_" + s : "stream")
                        .packetSize(packetBytes);
                if (lttng) {
                    w.packetContext("cpu_id", (long) s);
                }
                writers.add(w);
            }
            log.replay(writers);
        } catch (MetadataException e) {
            throw new IllegalStateException(dir + ": the simulator's metadata does not parse: " + e.getMessage(), e);
        }
    }
}
