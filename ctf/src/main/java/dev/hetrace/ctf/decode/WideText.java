package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.FieldType.Encoding;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * CTF 2 text in UTF-16 or UTF-32, read in place one code point at a time, so that printers can
 * write it as UTF-8 without a buffer per string. What is not a Unicode scalar value (an
 * unpaired surrogate, a UTF-32 unit past U+10FFFF, the bytes of an incomplete last unit) reads
 * as U+FFFD, the replacement character, one per bad unit.
 */
public final class WideText {
    /** The replacement character, for what does not decode. */
    public static final int REPLACEMENT = 0xFFFD;

    private static final ValueLayout.OfShort U16_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private WideText() {}

    /**
     * The code point at byte {@code at} of text ending at byte {@code end} (exclusive), in
     * {@code encoding} (UTF-16 or UTF-32), with the number of bytes it takes:
     * {@code (bytes << 32) | codePoint}.
     */
    public static long next(MemorySegment seg, long at, long end, Encoding encoding) {
        int unit = encoding.unitBytes();
        if (end - at < unit) {
            return ((end - at) << 32) | REPLACEMENT;
        }
        boolean be = encoding.bigEndian();
        if (unit == 4) {
            int cp = seg.get(be ? U32_BE : U32_LE, at);
            boolean valid = cp >= 0 && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
            return (4L << 32) | (valid ? cp : REPLACEMENT);
        }
        int u = seg.get(be ? U16_BE : U16_LE, at) & 0xFFFF;
        if (u < 0xD800 || u > 0xDFFF) {
            return (2L << 32) | u;
        }
        if (u <= 0xDBFF && end - at >= 4) {
            int low = seg.get(be ? U16_BE : U16_LE, at + 2) & 0xFFFF;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                return (4L << 32) | (0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
            }
        }
        return (2L << 32) | REPLACEMENT;
    }

    /**
     * Writes the UTF-8 form of {@code cp} into {@code buf} (at least 4 bytes); returns its
     * length.
     */
    public static int utf8(int cp, byte[] buf) {
        if (cp < 0x80) {
            buf[0] = (byte) cp;
            return 1;
        }
        if (cp < 0x800) {
            buf[0] = (byte) (0xC0 | (cp >> 6));
            buf[1] = (byte) (0x80 | (cp & 0x3F));
            return 2;
        }
        if (cp < 0x10000) {
            buf[0] = (byte) (0xE0 | (cp >> 12));
            buf[1] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            buf[2] = (byte) (0x80 | (cp & 0x3F));
            return 3;
        }
        buf[0] = (byte) (0xF0 | (cp >> 18));
        buf[1] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        buf[2] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        buf[3] = (byte) (0x80 | (cp & 0x3F));
        return 4;
    }

    /**
     * The bytes of the text of {@code len} bytes from {@code start} that come before its first
     * U+0000 code point (all of them when it has none): a static- or dynamic-length string's value.
     */
    public static long untilNul(MemorySegment seg, long start, long len, Encoding encoding) {
        long end = start + len;
        for (long at = start; at < end; ) {
            long r = next(seg, at, end, encoding);
            if ((int) r == 0) {
                return at - start;
            }
            at += r >>> 32;
        }
        return len;
    }

    /** Takes the bytes of UTF-8 text one by one. */
    @FunctionalInterface
    public interface ByteSink {
        void put(byte b);
    }

    /**
     * Gives {@code sink} the UTF-8 bytes of the text of {@code len} bytes from {@code start}
     * (bad code units as U+FFFD), through {@code buf} (4 bytes, the caller's): nothing allocated.
     */
    public static void toUtf8(MemorySegment seg, long start, long len, Encoding encoding, byte[] buf, ByteSink sink) {
        long end = start + len;
        for (long at = start; at < end; ) {
            long r = next(seg, at, end, encoding);
            int n = utf8((int) r, buf);
            for (int k = 0; k < n; k++) {
                sink.put(buf[k]);
            }
            at += r >>> 32;
        }
    }

    /** The text of {@code len} bytes from {@code start} as a Java string (not for hot paths). */
    public static String string(MemorySegment seg, long start, long len, Encoding encoding) {
        StringBuilder b = new StringBuilder();
        long end = start + len;
        for (long at = start; at < end; ) {
            long r = next(seg, at, end, encoding);
            b.appendCodePoint((int) r);
            at += r >>> 32;
        }
        return b.toString();
    }
}
