package dev.hetrace.tracer.shm;

import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.api.PacketCheck;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Drains shm-ring regions (one per core) into the stream files of a CTF trace directory while
 * their producers run, until every producer is done or {@link #stop()} is called. Each slot is
 * checked to hold a packet of the trace ({@link PacketCheck}); one that does not is refused
 * (counted, not written). Each packet is appended with one write, so the trace on disk is valid up to its last whole packet at
 * every moment, and killing the collector loses nothing already written. Stream files are
 * named after the region files. Up to one thread per core (at most 4 by default) drains the
 * regions, each region by one thread.
 */
public final class ShmCollector implements AutoCloseable {
    /**
     * What was drained from one region so far: {@code packets} and {@code bytes} written,
     * {@code refused} slots that held no packet of the trace (given back, not written), the
     * first of them with why in {@code firstRefusal} (null if none).
     */
    public record RingStats(
            Path region,
            long coreId,
            boolean attached,
            boolean done,
            long packets,
            long bytes,
            long eventsDiscarded,
            long refused,
            String firstRefusal) {}

    /** Idle polls spent spinning before parking: a busy ring is drained without sleeping. */
    private static final int SPINS = 100;

    private static final long PARK_NANOS = 200_000;

    private final List<ShmRing> rings = new ArrayList<>();
    private final Path traceDir;
    private volatile boolean stopRequested;
    /** A drain thread failed: the others stop too. */
    private volatile boolean failed;

    private final BooleanSupplier stopping = () -> stopRequested || failed;

    /** The trace's metadata, made when the first producer is seen. */
    @FunctionalInterface
    public interface MetadataSource {
        /**
         * @param producersUuid the trace UUID the producers' packet headers hold, or null if
         *                      they hold none: the metadata must declare the same
         * @throws IOException if this metadata cannot describe those producers' packets
         */
        String metadata(UUID producersUuid) throws IOException;

        /** The metadata as the bytes to write: by default {@link #metadata}'s text in UTF-8; a file's own bytes as they are. */
        default byte[] bytes(UUID producersUuid) throws IOException {
            return metadata(producersUuid).getBytes(StandardCharsets.UTF_8);
        }
    }

    private final MetadataSource metadataSource;
    private static final String METADATA = "metadata";
    private static final String METADATA_TMP = ".metadata.tmp";
    /** What the collector reads, and the files it writes: kept apart ({@link InputOverlap}). */
    private final List<Path> inputs;

    private final List<Path> written;
    /** The metadata, compiled, once written: each slot is checked against it. */
    private PacketCheck.Packets packets;

    private UUID producersUuid;

    /**
     * Prepares to drain {@code regions}, which must exist, into {@code traceDir}
     * ({@link #ShmCollector(List, List, Path, MetadataSource, Consumer)}).
     */
    public ShmCollector(List<Path> regions, Path traceDir, MetadataSource metadataSource) throws IOException {
        this(regions, List.of(), traceDir, metadataSource, null);
    }

    /**
     * Prepares to drain {@code regions} into {@code traceDir} (created if missing); the
     * metadata is written there when the first producer has initialized its region, before
     * any stream file.
     *
     * @param otherInputs the files and directories the metadata is made from: like the regions,
     *                    neither {@code traceDir} nor a file written in it may be or hold one
     * @param waitingFor  told once per region that is not there yet, which is then waited for;
     *                    null: a region that is not there is an error
     * @throws IllegalArgumentException if two regions name the same stream file, or the trace
     *                                  directory or a file written in it is or holds an input
     */
    public ShmCollector(
            List<Path> regions,
            List<Path> otherInputs,
            Path traceDir,
            MetadataSource metadataSource,
            Consumer<Path> waitingFor)
            throws IOException {
        this.traceDir = traceDir;
        this.metadataSource = metadataSource;
        Set<String> names = new HashSet<>();
        List<Path> written = new ArrayList<>(List.of(traceDir.resolve(METADATA), traceDir.resolve(METADATA_TMP)));
        for (Path r : regions) {
            String name = r.getFileName().toString();
            if (name.equals(METADATA) || name.equals(METADATA_TMP) || !names.add(name)) {
                throw new IllegalArgumentException(r + ": the regions' file names name the stream files: they must"
                        + " differ from each other and from '" + METADATA + "'");
            }
            rings.add(new ShmRing(r, traceDir.resolve(name), waitingFor));
            written.add(traceDir.resolve(name));
        }
        inputs = new ArrayList<>(regions);
        inputs.addAll(otherInputs);
        this.written = written;
        InputOverlap.check(traceDir, written, inputs);
        Files.createDirectories(traceDir);
    }

    /** Writes the metadata for the first producer; checks that later ones belong to the same trace. */
    private synchronized void started(ShmRing ring) throws IOException {
        UUID u = ring.uuid();
        try {
            // again: a region created since, or a link made to it, is checked before anything is written
            InputOverlap.check(traceDir, written, inputs);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        if (packets == null) {
            byte[] metadata = metadataSource.bytes(u);
            PacketCheck.Packets compiled;
            try {
                compiled = PacketCheck.Packets.of(MetadataReader.parse(metadata, w -> {}));
            } catch (MetadataException e) {
                throw new IOException("the metadata cannot describe the producers' packets: " + e.getMessage(), e);
            }
            // renamed into place: a reader never sees half a metadata file
            Path tmp = traceDir.resolve(METADATA_TMP);
            Files.write(tmp, metadata);
            Files.move(
                    tmp,
                    traceDir.resolve(METADATA),
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
            packets = compiled;
            producersUuid = u;
        } else if (!Objects.equals(u, producersUuid)) {
            throw new ShmRingException(
                    ring.region,
                    "its tracer writes trace UUID " + u + ", another region's " + producersUuid
                            + ": they are not one trace");
        }
        ring.openStream(packets);
    }

    /**
     * Drain threads by default: one per core, at most 4. One thread already writes several
     * GB/s; a second one keeps draining while the first is descheduled (on a small host shared
     * with the producers), and an idle thread still polls its regions.
     */
    public static int defaultThreads() {
        return Math.min(4, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Drains until every producer is done or {@link #stop()} is called (each packet being
     * written is finished first), with {@link #defaultThreads()} threads at most
     * ({@link #run(Consumer, long, int)}). Calls {@code progress} about every
     * {@code progressNanos} (null: never).
     */
    public void run(Consumer<List<RingStats>> progress, long progressNanos) throws IOException {
        run(progress, progressNanos, defaultThreads());
    }

    /**
     * Drains as {@link #run(Consumer, long)} does, with {@code threads} threads at most, each
     * draining its share of the regions (a region is drained by one thread only). A failure
     * in one thread stops the others after the packet they are writing, then is thrown.
     */
    public void run(Consumer<List<RingStats>> progress, long progressNanos, int threads) throws IOException {
        int n = Math.max(1, Math.min(threads, rings.size()));
        if (n == 1) {
            drainLoop(rings, progress, progressNanos);
            return;
        }
        List<List<ShmRing>> shares = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            shares.add(new ArrayList<>());
        }
        for (int i = 0; i < rings.size(); i++) {
            shares.get(i % n).add(rings.get(i));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> drainers = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            List<ShmRing> share = shares.get(t);
            drainers.add(CtfReader.decodingThreads()
                    .name("hetrace-collect-" + t)
                    .start(() -> {
                        try {
                            drainLoop(share, null, 0);
                        } catch (Throwable e) {
                            if (failure.compareAndSet(null, e)) {
                                failed = true;
                            } else {
                                failure.get().addSuppressed(e);
                            }
                        }
                    }));
        }
        boolean interrupted = false;
        for (Thread d : drainers) {
            while (d.isAlive()) {
                try {
                    d.join(progress == null ? 0 : Math.max(1, progressNanos / 1_000_000));
                } catch (InterruptedException e) {
                    // the drainers are told to stop, and are waited for: they own the files
                    interrupted = true;
                    stop();
                }
                if (progress != null && d.isAlive()) {
                    progress.accept(stats());
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable e = failure.get();
        if (e instanceof IOException io) {
            throw io;
        } else if (e instanceof RuntimeException re) {
            throw re;
        } else if (e instanceof Error err) {
            throw err;
        }
    }

    /** Drains {@code share} (polling each region in turn) until all are finished or a stop is requested. */
    private void drainLoop(List<ShmRing> share, Consumer<List<RingStats>> progress, long progressNanos)
            throws IOException {
        long nextProgress = System.nanoTime() + progressNanos;
        int idle = 0;
        while (!stopping.getAsBoolean()) {
            int drained = 0;
            boolean allDone = true;
            // indexed: no iterator per pass
            for (int i = 0; i < share.size(); i++) {
                ShmRing ring = share.get(i);
                if (!ring.attached()) {
                    if (!ring.attach()) {
                        allDone = false;
                        continue;
                    }
                    started(ring);
                }
                drained += ring.drain(stopping);
                if (!ring.finished()) {
                    allDone = false;
                }
            }
            if (allDone) {
                break;
            }
            if (progress != null && System.nanoTime() - nextProgress >= 0) {
                progress.accept(stats());
                nextProgress = System.nanoTime() + progressNanos;
            }
            if (drained > 0) {
                idle = 0;
            } else if (++idle < SPINS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    }

    /** Makes {@link #run} return after the packets being written; callable from any thread (e.g. a shutdown hook). */
    public void stop() {
        stopRequested = true;
    }

    public List<RingStats> stats() {
        return rings.stream().map(ShmRing::stats).toList();
    }

    public Path traceDir() {
        return traceDir;
    }

    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (ShmRing r : rings) {
            try {
                r.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
