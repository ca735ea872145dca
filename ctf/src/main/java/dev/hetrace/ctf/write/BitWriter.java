package dev.hetrace.ctf.write;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A growable byte buffer written at any bit position, following the CTF bit layout: a
 * little-endian field fills bytes from their low bits, a big-endian field from their high
 * bits. The exact inverse of {@link dev.hetrace.ctf.decode.BitReader}. Also writes a field into
 * any byte array ({@link #put(byte[], long, long, int, boolean)}), to patch existing packets.
 */
public final class BitWriter {
    private static final VarHandle LE_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle BE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle BE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LE_SHORT =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle BE_SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    byte[] buf;
    /** Next bit to write, from the start of the buffer. */
    long pos;

    BitWriter(int initialBytes) {
        buf = new byte[Math.max(64, initialBytes)];
    }

    /** Makes room for {@code bits} more bits after {@link #pos} (zero-filled). */
    void ensure(long bits) {
        long needBytes = ((pos + bits + 7) >>> 3) + 8;
        if (needBytes > buf.length) {
            if (needBytes > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("a packet cannot exceed 2 GiB in this writer");
            }
            buf = Arrays.copyOf(buf, (int) Math.max(needBytes, Math.min(Integer.MAX_VALUE - 16, buf.length * 2L)));
        }
    }

    /** Skips to a multiple of {@code alignment} bits counted from {@code base} (the skipped bits are zero). */
    void align(long base, int alignment) {
        if (alignment > 1) {
            long abs = base + pos;
            long aligned = (abs + alignment - 1) & -(long) alignment;
            ensure(aligned - abs);
            pos += aligned - abs;
        }
    }

    /** Writes the low {@code size} bits (1 to 64) of {@code value} at {@link #pos}. */
    void write(long value, int size, boolean bigEndian) {
        ensure(size);
        put(pos, value, size, bigEndian);
        pos += size;
    }

    void writeBytes(byte[] bytes, int from, int length) {
        if ((pos & 7) != 0) {
            for (int i = 0; i < length; i++) {
                write(bytes[from + i] & 0xFF, 8, false);
            }
            return;
        }
        ensure(8L * length);
        System.arraycopy(bytes, from, buf, (int) (pos >>> 3), length);
        pos += 8L * length;
    }

    /** Overwrites {@code size} bits at an earlier position (the buffer already holds them). */
    void put(long bitPos, long value, int size, boolean bigEndian) {
        put(buf, bitPos, value, size, bigEndian);
    }

    /** Overwrites the {@code size} bits (1 to 64) at {@code bitPos} of {@code buf} with the low bits of {@code value}. */
    public static void put(byte[] buf, long bitPos, long value, int size, boolean bigEndian) {
        int byteOff = (int) (bitPos >>> 3);
        int shift = (int) (bitPos & 7);
        if (shift == 0) {
            switch (size) {
                case 8 -> {
                    buf[byteOff] = (byte) value;
                    return;
                }
                case 16 -> {
                    (bigEndian ? BE_SHORT : LE_SHORT).set(buf, byteOff, (short) value);
                    return;
                }
                case 32 -> {
                    (bigEndian ? BE_INT : LE_INT).set(buf, byteOff, (int) value);
                    return;
                }
                case 64 -> {
                    (bigEndian ? BE_LONG : LE_LONG).set(buf, byteOff, value);
                    return;
                }
                default -> {}
            }
        }
        long v = size == 64 ? value : value & ((1L << size) - 1);
        int left = size;
        long at = bitPos;
        while (left > 0) {
            int idx = (int) (at >>> 3);
            int inByte = (int) (at & 7);
            int n = Math.min(8 - inByte, left);
            int mask = (1 << n) - 1;
            int bits;
            int shiftInByte;
            if (bigEndian) {
                bits = (int) (v >>> (left - n)) & mask;
                shiftInByte = 8 - inByte - n;
            } else {
                bits = (int) (v >>> (size - left)) & mask;
                shiftInByte = inByte;
            }
            buf[idx] = (byte) ((buf[idx] & ~(mask << shiftInByte)) | (bits << shiftInByte));
            at += n;
            left -= n;
        }
    }

    /** The byte holding {@code bitPos}, to give to {@link #rewind} (it may hold earlier bits too). */
    byte byteAt(long bitPos) {
        int idx = (int) (bitPos >>> 3);
        return idx < buf.length ? buf[idx] : 0;
    }

    /**
     * Forgets everything written from {@code bitPos} on: {@code partial} is what {@link #byteAt}
     * returned for that position before it was written. Keeps the invariant that every bit
     * after {@link #pos} is zero, so padding never needs writing.
     */
    void rewind(long bitPos, byte partial) {
        int idx = (int) (bitPos >>> 3);
        int end = (int) Math.min(buf.length, (pos + 7) >>> 3);
        if (idx < end) {
            Arrays.fill(buf, idx, end, (byte) 0);
        }
        if ((bitPos & 7) != 0 && idx < buf.length) {
            buf[idx] = partial;
        }
        pos = bitPos;
    }
}
