package dev.hetrace.analysis.index;

import java.util.Arrays;

/** A growable byte buffer. */
final class Bytes {
    byte[] b = new byte[1 << 12];
    int n;

    void clear() {
        n = 0;
    }

    /** Makes sure that {@code k} bytes past the end can be written (and are then ignored). */
    void slack(int k) {
        if (n + k > b.length) {
            b = Arrays.copyOf(b, Math.max(n + k, 2 * b.length));
        }
    }

    /** Makes room for {@code k} more bytes (not cleared: the caller writes them all); returns where they start. */
    int reserve(int k) {
        if (n + k > b.length) {
            b = Arrays.copyOf(b, Math.max(n + k, 2 * b.length));
        }
        int at = n;
        n += k;
        return at;
    }

    void put(int v) {
        int at = reserve(1); // before b is read: it may grow
        b[at] = (byte) v;
    }

    void put(byte[] s, int k) {
        int at = reserve(k);
        System.arraycopy(s, 0, b, at, k);
    }

    void varint(long v) {
        while ((v & ~0x7FL) != 0) {
            put((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        put((int) v);
    }
}
