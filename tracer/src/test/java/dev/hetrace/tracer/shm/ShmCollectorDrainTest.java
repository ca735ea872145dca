package dev.hetrace.tracer.shm;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.hetrace.ctf.api.CtfReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
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
        try (ShmCollector c =
                new ShmCollector(regions, dir.resolve("trace"), u -> SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN))) {
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
        assertThat(dir.resolve("trace").resolve("metadata")).hasContent(SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void packetsBeyondTheFirst2GiBOfARegionAreDrained() throws Exception {
        int slot = 1 << 20;
        int slots = 3000;
        // slots 2500 and 2501: about 2.5 GB into the region
        Path region = region("dsp", 5, slot, slots, 2502, 2500);
        try (ShmCollector c = new ShmCollector(
                List.of(region), dir.resolve("trace"), u -> SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN))) {
            c.run(null, 0);
        }
        assertThat(Files.readAllBytes(dir.resolve("trace").resolve("dsp")))
                .isEqualTo(expectedStream(5, slot, 2500, 2502));
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
        try (ShmCollector c =
                new ShmCollector(regions, dir.resolve("trace"), u -> SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN))) {
            assertThatThrownBy(() -> c.run(null, 0, 2))
                    .isInstanceOf(ShmRingException.class)
                    .hasMessageContaining("bad: inconsistent indexes: 20 packets published, 2 drained, 8 slots");
        }
    }

    @Test
    void slotsThatHoldNoPacketOfTheTraceAreRefusedCountedAndNotWritten() throws Exception {
        int slot = 64;
        Path region = region("dsp", 3, slot, 16, 10, 0);
        byte[] random = new byte[slot];
        new Random(25).nextBytes(random);
        ByteBuffer wrongStream = ByteBuffer.wrap(SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slot, (byte) 0x77))
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(4, 1);
        ByteBuffer bigger = ByteBuffer.wrap(SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slot, (byte) 0x78))
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(8, 2 * slot * 8);
        ByteBuffer smaller = ByteBuffer.wrap(SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slot, (byte) 0x79))
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(8, slot * 8 - 64);
        ByteBuffer contentPastPacket = ByteBuffer.wrap(SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slot, (byte) 0x7a))
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(12, slot * 8 + 8);
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(slot), HEADER_SIZE + 1L * slot);
            ch.write(ByteBuffer.wrap(random), HEADER_SIZE + 2L * slot);
            ch.write(wrongStream, HEADER_SIZE + 4L * slot);
            ch.write(bigger, HEADER_SIZE + 5L * slot);
            ch.write(smaller, HEADER_SIZE + 6L * slot);
            ch.write(contentPastPacket, HEADER_SIZE + 9L * slot);
        }
        Path trace = dir.resolve("trace");
        try (ShmCollector c =
                new ShmCollector(List.of(region), trace, u -> SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN))) {
            c.run(null, 0);
            assertThat(c.stats()).singleElement().satisfies(s -> {
                assertThat(s.refused()).isEqualTo(6);
                assertThat(s.firstRefusal())
                        .isEqualTo(
                                "packet 1 (slot 1): field 'packet_header.magic': bad packet magic 0x00000000 (expected 0xC1FC1FC1)");
                assertThat(s.packets()).isEqualTo(4);
                assertThat(s.bytes()).isEqualTo(4L * slot);
            });
        }
        byte[] written = Files.readAllBytes(trace.resolve("dsp"));
        assertThat(written)
                .isEqualTo(concat(
                        expectedStream(3, slot, 0, 1), expectedStream(3, slot, 3, 4), expectedStream(3, slot, 7, 9)));
        assertThat(consumed(region)).isEqualTo(10);
        long packets = 0;
        try (CtfReader reader = CtfReader.open(trace)) {
            while (reader.next()) {
                packets++;
            }
        }
        assertThat(packets).as("events: the packets hold none").isZero();
    }

    @Test
    void aSlotWhosePacketUuidIsNotTheTracesIsRefused() throws Exception {
        // the packet header carries a UUID: the metadata's, or another
        UUID trace = UUID.fromString("2a3f7a59-8c47-4b8f-9a53-0b0c5c3e5f25");
        String metadata = SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN)
                .replace("major = 1; minor = 8;", "major = 1; minor = 8; uuid = \"" + trace + "\";")
                .replace("uint32_t magic; uint32_t stream_id;", "uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;")
                .replace(
                        "typealias integer { size = 32;",
                        "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\ntypealias integer { size = 32;");
        int slot = 64;
        Path region = region("dsp", 1, slot, 4, 3, 0);
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.WRITE)) {
            for (int n = 0; n < 3; n++) {
                ByteBuffer p = ByteBuffer.allocate(slot).order(ByteOrder.LITTLE_ENDIAN);
                UUID u = n == 1 ? UUID.fromString("00000000-0000-4000-8000-000000000001") : trace;
                // a UUID's bytes in their written order, whatever the trace's byte order
                p.putInt(0xC1FC1FC1)
                        .order(ByteOrder.BIG_ENDIAN)
                        .putLong(u.getMostSignificantBits())
                        .putLong(u.getLeastSignificantBits())
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(0)
                        .putInt(slot * 8)
                        .putInt(32 * 8);
                ch.write(p.flip(), HEADER_SIZE + (long) n * slot);
            }
        }
        try (ShmCollector c = new ShmCollector(List.of(region), dir.resolve("trace"), u -> metadata)) {
            c.run(null, 0);
            assertThat(c.stats()).singleElement().satisfies(s -> {
                assertThat(s.refused()).isEqualTo(1);
                assertThat(s.firstRefusal())
                        .isEqualTo("packet 1 (slot 1): its packet UUID is not the trace UUID " + trace);
                assertThat(s.packets()).isEqualTo(2);
            });
        }
    }

    @Test
    void metadataThatDoesNotParseStopsTheCollectorBeforeAnyStreamFile() throws Exception {
        Path region = region("dsp", 1, 64, 4, 3, 0);
        try (ShmCollector c = new ShmCollector(List.of(region), dir.resolve("trace"), u -> "/* CTF 1.8 */\nnot tsdl")) {
            assertThatThrownBy(() -> c.run(null, 0))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("the metadata cannot describe the producers' packets: ");
        }
        assertThat(dir.resolve("trace").resolve("dsp")).doesNotExist();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    private Path region(String name, int core, int slotSize, int slotCount, long produced, long consumed)
            throws IOException {
        return region(name, core, slotSize, slotCount, produced, consumed, true);
    }

    /** A region whose packet n is padded with bytes {@code core * 16 + n} (low 8 bits); sparse. */
    private Path region(String name, int core, int slotSize, int slotCount, long produced, long consumed, boolean done)
            throws IOException {
        Path region = dir.resolve(name);
        ByteBuffer header = ByteBuffer.allocate(HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(OFF_MAGIC, MAGIC)
                .putShort(OFF_VERSION, (short) VERSION)
                .putShort(OFF_HEADER_SIZE, (short) HEADER_SIZE)
                .putInt(OFF_SLOT_SIZE, slotSize)
                .putInt(OFF_SLOT_COUNT, slotCount)
                .putInt(OFF_CORE_ID, core)
                .putInt(OFF_DONE, done ? 1 : 0)
                .putLong(OFF_PRODUCED, produced)
                .putLong(OFF_CONSUMED, consumed);
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(header, 0);
            for (long n = Math.max(consumed, produced - slotCount); n < produced; n++) {
                byte[] packet = SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slotSize, (byte) (core * 16 + n));
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
            System.arraycopy(
                    SlotPackets.packet(ByteOrder.LITTLE_ENDIAN, slotSize, (byte) (core * 16 + n)),
                    0,
                    b,
                    (int) ((n - from) * slotSize),
                    slotSize);
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
