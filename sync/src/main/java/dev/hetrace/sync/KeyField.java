package dev.hetrace.sync;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A key field of a match rule, parsed: the paths to try in order, and the bits of the integer
 * to take ({@code value >>> shift & mask}), as {@code a|b}, {@code arg0 >> 16},
 * {@code arg0 & 0xffff} or {@code (arg0 >> 16) & 0xffff} write them.
 *
 * @param paths the alternatives, the first the event has
 * @param shift bits to drop on the right (0: none)
 * @param mask  bits to keep after the shift (−1: all)
 */
record KeyField(String[] paths, int shift, long mask) {
    private static final Pattern FORM = Pattern.compile(
            "\\s*(\\()?\\s*([^\\s()&>|]+(?:\\s*\\|\\s*[^\\s()&>|]+)*)\\s*(?:>>\\s*(\\d+))?\\s*(\\))?\\s*(?:&\\s*(0[xX][0-9a-fA-F]+|\\d+))?\\s*");

    /** Whether the key is a field's value as it is (no bits taken: text keys are allowed). */
    boolean whole() {
        return shift == 0 && mask == -1;
    }

    /** The bits of an integer value this key takes. */
    long apply(long v) {
        return (v >>> shift) & mask;
    }

    static KeyField parse(String key) {
        Matcher m = FORM.matcher(key);
        if (key.isBlank() || !m.matches() || (m.group(1) == null) != (m.group(4) == null)) {
            throw new IllegalArgumentException("key field '" + key
                    + "': expected FIELD, FIELD|OTHER, FIELD >> N, FIELD & MASK or (FIELD >> N) & MASK");
        }
        String[] paths = m.group(2).split("\\s*\\|\\s*");
        int shift = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        if (shift > 63) {
            throw new IllegalArgumentException("key field '" + key + "': a shift of 0 to 63 bits");
        }
        long mask = -1;
        if (m.group(5) != null) {
            String g = m.group(5);
            try {
                mask = g.startsWith("0x") || g.startsWith("0X")
                        ? Long.parseUnsignedLong(g.substring(2), 16)
                        : Long.parseUnsignedLong(g);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("key field '" + key + "': the mask " + g + " exceeds 64 bits");
            }
        }
        return new KeyField(paths, shift, mask);
    }
}
