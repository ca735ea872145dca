package dev.hetrace.ctf.api;

import java.nio.file.Path;

/** A stream file cannot be decoded: says which file, which packet, and at which byte (and bit) offset. */
public class StreamDecodingException extends Exception {
    private final transient Path file;
    private final long packet;
    private final long bitOffset;

    public StreamDecodingException(Path file, long packet, long bitOffset, String message) {
        super(file + ": packet " + packet + ", offset " + (bitOffset >>> 3)
                + ((bitOffset & 7) != 0 ? " (bit " + (bitOffset & 7) + ")" : "") + ": " + message);
        this.file = file;
        this.packet = packet;
        this.bitOffset = bitOffset;
    }

    public Path file() {
        return file;
    }

    /** 0-based packet number within the stream file. */
    public long packet() {
        return packet;
    }

    public long bitOffset() {
        return bitOffset;
    }
}
