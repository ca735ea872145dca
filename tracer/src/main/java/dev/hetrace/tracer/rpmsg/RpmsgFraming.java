package dev.hetrace.tracer.rpmsg;

/**
 * The message header of the rpmsg platform, shared by the generator and the collector: each
 * message is this header and up to {@code messageSize - HEADER_SIZE} bytes of a packet. All
 * fields are little-endian.
 */
public final class RpmsgFraming {
    private RpmsgFraming() {}

    /** "HTRM" as the first four bytes of each message. */
    public static final byte[] MAGIC = {'H', 'T', 'R', 'M'};

    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 24;
    /** The RPMsg payload size of OpenAMP and Linux's virtio_rpmsg_bus (512-byte buffers). */
    public static final int DEFAULT_MESSAGE_SIZE = 496;
    /** The length field is 16 bits. */
    public static final int MAX_MESSAGE_SIZE = HEADER_SIZE + 65535;

    public static final int OFF_LENGTH = 6;
    public static final int OFF_SEQUENCE = 8;
    public static final int OFF_PACKET = 12;
    public static final int OFF_OFFSET = 16;
    public static final int OFF_PACKET_SIZE = 20;
}
