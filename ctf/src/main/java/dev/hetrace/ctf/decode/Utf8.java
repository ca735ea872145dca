package dev.hetrace.ctf.decode;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A trace's strings as Java text, losing nothing: valid UTF-8 as its characters, each byte
 * that is not part of valid UTF-8 as {@code \xNN}. Replacing such bytes with U+FFFD, as
 * {@code new String(bytes, UTF_8)} does, makes names that differ only in them equal (two tasks
 * become one).
 */
public final class Utf8 {
    private Utf8() {}

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    public static String decode(byte[] b, int off, int len) {
        boolean ascii = true;
        for (int i = off; i < off + len && ascii; i++) {
            ascii = b[i] >= 0;
        }
        if (ascii) {
            return new String(b, off, len, StandardCharsets.ISO_8859_1);
        }
        CharsetDecoder d = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b, off, len);
        CharBuffer out = CharBuffer.allocate(len * 4 + 4);
        while (true) {
            CoderResult r = d.decode(in, out, true);
            if (r.isUnderflow()) {
                break;
            }
            if (r.isError()) {
                for (int k = 0; k < r.length(); k++) {
                    int v = in.get() & 0xFF;
                    out.put('\\').put('x').put(HEX[v >> 4]).put(HEX[v & 0xF]);
                }
            } else {
                throw new IllegalStateException(r.toString()); // overflow: the buffer holds 4 chars a byte
            }
        }
        d.flush(out);
        return out.flip().toString();
    }

    public static String decode(byte[] b) {
        return decode(b, 0, b.length);
    }
}
