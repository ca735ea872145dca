package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The arrays of a binary answer ({@code /api/view?format=binary}; docs/view.md, "Binary
 * answers"): each array's numbers little-endian, in the narrowest of 16-bit, 32-bit integers and
 * 64-bit floats that holds them all, each array from a multiple of 8 bytes; the JSON names each
 * array by its type, offset and length ({@code {"binary": "i16", "at": 0, "n": 12}}). The browser
 * then reads them as typed arrays over the bytes it received, without parsing them: a wide view
 * is megabytes of numbers, which took Chromium 10 to 25 ms to parse as JSON and the server as
 * long to format.
 */
final class BinaryArrays {
    /** The first bytes of a binary answer. */
    static final byte[] MAGIC = {'H', 'T', 'V', 'B'};

    private static final byte[] PADDING = new byte[8];

    private static final VarHandle I16 = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle F64 = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf = new byte[1 << 12];
    private int len;

    void reset() {
        len = 0;
    }

    int capacity() {
        return buf.length;
    }

    /**
     * Appends {@code v[0..n)} and writes, as the current JSON value of {@code g}, where they are:
     * their type ({@code i16}, {@code i32}, {@code f64}: a number past ±2^53 loses its last
     * digits, as it does when a browser parses it from JSON), offset and count.
     */
    void write(long[] v, int n, JsonGenerator g) throws IOException {
        long min = 0;
        long max = 0;
        for (int i = 0; i < n; i++) {
            min = Math.min(min, v[i]);
            max = Math.max(max, v[i]);
        }
        String type;
        int size;
        if (min >= Short.MIN_VALUE && max <= Short.MAX_VALUE) {
            type = "i16";
            size = 2;
        } else if (min >= Integer.MIN_VALUE && max <= Integer.MAX_VALUE) {
            type = "i32";
            size = 4;
        } else {
            type = "f64";
            size = 8;
        }
        if (n == 0) {
            // where it is matters not, as long as it is aligned (a browser refuses an empty typed array that is not)
            writeRef(g, type, 0, 0);
            return;
        }
        int at = (len + 7) & ~7;
        long end = at + (long) n * size;
        if (end > buf.length) {
            if (end > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("an answer's arrays past 2 GB: ask for fewer rows or pixels");
            }
            buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(end, 2L * buf.length)));
        }
        Arrays.fill(buf, len, at, (byte) 0);
        int p = at;
        switch (size) {
            case 2 -> {
                for (int i = 0; i < n; i++, p += 2) {
                    I16.set(buf, p, (short) v[i]);
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++, p += 4) {
                    I32.set(buf, p, (int) v[i]);
                }
            }
            default -> {
                for (int i = 0; i < n; i++, p += 8) {
                    F64.set(buf, p, (double) v[i]);
                }
            }
        }
        len = (int) end;
        writeRef(g, type, at, n);
    }

    private static void writeRef(JsonGenerator g, String type, int at, int n) throws IOException {
        g.writeStartObject();
        g.writeStringField("binary", type);
        g.writeNumberField("at", at);
        g.writeNumberField("n", n);
        g.writeEndObject();
    }

    /**
     * Sends the answer: {@link #MAGIC}, the JSON's length in bytes (32 bits, little-endian), the
     * JSON {@code json[0..jsonLen)}, zeros up to a multiple of 8 bytes, then the arrays (their
     * offsets count from there).
     */
    void sendTo(OutputStream out, byte[] json, int jsonLen) throws IOException {
        byte[] head = Arrays.copyOf(MAGIC, 8);
        I32.set(head, 4, jsonLen);
        out.write(head);
        out.write(json, 0, jsonLen);
        out.write(PADDING, 0, (8 - (jsonLen & 7)) & 7);
        out.write(buf, 0, len);
    }
}
