package dev.hetrace.ctf.api;

import java.nio.file.Path;

/**
 * What a packet's header and context say, decoded without touching its events.
 * Absent values are {@link #ABSENT}.
 *
 * @param number      0-based packet number in its file
 * @param offsetBits  where the packet starts in the file
 * @param packetBits  packet size (whole rest of the file when the context has no packet_size)
 * @param contentBits content size (the packet size when the context has no content_size)
 * @param eventsBits  where the first event starts, relative to the packet
 */
public record PacketInfo(
        Path file,
        long number,
        long offsetBits,
        long packetBits,
        long contentBits,
        long eventsBits,
        long streamClassId,
        long streamInstanceId,
        long timestampBegin,
        long timestampEnd,
        long sequenceNumber,
        long eventsDiscarded) {
    public static final long ABSENT = Long.MIN_VALUE;

    public boolean has(long value) {
        return value != ABSENT;
    }
}
