package dev.hetrace.cli;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code --begin} or {@code --end} time, read as babeltrace2 2.0.4's trimmer reads it:
 * <ul>
 *   <li>{@code YYYY-MM-DD HH:MM[:SS[.NANO]]} or {@code YYYY-MM-DD}: a date and time in the
 *       local time zone;</li>
 *   <li>{@code HH:MM[:SS[.NANO]]}: a time of day in the local time zone, on the date of the
 *       first timed message of the traces;</li>
 *   <li>{@code [-]SEC[.NANO]}: seconds from the epoch.</li>
 * </ul>
 * NANO has one to nine digits and is a fraction: {@code .5} is half a second. hetrace adds
 * {@code [-]NANOSns}, nanoseconds from the epoch, as its JSON output writes times.
 */
sealed interface TimeBound {
    long NS_PER_S = 1_000_000_000L;

    /** Nanoseconds from the epoch, given the time of the traces' first timed message. */
    long resolve(long firstTimeNanos, ZoneId zone);

    /** A time that needs no date from the traces. */
    record Absolute(long nanos) implements TimeBound {
        @Override
        public long resolve(long firstTimeNanos, ZoneId zone) {
            return nanos;
        }
    }

    /** A time of day, on the date (in {@code zone}) of the first timed message. */
    record TimeOfDay(int hour, int minute, int second, int nano) implements TimeBound {
        @Override
        public long resolve(long firstTimeNanos, ZoneId zone) {
            // babeltrace2 truncates the first time to whole seconds toward zero, like C division.
            LocalDate date = Instant.ofEpochSecond(firstTimeNanos / NS_PER_S)
                    .atZone(zone)
                    .toLocalDate();
            return localNanos(date, hour, minute, second, nano, zone);
        }
    }

    Pattern DATE_TIME = Pattern.compile(
            "([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\\.([0-9]{1,9}))?)?");
    Pattern DATE = Pattern.compile("([0-9]{4})-([0-9]{2})-([0-9]{2})");
    Pattern TIME = Pattern.compile("([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\\.([0-9]{1,9}))?)?");
    Pattern SECONDS = Pattern.compile("(-?)([0-9]+)(?:\\.([0-9]{1,9}))?");
    Pattern NANOS = Pattern.compile("(-?[0-9]+)ns");

    /**
     * Reads a time as typed by the user.
     *
     * @throws IllegalArgumentException saying which formats are accepted
     */
    static TimeBound parse(String text, ZoneId zone) {
        Matcher m = DATE_TIME.matcher(text);
        if (m.matches()) {
            LocalDate date = date(m.group(1), m.group(2), m.group(3));
            return new Absolute(localNanos(
                    date,
                    Integer.parseInt(m.group(4)),
                    Integer.parseInt(m.group(5)),
                    m.group(6) == null ? 0 : Integer.parseInt(m.group(6)),
                    fraction(m.group(7)),
                    zone));
        }
        m = DATE.matcher(text);
        if (m.matches()) {
            return new Absolute(localNanos(date(m.group(1), m.group(2), m.group(3)), 0, 0, 0, 0, zone));
        }
        m = TIME.matcher(text);
        if (m.matches()) {
            return new TimeOfDay(
                    Integer.parseInt(m.group(1)),
                    Integer.parseInt(m.group(2)),
                    m.group(3) == null ? 0 : Integer.parseInt(m.group(3)),
                    fraction(m.group(4)));
        }
        try {
            m = SECONDS.matcher(text);
            if (m.matches()) {
                long ns = Math.addExact(Math.multiplyExact(Long.parseLong(m.group(2)), NS_PER_S), fraction(m.group(3)));
                return new Absolute(m.group(1).isEmpty() ? ns : -ns);
            }
            m = NANOS.matcher(text);
            if (m.matches()) {
                return new Absolute(Long.parseLong(m.group(1)));
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("time '" + text + "' is out of range");
        }
        throw new IllegalArgumentException("invalid time '" + text + "': expected 'YYYY-MM-DD HH:MM[:SS[.NANO]]',"
                + " 'YYYY-MM-DD', 'HH:MM[:SS[.NANO]]' (local time), '[-]SEC[.NANO]' or '[-]NANOSns' (from the epoch)");
    }

    /** Nine digits at most, as a fraction of a second: "5" is 500,000,000 ns. */
    private static int fraction(String digits) {
        if (digits == null) {
            return 0;
        }
        int v = Integer.parseInt(digits);
        for (int i = digits.length(); i < 9; i++) {
            v *= 10;
        }
        return v;
    }

    /** Out-of-range fields carry over (month 13 is next January), as C's mktime does. */
    private static LocalDate date(String year, String month, String day) {
        return LocalDate.of(Integer.parseInt(year), 1, 1)
                .plusMonths(Integer.parseInt(month) - 1L)
                .plusDays(Integer.parseInt(day) - 1L);
    }

    private static long localNanos(LocalDate date, int hour, int minute, int second, int nano, ZoneId zone) {
        LocalDateTime t =
                date.atStartOfDay().plusHours(hour).plusMinutes(minute).plusSeconds(second);
        long seconds = t.atZone(zone).toEpochSecond();
        return Math.addExact(Math.multiplyExact(seconds, NS_PER_S), nano);
    }
}
