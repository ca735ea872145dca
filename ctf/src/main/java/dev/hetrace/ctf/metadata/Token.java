package dev.hetrace.ctf.metadata;

import java.math.BigInteger;

/** A TSDL token with its position (1-based line and column) in the metadata text. */
record Token(Kind kind, String text, BigInteger number, int line, int column) {
    enum Kind {
        IDENTIFIER,
        INTEGER,
        STRING,
        PUNCTUATOR,
        END
    }

    boolean is(String punctuatorOrWord) {
        return (kind == Kind.PUNCTUATOR || kind == Kind.IDENTIFIER) && text.equals(punctuatorOrWord);
    }

    String describe() {
        return switch (kind) {
            case END -> "end of metadata";
            case STRING -> "string \"" + text + "\"";
            case INTEGER -> "integer " + number;
            default -> "'" + text + "'";
        };
    }
}
