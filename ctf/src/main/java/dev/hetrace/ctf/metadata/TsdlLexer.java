package dev.hetrace.ctf.metadata;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Splits TSDL text into tokens (C99 lexical rules restricted to what TSDL needs). Reads its
 * source through a small window, so metadata of any size (gigabytes) is tokenized in constant
 * memory; only a token itself (a very long identifier or string) is held whole.
 */
final class TsdlLexer {
    private static final int WINDOW = 1 << 16;

    private final Reader in;
    private final char[] buf = new char[WINDOW];
    /** Buffered characters are {@code buf[at, end)}. */
    private int at;

    private int end;
    private boolean eof;
    private int line = 1;
    /** Characters consumed since the start of the current line. */
    private long lineChars;

    private final StringBuilder text = new StringBuilder();

    TsdlLexer(Reader in) {
        this.in = in;
    }

    TsdlLexer(String src) {
        this(new StringReader(src));
    }

    private MetadataException error(int l, int col, String message) {
        return new MetadataException(l, col, message);
    }

    private int column() {
        return (int) Math.min(Integer.MAX_VALUE, lineChars + 1);
    }

    /** The character {@code ahead} positions on, or -1 past the end. */
    private int la(int ahead) {
        if (at + ahead >= end) {
            fill(ahead + 1);
            if (at + ahead >= end) {
                return -1;
            }
        }
        return buf[at + ahead];
    }

    private void fill(int wanted) {
        if (eof) {
            return;
        }
        if (at > 0) {
            System.arraycopy(buf, at, buf, 0, end - at);
            end -= at;
            at = 0;
        }
        try {
            while (end < wanted || end == 0) {
                int n = in.read(buf, end, buf.length - end);
                if (n < 0) {
                    eof = true;
                    return;
                }
                end += n;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Consumes one character (not a newline: see {@link #newline()}). */
    private char take() {
        la(0);
        lineChars++;
        return buf[at++];
    }

    private void skip(int n) {
        for (int i = 0; i < n; i++) {
            take();
        }
    }

    private void newline() {
        at++;
        line++;
        lineChars = 0;
    }

    private void skipSpaceAndComments() throws MetadataException {
        while (true) {
            int c = la(0);
            if (c < 0) {
                return;
            }
            if (c == '\n') {
                newline();
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0B) {
                take();
            } else if (c == '/' && la(1) == '*') {
                int l = line;
                int col = column();
                skip(2);
                while (true) {
                    int d = la(0);
                    if (d < 0) {
                        throw error(l, col, "unterminated comment");
                    }
                    if (d == '*' && la(1) == '/') {
                        skip(2);
                        break;
                    }
                    if (d == '\n') {
                        newline();
                        continue;
                    } else if (d == 0) {
                        throw error(line, column(), "NUL character in metadata");
                    }
                    take();
                }
            } else if (c == '/' && la(1) == '/') {
                while (true) {
                    int d = la(0);
                    if (d < 0 || d == '\n') {
                        break;
                    }
                    if (d == 0) {
                        throw error(line, column(), "NUL character in metadata");
                    }
                    take();
                }
            } else {
                return;
            }
        }
    }

    private static boolean identifierStart(int c) {
        return Character.isLetter(c) || c == '_' || c == '$';
    }

    private static boolean identifierPart(int c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    Token next() throws MetadataException {
        skipSpaceAndComments();
        int l = line;
        int col = column();
        int c = la(0);
        if (c < 0) {
            return new Token(Token.Kind.END, "", null, l, col);
        }
        if (c == 0) {
            throw error(l, col, "NUL character in metadata");
        }
        if (c == 'L' && (la(1) == '"' || la(1) == '\'')) {
            take();
            c = la(0);
        }
        if (identifierStart(c)) {
            text.setLength(0);
            // Identifiers are copied from the window in slices: a long one costs no more than its String.
            while (true) {
                if (at >= end) {
                    if (la(0) < 0) {
                        break;
                    }
                }
                int from = at;
                int i = at;
                while (i < end && identifierPart(buf[i])) {
                    i++;
                }
                text.append(buf, from, i - from);
                lineChars += i - from;
                at = i;
                if (i < end) {
                    break;
                }
            }
            return new Token(Token.Kind.IDENTIFIER, text.toString(), null, l, col);
        }
        if (c >= '0' && c <= '9') {
            return number(l, col);
        }
        if (c == '"') {
            take();
            String value = quoted('"', l, col);
            int nul = value.indexOf('\0');
            // A C string ends at its first NUL.
            return new Token(Token.Kind.STRING, nul >= 0 ? value.substring(0, nul) : value, null, l, col);
        }
        if (c == '\'') {
            take();
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
        String p = punctuator(c);
        if (p != null) {
            skip(p.length());
            return new Token(Token.Kind.PUNCTUATOR, p, null, l, col);
        }
        throw error(l, col, "unexpected character '" + printable((char) c) + "'");
    }

    private String punctuator(int c) {
        int d = la(1);
        return switch (c) {
            case '.' -> d == '.' && la(2) == '.' ? "..." : ".";
            case ':' -> d == '=' ? ":=" : ":";
            case '-' -> d == '>' ? "->" : "-";
            case '[' -> "[";
            case ']' -> "]";
            case '(' -> "(";
            case ')' -> ")";
            case '{' -> "{";
            case '}' -> "}";
            case '*' -> "*";
            case '+' -> "+";
            case '<' -> "<";
            case '>' -> ">";
            case ';' -> ";";
            case '=' -> "=";
            case ',' -> ",";
            default -> null;
        };
    }

    private static String printable(char c) {
        return c < 0x20 || c == 0x7F ? String.format("\\x%02x", (int) c) : String.valueOf(c);
    }

    private Token number(int l, int col) throws MetadataException {
        StringBuilder literal = new StringBuilder();
        int radix = 10;
        if (la(0) == '0' && (la(1) == 'x' || la(1) == 'X')) {
            radix = 16;
            literal.append(take()).append(take());
        } else if (la(0) == '0') {
            radix = 8;
        }
        int digitsStart = literal.length();
        while (la(0) >= 0 && Character.digit(la(0), radix == 8 ? 10 : radix) >= 0) {
            literal.append(take());
        }
        String digits = literal.substring(digitsStart);
        if (digits.isEmpty()) {
            throw error(l, col, "incomplete integer literal '" + literal + "'");
        }
        // Suffixes: u, l, ll in any C99-valid combination.
        int suffixStart = literal.length();
        while (la(0) >= 0 && "uUlL".indexOf(la(0)) >= 0) {
            literal.append(take());
        }
        String suffix = literal.substring(suffixStart).toLowerCase();
        if (!suffix.isEmpty()
                && !List.of("u", "l", "ul", "lu", "ll", "ull", "llu").contains(suffix)) {
            throw error(l, col, "invalid integer suffix '" + literal.substring(suffixStart) + "'");
        }
        if (la(0) >= 0 && (Character.isLetterOrDigit(la(0)) || la(0) == '_')) {
            throw error(l, col, "invalid integer literal '" + literal + (char) la(0) + "'");
        }
        BigInteger value;
        try {
            value = new BigInteger(digits, radix);
        } catch (NumberFormatException e) {
            throw error(l, col, "invalid integer literal '" + literal + "'");
        }
        if (value.bitLength() > 64) {
            throw error(l, col, "integer literal " + literal + " does not fit in 64 bits");
        }
        return new Token(Token.Kind.INTEGER, literal.toString(), value, l, col);
    }

    /** Reads up to the closing quote, resolving C escapes; the result is decoded as UTF-8. */
    private String quoted(char quote, int l, int col) throws MetadataException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            int c = la(0);
            if (c < 0) {
                throw error(l, col, "unterminated " + (quote == '"' ? "string" : "character") + " literal");
            }
            if (c == quote) {
                take();
                break;
            }
            if (c == '\n') {
                throw error(l, col, "unterminated " + (quote == '"' ? "string" : "character") + " literal");
            }
            if (c == 0) {
                throw error(line, column(), "NUL character in metadata");
            }
            if (c != '\\') {
                byte[] b;
                if (Character.isHighSurrogate((char) c) && la(1) >= 0) {
                    char hi = take();
                    char lo = take();
                    b = new String(new char[] {hi, lo}).getBytes(StandardCharsets.UTF_8);
                } else {
                    b = String.valueOf(take()).getBytes(StandardCharsets.UTF_8);
                }
                out.writeBytes(b);
                continue;
            }
            int escLine = line;
            int escCol = column();
            take();
            if (la(0) < 0) {
                throw error(l, col, "unterminated string literal");
            }
            char e = take();
            switch (e) {
                case '\'', '"', '?', '\\' -> out.write(e);
                case 'a' -> out.write(7);
                case 'b' -> out.write(8);
                case 'f' -> out.write(12);
                case 'n' -> out.write(10);
                case 'r' -> out.write(13);
                case 't' -> out.write(9);
                case 'v' -> out.write(11);
                case 'x' -> out.write(numericEscape(16, escLine, escCol));
                case 'u', 'U' -> {
                    int n = e == 'u' ? 4 : 8;
                    if (la(n - 1) < 0) {
                        throw error(escLine, escCol, "incomplete universal character name");
                    }
                    StringBuilder hex = new StringBuilder();
                    for (int i = 0; i < n; i++) {
                        hex.append((char) la(i));
                    }
                    int cp;
                    try {
                        cp = Integer.parseInt(hex.toString(), 16);
                    } catch (NumberFormatException ex) {
                        throw error(escLine, escCol, "invalid universal character name");
                    }
                    if (!Character.isValidCodePoint(cp)) {
                        throw error(escLine, escCol, "invalid universal character name");
                    }
                    skip(n);
                    out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        out.write(octalEscape(e, escLine, escCol));
                    } else {
                        throw error(escLine, escCol, "unknown escape sequence '\\" + printable(e) + "'");
                    }
                }
            }
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    /** Hexadecimal escapes take at most three digits, as babeltrace2 reads them. */
    private int numericEscape(int radix, int l, int col) throws MetadataException {
        int value = 0;
        int n = 0;
        while (n < 3 && la(0) >= 0 && Character.digit(la(0), radix) >= 0) {
            value = value * radix + Character.digit(take(), radix);
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

    /** Octal escapes: the first digit is already consumed; at most three digits in all. */
    private int octalEscape(char first, int l, int col) throws MetadataException {
        int value = first - '0';
        int n = 1;
        while (n < 3 && la(0) >= '0' && la(0) <= '7') {
            value = value * 8 + (take() - '0');
            n++;
        }
        if (value > 0xFF) {
            throw error(l, col, "escape sequence out of range for a byte");
        }
        return value;
    }
}
