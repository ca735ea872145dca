package dev.hetrace.tracer.shm;

import static dev.hetrace.tracer.shm.ShmRingLayout.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The collector reads a region in its producer's byte order (a big-endian core's header on a
 * little-endian host) and writes the consumer index back in that order; a region whose indexes
 * make no sense is an error, not garbage in the trace. The regions are written here byte by
 * byte as a producer of either byte order would leave them.
 */
class ShmCollectorByteOrderTest {
    private static final int SLOT = 32;
    private static final int SLOTS = 4;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "big endian {0}")
    @ValueSource(booleans = {false, true})
    void aDoneRegionOfEitherByteOrderIsDrainedInOrderAndItsSlotsGivenBack(boolean bigEndian) throws Exception {
        // 6 packets published, 2 already drained by an earlier collector: slots 2, 3, 0, 1 remain, in that order
        ByteBuffer b = region(bigEndian, 6, 2);
        Path region = Files.write(dir.resolve("dsp0"), b.array());

        try (ShmCollector c =
                new ShmCollector(List.of(region), dir.resolve("trace"), u -> SlotPackets.metadata(order(bigEndian)))) {
            c.run(null, 0);
            assertThat(c.stats()).singleElement().satisfies(s -> {
                assertThat(s.coreId()).isEqualTo(7);
                assertThat(s.packets()).isEqualTo(4);
                assertThat(s.eventsDiscarded()).isEqualTo(42);
                assertThat(s.done()).isTrue();
            });
        }
        byte[] stream = Files.readAllBytes(dir.resolve("trace").resolve("dsp0"));
        byte[] expected = new byte[4 * SLOT];
        for (int k = 0; k < 4; k++) {
            System.arraycopy(SlotPackets.packet(order(bigEndian), SLOT, (byte) (2 + k)), 0, expected, k * SLOT, SLOT);
        }
        assertThat(stream).isEqualTo(expected);
        ByteBuffer after = ByteBuffer.wrap(Files.readAllBytes(region))
                .order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        assertThat(after.getLong(OFF_CONSUMED)).isEqualTo(6);
    }

    @Test
    void moreUnreadPacketsThanSlotsIsAnError() throws Exception {
        Path region = Files.write(dir.resolve("dsp0"), region(false, 9, 2).array());
        try (ShmCollector c = new ShmCollector(
                List.of(region), dir.resolve("trace"), u -> SlotPackets.metadata(ByteOrder.LITTLE_ENDIAN))) {
            assertThatThrownBy(() -> c.run(null, 0))
                    .isInstanceOf(ShmRingException.class)
                    .hasMessageContaining("dsp0: inconsistent indexes: 9 packets published, 2 drained, 4 slots");
        }
    }

    private static ByteOrder order(boolean bigEndian) {
        return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    /** A done region whose packet n is padded with the byte n. */
    private static ByteBuffer region(boolean bigEndian, long produced, long consumed) {
        ByteBuffer b = ByteBuffer.allocate((int) regionSize(SLOT, SLOTS))
                .order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        b.putInt(OFF_MAGIC, MAGIC)
                .putShort(OFF_VERSION, (short) VERSION)
                .putShort(OFF_HEADER_SIZE, (short) HEADER_SIZE)
                .putInt(OFF_SLOT_SIZE, SLOT)
                .putInt(OFF_SLOT_COUNT, SLOTS)
                .putInt(OFF_CORE_ID, 7)
                .putInt(OFF_DONE, 1)
                .putLong(OFF_EVENTS_DISCARDED, 42)
                .putLong(OFF_PRODUCED, produced)
                .putLong(OFF_CONSUMED, consumed);
        for (long n = Math.max(consumed, produced - SLOTS); n < produced; n++) {
            System.arraycopy(
                    SlotPackets.packet(b.order(), SLOT, (byte) n),
                    0,
                    b.array(),
                    HEADER_SIZE + (int) (n % SLOTS) * SLOT,
                    SLOT);
        }
        return b;
    }
}
