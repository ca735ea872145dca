package dev.hetrace.ctf.decode;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** The warnings of time going back in a stream, said once per stream (see {@link StreamDecoder#watchTimeOrder}). */
final class TimeOrderText {
    private TimeOrderText() {}

    /** See {@link StreamDecoder#eventBeforePrevious}. */
    static String eventBeforePrevious(
            Path file, long packetNumber, long packetOffsetBits, long eventOffsetBits, long previousNanos, long nanos) {
        return file + ": packet " + packetNumber + " (at byte " + (packetOffsetBits >>> 3) + "), event at byte "
                + (eventOffsetBits >>> 3) + ": time goes back, from " + date(previousNanos) + " (the event before) to "
                + date(nanos) + " (" + earlier(previousNanos, nanos)
                + "); events are printed as recorded and analysed at"
                + " the time of the event before (said once per stream)";
    }

    /** A packet of {@code file} that begins at {@code beginNanos}, before the previous one ends at {@code previousNanos}. */
    static String packetBeforePreviousEnd(
            Path file, long packetNumber, long packetOffsetBits, long previousNanos, long beginNanos) {
        return file + ": packet " + packetNumber + " (at byte " + (packetOffsetBits >>> 3) + ") begins at "
                + date(beginNanos) + ", before the previous packet ends at " + date(previousNanos) + " ("
                + earlier(previousNanos, beginNanos) + "); read as it is (said once per stream)";
    }

    private static String earlier(long beforeNanos, long nanos) {
        return String.format(Locale.ROOT, "%,d ns earlier", beforeNanos - nanos);
    }

    /** The UTC date of a time, to the nanosecond. */
    private static String date(long nanos) {
        Instant at = Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
        return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.nnnnnnnnn", Locale.ROOT)
                        .withZone(ZoneOffset.UTC)
                        .format(at)
                + " UTC";
    }
}
