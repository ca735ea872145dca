package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.TsdlScopes.NO_STRUCT;
import static dev.hetrace.ctf.metadata.TsdlScopes.STRUCT_SCOPE_BOUNDARY;
import static dev.hetrace.ctf.metadata.TsdlTokens.DYNAMIC_SCOPE_ROOTS;
import static dev.hetrace.ctf.metadata.TsdlTokens.error;
import static dev.hetrace.ctf.metadata.TsdlWords.CTF_KEYWORDS;
import static dev.hetrace.ctf.metadata.TsdlWords.C_TYPE_WORDS;

import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.Encoding;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.TsdlAttribute.Value;
import dev.hetrace.ctf.metadata.TsdlScopes.Scope;
import dev.hetrace.ctf.metadata.TsdlScopes.StaticRef;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Recursive-descent parser of TSDL (CTF 1.8 metadata text) into a {@link TraceClass}.
 * Checks what can be checked statically: attribute values, type names and scopes, field name
 * uniqueness, enumeration ranges, variant tags and sequence lengths found in the static scope.
 *
 * <p>This class reads declarations, type names, declarators and the basic types; its parts are
 * {@link TsdlTokens} (lookahead), {@link TsdlAttribute} (attribute values), {@link TsdlScopes}
 * (names in scope), {@link TsdlCompoundTypes} (structs, variants, enumerations) and
 * {@link TsdlTraceAssembly} (the top-level blocks and the trace class made from them).
 */
final class TsdlParser {
    private final TsdlTokens tokens;
    private final TsdlScopes scopes = new TsdlScopes();
    private final TsdlCompoundTypes compound;
    private final TsdlTraceAssembly assembly;
    private final Consumer<String> warnings;
    private boolean callsiteWarned;
    private final ByteOrder traceByteOrder;

    private TsdlParser(TsdlLexer lexer, ByteOrder traceByteOrder, Consumer<String> warnings) {
        this.tokens = new TsdlTokens(lexer);
        this.warnings = warnings;
        this.traceByteOrder = traceByteOrder;
        this.compound = new TsdlCompoundTypes(this, tokens, scopes);
        this.assembly = new TsdlTraceAssembly(this, tokens, traceByteOrder, warnings);
    }

    /** A source of metadata text that can be read more than once (the byte order is found first). */
    @FunctionalInterface
    interface Source {
        Reader open() throws IOException;
    }

    /**
     * Parses metadata text.
     *
     * @param defaultOrder byte order used for {@code native} when the trace block names none (the
     *                     order of packetized metadata, or little-endian)
     */
    static TraceClass parse(String text, ByteOrder defaultOrder, Consumer<String> warnings) throws MetadataException {
        try {
            return parse(() -> new StringReader(text), defaultOrder, warnings);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Parses metadata text read from {@code source}, twice: a first pass finds the trace byte
     * order, the second builds the trace class. Neither holds the text or its tokens whole.
     */
    static TraceClass parse(Source source, ByteOrder defaultOrder, Consumer<String> warnings)
            throws MetadataException, IOException {
        ByteOrder declared;
        try (Reader r = source.open()) {
            declared = TsdlTokens.findTraceByteOrder(new TsdlLexer(r));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        try (Reader r = source.open()) {
            return new TsdlParser(new TsdlLexer(r), declared != null ? declared : defaultOrder, warnings).parseTrace();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    // ---------------------------------------------------------------- top level

    private TraceClass parseTrace() throws MetadataException {
        scopes.pushStruct(NO_STRUCT); // sentinel: no struct at the root
        while (tokens.peek().kind() != Token.Kind.END) {
            Token t = tokens.peek();
            if (t.is(";")) {
                tokens.next();
                continue;
            }
            if (t.kind() == Token.Kind.IDENTIFIER && tokens.peek(1).is("{")) {
                switch (t.text()) {
                    case "trace" -> {
                        tokens.next();
                        assembly.parseTraceBlock(t);
                        continue;
                    }
                    case "stream" -> {
                        tokens.next();
                        assembly.parseStreamBlock(t);
                        continue;
                    }
                    case "event" -> {
                        tokens.next();
                        assembly.parseEventBlock(t);
                        continue;
                    }
                    case "clock" -> {
                        tokens.next();
                        assembly.parseClockBlock(t);
                        continue;
                    }
                    case "env" -> {
                        tokens.next();
                        assembly.parseEnvBlock();
                        continue;
                    }
                    case "callsite" -> {
                        tokens.next();
                        parseAttributeBlock(t, a -> {
                            if (!callsiteWarned) {
                                callsiteWarned = true;
                                warnings.accept("line " + a.at().line() + ": callsite blocks are read but not used");
                            }
                        });
                        tokens.expect(";", "after the callsite block");
                        continue;
                    }
                    default -> {}
                }
            }
            parseDeclaration(false);
        }
        return assembly.assemble();
    }

    /**
     * A declaration in a scope that holds no fields: typealias, typedef, or a named
     * struct/variant/enum declaration. {@code inStruct} is true inside a struct or variant body,
     * where declarations with declarators are fields (handled by the caller).
     */
    void parseDeclaration(boolean inStruct) throws MetadataException {
        Token t = tokens.peek();
        if (tokens.accept("typealias")) {
            parseTypealias(t);
            return;
        }
        if (tokens.accept("typedef")) {
            parseTypedef();
            return;
        }
        FieldType type = parseTypeSpecifier();
        while (tokens.peek().is("struct")
                || tokens.peek().is("variant")
                || tokens.peek().is("enum")) {
            type = parseTypeSpecifier(); // C allows several specifiers before the ';'
        }
        if (!tokens.peek().is(";")) {
            throw error(
                    tokens.peek(),
                    "expected ';' after a type declaration (fields may only be declared inside a"
                            + " struct or variant), found " + tokens.peek().describe());
        }
        tokens.next();
        if (!(type instanceof StructType) && !(type instanceof VariantType) && !(type instanceof EnumType)) {
            warnings.accept("line " + t.line() + ": declaration of an unnamed type has no effect");
        }
    }

    private void parseTypealias(Token at) throws MetadataException {
        FieldType target = parseTypeSpecifier();
        target = applyDims(target, parseDims(), tokens.peek());
        tokens.expect(":=", "in typealias");
        List<Token> words = new ArrayList<>();
        while (tokens.peek().kind() == Token.Kind.IDENTIFIER) {
            Token w = tokens.next();
            if (CTF_KEYWORDS.contains(w.text())) {
                throw error(w, "'" + w.text() + "' is a reserved keyword and cannot name a type alias");
            }
            words.add(w);
            if (!C_TYPE_WORDS.contains(w.text())) {
                break;
            }
        }
        if (words.isEmpty()) {
            throw error(
                    tokens.peek(),
                    "expected the alias name after ':=', found " + tokens.peek().describe());
        }
        target = applyDims(target, parseDims(), tokens.peek());
        String name = joinWords(words);
        scopes.defineAlias(words.getFirst(), name, target);
        tokens.expect(";", "after typealias");
    }

    private void parseTypedef() throws MetadataException {
        FieldType base = parseTypeSpecifier();
        do {
            Token nameTok = tokens.peek();
            if (nameTok.kind() != Token.Kind.IDENTIFIER) {
                throw error(nameTok, "expected the typedef name, found " + nameTok.describe());
            }
            if (TsdlWords.reserved(nameTok.text())) {
                throw error(nameTok, "'" + nameTok.text() + "' is a reserved keyword and cannot be a typedef name");
            }
            tokens.next();
            FieldType t = applyDims(base, parseDims(), nameTok);
            scopes.defineAlias(nameTok, nameTok.text(), t);
        } while (tokens.accept(","));
        tokens.expect(";", "after typedef");
    }

    private static String joinWords(List<Token> words) {
        StringBuilder sb = new StringBuilder();
        for (Token w : words) {
            if (w.text().equals("const")) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(w.text());
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- declarators

    /** One {@code [..]} of a declarator: a length, or a path to the length field. */
    record Dim(Token at, BigInteger length, FieldPath path) {}

    List<Dim> parseDims() throws MetadataException {
        List<Dim> dims = new ArrayList<>();
        while (tokens.peek().is("[")) {
            Token open = tokens.next();
            if (tokens.peek().is("]")) {
                throw error(tokens.peek(), "expected an array length or a length field, found ']'");
            }
            Value v = TsdlAttribute.parseValue(tokens);
            tokens.expect("]", "to close the array or sequence length");
            switch (v) {
                case Value.Int i -> {
                    if (i.value().signum() < 0) {
                        throw error(open, "array length must not be negative, found " + i.value());
                    }
                    dims.add(new Dim(open, i.value(), null));
                }
                case Value.Path path -> {
                    if (path.parts().size() == 1
                            && (scopes.lookupAlias(path.parts().getFirst()) != null
                                    || C_TYPE_WORDS.contains(path.parts().getFirst()))) {
                        throw error(
                                open, "sequence length '" + path.parts().getFirst() + "' names a type, not a field");
                    }
                    if (CTF_KEYWORDS.contains(path.parts().getFirst())
                            && !DYNAMIC_SCOPE_ROOTS.contains(path.parts().getFirst())) {
                        throw error(
                                open,
                                "sequence length cannot be the keyword '"
                                        + path.parts().getFirst() + "'");
                    }
                    dims.add(new Dim(open, null, new FieldPath(path.parts())));
                }
                case Value.Str s ->
                    throw error(open, "array length must be an integer or a field name, found a string");
            }
        }
        return dims;
    }

    /** {@code T x[2][3]} is an array of 2 arrays of 3 T, as in C. */
    FieldType applyDims(FieldType base, List<Dim> dims, Token at) throws MetadataException {
        FieldType t = base;
        for (int i = dims.size() - 1; i >= 0; i--) {
            Dim d = dims.get(i);
            if (d.length() != null) {
                if (d.length().bitLength() > 63) {
                    throw error(d.at(), "array length " + d.length() + " is too large");
                }
                t = new ArrayType(t, d.length().longValueExact());
            } else {
                StaticRef target = scopes.checkRelativeReference(d.at(), d.path(), "sequence length");
                t = new SequenceType(t, d.path(), target == null ? null : target.member());
            }
        }
        return t;
    }

    // ---------------------------------------------------------------- type specifiers

    FieldType parseTypeSpecifier() throws MetadataException {
        Token t = tokens.peek();
        if (t.kind() != Token.Kind.IDENTIFIER) {
            throw error(t, "expected a type, found " + t.describe());
        }
        switch (t.text()) {
            case "integer" -> {
                tokens.next();
                return parseInteger(t);
            }
            case "floating_point" -> {
                tokens.next();
                return parseFloat(t);
            }
            case "string" -> {
                tokens.next();
                return parseString(t);
            }
            case "struct" -> {
                tokens.next();
                return compound.parseStruct(t);
            }
            case "variant" -> {
                tokens.next();
                return compound.parseVariant(t);
            }
            case "enum" -> {
                tokens.next();
                return compound.parseEnum(t);
            }
            default -> {
                return parseTypeName();
            }
        }
    }

    private FieldType parseTypeName() throws MetadataException {
        Token first = tokens.peek();
        List<Token> words = new ArrayList<>();
        while (tokens.peek().kind() == Token.Kind.IDENTIFIER) {
            Token w = tokens.peek();
            if (C_TYPE_WORDS.contains(w.text())) {
                words.add(tokens.next());
            } else if (words.stream().allMatch(x -> x.text().equals("const")) && !CTF_KEYWORDS.contains(w.text())) {
                words.add(tokens.next());
                // "const" may follow a typedef name
                while (tokens.peek().is("const")) {
                    tokens.next();
                }
                break;
            } else {
                break;
            }
        }
        if (words.isEmpty()) {
            throw error(first, "expected a type, found " + first.describe());
        }
        String name = joinWords(words);
        if (name.isEmpty()) {
            throw error(first, "'const' alone is not a type");
        }
        FieldType type = scopes.lookupAlias(name);
        if (type == null) {
            throw error(first, "unknown type '" + name + "'");
        }
        return type;
    }

    void parseAttributeBlock(Token blockStart, AttrSink sink) throws MetadataException {
        tokens.expect("{", "to open the " + blockStart.text() + " block");
        Scope saved = scopes.scope();
        int savedLazy = scopes.lazyScopes();
        scopes.enter();
        scopes.pushStruct(STRUCT_SCOPE_BOUNDARY);
        try {
            while (!tokens.accept("}")) {
                if (tokens.peek().kind() == Token.Kind.END) {
                    throw error(blockStart, "unterminated " + blockStart.text() + " block (missing '}')");
                }
                if (tokens.accept(";")) {
                    continue;
                }
                Token at = tokens.peek();
                if (tokens.accept("typealias")) {
                    parseTypealias(at);
                    continue;
                }
                if (tokens.accept("typedef")) {
                    parseTypedef();
                    continue;
                }
                List<String> key = TsdlAttribute.parseKey(tokens);
                if (tokens.accept(":=")) {
                    Token typeAt = tokens.peek();
                    FieldType type = parseTypeSpecifier();
                    type = applyDims(type, parseDims(), typeAt);
                    sink.accept(new TsdlAttribute(at, key, null, type));
                } else if (tokens.accept("=")) {
                    Value v = TsdlAttribute.parseValue(tokens);
                    if (tokens.peek().kind() == Token.Kind.STRING) {
                        throw error(tokens.peek(), "adjacent string literals are not allowed; expected ';'");
                    }
                    sink.accept(new TsdlAttribute(at, key, v, null));
                } else {
                    throw error(
                            tokens.peek(),
                            "expected '=' or ':=' after '" + String.join(".", key) + "', found "
                                    + tokens.peek().describe());
                }
                tokens.expect(";", "after the value of '" + String.join(".", key) + "'");
            }
        } finally {
            scopes.restore(saved, savedLazy);
            scopes.popStruct();
        }
    }

    @FunctionalInterface
    interface AttrSink {
        void accept(TsdlAttribute a) throws MetadataException;
    }

    private IntegerType parseInteger(Token at) throws MetadataException {
        Integer[] size = {null};
        Integer[] align = {null};
        boolean[] signed = {false};
        ByteOrder[] order = {traceByteOrder};
        int[] base = {10};
        Encoding[] enc = {Encoding.NONE};
        String[] clock = {null};
        parseAttributeBlock(at, a -> {
            if (a.type() != null) {
                throw error(a.at(), "unexpected type assignment in integer");
            }
            switch (a.name()) {
                case "size" -> size[0] = (int) a.toLong(1, Integer.MAX_VALUE);
                case "align" -> align[0] = a.alignment();
                case "signed" -> signed[0] = a.toBool();
                case "byte_order" -> order[0] = a.byteOrder(traceByteOrder);
                case "base" -> base[0] = a.base();
                case "encoding" -> enc[0] = a.encoding();
                case "map" -> {
                    if (!(a.value() instanceof Value.Path(List<String> parts))
                            || parts.size() != 3
                            || !parts.get(0).equals("clock")
                            || !parts.get(2).equals("value")) {
                        throw error(a.at(), "map must be clock.NAME.value");
                    }
                    clock[0] = parts.get(1);
                }
                default ->
                    warnings.accept("line " + a.at().line() + ": unknown integer attribute '" + a.name() + "' ignored");
            }
        });
        if (size[0] == null) {
            throw error(at, "integer has no size");
        }
        int alignment = align[0] != null ? align[0] : (size[0] % 8 == 0 ? 8 : 1);
        return new IntegerType(size[0], alignment, signed[0], order[0], base[0], enc[0], clock[0]);
    }

    private FloatType parseFloat(Token at) throws MetadataException {
        Integer[] exp = {null};
        Integer[] mant = {null};
        Integer[] align = {8};
        ByteOrder[] order = {traceByteOrder};
        parseAttributeBlock(at, a -> {
            if (a.type() != null) {
                throw error(a.at(), "unexpected type assignment in floating_point");
            }
            switch (a.name()) {
                case "exp_dig" -> exp[0] = (int) a.toLong(1, 64);
                case "mant_dig" -> mant[0] = (int) a.toLong(1, 64);
                case "align" -> align[0] = a.alignment();
                case "byte_order" -> order[0] = a.byteOrder(traceByteOrder);
                default ->
                    warnings.accept(
                            "line " + a.at().line() + ": unknown floating_point attribute '" + a.name() + "' ignored");
            }
        });
        if (exp[0] == null || mant[0] == null) {
            throw error(at, "floating_point needs exp_dig and mant_dig");
        }
        if (!((exp[0] == 8 && mant[0] == 24) || (exp[0] == 11 && mant[0] == 53))) {
            throw error(
                    at,
                    "unsupported floating_point (exp_dig " + exp[0] + ", mant_dig " + mant[0]
                            + "): only 32-bit (8/24) and 64-bit (11/53) IEEE 754 are supported");
        }
        return new FloatType(exp[0], mant[0], align[0], order[0]);
    }

    private StringType parseString(Token at) throws MetadataException {
        if (!tokens.peek().is("{")) {
            return new StringType(Encoding.UTF8);
        }
        Encoding[] enc = {Encoding.UTF8};
        parseAttributeBlock(at, a -> {
            if ("encoding".equals(a.name()) && a.type() == null) {
                enc[0] = a.encoding();
            } else {
                warnings.accept("line " + a.at().line() + ": unknown string attribute '" + a.name() + "' ignored");
            }
        });
        return new StringType(enc[0]);
    }
}
