package dev.hetrace.ctf.text;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte buffer for building output lines without creating strings, flushed in large writes. */
public final class TextSink {
    private static final int FLUSH_AT = 1 << 16;
    private static final byte[] DIGITS = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    private byte[] buf = new byte[FLUSH_AT * 2];
    private int len;

    public TextSink(OutputStream out) {
        this.out = out;
    }

    /**
     * Makes room for {@code more} bytes. A line longer than the buffer (a huge array or string)
     * is written out in pieces rather than held whole; write errors surface as
     * {@link UncheckedIOException}.
     */
    private void ensure(int more) {
        if (len + more > buf.length) {
            if (out == null) {
                // A memory buffer (no output behind it): it grows.
                buf = Arrays.copyOf(buf, (int)
                        Math.min(Integer.MAX_VALUE - 16, Math.max(2L * buf.length, (long) len + more)));
                return;
            }
            if (len > 0) {
                try {
                    out.write(buf, 0, len);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                len = 0;
            }
            if (more > buf.length) {
                buf = new byte[more];
            }
        }
    }

    public TextSink put(byte b) {
        ensure(1);
        buf[len++] = b;
        return this;
    }

    public TextSink put(char asciiChar) {
        return put((byte) asciiChar);
    }

    public TextSink put(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, len, bytes.length);
        len += bytes.length;
        return this;
    }

    /** Appends a string as UTF-8. */
    public TextSink put(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                return putSlow(s, i);
            }
            buf[len++] = (byte) c;
        }
        return this;
    }

    private TextSink putSlow(String s, int from) {
        return put(s.substring(from).getBytes(StandardCharsets.UTF_8));
    }

    public TextSink putDecimal(long v) {
        if (v < 0) {
            if (v == Long.MIN_VALUE) {
                return put("-9223372036854775808");
            }
            put('-');
            v = -v;
        }
        return putUnsigned(v);
    }

    public TextSink putUnsigned(long v) {
        ensure(20);
        if (v >= 0 && v < 10) {
            buf[len++] = (byte) ('0' + v);
            return this;
        }
        int start = len;
        if (v < 0) {
            long q = Long.divideUnsigned(v, 10);
            int r = (int) (v - q * 10);
            buf[len++] = (byte) ('0' + r);
            v = q;
        }
        while (v > 0) {
            long q = v / 10;
            buf[len++] = (byte) ('0' + (v - q * 10));
            v = q;
        }
        reverse(start, len - 1);
        return this;
    }

    /** Zero-padded unsigned decimal of at least {@code width} digits. */
    public TextSink putPadded(long v, int width) {
        if (v < 0 || width > 19) {
            return putPaddedSlow(v, width);
        }
        ensure(20);
        int digits = 1;
        for (long x = v / 10; x != 0; x /= 10) {
            digits++;
        }
        int n = Math.max(digits, width);
        int i = len + n;
        len = i;
        for (int k = 0; k < n; k++) {
            long q = v / 10;
            buf[--i] = (byte) ('0' + (v - q * 10));
            v = q;
        }
        return this;
    }

    private TextSink putPaddedSlow(long v, int width) {
        ensure(Math.max(width, 20));
        int start = len;
        putUnsigned(v);
        int digits = len - start;
        if (digits < width) {
            int pad = width - digits;
            System.arraycopy(buf, start, buf, start + pad, digits);
            Arrays.fill(buf, start, start + pad, (byte) '0');
            len += pad;
        }
        return this;
    }

    /** Unsigned value in base 16 (upper case) or 8, no prefix. */
    public TextSink putRadix(long v, int shiftBits) {
        ensure(64);
        int mask = (1 << shiftBits) - 1;
        int start = len;
        do {
            buf[len++] = DIGITS[(int) (v & mask)];
            v >>>= shiftBits;
        } while (v != 0);
        reverse(start, len - 1);
        return this;
    }

    private void reverse(int i, int j) {
        while (i < j) {
            byte t = buf[i];
            buf[i++] = buf[j];
            buf[j--] = t;
        }
    }

    public TextSink put(byte[] bytes, int from, int length) {
        ensure(length);
        System.arraycopy(bytes, from, buf, len, length);
        len += length;
        return this;
    }

    public int length() {
        return len;
    }

    /** The bytes written so far are {@code buffer()[0, length())}; valid until the next write. */
    public byte[] buffer() {
        return buf;
    }

    /** Forgets what was written (for a sink used as a memory buffer). */
    public void clear() {
        len = 0;
    }

    /** Writes out the buffer if it is large; call after each complete line. */
    public void lineDone() throws IOException {
        if (len >= FLUSH_AT) {
            flush();
        }
    }

    public void flush() throws IOException {
        if (len > 0) {
            out.write(buf, 0, len);
            len = 0;
        }
        out.flush();
    }
}
