package dev.hetrace.ctf.metadata;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Splits TSDL text into tokens (C99 lexical rules restricted to what TSDL needs). */
final class TsdlLexer {
    private static final String[] PUNCTUATORS = {"...", ":=", "->", "[", "]", "(", ")", "{", "}", ".", "*", "+",
        "-", "<", ">", ":", ";", "=", ","};

    private final String src;
    private int pos;
    private int line = 1;
    private int lineStart;

    TsdlLexer(String src) {
        this.src = src;
    }

    static List<Token> tokenize(String text) throws MetadataException {
        TsdlLexer lexer = new TsdlLexer(text);
        List<Token> tokens = new ArrayList<>();
        Token t;
        do {
            t = lexer.next();
            tokens.add(t);
        } while (t.kind() != Token.Kind.END);
        return tokens;
    }

    private MetadataException error(int l, int col, String message) {
        return new MetadataException(l, col, message);
    }

    private int column() {
        return pos - lineStart + 1;
    }

    private void skipSpaceAndComments() throws MetadataException {
        while (pos < src.length()) {
            char c = src.charAt(pos);
            if (c == '\n') {
                pos++;
                line++;
                lineStart = pos;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0B) {
                pos++;
            } else if (c == '/' && pos + 1 < src.length() && src.charAt(pos + 1) == '*') {
                int l = line;
                int col = column();
                pos += 2;
                while (true) {
                    if (pos >= src.length()) {
                        throw error(l, col, "unterminated comment");
                    }
                    char d = src.charAt(pos);
                    if (d == '*' && pos + 1 < src.length() && src.charAt(pos + 1) == '/') {
                        pos += 2;
                        break;
                    }
                    if (d == '\n') {
                        line++;
                        lineStart = pos + 1;
                    } else if (d == 0) {
                        throw error(line, column(), "NUL character in metadata");
                    }
                    pos++;
                }
            } else if (c == '/' && pos + 1 < src.length() && src.charAt(pos + 1) == '/') {
                while (pos < src.length() && src.charAt(pos) != '\n') {
                    if (src.charAt(pos) == 0) {
                        throw error(line, column(), "NUL character in metadata");
                    }
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    Token next() throws MetadataException {
        skipSpaceAndComments();
        int l = line;
        int col = column();
        if (pos >= src.length()) {
            return new Token(Token.Kind.END, "", null, l, col);
        }
        char c = src.charAt(pos);
        if (c == 0) {
            throw error(l, col, "NUL character in metadata");
        }
        if (c == 'L' && pos + 1 < src.length() && (src.charAt(pos + 1) == '"' || src.charAt(pos + 1) == '\'')) {
            pos++;
            c = src.charAt(pos);
        }
        if (Character.isLetter(c) || c == '_' || c == '$') {
            int start = pos;
            while (pos < src.length()) {
                char d = src.charAt(pos);
                if (Character.isLetterOrDigit(d) || d == '_' || d == '$') {
                    pos++;
                } else {
                    break;
                }
            }
            return new Token(Token.Kind.IDENTIFIER, src.substring(start, pos), null, l, col);
        }
        if (c >= '0' && c <= '9') {
            return number(l, col);
        }
        if (c == '"') {
            pos++;
            String value = quoted('"', l, col);
            int nul = value.indexOf('\0');
            // A C string ends at its first NUL.
            return new Token(Token.Kind.STRING, nul >= 0 ? value.substring(0, nul) : value, null, l, col);
        }
        if (c == '\'') {
            pos++;
            String value = quoted('\'', l, col);
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            if (bytes.length == 0) {
                throw error(l, col, "empty character constant");
            }
            BigInteger v = BigInteger.ZERO;
            for (byte b : bytes) {
                v = v.shiftLeft(8).or(BigInteger.valueOf(b & 0xFF));
            }
            return new Token(Token.Kind.INTEGER, "'" + value + "'", v, l, col);
        }
        for (String p : PUNCTUATORS) {
            if (src.startsWith(p, pos)) {
                pos += p.length();
                return new Token(Token.Kind.PUNCTUATOR, p, null, l, col);
            }
        }
        throw error(l, col, "unexpected character '" + printable(c) + "'");
    }

    private static String printable(char c) {
        return c < 0x20 || c == 0x7F ? String.format("\\x%02x", (int) c) : String.valueOf(c);
    }

    private Token number(int l, int col) throws MetadataException {
        int start = pos;
        int radix = 10;
        int digitsStart = pos;
        if (src.charAt(pos) == '0' && pos + 1 < src.length()
                && (src.charAt(pos + 1) == 'x' || src.charAt(pos + 1) == 'X')) {
            radix = 16;
            pos += 2;
            digitsStart = pos;
        } else if (src.charAt(pos) == '0') {
            radix = 8;
        }
        while (pos < src.length() && Character.digit(src.charAt(pos), radix == 8 ? 10 : radix) >= 0) {
            pos++;
        }
        String digits = src.substring(digitsStart, pos);
        if (digits.isEmpty()) {
            throw error(l, col, "incomplete integer literal '" + src.substring(start, pos) + "'");
        }
        // Suffixes: u, l, ll in any C99-valid combination.
        int suffixStart = pos;
        while (pos < src.length() && "uUlL".indexOf(src.charAt(pos)) >= 0) {
            pos++;
        }
        String suffix = src.substring(suffixStart, pos).toLowerCase();
        if (!suffix.isEmpty() && !List.of("u", "l", "ul", "lu", "ll", "ull", "llu").contains(suffix)) {
            throw error(l, col, "invalid integer suffix '" + src.substring(suffixStart, pos) + "'");
        }
        if (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
            throw error(l, col, "invalid integer literal '" + src.substring(start, pos + 1) + "'");
        }
        BigInteger value;
        try {
            value = new BigInteger(digits, radix);
        } catch (NumberFormatException e) {
            throw error(l, col, "invalid integer literal '" + src.substring(start, pos) + "'");
        }
        if (value.bitLength() > 64) {
            throw error(l, col, "integer literal " + src.substring(start, pos) + " does not fit in 64 bits");
        }
        return new Token(Token.Kind.INTEGER, src.substring(start, pos), value, l, col);
    }

    /** Reads up to the closing quote, resolving C escapes; the result is decoded as UTF-8. */
    private String quoted(char quote, int l, int col) throws MetadataException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            if (pos >= src.length()) {
                throw error(l, col, "unterminated " + (quote == '"' ? "string" : "character") + " literal");
            }
            char c = src.charAt(pos);
            if (c == quote) {
                pos++;
                break;
            }
            if (c == '\n') {
                throw error(l, col, "unterminated " + (quote == '"' ? "string" : "character") + " literal");
            }
            if (c == 0) {
                throw error(line, column(), "NUL character in metadata");
            }
            if (c != '\\') {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && pos + 1 < src.length()) {
                    b = src.substring(pos, pos + 2).getBytes(StandardCharsets.UTF_8);
                    pos++;
                }
                out.writeBytes(b);
                pos++;
                continue;
            }
            int escLine = line;
            int escCol = column();
            pos++;
            if (pos >= src.length()) {
                throw error(l, col, "unterminated string literal");
            }
            char e = src.charAt(pos++);
            switch (e) {
                case '\'', '"', '?', '\\' -> out.write(e);
                case 'a' -> out.write(7);
                case 'b' -> out.write(8);
                case 'f' -> out.write(12);
                case 'n' -> out.write(10);
                case 'r' -> out.write(13);
                case 't' -> out.write(9);
                case 'v' -> out.write(11);
                case 'x' -> out.write(numericEscape(16, 0, escLine, escCol));
                case 'u', 'U' -> {
                    int n = e == 'u' ? 4 : 8;
                    if (pos + n > src.length()) {
                        throw error(escLine, escCol, "incomplete universal character name");
                    }
                    int cp;
                    try {
                        cp = Integer.parseInt(src.substring(pos, pos + n), 16);
                    } catch (NumberFormatException ex) {
                        throw error(escLine, escCol, "invalid universal character name");
                    }
                    if (!Character.isValidCodePoint(cp)) {
                        throw error(escLine, escCol, "invalid universal character name");
                    }
                    pos += n;
                    out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        pos--;
                        out.write(numericEscape(8, 0, escLine, escCol));
                    } else {
                        throw error(escLine, escCol, "unknown escape sequence '\\" + printable(e) + "'");
                    }
                }
            }
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    /** Octal and hexadecimal escapes take at most three digits, as babeltrace2 reads them. */
    private int numericEscape(int radix, int ignored, int l, int col) throws MetadataException {
        int value = 0;
        int n = 0;
        while (n < 3 && pos < src.length() && Character.digit(src.charAt(pos), radix) >= 0
                && (radix != 8 || src.charAt(pos) <= '7')) {
            value = value * radix + Character.digit(src.charAt(pos), radix);
            pos++;
            n++;
        }
        if (n == 0) {
            throw error(l, col, "escape sequence without digits");
        }
        if (value > 0xFF) {
            throw error(l, col, "escape sequence out of range for a byte");
        }
        return value;
    }
}
