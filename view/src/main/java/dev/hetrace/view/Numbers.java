package dev.hetrace.view;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.NumberOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * An array of integers, gathered then written as one value: as JSON text, or into the binary
 * arrays of the answer ({@link #binary}). As text, it is written as one raw value: Jackson checks
 * the generator's state at every number it writes, and on a wide view (a megabyte of numbers)
 * that was most of the server's time; the digits are Jackson's own ({@link NumberOutput}), so the
 * text is what Jackson would write. Reused from array to array.
 */
final class Numbers {
    private long[] values = new long[1 << 10];
    private int n;
    private char[] text = new char[1 << 12];
    private BinaryArrays binary;

    /** Writes the arrays from now on into {@code into}; null: as JSON text. */
    Numbers binary(BinaryArrays into) {
        this.binary = into;
        return this;
    }

    /** Starts a new array. */
    Numbers start() {
        n = 0;
        return this;
    }

    void add(long v) {
        if (n == values.length) {
            values = Arrays.copyOf(values, n * 2);
        }
        values[n++] = v;
    }

    /** Ends the array and writes it as the value of field {@code name}. */
    void writeField(JsonGenerator g, String name) throws IOException {
        g.writeFieldName(name);
        if (binary != null) {
            binary.write(values, n, g);
            return;
        }
        int len = 0;
        text[len++] = '[';
        for (int i = 0; i < n; i++) {
            if (text.length - len < 23) {
                text = Arrays.copyOf(text, text.length * 2);
            }
            if (i > 0) {
                text[len++] = ',';
            }
            len = NumberOutput.outputLong(values[i], text, len);
        }
        text[len++] = ']';
        g.writeRawValue(text, 0, len);
    }
}
