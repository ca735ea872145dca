package dev.hetrace.sync;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceClockTest {
    private static final String UUID = "6a7f8b42-1d2c-4c3e-9a1b-0123456789ab";

    @Test
    void oneClockSampledTwiceMapsByTheDifferenceOfItsOrigins() {
        TraceClock kernel = new TraceClock(UUID, "monotonic", 1_000_000_000L, false, 1_700_000_000_000_000_123L);
        TraceClock ust = new TraceClock(UUID, "monotonic", 1_000_000_000L, false, 1_700_000_000_000_000_100L);
        assertThat(ust.to(kernel)).isEqualTo(new ClockTransform(0, 23, 0));
    }

    @Test
    void aClockWhoseOffsetDoesNotFitIsNeverRelatedByItsOffsetEvenWhenAbsolute() {
        TraceClock fits = new TraceClock(null, "c", 1_000_000_000L, true, 0);
        TraceClock past = new TraceClock(null, "c", 1_000_000_000L, true, Long.MIN_VALUE);
        assertThat(fits.to(fits)).isEqualTo(ClockTransform.IDENTITY);
        assertThat(past.to(fits)).isNull();
        assertThat(fits.to(past)).isNull();
        TraceClock samePast = new TraceClock(UUID, "c", 1_000_000_000L, false, Long.MIN_VALUE);
        assertThat(samePast.to(samePast)).isNull();
    }
}
