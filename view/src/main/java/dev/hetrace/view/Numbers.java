package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.NumberOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * A JSON array of integers, gathered as text and written as one raw value. Jackson checks the
 * generator's state at every number it writes: on a wide view (a megabyte of numbers) that was
 * most of the server's time. Reused from array to array; the digits are Jackson's own
 * ({@link NumberOutput}), so the text is what Jackson would write.
 */
final class Numbers {
    private char[] buf = new char[1 << 12];
    private int len;

    /** Starts a new array. */
    Numbers start() {
        len = 0;
        buf[len++] = '[';
        return this;
    }

    void add(long v) {
        if (buf.length - len < 22) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        if (len > 1) {
            buf[len++] = ',';
        }
        len = NumberOutput.outputLong(v, buf, len);
    }

    /** Ends the array and writes it as the value of field {@code name}. */
    void writeField(JsonGenerator g, String name) throws IOException {
        g.writeFieldName(name);
        if (len == buf.length) {
            buf = Arrays.copyOf(buf, buf.length * 2);
        }
        buf[len++] = ']';
        g.writeRawValue(buf, 0, len);
    }
}
