package dev.hetrace.ctf.decode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.math.BigInteger;
import java.nio.ByteOrder;

/**
 * Reads CTF integers of 1 to 64 bits at any bit position of a memory segment, in either byte
 * order, following the CTF bit layout (little-endian fields fill bytes from their low bits,
 * big-endian fields from their high bits). No allocation.
 */
public final class BitReader {
    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort LE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private BitReader() {}

    /**
     * The raw {@code size}-bit value at {@code bitPos} (zero-extended). The caller has checked
     * that the bits lie inside the segment.
     */
    public static long read(MemorySegment seg, long bitPos, int size, boolean bigEndian) {
        // Kept small so that the JIT inlines it into compiled scopes, where size and byte order
        // are constants: one 8-byte read, a shift and a mask.
        long byteOff = bitPos >>> 3;
        int shift = (int) (bitPos & 7);
        if (shift + size <= 64 && byteOff <= seg.byteSize() - 8) {
            if (bigEndian) {
                return (seg.get(BE_LONG, byteOff) << shift) >>> (64 - size);
            }
            long v = seg.get(LE_LONG, byteOff) >>> shift;
            return size == 64 ? v : v & ((1L << size) - 1);
        }
        return readNearEnd(seg, bitPos, size, bigEndian);
    }

    /** {@link #read} for fields that straddle 9 bytes or end in the last 8 bytes of the segment. */
    private static long readNearEnd(MemorySegment seg, long bitPos, int size, boolean bigEndian) {
        long byteOff = bitPos >>> 3;
        int shift = (int) (bitPos & 7);
        if (shift == 0) {
            switch (size) {
                case 8:
                    return seg.get(ValueLayout.JAVA_BYTE, byteOff) & 0xFFL;
                case 16:
                    return (bigEndian ? seg.get(BE_SHORT, byteOff) : seg.get(LE_SHORT, byteOff)) & 0xFFFFL;
                case 32:
                    return (bigEndian ? seg.get(BE_INT, byteOff) : seg.get(LE_INT, byteOff)) & 0xFFFFFFFFL;
                case 64:
                    return bigEndian ? seg.get(BE_LONG, byteOff) : seg.get(LE_LONG, byteOff);
                default:
                    break;
            }
        }
        long segSize = seg.byteSize();
        if (shift + size <= 64 && byteOff + 8 <= segSize) {
            // One 8-byte read holds the whole field.
            long w = bigEndian ? seg.get(BE_LONG, byteOff) : seg.get(LE_LONG, byteOff);
            if (bigEndian) {
                return (w << shift) >>> (64 - size);
            }
            long v = w >>> shift;
            return size == 64 ? v : v & ((1L << size) - 1);
        }
        if (byteOff + 9 <= segSize) {
            long w = bigEndian ? seg.get(BE_LONG, byteOff) : seg.get(LE_LONG, byteOff);
            long next = seg.get(ValueLayout.JAVA_BYTE, byteOff + 8) & 0xFFL;
            return extract(w, next, shift, size, bigEndian);
        }
        // Near the end of the segment: assemble the (at most 9) bytes that exist.
        long w = 0;
        long next = 0;
        for (int i = 0; i < 9; i++) {
            long b = byteOff + i < segSize ? seg.get(ValueLayout.JAVA_BYTE, byteOff + i) & 0xFFL : 0;
            if (i < 8) {
                w |= bigEndian ? b << (56 - 8 * i) : b << (8 * i);
            } else {
                next = b;
            }
        }
        return extract(w, next, shift, size, bigEndian);
    }

    private static long extract(long w, long next, int shift, int size, boolean bigEndian) {
        long v;
        if (bigEndian) {
            long combined = shift == 0 ? w : (w << shift) | (next >>> (8 - shift));
            v = combined >>> (64 - size);
        } else {
            long combined = shift == 0 ? w : (w >>> shift) | (next << (64 - shift));
            v = size == 64 ? combined : combined & ((1L << size) - 1);
        }
        return v;
    }

    /** Sign-extends the low {@code size} bits of {@code v}. */
    public static long signExtend(long v, int size) {
        return size == 64 ? v : (v << (64 - size)) >> (64 - size);
    }

    /** An integer of more than 64 bits as a BigInteger (two's complement when signed). */
    public static BigInteger readBig(MemorySegment seg, long bitPos, int size, boolean bigEndian, boolean signed) {
        BigInteger v = BigInteger.ZERO;
        if (bigEndian) {
            int done = 0;
            while (done < size) {
                int n = Math.min(64, size - done);
                long part = read(seg, bitPos + done, n, true);
                v = v.shiftLeft(n).or(new BigInteger(Long.toUnsignedString(part)));
                done += n;
            }
        } else {
            int done = 0;
            while (done < size) {
                int n = Math.min(64, size - done);
                long part = read(seg, bitPos + done, n, false);
                v = v.or(new BigInteger(Long.toUnsignedString(part)).shiftLeft(done));
                done += n;
            }
        }
        if (signed && v.testBit(size - 1)) {
            v = v.subtract(BigInteger.ONE.shiftLeft(size));
        }
        return v;
    }
}
