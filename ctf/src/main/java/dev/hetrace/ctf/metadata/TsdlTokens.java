package dev.hetrace.ctf.metadata;

import java.util.Set;

/**
 * The tokens of TSDL metadata as the parser reads them: a few tokens of lookahead over a
 * {@link TsdlLexer}, the reserved words, and the pre-scan that finds the trace byte order.
 */
final class TsdlTokens {
    static final Set<String> DYNAMIC_SCOPE_ROOTS = Set.of("trace", "stream", "event", "env");

    private final TsdlLexer lexer;
    /** Tokens read ahead: {@code ahead[0]} is the current one. */
    private final Token[] ahead = new Token[4];

    private int buffered;
    private Token previous;

    TsdlTokens(TsdlLexer lexer) {
        this.lexer = lexer;
    }

    Token peek() throws MetadataException {
        return peek(0);
    }

    Token peek(int k) throws MetadataException {
        while (buffered <= k) {
            Token last = buffered > 0 ? ahead[buffered - 1] : null;
            ahead[buffered++] = last != null && last.kind() == Token.Kind.END ? last : lexer.next();
        }
        return ahead[k];
    }

    Token next() throws MetadataException {
        Token t = peek(0);
        if (t.kind() != Token.Kind.END) {
            previous = t;
            System.arraycopy(ahead, 1, ahead, 0, buffered - 1);
            ahead[--buffered] = null;
        }
        return t;
    }

    /** The last token consumed by {@link #next()}. */
    Token previous() {
        return previous;
    }

    boolean accept(String s) throws MetadataException {
        if (peek().is(s)) {
            next();
            return true;
        }
        return false;
    }

    Token expect(String s, String what) throws MetadataException {
        Token t = peek();
        if (!t.is(s)) {
            throw error(t, "expected '" + s + "' " + what + ", found " + t.describe());
        }
        return next();
    }

    static MetadataException error(Token t, String message) {
        return new MetadataException(t.line(), t.column(), message);
    }

    Token identifier(String what) throws MetadataException {
        Token t = peek();
        if (t.kind() != Token.Kind.IDENTIFIER) {
            throw error(t, "expected " + what + ", found " + t.describe());
        }
        return next();
    }

    Token fieldName(String what) throws MetadataException {
        Token t = identifier(what);
        if (TsdlWords.reserved(t.text())) {
            throw error(
                    t, "'" + t.text() + "' is a reserved keyword and cannot name " + what + " (prefix it with '_')");
        }
        return t;
    }

    // ---------------------------------------------------------------- pre-scan

    /**
     * The trace block's byte order is needed before any type that says "native" is built: a
     * first pass over the tokens finds the first top-level {@code trace} block and stops at its end.
     */
    static ByteOrder findTraceByteOrder(TsdlLexer lexer) throws MetadataException {
        Token[] w = new Token[3];
        for (int i = 0; i < 3; i++) {
            w[i] = lexer.next();
        }
        int depth = 0;
        while (w[0].kind() != Token.Kind.END) {
            Token t = w[0];
            if (t.is("{")) {
                depth++;
            } else if (t.is("}")) {
                depth--;
            } else if (depth == 0 && t.is("trace") && w[1].is("{")) {
                int d = 0;
                shift(w, lexer);
                while (w[0].kind() != Token.Kind.END && w[2].kind() != Token.Kind.END) {
                    Token u = w[0];
                    if (u.is("{")) {
                        d++;
                    } else if (u.is("}")) {
                        if (--d == 0) {
                            break;
                        }
                    } else if (d == 1 && u.is("byte_order") && w[1].is("=")) {
                        Token v = w[2];
                        return switch (v.text()) {
                            case "be", "network" -> ByteOrder.BIG_ENDIAN;
                            case "le" -> ByteOrder.LITTLE_ENDIAN;
                            default -> throw error(v, "trace byte_order must be 'be' or 'le', found " + v.describe());
                        };
                    }
                    shift(w, lexer);
                }
                return null;
            }
            shift(w, lexer);
        }
        return null;
    }

    private static void shift(Token[] w, TsdlLexer lexer) throws MetadataException {
        w[0] = w[1];
        w[1] = w[2];
        w[2] = w[2].kind() == Token.Kind.END ? w[2] : lexer.next();
    }
}
