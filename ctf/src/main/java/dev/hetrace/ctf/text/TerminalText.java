package dev.hetrace.ctf.text;

/**
 * Text from a trace (names of events, fields, tasks, enum labels) made safe for a terminal: its
 * control characters escaped as {@code hetrace print} escapes them ({@code \e}, {@code \r},
 * {@code \xNN}...), so that a name holding ESC, an OSC sequence or a carriage return cannot
 * clear the screen, retitle the window or overwrite what was printed before it.
 */
public final class TerminalText {
    private TerminalText() {}

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * {@code s} as one cell or name: every control character (C0, DEL, C1) escaped, and the
     * backslash doubled so that the escapes are unambiguous.
     */
    public static String escape(String s) {
        return escape(s, false, true);
    }

    /**
     * {@code s} as a name within {@code print}'s lines: its control characters escaped, the rest
     * (backslashes included) as babeltrace2 prints names.
     */
    public static String controls(String s) {
        return escape(s, false, false);
    }

    /**
     * A whole output (lines of text, CSV or JSON): every control character but the line feed and
     * the tab escaped as {@code \\uNNNN}, which JSON strings read back; backslashes are left as
     * they are.
     */
    public static String guard(String s) {
        return escape(s, true, false);
    }

    private static String escape(String s, boolean output, boolean backslash) {
        int i = 0;
        int n = s.length();
        while (i < n && !special(s.charAt(i), output, backslash)) {
            i++;
        }
        if (i == n) {
            return s;
        }
        StringBuilder b = new StringBuilder(n + 16).append(s, 0, i);
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (!special(c, output, backslash)) {
                b.append(c);
                continue;
            }
            if (output) { // valid in a JSON string too
                b.append("\\u")
                        .append(HEX[c >> 12])
                        .append(HEX[(c >> 8) & 0xF])
                        .append(HEX[(c >> 4) & 0xF])
                        .append(HEX[c & 0xF]);
                continue;
            }
            switch (c) {
                case '\\' -> b.append("\\\\");
                case 7 -> b.append("\\a");
                case 8 -> b.append("\\b");
                case 27 -> b.append("\\e");
                case 12 -> b.append("\\f");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case 11 -> b.append("\\v");
                default -> b.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return b.toString();
    }

    private static boolean special(char c, boolean output, boolean backslash) {
        if (c < 0x20) {
            return !(output && (c == '\n' || c == '\t'));
        }
        return c == 0x7F || (c >= 0x80 && c <= 0x9F) || (c == '\\' && backslash);
    }
}
