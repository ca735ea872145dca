package dev.hetrace.tracer.shm;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the collector drains: adjacent packets are appended together, never past the ring's
 * end; several threads share the regions, each stream still in packet order; a ring larger
 * than 2 GiB is drained too; a bad region stops every thread and is reported. The regions are
 * written here as a producer that has finished would leave them (sparse files where large).
 */
class ShmCollectorDrainTest {
    @TempDir
    Path dir;

    @Test
    void eightRegionsDrainedByThreeThreadsEachGetTheirPacketsInOrder() throws Exception {
        List<Path> regions = new ArrayList<>();
        for (int core = 0; core < 8; core++) {
            // 40 packets published, 13 drained before: the ring wraps in the middle of what is left
            regions.add(region("core" + core, core, 64, 32, 13 + 27, 13));
        }
        try (ShmCollector c = new ShmCollector(regions, dir.resolve("trace"), u -> "/* CTF 1.8 */\n")) {
            c.run(null, 0, 3);
            assertThat(c.stats()).hasSize(8).allSatisfy(s -> {
                assertThat(s.packets()).isEqualTo(27);
                assertThat(s.bytes()).isEqualTo(27 * 64);
                assertThat(s.done()).isTrue();
            });
        }
        for (int core = 0; core < 8; core++) {
            assertThat(Files.readAllBytes(dir.resolve("trace").resolve("core" + core)))
                .isEqualTo(expectedStream(core, 64, 13, 40));
            assertThat(consumed(regions.get(core))).isEqualTo(40);
        }
        assertThat(dir.resolve("trace").resolve("metadata")).hasContent("/* CTF 1.8 */");
    }

    @Test
    void packetsBeyondTheFirst2GiBOfARegionAreDrained() throws Exception {
        int slot = 1 << 20;
        int slots = 3000;
        // slots 2500 and 2501: about 2.5 GB into the region
        Path region = region("dsp", 5, slot, slots, 2502, 2500);
        try (ShmCollector c = new ShmCollector(List.of(region), dir.resolve("trace"), u -> "/* CTF 1.8 */\n")) {
            c.run(null, 0);
        }
        assertThat(Files.readAllBytes(dir.resolve("trace").resolve("dsp"))).isEqualTo(expectedStream(5, slot, 2500, 2502));
        assertThat(consumed(region)).isEqualTo(2502);
    }

    @Test
    void aBadRegionStopsEveryThreadAndIsReported() throws Exception {
        List<Path> regions = new ArrayList<>();
        for (int core = 0; core < 4; core++) {
            regions.add(region("core" + core, core, 64, 8, 6, 0));
        }
        // a producer that never finishes: without the failure the other thread would wait for it forever
        regions.add(region("core4", 4, 64, 8, 3, 0, false));
        regions.add(region("bad", 9, 64, 8, 20, 2));
        try (ShmCollector c = new ShmCollector(regions, dir.resolve("trace"), u -> "/* CTF 1.8 */\n")) {
            assertThatThrownBy(() -> c.run(null, 0, 2)).isInstanceOf(ShmRingException.class)
                .hasMessageContaining("bad: inconsistent indexes: 20 packets published, 2 drained, 8 slots");
        }
    }

    private Path region(String name, int core, int slotSize, int slotCount, long produced, long consumed)
            throws IOException {
        return region(name, core, slotSize, slotCount, produced, consumed, true);
    }

    /** A region whose packet n fills its slot with bytes {@code core * 16 + n} (low 8 bits); sparse. */
    private Path region(String name, int core, int slotSize, int slotCount, long produced, long consumed,
            boolean done) throws IOException {
        Path region = dir.resolve(name);
        ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(OFF_MAGIC, MAGIC).putShort(OFF_VERSION, (short) VERSION)
            .putShort(OFF_HEADER_SIZE, (short) HEADER_SIZE).putInt(OFF_SLOT_SIZE, slotSize)
            .putInt(OFF_SLOT_COUNT, slotCount).putInt(OFF_CORE_ID, core).putInt(OFF_DONE, done ? 1 : 0)
            .putLong(OFF_PRODUCED, produced).putLong(OFF_CONSUMED, consumed);
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(header, 0);
            for (long n = Math.max(consumed, produced - slotCount); n < produced; n++) {
                byte[] packet = new byte[slotSize];
                Arrays.fill(packet, (byte) (core * 16 + n));
                ch.write(ByteBuffer.wrap(packet), HEADER_SIZE + (n % slotCount) * slotSize);
            }
            if (ch.size() < regionSize(slotSize, slotCount)) {
                // sparse up to the region's size
                ch.write(ByteBuffer.allocate(1), regionSize(slotSize, slotCount) - 1);
            }
        }
        return region;
    }

    private static byte[] expectedStream(int core, int slotSize, long from, long to) {
        byte[] b = new byte[Math.toIntExact((to - from) * slotSize)];
        for (long n = from; n < to; n++) {
            int at = (int) ((n - from) * slotSize);
            Arrays.fill(b, at, at + slotSize, (byte) (core * 16 + n));
        }
        return b;
    }

    private static long consumed(Path region) throws IOException {
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, OFF_CONSUMED);
            return b.getLong(0);
        }
    }
}
