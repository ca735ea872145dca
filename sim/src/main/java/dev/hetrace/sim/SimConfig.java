package dev.hetrace.sim;

import java.util.List;
import java.util.Locale;

/**
 * What to simulate: the board, the workload, the faults and the tracing parameters. The
 * defaults are the Sobel image-filter pipeline on a Keystone-2-like board.
 *
 * @param slaves           number of bare-metal cores: up to 8 they are C66x-like DSPs (1.2 GHz,
 *                         64-bit counter); more are Epiphany-like eCores (1 GHz, 32-bit counter that wraps)
 * @param seed             the one source of randomness
 * @param faults           injected faults (combinable)
 * @param images           images the master processes
 * @param imagePeriodNanos an image arrives every this often
 * @param processingNanos  time the whole image takes on one core split 8 ways, i.e. each DSP's part
 *                         on the default board (the work is split evenly among the slaves)
 * @param syncPeriodNanos  the sync daemon interrupts each slave this often
 * @param durationNanos    simulated time (0: the images' time plus a margin)
 * @param packetBytes      size of the slaves' trace packets
 * @param ringPackets      packets a slave's trace buffer holds until the master drains them
 * @param drainPeriodNanos the master drains the slaves' buffers this often (each time, every full packet)
 * @param jitterCycles     the slaves' clock reads take up to this many cycles more than the count
 */
public record SimConfig(
        int slaves,
        long seed,
        List<Fault> faults,
        int images,
        long imagePeriodNanos,
        long processingNanos,
        long syncPeriodNanos,
        long durationNanos,
        int packetBytes,
        int ringPackets,
        long drainPeriodNanos,
        int jitterCycles) {
    public static final int MAX_SLAVES = 1024;

    public SimConfig {
        faults = List.copyOf(faults);
        if (slaves < 1 || slaves > MAX_SLAVES) {
            throw new IllegalArgumentException(
                    "--cores " + slaves + ": a board has 1 to " + MAX_SLAVES + " slave cores");
        }
        if (images < 1) {
            throw new IllegalArgumentException("--images " + images + ": at least one image");
        }
        if (syncPeriodNanos < 10_000) {
            throw new IllegalArgumentException("--sync-period: at least 10 us (a handshake takes a few)");
        }
        if (packetBytes < 512) {
            throw new IllegalArgumentException("packets of at least 512 bytes");
        }
        if (ringPackets < 1) {
            throw new IllegalArgumentException("a trace buffer holds at least one packet");
        }
        long end = durationNanos > 0 ? durationNanos : images * imagePeriodNanos + 500_000_000L;
        for (Fault f : faults) {
            if (f.atNanos() < 0) {
                continue;
            }
            String named = String.format(
                    Locale.ROOT,
                    "--inject %s:%s@%.3fs",
                    f.kind(),
                    String.join(",", f.slaves().stream().map(i -> "dsp" + i).toList()),
                    f.atNanos() / 1e9);
            if (f.atNanos() >= end) {
                throw new IllegalArgumentException(
                        String.format(Locale.ROOT, "%s: after the end of the run (%.3f s)", named, end / 1e9));
            }
            if (f instanceof Fault.Hang && f.atNanos() > (images - 1) * imagePeriodNanos + IMAGE_DELAY_NANOS) {
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT,
                        "%s: no image arrives from then on (the last at %.3f s)",
                        named,
                        ((images - 1) * imagePeriodNanos + IMAGE_DELAY_NANOS) / 1e9));
            }
        }
    }

    /** The first image arrives this long after the start. */
    static final long IMAGE_DELAY_NANOS = 1_000_000;

    /** When image {@code k} (from 0) arrives, in true ns. */
    public long imageArrivalNanos(int k) {
        return k * imagePeriodNanos + IMAGE_DELAY_NANOS;
    }

    /** The Sobel image-filter pipeline: 8 DSPs, 5 images 400 ms apart, 96 ms per part, a handshake every 100 ms. */
    public static SimConfig sobel(long seed) {
        return new SimConfig(
                8, seed, List.of(), 5, 400_000_000L, 96_000_000L, 100_000_000L, 0, 4096, 4, 10_000_000L, 0);
    }

    public SimConfig withSlaves(int n) {
        return new SimConfig(
                n,
                seed,
                faults,
                images,
                imagePeriodNanos,
                processingNanos,
                syncPeriodNanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withFaults(List<Fault> f) {
        return new SimConfig(
                slaves,
                seed,
                f,
                images,
                imagePeriodNanos,
                processingNanos,
                syncPeriodNanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withImages(int n, long periodNanos) {
        return new SimConfig(
                slaves,
                seed,
                faults,
                n,
                periodNanos,
                processingNanos,
                syncPeriodNanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withSyncPeriod(long nanos) {
        return new SimConfig(
                slaves,
                seed,
                faults,
                images,
                imagePeriodNanos,
                processingNanos,
                nanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withDuration(long nanos) {
        return new SimConfig(
                slaves,
                seed,
                faults,
                images,
                imagePeriodNanos,
                processingNanos,
                syncPeriodNanos,
                nanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withBuffers(int packetBytes, int ringPackets, long drainPeriodNanos) {
        return new SimConfig(
                slaves,
                seed,
                faults,
                images,
                imagePeriodNanos,
                processingNanos,
                syncPeriodNanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                jitterCycles);
    }

    public SimConfig withJitter(int cycles) {
        return new SimConfig(
                slaves,
                seed,
                faults,
                images,
                imagePeriodNanos,
                processingNanos,
                syncPeriodNanos,
                durationNanos,
                packetBytes,
                ringPackets,
                drainPeriodNanos,
                cycles);
    }

    /** The simulated time: as given, else the images' time plus half a second for the last to finish. */
    public long effectiveDurationNanos() {
        return durationNanos > 0 ? durationNanos : images * imagePeriodNanos + 500_000_000L;
    }

    /** Whether the slaves are Epiphany-like (more than 8). */
    public boolean epiphany() {
        return slaves > 8;
    }
}
