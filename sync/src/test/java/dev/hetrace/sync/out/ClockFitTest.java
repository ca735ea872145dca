package dev.hetrace.sync.out;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.metadata.ClockClass;
import dev.hetrace.sync.ClockTransform;
import java.math.BigDecimal;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class ClockFitTest {
    private static final long S = 1_000_000_000L;
    private static final ClockClass GHZ = new ClockClass("c", null, null, S, 1, 1_700_000_000L, 0, false);

    @Test
    void theIdentityIsTheClockItself() {
        long first = 1_700_000_100L * S;
        ClockFit fit = ClockFit.of(GHZ, ClockTransform.IDENTITY, first, first + 60 * S);

        assertThat(fit.frequency()).isEqualTo(S);
        assertThat(fit.offsetSeconds()).isEqualTo(1_700_000_000L);
        assertThat(fit.offsetCycles()).isZero();
        assertThat(fit.maxErrorNanos()).isEqualByComparingTo(BigDecimal.ZERO);
    }

    @Test
    void aWholeSecondOffsetMovesOnlyOffsetS() {
        long first = 1_700_000_100L * S;
        ClockFit fit = ClockFit.of(GHZ, new ClockTransform(0, -3 * 3600 * S, 0), first, first + 60 * S);

        assertThat(fit.frequency()).isEqualTo(S);
        assertThat(fit.offsetSeconds()).isEqualTo(1_700_000_000L - 3 * 3600);
        assertThat(fit.offsetCycles()).isZero();
        assertThat(fit.maxErrorWholeNanos()).isZero();
    }

    @Test
    void aDriftDividesTheFrequencyAndTheErrorGrowsWithTheSpan() {
        long first = 1_700_000_100L * S;
        ClockTransform drift = new ClockTransform(first, first - 3 * 3600 * S, 37e-6);

        ClockFit second = ClockFit.of(GHZ, drift, first, first + S);
        ClockFit hour = ClockFit.of(GHZ, drift, first, first + 3600 * S);

        assertThat(second.frequency()).isEqualTo(Math.round(1e9 / (1 + 37e-6)));
        assertThat(second.offsetCycles()).isBetween(0L, second.frequency() - 1);
        assertThat(second.maxErrorWholeNanos()).isLessThanOrEqualTo(1);
        assertThat(hour.maxErrorNanos()).isGreaterThan(new BigDecimal(100));
    }

    @Test
    void theNewClockGivesTheMiddleOfTheSpanItsTransformedTime() {
        long first = 1_700_000_100L * S;
        long last = first + 10 * S;
        ClockTransform drift = new ClockTransform(first, first - 3 * 3600 * S, -20e-6);
        ClockFit fit = ClockFit.of(GHZ, drift, first, last);
        ClockClass after = fit.applyTo(GHZ);

        long mid = (first + last) / 2;
        long cycles = mid - GHZ.baseOffsetNanos();
        assertThat(after.nanosFromOrigin(cycles)).isCloseTo(drift.apply(mid), Offset.offset(2L));
    }
}
