package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.TsdlTokens.error;

import dev.hetrace.ctf.metadata.FieldType.Encoding;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * An attribute of a TSDL basic type or of a trace/stream/event/clock block ({@code key = value}
 * or {@code key := type}), with the checks that turn its value into what the attribute means.
 */
record TsdlAttribute(Token at, List<String> key, Value value, FieldType type) {

    /** The right-hand side of {@code key = value}: an integer, a string, or a dotted name. */
    sealed interface Value {
        record Int(BigInteger value) implements Value {}

        record Str(String value) implements Value {}

        record Path(List<String> parts) implements Value {}

        /** The value as written, for messages. */
        static String text(Value v) {
            return switch (v) {
                case Value.Int i -> i.value().toString();
                case Value.Str s -> "\"" + s.value() + "\"";
                case Value.Path p -> String.join(".", p.parts());
            };
        }
    }

    String name() {
        return String.join(".", key);
    }

    /** An attribute name, possibly dotted ({@code packet.header}, {@code a->b}). */
    static List<String> parseKey(TsdlTokens tokens) throws MetadataException {
        List<String> parts = new ArrayList<>();
        parts.add(tokens.identifier("an attribute name").text());
        while (tokens.accept(".") || tokens.accept("->")) {
            parts.add(tokens.identifier("an attribute name after '.'").text());
        }
        return parts;
    }

    /** A signed integer, a string, a dotted name, or one of them in parentheses. */
    static Value parseValue(TsdlTokens tokens) throws MetadataException {
        Token t = tokens.peek();
        if (tokens.accept("-")) {
            Token n = tokens.peek();
            if (n.kind() != Token.Kind.INTEGER) {
                throw error(n, "expected an integer after '-', found " + n.describe());
            }
            tokens.next();
            return new Value.Int(n.number().negate());
        }
        if (tokens.accept("+")) {
            Token n = tokens.peek();
            if (n.kind() != Token.Kind.INTEGER) {
                throw error(n, "expected an integer after '+', found " + n.describe());
            }
            tokens.next();
            return new Value.Int(n.number());
        }
        if (tokens.accept("(")) {
            Value v = parseValue(tokens);
            tokens.expect(")", "to close the parenthesis");
            return v;
        }
        return switch (t.kind()) {
            case INTEGER -> {
                tokens.next();
                yield new Value.Int(t.number());
            }
            case STRING -> {
                tokens.next();
                yield new Value.Str(t.text());
            }
            case IDENTIFIER -> {
                List<String> parts = new ArrayList<>();
                parts.add(tokens.next().text());
                while (tokens.peek().is(".") || tokens.peek().is("->")) {
                    tokens.next();
                    parts.add(tokens.identifier("a name after '.'").text());
                }
                yield new Value.Path(parts);
            }
            default -> throw error(t, "expected a value, found " + t.describe());
        };
    }

    long toLong(long min, long max) throws MetadataException {
        if (!(value instanceof Value.Int(BigInteger v))) {
            throw error(at, "'" + name() + "' must be an integer");
        }
        if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            throw error(at, "'" + name() + "' = " + v + " is out of range [" + min + ", " + max + "]");
        }
        return v.longValue();
    }

    boolean toBool() throws MetadataException {
        if (value instanceof Value.Int(BigInteger v) && (v.equals(BigInteger.ZERO) || v.equals(BigInteger.ONE))) {
            return v.equals(BigInteger.ONE);
        }
        if (value instanceof Value.Path(List<String> parts) && parts.size() == 1) {
            switch (parts.getFirst()) {
                case "true", "TRUE" -> {
                    return true;
                }
                case "false", "FALSE" -> {
                    return false;
                }
                default -> {}
            }
        }
        throw error(at, "'" + name() + "' must be true, TRUE, 1, false, FALSE or 0");
    }

    /** The value when it is a single name, else null. */
    String word() {
        return value instanceof Value.Path(List<String> parts) && parts.size() == 1 ? parts.getFirst() : null;
    }

    /** @param traceByteOrder what {@code native} means */
    ByteOrder byteOrder(ByteOrder traceByteOrder) throws MetadataException {
        String w = word();
        if (w != null) {
            switch (w) {
                case "native" -> {
                    return traceByteOrder;
                }
                case "network", "be" -> {
                    return ByteOrder.BIG_ENDIAN;
                }
                case "le" -> {
                    return ByteOrder.LITTLE_ENDIAN;
                }
                default -> {}
            }
        }
        throw error(at, "byte_order must be native, network, be or le");
    }

    int alignment() throws MetadataException {
        long v = toLong(1, 1L << 62);
        if (Long.bitCount(v) != 1) {
            throw error(at, "alignment must be a power of two, found " + v);
        }
        if (v > Integer.MAX_VALUE) {
            throw error(at, "alignment " + v + " bits is too large");
        }
        return (int) v;
    }

    Encoding encoding() throws MetadataException {
        String w = word();
        if (w != null) {
            switch (w) {
                case "none" -> {
                    return Encoding.NONE;
                }
                case "UTF8", "utf8" -> {
                    return Encoding.UTF8;
                }
                case "ASCII", "ascii" -> {
                    return Encoding.ASCII;
                }
                default -> {}
            }
        }
        throw error(at, "encoding must be none, UTF8 or ASCII");
    }

    int base() throws MetadataException {
        if (value instanceof Value.Int(BigInteger v)) {
            int b = v.bitLength() < 8 ? v.intValue() : -1;
            if (b == 2 || b == 8 || b == 10 || b == 16) {
                return b;
            }
        }
        String w = word();
        if (w != null) {
            switch (w) {
                case "decimal", "dec", "d", "i", "u" -> {
                    return 10;
                }
                case "hexadecimal", "hex", "x", "X", "p" -> {
                    return 16;
                }
                case "octal", "oct", "o" -> {
                    return 8;
                }
                case "binary", "b" -> {
                    return 2;
                }
                default -> {}
            }
        }
        throw error(at, "base must be decimal, hexadecimal, octal, binary (or 10, 16, 8, 2)");
    }

    /** The struct assigned to a dynamic scope ({@code fields := struct {...}}). */
    StructType scopeStruct() throws MetadataException {
        if (type == null) {
            throw error(at, "'" + name() + "' must be assigned a struct type with ':='");
        }
        if (!(type instanceof StructType st)) {
            throw error(at, "'" + name() + "' must be a struct");
        }
        return st;
    }

    UUID uuid() throws MetadataException {
        if (!(value instanceof Value.Str(String s))) {
            throw error(at, "'" + name() + "' must be a string");
        }
        if (!s.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw error(at, "malformed UUID \"" + (s.length() > 60 ? s.substring(0, 60) + "..." : s) + "\"");
        }
        return UUID.fromString(s);
    }

    /** A name given as a string or as a (dotted) identifier. */
    String nameValue() throws MetadataException {
        return switch (value) {
            case Value.Str s -> s.value();
            case Value.Path p -> String.join(".", p.parts());
            case null -> throw error(at, "'" + name() + "' must be a name or a string");
            case Value.Int i -> throw error(at, "'" + name() + "' must be a name or a string, found " + i.value());
        };
    }
}
