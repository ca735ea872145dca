package dev.hetrace.analysis.index;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The encodings of a Parquet data page's values into the page ({@link ParquetFile}): definition
 * levels, DELTA_BINARY_PACKED numbers, bit-packed booleans and dictionary indexes, PLAIN strings.
 * Each loop is in a method of its own, quick for the JIT to compile; nothing is allocated per value.
 */
final class PageEncoder {
    /** DELTA_BINARY_PACKED's block: 128 values in 4 miniblocks of 32, each with its own bit width. */
    static final int BLOCK = 128;

    private static final int MINI = 32;
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Bytes page;
    private final long[] block = new long[BLOCK];
    /** The smallest and largest value {@link #delta} met last. */
    long min;

    long max;

    /** An encoder writing into {@code page}. */
    PageEncoder(Bytes page) {
        this.page = page;
    }

    /** A string as PLAIN encodes it: its length (4 bytes), then its bytes. */
    void plainString(byte[] utf8) {
        int at = page.reserve(4 + utf8.length);
        MemorySegment.ofArray(page.b).set(LE_INT, at, utf8.length);
        System.arraycopy(utf8, 0, page.b, at + 4, utf8.length);
    }

    /** The definition levels (1: present, 0: NULL), length-prefixed, as one RLE run when all are present or all NULL. */
    void definitionLevels(boolean[] nulls, int n, int present) {
        int lengthAt = page.reserve(4);
        int start = page.n;
        if (present == n || present == 0) {
            page.varint((long) n << 1);
            page.put(present == 0 ? 0 : 1);
        } else {
            int groupsOf8 = (n + 7) >>> 3;
            page.varint(((long) groupsOf8 << 1) | 1);
            int at = page.reserve(groupsOf8);
            byte[] b = page.b;
            Arrays.fill(b, at, at + groupsOf8, (byte) 0);
            for (int r = 0; r < n; r++) {
                if (!nulls[r]) {
                    b[at + (r >>> 3)] |= (byte) (1 << (r & 7));
                }
            }
        }
        MemorySegment.ofArray(page.b).set(LE_INT, lengthAt, page.n - start);
    }

    /**
     * The first {@code n} values DELTA_BINARY_PACKED: each block of 128 stores the differences
     * between successive values less their minimum, in miniblocks of 32 as wide as their largest
     * needs; times, positions and constants take a few bits a value. {@code int32}: the
     * differences wrap as 32-bit integers, as readers of INT32 columns compute them. Each step
     * is a loop of its own over the block (differences, their minimum, less the minimum), which
     * the JIT vectorizes; only the packing goes value by value.
     */
    void delta(long[] v, int n, boolean int32) {
        page.varint(BLOCK);
        page.varint(BLOCK / MINI);
        page.varint(n);
        page.varint(n == 0 ? 0 : zigzag(v[0]));
        if (n == 0) {
            min = Long.MAX_VALUE;
            max = Long.MIN_VALUE;
            return;
        }
        long lo = v[0];
        long hi = v[0];
        for (int k = 1; k < n; k++) {
            lo = Math.min(lo, v[k]);
            hi = Math.max(hi, v[k]);
        }
        min = lo;
        max = hi;
        int blocks = (n - 1 + BLOCK - 1) / BLOCK;
        if (lo == hi) { // a constant (a trace's number, a stream): every block's differences 0 wide
            int at = page.reserve(blocks * (1 + BLOCK / MINI)); // per block: min delta 0, then the widths 0
            Arrays.fill(page.b, at, page.n, (byte) 0);
            return;
        }
        long[] d = block;
        for (int from = 1; from < n; from += BLOCK) {
            int count = Math.min(BLOCK, n - from);
            if (int32) {
                for (int k = 0; k < count; k++) {
                    d[k] = (int) (v[from + k] - v[from + k - 1]);
                }
            } else {
                for (int k = 0; k < count; k++) {
                    d[k] = v[from + k] - v[from + k - 1];
                }
            }
            long minDelta = d[0];
            for (int k = 1; k < count; k++) {
                minDelta = Math.min(minDelta, d[k]);
            }
            if (int32) {
                for (int k = 0; k < count; k++) {
                    d[k] = (d[k] - minDelta) & 0xFFFFFFFFL;
                }
            } else {
                for (int k = 0; k < count; k++) {
                    d[k] -= minDelta;
                }
            }
            page.varint(zigzag(minDelta));
            int widthsAt = page.reserve(BLOCK / MINI);
            for (int m = 0; m < BLOCK / MINI; m++) {
                int from1 = m * MINI;
                int end = Math.min(count, from1 + MINI);
                long or = 0;
                for (int k = from1; k < end; k++) {
                    or |= d[k];
                }
                int width = 64 - Long.numberOfLeadingZeros(or);
                page.b[widthsAt + m] = (byte) width;
                if (from1 < end) {
                    pack(d, from1, end, width);
                }
            }
        }
    }

    /**
     * Values {@code from} up to {@code to} of {@code v} ({@code width} bits each, none wider),
     * least significant first, padded to 32 values.
     */
    void pack(long[] v, int from, int to, int width) {
        if (width == 0) {
            return;
        }
        int at = page.reserve(MINI * width / 8);
        int end = page.n;
        page.slack(8);
        byte[] b = page.b;
        long acc = 0;
        int bits = 0;
        if (width <= 56) {
            for (int k = from; k < to; k++) {
                // branch-free (a branch on a full word mispredicts for most widths): the
                // accumulator stored whole, the position moved by the bytes it filled
                acc |= v[k] << bits;
                bits += width;
                LONG_LE.set(b, at, acc);
                at += bits >>> 3;
                acc >>>= bits & ~7;
                bits &= 7;
            }
        } else {
            for (int k = from; k < to; k++) { // in two parts, so that no bit leaves the accumulator
                long x = v[k];
                acc |= (x & 0xFFFFFFFFL) << bits;
                bits += 32;
                LONG_LE.set(b, at, acc);
                at += bits >>> 3;
                acc >>>= bits & ~7;
                bits &= 7;
                acc |= (x >>> 32) << bits;
                bits += width - 32;
                LONG_LE.set(b, at, acc);
                at += bits >>> 3;
                acc >>>= bits & ~7;
                bits &= 7;
            }
        }
        flush(b, at, end, acc, bits);
    }

    /** The {@code bits} bits left in {@code acc} at {@code at}, then zeros up to {@code end}. */
    private static void flush(byte[] b, int at, int end, long acc, int bits) {
        if (at < end) {
            LONG_LE.set(b, at, acc); // within the slack; what passes the end is written over later
            at += (bits + 7) >>> 3;
            if (at < end) {
                Arrays.fill(b, at, end, (byte) 0);
            }
        }
    }

    static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    /**
     * The {@code present} values of {@code values} bit-packed {@code width} bits each, least significant
     * first; as an RLE/bit-packed hybrid run (dictionary indexes) when {@code hybrid}, else bare
     * (PLAIN booleans). A hybrid of one value repeated is one RLE run.
     */
    void bitPacked(int[] values, int present, int width, boolean hybrid) {
        if (hybrid && present > 0) {
            int first = values[0];
            int same = 1;
            while (same < present && values[same] == first) {
                same++;
            }
            if (same == present) { // one RLE run: its length, then the value in whole bytes
                page.varint((long) present << 1);
                for (int k = 0; k < width; k += 8) {
                    page.put(first >>> k);
                }
                return;
            }
        }
        int groupsOf8 = (present + 7) >>> 3;
        if (hybrid) {
            page.varint(((long) groupsOf8 << 1) | 1);
        }
        int at = page.reserve(hybrid ? groupsOf8 * width : (present + 7) >>> 3);
        int end = page.n;
        page.slack(8);
        byte[] b = page.b;
        long acc = 0;
        int bits = 0;
        for (int r = 0; r < present; r++) {
            acc |= (long) values[r] << bits; // width ≤ 32: as in pack, branch-free
            bits += width;
            LONG_LE.set(b, at, acc);
            at += bits >>> 3;
            acc >>>= bits & ~7;
            bits &= 7;
        }
        flush(b, at, end, acc, bits);
    }
}
