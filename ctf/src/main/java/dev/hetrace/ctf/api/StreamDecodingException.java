package dev.hetrace.ctf.api;

import java.nio.file.Path;

/**
 * A stream file cannot be decoded: says which file, which packet, at which byte (and bit)
 * offset, and, when the decoder was in a field, which one ({@link #field()}): "FILE: packet 3,
 * offset 4096: event 'sched_switch' (id 3), field 'payload.prev_comm': WHAT".
 */
public class StreamDecodingException extends Exception {
    private final transient Path file;
    private final long packet;
    private final long bitOffset;
    private final String field;
    private final String event;
    private final String detail;

    public StreamDecodingException(Path file, long packet, long bitOffset, String message) {
        this(file, packet, bitOffset, null, null, message);
    }

    private StreamDecodingException(Path file, long packet, long bitOffset, String event, String field, String detail) {
        super(file + ": packet " + packet + ", offset " + (bitOffset >>> 3)
                + ((bitOffset & 7) != 0 ? " (bit " + (bitOffset & 7) + ")" : "") + ": "
                + (event == null ? "" : event + (field == null ? ": " : ", "))
                + (field == null ? "" : "field '" + field + "': ")
                + detail);
        this.file = file;
        this.packet = packet;
        this.bitOffset = bitOffset;
        this.event = event;
        this.field = field;
        this.detail = detail;
    }

    /**
     * The same error, said to be in field {@code field} (a path as {@link Event} takes them:
     * {@code "payload.regs[2].value"}, {@code "packet_context.content_size"}; null when not in
     * one) of the event class {@code event} ({@code "event 'sched_switch' (id 3)"}; null for
     * packet fields and when it is not known yet). Its stack trace is this one's.
     */
    public StreamDecodingException in(String event, String field) {
        StreamDecodingException e = new StreamDecodingException(file, packet, bitOffset, event, field, detail);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** The same error, {@code why} added to what is wrong ({@link #detail()}). Its stack trace is this one's. */
    public StreamDecodingException explained(String why) {
        StreamDecodingException e =
                new StreamDecodingException(file, packet, bitOffset, event, field, detail + "; " + why);
        e.setStackTrace(getStackTrace());
        return e;
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

    /** The path of the field being decoded ({@code "payload.prev_comm"}), or null when the error is in no field. */
    public String field() {
        return field;
    }

    /** The event class whose event was being decoded ({@code "event 'sched_switch' (id 3)"}), or null. */
    public String event() {
        return event;
    }

    /** What is wrong, without where. */
    public String detail() {
        return detail;
    }
}
