package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code --begin} and {@code --end} read times, and what they refuse. */
class BeginEndOptionsTest {
    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    /** 2023-11-14 22:13:20 UTC, in nanoseconds. */
    private static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void secondsFromTheEpochHaveAFractionNotANanosecondCount() {
        assertThat(TimeBound.parse("1700000000", UTC).resolve(0, UTC)).isEqualTo(T0);
        assertThat(TimeBound.parse("1700000000.5", UTC).resolve(0, UTC)).isEqualTo(T0 + 500_000_000);
        assertThat(TimeBound.parse("1700000000.000000360", UTC).resolve(0, UTC)).isEqualTo(T0 + 360);
        assertThat(TimeBound.parse("-1.5", UTC).resolve(0, UTC)).isEqualTo(-1_500_000_000L);
        // hetrace's own form, as its JSON output writes times
        assertThat(TimeBound.parse("1700000000000000360ns", UTC).resolve(0, UTC))
                .isEqualTo(T0 + 360);
    }

    @Test
    void datesAndTimesAreInTheLocalTimeZone() {
        assertThat(TimeBound.parse("2023-11-14 22:13:20.000000390", UTC).resolve(0, UTC))
                .isEqualTo(T0 + 390);
        assertThat(TimeBound.parse("2023-11-14 23:13:20.000000390", PARIS).resolve(0, PARIS))
                .isEqualTo(T0 + 390);
        assertThat(TimeBound.parse("2023-11-14 22:13", UTC).resolve(0, UTC)).isEqualTo(T0 - 20 * 1_000_000_000L);
        assertThat(TimeBound.parse("2023-11-15", UTC).resolve(0, UTC))
                .isEqualTo(T0 + (86_400L - 80_000) * 1_000_000_000L);
    }

    @Test
    void aTimeOfDayTakesTheDateOfTheFirstTimedPacket() {
        TimeBound t = TimeBound.parse("22:13:20.0000004", UTC);
        assertThat(t).isInstanceOf(TimeBound.TimeOfDay.class);
        assertThat(t.resolve(T0 + 5_000, UTC)).isEqualTo(T0 + 400);
        // The same instant is the 14th in UTC but the 15th in Tokyo: the date follows the zone.
        ZoneId tokyo = ZoneId.of("Asia/Tokyo");
        assertThat(TimeBound.parse("07:13:20", tokyo).resolve(T0, tokyo)).isEqualTo(T0);
        assertThat(TimeBound.parse("08:00", UTC).resolve(T0, UTC))
                .isEqualTo(T0 - (14 * 3600 + 13 * 60 + 20) * 1_000_000_000L);
    }

    @Test
    void otherFormsAreRefusedWithTheAcceptedOnes() {
        for (String bad : List.of("1:2:3", "22:13:20.1234567891", "+5", " 12", "12:00 tomorrow", "")) {
            assertThatThrownBy(() -> TimeBound.parse(bad, UTC))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("HH:MM[:SS[.NANO]]");
        }
        assertThatThrownBy(() -> TimeBound.parse("99999999999999999999", UTC)).hasMessageContaining("out of range");
    }

    @Test
    void aBadTimeIsAUsageError() throws IOException {
        Path trace = LossyTrace.write(tmp.resolve("t"));
        var run = Babeltrace2ComparisonTest.run(false, List.of("print", trace.toString(), "--begin=noon"));
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("hetrace: invalid time 'noon'").hasLineCount(1);
        run = Babeltrace2ComparisonTest.run(
                false, List.of("print", trace.toString(), "--begin=22:13:21", "--end=22:13:20"));
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("hetrace: --begin (22:13:21, 1700000001000000000 ns) is after --end");
    }

    @Test
    void streamsWithoutAClockCannotBeTrimmed() throws IOException {
        Path trace = Files.createDirectories(tmp.resolve("clockless"));
        Files.writeString(trace.resolve("metadata"), """
            /* CTF 1.8 */
            trace { major = 1; minor = 8; byte_order = le; };
            stream { event.header := struct { integer { size = 8; } id; }; };
            event { name = "e"; id = 0; fields := struct { integer { size = 8; } v; }; };
            """);
        Files.write(trace.resolve("stream"), new byte[] {0, 42});
        var run = Babeltrace2ComparisonTest.run(false, List.of("print", trace.toString(), "--end=12"));
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err())
                .isEqualTo("hetrace: --begin/--end need event times, but stream "
                        + trace.resolve("stream").toAbsolutePath() + " has no clock\n");
    }
}
