package dev.hetrace.tracer.rpmsg;

import java.nio.ByteBuffer;

/**
 * The layout of the remoteproc-trace platform's trace buffer, shared by the C platform generator
 * and the collector so that both sides agree by construction. Linux shows the buffer a
 * coprocessor's resource table declares ({@code RSC_TRACE}) as
 * {@code /sys/kernel/debug/remoteproc/remoteprocN/traceM}, read from offset 0 and only up to its
 * first NUL byte: so every byte of the buffer is text or a byte from 1 to 255. It holds a
 * 64-byte text header, then slots of a fixed size, each a part of a packet numbered as the rpmsg
 * platform's messages are ({@link RpmsgFraming}): the slot's own number in the sequence of slots
 * written, its packet's number, where its bytes go in the packet and the packet's size. The
 * producer writes slot {@code n} at index {@code n % slotCount}, overwriting the oldest; a reader
 * that sees slot numbers jump has been lapped, and counts the slots it missed.
 */
public final class RemoteprocTraceLayout {
    private RemoteprocTraceLayout() {}

    /** The first four bytes; written last at initialization, so it also means "header ready". */
    public static final byte[] MAGIC = {'H', 'T', 'R', 'T'};

    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 64;

    // the header: text, fields in lowercase hexadecimal digits, separated by spaces, '\n' last
    public static final int OFF_VERSION = 5;
    public static final int OFF_SLOT_SIZE = 7;
    public static final int OFF_SLOT_COUNT = 16;
    /** How many times the write index went round. */
    public static final int OFF_WRAP = 25;
    /** The index of the slot to be written next. */
    public static final int OFF_INDEX = 34;
    /** '1' once the producer has written its last slot, else '0'. */
    public static final int OFF_DONE = 43;

    // a slot: text fields, the encoded packet bytes, filler, the slot number again, '\n'
    public static final int SLOT_OFF_SEQUENCE = 0;
    public static final int SLOT_OFF_PACKET = 8;
    public static final int SLOT_OFF_OFFSET = 16;
    public static final int SLOT_OFF_PACKET_SIZE = 24;
    /** Packet bytes in the slot (4 digits). */
    public static final int SLOT_OFF_LENGTH = 32;
    /** Bytes they take encoded (4 digits). */
    public static final int SLOT_OFF_ENCODED = 36;

    public static final int SLOT_OFF_DATA = 40;
    /** After the data: the slot number again (8 digits), then '\n'. */
    public static final int SLOT_TRAILER = 9;
    /** The sequence fields of a slot being written. */
    public static final byte INVALID = '-';

    public static final byte FILLER = '.';
    /** Encoded packet bytes: 0 to 253 as 1 to 254; 254 and 255 as 255 then 1 or 2. */
    public static final int ESCAPE = 0xff;

    public static final int MIN_SLOT_SIZE = 64;
    /** The length fields have 4 digits. */
    public static final int MAX_SLOT_SIZE = 32768;

    public static final int DEFAULT_SLOT_SIZE = 512;
    public static final int DEFAULT_BUFFER_SIZE = 16384;

    /** Linux's resource type of a trace buffer ({@code RSC_TRACE}). */
    public static final int RSC_TRACE = 2;

    /** Bytes of data room in a slot of {@code slotSize} bytes. */
    public static int dataRoom(int slotSize) {
        return slotSize - SLOT_OFF_DATA - SLOT_TRAILER;
    }

    /**
     * The value of {@code digits} lowercase hexadecimal digits at {@code at}, or -1 if they are
     * not all such digits.
     */
    public static long hex(ByteBuffer b, int at, int digits) {
        long v = 0;
        for (int i = 0; i < digits; i++) {
            int c = b.get(at + i);
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }

    /**
     * Decodes {@code encoded} bytes at {@code at} of {@code from} into {@code to} from its
     * position; returns how many bytes it decoded, or -1 if they are not an encoding.
     */
    public static int decode(ByteBuffer from, int at, int encoded, ByteBuffer to) {
        int start = to.position();
        int end = at + encoded;
        for (int i = at; i < end; i++) {
            int c = from.get(i) & 0xff;
            if (c == 0 || to.position() == to.limit()) {
                return -1;
            }
            if (c == ESCAPE) {
                if (++i == end) {
                    return -1;
                }
                int n = from.get(i);
                if (n != 1 && n != 2) {
                    return -1;
                }
                to.put((byte) (0xfd + n));
            } else {
                to.put((byte) (c - 1));
            }
        }
        return to.position() - start;
    }
}
