package dev.hetrace.ctf.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.EventsByPosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Whatever the writer writes (variants and sequences tagged and sized by earlier fields, fields
 * at any bit alignment, barectf's and LTTng's event headers with compact timestamps, packets of
 * several sizes), every event is found again by its position with the fields a read in order gives.
 */
class EventPositionPropertyTest {
    @Property(tries = 100)
    void everyWrittenEventIsFoundAgainByItsPosition(@ForAll Random random) throws Exception {
        Path dir = Files.createTempDirectory("hetrace-positions");
        try {
            long written = RoundTripProperties.write(random, dir, false).events().values().stream()
                    .mapToLong(List::size)
                    .sum();
            assertThat(EventsByPosition.findEveryEventAgain(dir, random.nextLong()))
                    .hasSize((int) written);
        } finally {
            RoundTripProperties.delete(dir);
        }
    }
}
