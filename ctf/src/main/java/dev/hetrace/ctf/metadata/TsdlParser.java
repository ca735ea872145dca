package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.Encoding;
import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Recursive-descent parser of TSDL (CTF 1.8 metadata text) into a {@link TraceClass}.
 * Checks what can be checked statically: attribute values, type names and scopes, field name
 * uniqueness, enumeration ranges, variant tags and sequence lengths found in the static scope.
 */
final class TsdlParser {
    private static final Set<String> CTF_KEYWORDS = Set.of("align", "callsite", "clock", "enum", "env", "event",
        "floating_point", "integer", "stream", "string", "struct", "trace", "typealias", "typedef", "variant");
    private static final Set<String> C_TYPE_WORDS = Set.of("const", "char", "double", "float", "int", "long",
        "short", "signed", "unsigned", "void", "_Bool", "_Complex", "_Imaginary");
    private static final Set<String> DYNAMIC_SCOPE_ROOTS = Set.of("trace", "stream", "event", "env");

    private final TsdlLexer lexer;
    /** Tokens read ahead: {@code ahead[0]} is the current one. */
    private final Token[] ahead = new Token[4];
    private int buffered;
    private Token previous;
    private final Consumer<String> warnings;
    private boolean callsiteWarned;
    private Scope scope = new Scope(null);
    /**
     * Scopes entered inside {@link #scope} in which nothing is declared yet: they are made when
     * something is ({@link #ownScope()}), so that deeply nested structs cost no scope each.
     */
    private int lazyScopes;
    /** Members declared so far in each structure being parsed, innermost last; null marks a non-struct scope. */
    private final Deque<MemberList> structStack = new ArrayDeque<>();
    /** Marks, in the struct stack, the start of a dynamic scope definition ({@code fields := ...}). */
    private static final MemberList STRUCT_SCOPE_BOUNDARY = new MemberList();
    /** Marks the root of the struct stack: no struct. */
    private static final MemberList NO_STRUCT = new MemberList();
    private final ByteOrder traceByteOrder;

    // What the metadata declares.
    private Token traceBlock;
    private Integer major;
    private Integer minor;
    private UUID uuid;
    private StructType packetHeader;
    private final Map<String, ClockClass> clocks = new LinkedHashMap<>();
    private final Map<String, Object> env = new LinkedHashMap<>();
    private final List<PendingStream> streams = new ArrayList<>();
    private final List<PendingEvent> events = new ArrayList<>();

    /** A stream block, or a run of {@code count} similar ones with consecutive ids. */
    private static final class PendingStream {
        final Token at;
        final Long id;
        final StructType packetContext;
        final StructType eventHeader;
        final StructType eventContext;
        long count = 1;

        PendingStream(Token at, Long id, StructType packetContext, StructType eventHeader, StructType eventContext) {
            this.at = at;
            this.id = id;
            this.packetContext = packetContext;
            this.eventHeader = eventHeader;
            this.eventContext = eventContext;
        }

        /** Whether {@code s} is the next of this run. */
        boolean extendsWith(PendingStream s) {
            return id != null && s.id != null && s.id == id + count && Types.same(packetContext, s.packetContext)
                && Types.same(eventHeader, s.eventHeader) && Types.same(eventContext, s.eventContext);
        }
    }

    /** An event block, or a run of {@code count} similar ones with consecutive ids (and counted names). */
    private static final class PendingEvent {
        final Token at;
        final Long id;
        final String name;
        final Long streamId;
        final StructType context;
        final StructType payload;
        final Long logLevel;
        final String emfUri;
        long count = 1;
        String namePrefix;
        long firstNumber;
        int nameStep;

        PendingEvent(Token at, Long id, String name, Long streamId, StructType context, StructType payload,
                     Long logLevel, String emfUri) {
            this.at = at;
            this.id = id;
            this.name = name;
            this.streamId = streamId;
            this.context = context;
            this.payload = payload;
            this.logLevel = logLevel;
            this.emfUri = emfUri;
            this.namePrefix = name;
        }

        /** Adds {@code e} to this run if it is the next of it. */
        boolean extendWith(PendingEvent e) {
            if (id == null || e.id == null || e.id != id + count || !java.util.Objects.equals(streamId, e.streamId)
                    || !Types.same(context, e.context) || !Types.same(payload, e.payload)
                    || !java.util.Objects.equals(logLevel, e.logLevel) || !java.util.Objects.equals(emfUri, e.emfUri)) {
                return false;
            }
            if (count == 1) {
                if (java.util.Objects.equals(name, e.name)) {
                    nameStep = 0;
                } else {
                    CountedName a = name == null ? null : CountedName.of(name);
                    CountedName b = e.name == null ? null : CountedName.of(e.name);
                    if (a == null || b == null || !a.prefix().equals(b.prefix()) || b.number() != a.number() + 1) {
                        return false;
                    }
                    nameStep = 1;
                    namePrefix = a.prefix();
                    firstNumber = a.number();
                }
            } else if (nameStep == 0 ? !java.util.Objects.equals(name, e.name)
                    : e.name == null || !e.name.equals(namePrefix + (firstNumber + count))) {
                return false;
            }
            count++;
            return true;
        }

        EventClassRun run(long streamId) {
            return new EventClassRun(id, count, namePrefix, firstNumber, nameStep, streamId, context, payload,
                logLevel, emfUri);
        }
    }

    /** Runs shorter than this are kept as separate classes. */
    private static final long MIN_RUN = 16;

    private static final class Scope {
        final Scope parent;
        final NameTable<FieldType> aliases = new NameTable<>();
        final NameTable<StructType> structs = new NameTable<>();
        final NameTable<VariantType> variants = new NameTable<>();
        final NameTable<EnumType> enums = new NameTable<>();

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    private TsdlParser(TsdlLexer lexer, ByteOrder traceByteOrder, Consumer<String> warnings) {
        this.lexer = lexer;
        this.warnings = warnings;
        this.traceByteOrder = traceByteOrder;
    }

    /** A source of metadata text that can be read more than once (the byte order is found first). */
    @FunctionalInterface
    interface Source {
        java.io.Reader open() throws java.io.IOException;
    }

    /**
     * Parses metadata text.
     *
     * @param defaultOrder byte order used for {@code native} when the trace block names none (the
     *                     order of packetized metadata, or little-endian)
     */
    static TraceClass parse(String text, ByteOrder defaultOrder, Consumer<String> warnings)
            throws MetadataException {
        try {
            return parse(() -> new java.io.StringReader(text), defaultOrder, warnings);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Parses metadata text read from {@code source}, twice: a first pass finds the trace byte
     * order, the second builds the trace class. Neither holds the text or its tokens whole.
     */
    static TraceClass parse(Source source, ByteOrder defaultOrder, Consumer<String> warnings)
            throws MetadataException, java.io.IOException {
        ByteOrder declared;
        try (java.io.Reader r = source.open()) {
            declared = findTraceByteOrder(new TsdlLexer(r));
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        try (java.io.Reader r = source.open()) {
            return new TsdlParser(new TsdlLexer(r), declared != null ? declared : defaultOrder, warnings).parseTrace();
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
    }

    // ---------------------------------------------------------------- token helpers

    private Token peek() throws MetadataException {
        return peek(0);
    }

    private Token peek(int k) throws MetadataException {
        while (buffered <= k) {
            Token last = buffered > 0 ? ahead[buffered - 1] : null;
            ahead[buffered++] = last != null && last.kind() == Token.Kind.END ? last : lexer.next();
        }
        return ahead[k];
    }

    private Token next() throws MetadataException {
        Token t = peek(0);
        if (t.kind() != Token.Kind.END) {
            previous = t;
            System.arraycopy(ahead, 1, ahead, 0, buffered - 1);
            ahead[--buffered] = null;
        }
        return t;
    }

    private boolean accept(String s) throws MetadataException {
        if (peek().is(s)) {
            next();
            return true;
        }
        return false;
    }

    private Token expect(String s, String what) throws MetadataException {
        Token t = peek();
        if (!t.is(s)) {
            throw error(t, "expected '" + s + "' " + what + ", found " + t.describe());
        }
        return next();
    }

    private static MetadataException error(Token t, String message) {
        return new MetadataException(t.line(), t.column(), message);
    }

    private Token identifier(String what) throws MetadataException {
        Token t = peek();
        if (t.kind() != Token.Kind.IDENTIFIER) {
            throw error(t, "expected " + what + ", found " + t.describe());
        }
        return next();
    }

    private Token fieldName(String what) throws MetadataException {
        Token t = identifier(what);
        if (CTF_KEYWORDS.contains(t.text()) || C_TYPE_WORDS.contains(t.text())) {
            throw error(t, "'" + t.text() + "' is a reserved keyword and cannot name " + what
                + " (prefix it with '_')");
        }
        return t;
    }

    // ---------------------------------------------------------------- pre-scan

    /**
     * The trace block's byte order is needed before any type that says "native" is built: a
     * first pass over the tokens finds the first top-level {@code trace} block and stops at its end.
     */
    private static ByteOrder findTraceByteOrder(TsdlLexer lexer) throws MetadataException {
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
                            default -> throw error(v, "trace byte_order must be 'be' or 'le', found "
                                + v.describe());
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

    // ---------------------------------------------------------------- top level

    private TraceClass parseTrace() throws MetadataException {
        structStack.push(NO_STRUCT); // sentinel: no struct at the root
        while (peek().kind() != Token.Kind.END) {
            Token t = peek();
            if (t.is(";")) {
                next();
                continue;
            }
            if (t.kind() == Token.Kind.IDENTIFIER && peek(1).is("{")) {
                switch (t.text()) {
                    case "trace" -> {
                        next();
                        parseTraceBlock(t);
                        continue;
                    }
                    case "stream" -> {
                        next();
                        parseStreamBlock(t);
                        continue;
                    }
                    case "event" -> {
                        next();
                        parseEventBlock(t);
                        continue;
                    }
                    case "clock" -> {
                        next();
                        parseClockBlock(t);
                        continue;
                    }
                    case "env" -> {
                        next();
                        parseEnvBlock();
                        continue;
                    }
                    case "callsite" -> {
                        next();
                        parseAttributeBlock(t, a -> {
                            if (!callsiteWarned) {
                                callsiteWarned = true;
                                warnings.accept("line " + a.at().line() + ": callsite blocks are read but not used");
                            }
                        });
                        expect(";", "after the callsite block");
                        continue;
                    }
                    default -> { }
                }
            }
            parseDeclaration(false);
        }
        return assemble();
    }

    /**
     * A declaration in a scope that holds no fields: typealias, typedef, or a named
     * struct/variant/enum declaration. {@code inStruct} is true inside a struct or variant body,
     * where declarations with declarators are fields (handled by the caller).
     */
    private void parseDeclaration(boolean inStruct) throws MetadataException {
        Token t = peek();
        if (accept("typealias")) {
            parseTypealias(t);
            return;
        }
        if (accept("typedef")) {
            parseTypedef();
            return;
        }
        FieldType type = parseTypeSpecifier();
        while (peek().is("struct") || peek().is("variant") || peek().is("enum")) {
            type = parseTypeSpecifier(); // C allows several specifiers before the ';'
        }
        if (!peek().is(";")) {
            throw error(peek(), "expected ';' after a type declaration (fields may only be declared inside a"
                + " struct or variant), found " + peek().describe());
        }
        next();
        if (!(type instanceof StructType) && !(type instanceof VariantType) && !(type instanceof EnumType)) {
            warnings.accept("line " + t.line() + ": declaration of an unnamed type has no effect");
        }
    }

    private void parseTypealias(Token at) throws MetadataException {
        FieldType target = parseTypeSpecifier();
        target = applyDims(target, parseDims(), peek());
        expect(":=", "in typealias");
        List<Token> words = new ArrayList<>();
        while (peek().kind() == Token.Kind.IDENTIFIER) {
            Token w = next();
            if (CTF_KEYWORDS.contains(w.text())) {
                throw error(w, "'" + w.text() + "' is a reserved keyword and cannot name a type alias");
            }
            words.add(w);
            if (!C_TYPE_WORDS.contains(w.text())) {
                break;
            }
        }
        if (words.isEmpty()) {
            throw error(peek(), "expected the alias name after ':=', found " + peek().describe());
        }
        target = applyDims(target, parseDims(), peek());
        String name = joinWords(words);
        defineAlias(words.getFirst(), name, target);
        expect(";", "after typealias");
    }

    private void parseTypedef() throws MetadataException {
        FieldType base = parseTypeSpecifier();
        do {
            Token nameTok = peek();
            if (nameTok.kind() != Token.Kind.IDENTIFIER) {
                throw error(nameTok, "expected the typedef name, found " + nameTok.describe());
            }
            if (CTF_KEYWORDS.contains(nameTok.text()) || C_TYPE_WORDS.contains(nameTok.text())) {
                throw error(nameTok, "'" + nameTok.text() + "' is a reserved keyword and cannot be a typedef name");
            }
            next();
            FieldType t = applyDims(base, parseDims(), nameTok);
            defineAlias(nameTok, nameTok.text(), t);
        } while (accept(","));
        expect(";", "after typedef");
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

    private void defineAlias(Token at, String name, FieldType type) throws MetadataException {
        if (lazyScopes == 0 && scope.aliases.containsKey(name)) {
            throw error(at, "type '" + name + "' is already defined in this scope");
        }
        ownScope().aliases.put(name, type);
    }

    /** The innermost scope, made now if nothing was declared in it yet. */
    private Scope ownScope() {
        if (lazyScopes > 0) {
            scope = new Scope(scope);
            lazyScopes = 0;
        }
        return scope;
    }

    /** The innermost scope if something is declared in it, else null. */
    private Scope declaredScope() {
        return lazyScopes == 0 ? scope : null;
    }

    private FieldType lookupAlias(String name) {
        for (Scope s = scope; s != null; s = s.parent) {
            FieldType t = s.aliases.get(name);
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- declarators

    /** One {@code [..]} of a declarator: a length, or a path to the length field. */
    private record Dim(Token at, BigInteger length, FieldPath path) {}

    private List<Dim> parseDims() throws MetadataException {
        List<Dim> dims = new ArrayList<>();
        while (peek().is("[")) {
            Token open = next();
            if (peek().is("]")) {
                throw error(peek(), "expected an array length or a length field, found ']'");
            }
            Value v = parseUnaryExpression();
            expect("]", "to close the array or sequence length");
            switch (v) {
                case Value.Int i -> {
                    if (i.value().signum() < 0) {
                        throw error(open, "array length must not be negative, found " + i.value());
                    }
                    dims.add(new Dim(open, i.value(), null));
                }
                case Value.Path path -> {
                    if (path.parts().size() == 1 && (lookupAlias(path.parts().getFirst()) != null
                            || C_TYPE_WORDS.contains(path.parts().getFirst()))) {
                        throw error(open, "sequence length '" + path.parts().getFirst()
                            + "' names a type, not a field");
                    }
                    if (CTF_KEYWORDS.contains(path.parts().getFirst())
                            && !DYNAMIC_SCOPE_ROOTS.contains(path.parts().getFirst())) {
                        throw error(open, "sequence length cannot be the keyword '" + path.parts().getFirst() + "'");
                    }
                    dims.add(new Dim(open, null, new FieldPath(path.parts())));
                }
                case Value.Str s -> throw error(open, "array length must be an integer or a field name, found a string");
            }
        }
        return dims;
    }

    /** {@code T x[2][3]} is an array of 2 arrays of 3 T, as in C. */
    private FieldType applyDims(FieldType base, List<Dim> dims, Token at) throws MetadataException {
        FieldType t = base;
        for (int i = dims.size() - 1; i >= 0; i--) {
            Dim d = dims.get(i);
            if (d.length() != null) {
                if (d.length().bitLength() > 63) {
                    throw error(d.at(), "array length " + d.length() + " is too large");
                }
                t = new ArrayType(t, d.length().longValueExact());
            } else {
                StaticRef target = checkRelativeReference(d.at(), d.path(), "sequence length");
                t = new SequenceType(t, d.path(), target == null ? null : target.member());
            }
        }
        return t;
    }

    /**
     * A relative tag or length path must name a field declared before, in the struct being parsed
     * or an enclosing one; outside of any struct it can never resolve.
     */
    /** A tag or length found in the static scope: the member its path starts from, and the field it names. */
    private record StaticRef(Member member, FieldType type) {}

    private StaticRef checkRelativeReference(Token at, FieldPath path, String what) throws MetadataException {
        String first = path.parts().getFirst();
        if (DYNAMIC_SCOPE_ROOTS.contains(first)) {
            return null; // absolute: checked when the scopes are assembled
        }
        for (MemberList members : structStack) {
            if (members == STRUCT_SCOPE_BOUNDARY) {
                return null; // inside a dynamic scope definition: may refer to an earlier scope
            }
            Member m = members.find(first);
            {
                if (m != null) {
                    FieldType target = m.type();
                    for (int i = 1; i < path.parts().size(); i++) {
                        if (!(target instanceof StructType st) || st.member(path.parts().get(i)) == null) {
                            throw error(at, what + " '" + path + "' does not name a field");
                        }
                        target = st.member(path.parts().get(i)).type();
                    }
                    checkReferenceTarget(at, path, what, target);
                    return new StaticRef(m, target);
                }
            }
        }
        throw error(at, what + " '" + path + "' does not name a field declared before it");
    }

    private static void checkReferenceTarget(Token at, FieldPath path, String what, FieldType target)
            throws MetadataException {
        if (what.equals("sequence length")) {
            IntegerType it = target instanceof IntegerType i ? i : target instanceof EnumType e ? e.container() : null;
            if (it == null || it.signed()) {
                throw error(at, "sequence length '" + path + "' must be an unsigned integer field");
            }
        } else if (!(target instanceof EnumType)) {
            throw error(at, "variant tag '" + path + "' must be an enumeration field");
        }
    }

    // ---------------------------------------------------------------- type specifiers

    private FieldType parseTypeSpecifier() throws MetadataException {
        Token t = peek();
        if (t.kind() != Token.Kind.IDENTIFIER) {
            throw error(t, "expected a type, found " + t.describe());
        }
        switch (t.text()) {
            case "integer" -> {
                next();
                return parseInteger(t);
            }
            case "floating_point" -> {
                next();
                return parseFloat(t);
            }
            case "string" -> {
                next();
                return parseString(t);
            }
            case "struct" -> {
                next();
                return parseStruct(t);
            }
            case "variant" -> {
                next();
                return parseVariant(t);
            }
            case "enum" -> {
                next();
                return parseEnum(t);
            }
            default -> {
                return parseTypeName();
            }
        }
    }

    private FieldType parseTypeName() throws MetadataException {
        Token first = peek();
        List<Token> words = new ArrayList<>();
        while (peek().kind() == Token.Kind.IDENTIFIER) {
            Token w = peek();
            if (C_TYPE_WORDS.contains(w.text())) {
                words.add(next());
            } else if (words.stream().allMatch(x -> x.text().equals("const")) && !CTF_KEYWORDS.contains(w.text())) {
                words.add(next());
                // "const" may follow a typedef name
                while (peek().is("const")) {
                    next();
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
        FieldType type = lookupAlias(name);
        if (type == null) {
            throw error(first, "unknown type '" + name + "'");
        }
        return type;
    }

    /** Attribute of a basic type or of a trace/stream/event/clock block. */
    private record Attribute(Token at, List<String> key, Value value, FieldType type) {
        String name() {
            return String.join(".", key);
        }
    }

    private sealed interface Value {
        record Int(BigInteger value) implements Value {}

        record Str(String value) implements Value {}

        record Path(List<String> parts) implements Value {}
    }

    private void parseAttributeBlock(Token blockStart, AttrSink sink) throws MetadataException {
        expect("{", "to open the " + blockStart.text() + " block");
        Scope saved = scope;
        int savedLazy = lazyScopes;
        lazyScopes++;
        structStack.push(STRUCT_SCOPE_BOUNDARY);
        try {
            while (!accept("}")) {
                if (peek().kind() == Token.Kind.END) {
                    throw error(blockStart, "unterminated " + blockStart.text() + " block (missing '}')");
                }
                if (accept(";")) {
                    continue;
                }
                Token at = peek();
                if (accept("typealias")) {
                    parseTypealias(at);
                    continue;
                }
                if (accept("typedef")) {
                    parseTypedef();
                    continue;
                }
                List<String> key = parseKey();
                if (accept(":=")) {
                    Token typeAt = peek();
                    FieldType type = parseTypeSpecifier();
                    type = applyDims(type, parseDims(), typeAt);
                    sink.accept(new Attribute(at, key, null, type));
                } else if (accept("=")) {
                    Value v = parseUnaryExpression();
                    if (peek().kind() == Token.Kind.STRING) {
                        throw error(peek(), "adjacent string literals are not allowed; expected ';'");
                    }
                    sink.accept(new Attribute(at, key, v, null));
                } else {
                    throw error(peek(), "expected '=' or ':=' after '" + String.join(".", key) + "', found "
                        + peek().describe());
                }
                expect(";", "after the value of '" + String.join(".", key) + "'");
            }
        } finally {
            scope = saved;
            lazyScopes = savedLazy;
            structStack.pop();
        }
    }

    @FunctionalInterface
    private interface AttrSink {
        void accept(Attribute a) throws MetadataException;
    }

    private List<String> parseKey() throws MetadataException {
        List<String> parts = new ArrayList<>();
        parts.add(identifier("an attribute name").text());
        while (accept(".") || accept("->")) {
            parts.add(identifier("an attribute name after '.'").text());
        }
        return parts;
    }

    private Value parseUnaryExpression() throws MetadataException {
        Token t = peek();
        if (accept("-")) {
            Token n = peek();
            if (n.kind() != Token.Kind.INTEGER) {
                throw error(n, "expected an integer after '-', found " + n.describe());
            }
            next();
            return new Value.Int(n.number().negate());
        }
        if (accept("+")) {
            Token n = peek();
            if (n.kind() != Token.Kind.INTEGER) {
                throw error(n, "expected an integer after '+', found " + n.describe());
            }
            next();
            return new Value.Int(n.number());
        }
        if (accept("(")) {
            Value v = parseUnaryExpression();
            expect(")", "to close the parenthesis");
            return v;
        }
        return switch (t.kind()) {
            case INTEGER -> {
                next();
                yield new Value.Int(t.number());
            }
            case STRING -> {
                next();
                yield new Value.Str(t.text());
            }
            case IDENTIFIER -> {
                List<String> parts = new ArrayList<>();
                parts.add(next().text());
                while (peek().is(".") || peek().is("->")) {
                    next();
                    parts.add(identifier("a name after '.'").text());
                }
                yield new Value.Path(parts);
            }
            default -> throw error(t, "expected a value, found " + t.describe());
        };
    }

    private static long toLong(Attribute a, long min, long max) throws MetadataException {
        if (!(a.value() instanceof Value.Int(BigInteger v))) {
            throw error(a.at(), "'" + a.name() + "' must be an integer");
        }
        if (v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            throw error(a.at(), "'" + a.name() + "' = " + v + " is out of range [" + min + ", " + max + "]");
        }
        return v.longValue();
    }

    private static boolean toBool(Attribute a) throws MetadataException {
        if (a.value() instanceof Value.Int(BigInteger v) && (v.equals(BigInteger.ZERO) || v.equals(BigInteger.ONE))) {
            return v.equals(BigInteger.ONE);
        }
        if (a.value() instanceof Value.Path(List<String> parts) && parts.size() == 1) {
            switch (parts.getFirst()) {
                case "true", "TRUE" -> {
                    return true;
                }
                case "false", "FALSE" -> {
                    return false;
                }
                default -> { }
            }
        }
        throw error(a.at(), "'" + a.name() + "' must be true, TRUE, 1, false, FALSE or 0");
    }

    private static String word(Attribute a) {
        return a.value() instanceof Value.Path(List<String> parts) && parts.size() == 1 ? parts.getFirst() : null;
    }

    private ByteOrder byteOrder(Attribute a) throws MetadataException {
        String w = word(a);
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
                default -> { }
            }
        }
        throw error(a.at(), "byte_order must be native, network, be or le");
    }

    private static int alignment(Attribute a) throws MetadataException {
        long v = toLong(a, 1, 1L << 62);
        if (Long.bitCount(v) != 1) {
            throw error(a.at(), "alignment must be a power of two, found " + v);
        }
        if (v > Integer.MAX_VALUE) {
            throw error(a.at(), "alignment " + v + " bits is too large");
        }
        return (int) v;
    }

    private static Encoding encoding(Attribute a) throws MetadataException {
        String w = word(a);
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
                default -> { }
            }
        }
        throw error(a.at(), "encoding must be none, UTF8 or ASCII");
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
                case "size" -> size[0] = (int) toLong(a, 1, Integer.MAX_VALUE);
                case "align" -> align[0] = alignment(a);
                case "signed" -> signed[0] = toBool(a);
                case "byte_order" -> order[0] = byteOrder(a);
                case "base" -> base[0] = base(a);
                case "encoding" -> enc[0] = encoding(a);
                case "map" -> {
                    if (!(a.value() instanceof Value.Path(List<String> parts)) || parts.size() != 3
                            || !parts.get(0).equals("clock") || !parts.get(2).equals("value")) {
                        throw error(a.at(), "map must be clock.NAME.value");
                    }
                    clock[0] = parts.get(1);
                }
                default -> warnings.accept("line " + a.at().line() + ": unknown integer attribute '" + a.name()
                    + "' ignored");
            }
        });
        if (size[0] == null) {
            throw error(at, "integer has no size");
        }
        int alignment = align[0] != null ? align[0] : (size[0] % 8 == 0 ? 8 : 1);
        return new IntegerType(size[0], alignment, signed[0], order[0], base[0], enc[0], clock[0]);
    }

    private static int base(Attribute a) throws MetadataException {
        if (a.value() instanceof Value.Int(BigInteger v)) {
            int b = v.bitLength() < 8 ? v.intValue() : -1;
            if (b == 2 || b == 8 || b == 10 || b == 16) {
                return b;
            }
        }
        String w = word(a);
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
                default -> { }
            }
        }
        throw error(a.at(), "base must be decimal, hexadecimal, octal, binary (or 10, 16, 8, 2)");
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
                case "exp_dig" -> exp[0] = (int) toLong(a, 1, 64);
                case "mant_dig" -> mant[0] = (int) toLong(a, 1, 64);
                case "align" -> align[0] = alignment(a);
                case "byte_order" -> order[0] = byteOrder(a);
                default -> warnings.accept("line " + a.at().line() + ": unknown floating_point attribute '"
                    + a.name() + "' ignored");
            }
        });
        if (exp[0] == null || mant[0] == null) {
            throw error(at, "floating_point needs exp_dig and mant_dig");
        }
        if (!((exp[0] == 8 && mant[0] == 24) || (exp[0] == 11 && mant[0] == 53))) {
            throw error(at, "unsupported floating_point (exp_dig " + exp[0] + ", mant_dig " + mant[0]
                + "): only 32-bit (8/24) and 64-bit (11/53) IEEE 754 are supported");
        }
        return new FloatType(exp[0], mant[0], align[0], order[0]);
    }

    private StringType parseString(Token at) throws MetadataException {
        if (!peek().is("{")) {
            return new StringType(Encoding.UTF8);
        }
        Encoding[] enc = {Encoding.UTF8};
        parseAttributeBlock(at, a -> {
            if ("encoding".equals(a.name()) && a.type() == null) {
                enc[0] = encoding(a);
            } else {
                warnings.accept("line " + a.at().line() + ": unknown string attribute '" + a.name() + "' ignored");
            }
        });
        return new StringType(enc[0]);
    }

    private StructType parseStruct(Token at) throws MetadataException {
        Token name = null;
        if (peek().kind() == Token.Kind.IDENTIFIER && !peek().is("align")) {
            name = next();
        }
        if (peek().is("{")) {
            next();
            return parseStructBodies(at, name);
        }
        if (name == null) {
            throw error(peek(), "expected a struct name or '{', found " + peek().describe());
        }
        StructType type = null;
        for (Scope s = scope; s != null && type == null; s = s.parent) {
            type = s.structs.get(name.text());
        }
        if (type == null) {
            throw error(name, "unknown struct '" + name.text() + "'");
        }
        int align = parseStructAlign();
        return align > type.minAlignment() ? new StructType(type.members(), align) : type;
    }

    /** An optional {@code align(N)} after a struct; 1 when there is none. */
    private int parseStructAlign() throws MetadataException {
        if (!(peek().is("align") && peek(1).is("("))) {
            return 1;
        }
        next();
        next();
        Token v = peek();
        Value value = parseUnaryExpression();
        expect(")", "to close align(");
        if (!(value instanceof Value.Int(BigInteger a)) || a.signum() <= 0 || a.bitCount() != 1
                || a.bitLength() > 31) {
            throw error(v, "struct alignment must be a power of two (in bits), found " + valueText(value));
        }
        return a.intValue();
    }

    private static String valueText(Value v) {
        return switch (v) {
            case Value.Int i -> i.value().toString();
            case Value.Str s -> "\"" + s.value() + "\"";
            case Value.Path p -> String.join(".", p.parts());
        };
    }

    /** Structs and variants nested deeper than this through recursion are refused (structs in structs do not recurse). */
    private static final int MAX_NESTING = 10_000;
    private int nesting;

    /** A struct body being parsed by {@link #parseStructBodies}. */
    private static final class OpenStruct {
        final Token at;
        final Token name;
        final MemberList members;
        /** The scope around the struct, restored when it closes. */
        final Scope savedScope;
        final int savedLazy;

        OpenStruct(Token at, Token name, MemberList members, Scope savedScope, int savedLazy) {
            this.at = at;
            this.name = name;
            this.members = members;
            this.savedScope = savedScope;
            this.savedLazy = savedLazy;
        }
    }

    /**
     * Open structs that were left empty, unnamed and without declarations when the next one
     * opened, whose {@code struct} keywords are at the same column of consecutive lines: one
     * entry for any number of them (frame {@code j} of the run is at line {@code firstAt + j}).
     */
    private static final class OpenRun {
        final Token firstAt;
        long count = 1;
        final Scope savedScope;
        final int savedLazy;

        OpenRun(Token firstAt, Scope savedScope, int savedLazy) {
            this.firstAt = firstAt;
            this.savedScope = savedScope;
            this.savedLazy = savedLazy;
        }
    }

    /**
     * The body of a struct (after its '{') and of every struct defined in it, nested to any
     * depth, without recursion: the structs being parsed are kept on an explicit stack, where a
     * run of empty ones (a struct whose first member is a struct, many levels deep) is one
     * entry. Other types (variants, typedefs, ...) recurse.
     */
    private StructType parseStructBodies(Token at, Token name) throws MetadataException {
        if (nesting >= MAX_NESTING) {
            throw error(at, "struct nested more than " + MAX_NESTING + " levels deep");
        }
        nesting++;
        Scope entryScope = scope;
        int entryLazy = lazyScopes;
        int entryStack = structStack.size();
        ArrayList<Object> open = new ArrayList<>();
        boolean done = false;
        try {
            OpenStruct cur = openStruct(at, name);
            while (true) {
                Token t = peek();
                if (t.is("}")) {
                    next();
                    structStack.pop();
                    scope = cur.savedScope;
                    lazyScopes = cur.savedLazy;
                    StructType type = finishStruct(cur);
                    if (open.isEmpty()) {
                        done = true;
                        return type;
                    }
                    cur = resume(open);
                    memberDeclarators(cur.members, type, "struct");
                    continue;
                }
                if (t.kind() == Token.Kind.END) {
                    throw error(cur.at, "unterminated struct (missing '}')");
                }
                if (accept(";")) {
                    continue;
                }
                if (t.is("typealias") || t.is("typedef")) {
                    parseDeclaration(true);
                    continue;
                }
                if (t.is("struct") && (peek(1).is("{") || (peek(1).kind() == Token.Kind.IDENTIFIER
                        && !peek(1).is("align") && peek(2).is("{")))) {
                    next();
                    Token innerName = peek().is("{") ? null : next();
                    next();
                    suspend(open, cur);
                    cur = openStruct(t, innerName);
                    continue;
                }
                FieldType base = parseTypeSpecifier();
                memberDeclarators(cur.members, base, "struct");
            }
        } finally {
            nesting--;
            if (!done) {
                scope = entryScope;
                lazyScopes = entryLazy;
                while (structStack.size() > entryStack) {
                    structStack.pop();
                }
            }
        }
    }

    private OpenStruct openStruct(Token at, Token name) {
        OpenStruct s = new OpenStruct(at, name, new MemberList(), scope, lazyScopes);
        lazyScopes++;
        structStack.push(s.members);
        return s;
    }

    /** Keeps {@code cur} on the stack while a struct inside it is parsed. */
    private void suspend(ArrayList<Object> open, OpenStruct cur) {
        boolean empty = cur.name == null && cur.members.isEmpty() && scope == cur.savedScope
            && lazyScopes == cur.savedLazy + 1;
        if (!empty) {
            open.add(cur); // its members stay on the struct stack, for references
            return;
        }
        structStack.pop();
        if (!open.isEmpty() && open.getLast() instanceof OpenRun r && r.savedScope == cur.savedScope
                && r.savedLazy + r.count == cur.savedLazy && cur.at.column() == r.firstAt.column()
                && cur.at.line() == r.firstAt.line() + r.count && cur.at.text().equals(r.firstAt.text())) {
            r.count++;
        } else {
            open.add(new OpenRun(cur.at, cur.savedScope, cur.savedLazy));
        }
    }

    /** The struct that holds the one that just closed, back from the stack. */
    private OpenStruct resume(ArrayList<Object> open) {
        if (open.getLast() instanceof OpenStruct s) {
            open.removeLast();
            return s;
        }
        OpenRun r = (OpenRun) open.getLast();
        long j = --r.count;
        if (r.count == 0) {
            open.removeLast();
        }
        Token first = r.firstAt;
        Token at = new Token(first.kind(), first.text(), first.number(), (int) (first.line() + j), first.column());
        OpenStruct s = new OpenStruct(at, null, new MemberList(), r.savedScope, (int) (r.savedLazy + j));
        structStack.push(s.members);
        return s;
    }

    /** After a struct's '}': its alignment, then its type (a level of a chain when it extends one), named if it is. */
    private StructType finishStruct(OpenStruct s) throws MetadataException {
        Token name = s.name;
        if (name != null && declaredScope() != null && scope.structs.containsKey(name.text())) {
            throw error(name, "struct '" + name.text() + "' is already defined in this scope");
        }
        StructType type = StructChain.struct(s.members, parseStructAlign());
        if (name != null) {
            ownScope().structs.put(name.text(), type);
        }
        return type;
    }

    /** The declarators of fields of type {@code base} (or none: a type declared inside a struct), up to the ';'. */
    private void memberDeclarators(MemberList members, FieldType base, String kind) throws MetadataException {
        if (accept(";")) {
            return; // a named struct/variant/enum declared inside a struct
        }
        do {
            Token nameTok = fieldName("a " + (kind.equals("variant") ? "variant option" : "field"));
            FieldType type = applyDims(base, parseDims(), nameTok);
            if (type instanceof VariantType v && v.tag() == null && kind.equals("struct")) {
                throw error(nameTok, "variant field '" + nameTok.text() + "' has no tag");
            }
            if (members.indexOf(nameTok.text()) >= 0) {
                throw error(nameTok, "duplicate " + (kind.equals("variant") ? "option" : "field")
                    + " name '" + nameTok.text() + "'");
            }
            members.add(new Member(nameTok.text(), type));
        } while (accept(","));
        expect(";", "after the declaration of '" + members.getLast().name() + "'");
    }

    /** Options of a variant, up to the closing brace. */
    private List<Member> parseMembers(Token at, String kind) throws MetadataException {
        if (nesting >= MAX_NESTING) {
            throw error(at, kind + " nested more than " + MAX_NESTING + " levels deep");
        }
        nesting++;
        try {
            return parseMembersAt(at, kind);
        } finally {
            nesting--;
        }
    }

    private List<Member> parseMembersAt(Token at, String kind) throws MetadataException {
        Scope saved = scope;
        int savedLazy = lazyScopes;
        lazyScopes++;
        MemberList members = new MemberList();
        structStack.push(members);
        try {
            while (!accept("}")) {
                Token t = peek();
                if (t.kind() == Token.Kind.END) {
                    throw error(at, "unterminated " + kind + " (missing '}')");
                }
                if (accept(";")) {
                    continue;
                }
                if (t.is("typealias") || t.is("typedef")) {
                    parseDeclaration(true);
                    continue;
                }
                memberDeclarators(members, parseTypeSpecifier(), kind);
            }
        } finally {
            structStack.pop();
            scope = saved;
            lazyScopes = savedLazy;
        }
        return members;
    }

    private VariantType parseVariant(Token at) throws MetadataException {
        Token name = null;
        if (peek().kind() == Token.Kind.IDENTIFIER) {
            name = next();
        }
        FieldPath tag = null;
        Token tagAt = null;
        if (peek().is("<")) {
            tagAt = next();
            Token t = peek();
            if (t.is(">")) {
                throw error(t, "variant tag is empty: expected the name of an enumeration field");
            }
            Value v = parseUnaryExpression();
            if (!(v instanceof Value.Path(List<String> parts))) {
                throw error(t, "variant tag must be the name of an enumeration field, found " + valueText(v));
            }
            if ((CTF_KEYWORDS.contains(parts.getFirst()) && !DYNAMIC_SCOPE_ROOTS.contains(parts.getFirst()))
                    || C_TYPE_WORDS.contains(parts.getFirst())) {
                throw error(t, "variant tag cannot be the keyword '" + parts.getFirst() + "'");
            }
            tag = new FieldPath(parts);
            expect(">", "to close the variant tag");
        }
        VariantType type;
        if (accept("{")) {
            List<Member> options = parseMembers(at, "variant");
            if (options.isEmpty()) {
                throw error(at, "variant has no options");
            }
            type = new VariantType(tag, options, tag == null ? null : checkVariantTag(tagAt, tag, options));
            if (name != null) {
                if (declaredScope() != null && scope.variants.containsKey(name.text())) {
                    throw error(name, "variant '" + name.text() + "' is already defined in this scope");
                }
                ownScope().variants.put(name.text(), type);
            }
        } else {
            if (name == null) {
                throw error(peek(), "expected a variant name or '{', found " + peek().describe());
            }
            VariantType found = null;
            for (Scope s = scope; s != null && found == null; s = s.parent) {
                found = s.variants.get(name.text());
            }
            if (found == null) {
                throw error(name, "unknown variant '" + name.text() + "'");
            }
            type = tag != null ? found.withTag(tag, checkVariantTag(tagAt, tag, found.options())) : found;
        }
        return type;
    }

    /** The tag must be an enumeration declared before, whose labels name every option. */
    private Member checkVariantTag(Token at, FieldPath path, List<Member> options) throws MetadataException {
        StaticRef target = checkRelativeReference(at, path, "variant tag");
        if (target == null) {
            return null; // absolute, or in an earlier dynamic scope: checked when the plan is compiled
        }
        checkOptionsHaveLabels(at, options, (EnumType) target.type());
        return target.member();
    }

    /** A variant none of whose options is named by a label of its tag can never be decoded. */
    static void checkOptionsHaveLabels(Token at, List<Member> options, EnumType tagType) throws MetadataException {
        MappingList mappings = tagType.mappings() instanceof MappingList ml ? ml : new MappingList();
        if (mappings.isEmpty()) {
            mappings.addAll(tagType.mappings());
        }
        if (options instanceof MemberList ol) {
            for (int e = 0; e < ol.entryCount(); e++) {
                boolean found = ol.isRun(e)
                    ? mappings.hasCountedLabel(ol.runPrefix(e), ol.runFirst(e), ol.runFirst(e) + ol.entrySize(e) - 1)
                    : mappings.hasLabel(ol.entryMember(e).name());
                if (found) {
                    return;
                }
            }
        } else {
            for (Member option : options) {
                if (mappings.hasLabel(option.name())) {
                    return;
                }
            }
        }
        String msg = "no option of the variant is named by a label of its tag enumeration";
        throw at != null ? error(at, msg) : new MetadataException(msg);
    }

    private EnumType parseEnum(Token at) throws MetadataException {
        Token name = null;
        if (peek().kind() == Token.Kind.IDENTIFIER) {
            name = next();
        }
        IntegerType container = null;
        if (accept(":")) {
            Token t = peek();
            FieldType ct = parseTypeSpecifier();
            if (!(ct instanceof IntegerType it)) {
                throw error(t, "enumeration container must be an integer type");
            }
            container = it;
        }
        if (!peek().is("{")) {
            if (name == null) {
                throw error(peek(), "expected an enumeration name or '{', found " + peek().describe());
            }
            EnumType found = null;
            for (Scope s = scope; s != null && found == null; s = s.parent) {
                found = s.enums.get(name.text());
            }
            if (found == null) {
                throw error(name, "unknown enumeration '" + name.text() + "'");
            }
            return found;
        }
        Token open = next();
        if (container == null) {
            FieldType intType = lookupAlias("int");
            if (!(intType instanceof IntegerType it)) {
                throw error(open, "enumeration without container type needs an integer type named 'int'");
            }
            container = it;
        }
        BigInteger min = container.signed() ? BigInteger.ONE.shiftLeft(Math.min(container.size(), 64) - 1).negate()
            : BigInteger.ZERO;
        BigInteger max = container.signed() ? BigInteger.ONE.shiftLeft(Math.min(container.size(), 64) - 1)
            .subtract(BigInteger.ONE) : BigInteger.ONE.shiftLeft(Math.min(container.size(), 64)).subtract(BigInteger.ONE);
        MappingList mappings = new MappingList();
        BigInteger nextValue = BigInteger.ZERO;
        while (!accept("}")) {
            Token labelTok = peek();
            String label;
            if (labelTok.kind() == Token.Kind.IDENTIFIER || labelTok.kind() == Token.Kind.STRING) {
                label = next().text();
            } else {
                throw error(labelTok, "expected an enumeration label, found " + labelTok.describe());
            }
            BigInteger lo = nextValue;
            BigInteger hi = nextValue;
            if (accept("=")) {
                lo = enumValue();
                hi = lo;
                if (accept("...")) {
                    hi = enumValue();
                }
                if (lo.compareTo(hi) > 0) {
                    throw error(labelTok, "enumeration range of '" + label + "' is reversed (" + lo + " ... " + hi + ")");
                }
            }
            if (lo.compareTo(min) < 0 || hi.compareTo(max) > 0) {
                throw error(labelTok, "value of enumeration label '" + label + "' (" + lo
                    + (lo.equals(hi) ? "" : " ... " + hi) + ") does not fit its " + (container.signed() ? "signed" : "unsigned")
                    + " " + container.size() + "-bit container");
            }
            mappings.add(new EnumMapping(label, lo.longValue(), hi.longValue()));
            nextValue = hi.add(BigInteger.ONE);
            if (!accept(",")) {
                expect("}", "to close the enumeration");
                break;
            }
        }
        if (mappings.isEmpty()) {
            throw error(open, "enumeration has no labels");
        }
        EnumType type = new EnumType(container, mappings);
        if (name != null) {
            if (declaredScope() != null && scope.enums.containsKey(name.text())) {
                throw error(name, "enumeration '" + name.text() + "' is already defined in this scope");
            }
            ownScope().enums.put(name.text(), type);
        }
        return type;
    }

    private BigInteger enumValue() throws MetadataException {
        Token t = peek();
        Value v = parseUnaryExpression();
        if (!(v instanceof Value.Int(BigInteger i))) {
            throw error(t, "enumeration value must be an integer, found " + valueText(v));
        }
        return i;
    }

    // ---------------------------------------------------------------- blocks

    private StructType scopeStruct(Attribute a) throws MetadataException {
        if (a.type() == null) {
            throw error(a.at(), "'" + a.name() + "' must be assigned a struct type with ':='");
        }
        if (!(a.type() instanceof StructType st)) {
            throw error(a.at(), "'" + a.name() + "' must be a struct");
        }
        return st;
    }

    private void parseTraceBlock(Token at) throws MetadataException {
        if (traceBlock != null) {
            throw error(at, "duplicate trace block (the first is at line " + traceBlock.line() + ")");
        }
        traceBlock = at;
        parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "major" -> major = (int) toLong(a, 0, 255);
                case "minor" -> minor = (int) toLong(a, 0, 255);
                case "uuid" -> uuid = parseUuid(a);
                case "byte_order" -> { } // read by the pre-scan
                case "packet.header" -> packetHeader = scopeStruct(a);
                default -> warnings.accept("line " + a.at().line() + ": unknown trace attribute '" + a.name()
                    + "' ignored");
            }
        });
        expect(";", "after the trace block");
        if (major == null || minor == null) {
            throw error(at, "trace block needs 'major' and 'minor'");
        }
        if (major != 1 || minor != 8) {
            throw error(at, "unsupported CTF version " + major + "." + minor
                + ": only CTF 1.8 and CTF 2 are supported");
        }
    }

    private static UUID parseUuid(Attribute a) throws MetadataException {
        if (!(a.value() instanceof Value.Str(String s))) {
            throw error(a.at(), "'" + a.name() + "' must be a string");
        }
        if (!s.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw error(a.at(), "malformed UUID \"" + (s.length() > 60 ? s.substring(0, 60) + "..." : s) + "\"");
        }
        return UUID.fromString(s);
    }

    private void parseStreamBlock(Token at) throws MetadataException {
        Long[] id = {null};
        StructType[] pc = {null};
        StructType[] eh = {null};
        StructType[] ec = {null};
        parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "id" -> id[0] = toLong(a, 0, Long.MAX_VALUE);
                case "packet.context" -> pc[0] = scopeStruct(a);
                case "event.header" -> eh[0] = scopeStruct(a);
                case "event.context" -> ec[0] = scopeStruct(a);
                default -> warnings.accept("line " + a.at().line() + ": unknown stream attribute '" + a.name()
                    + "' ignored");
            }
        });
        expect(";", "after the stream block");
        PendingStream ps = new PendingStream(at, id[0], pc[0], eh[0], ec[0]);
        if (streams.isEmpty() || !streams.getLast().extendsWith(ps)) {
            streams.add(ps);
        } else {
            streams.getLast().count++;
        }
    }

    private void parseEventBlock(Token at) throws MetadataException {
        Long[] id = {null};
        String[] name = {null};
        Long[] streamId = {null};
        StructType[] ctx = {null};
        StructType[] fields = {null};
        Long[] logLevel = {null};
        String[] emf = {null};
        parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "id" -> id[0] = toLong(a, 0, Long.MAX_VALUE);
                case "name" -> name[0] = nameValue(a);
                case "stream_id" -> streamId[0] = toLong(a, 0, Long.MAX_VALUE);
                case "context" -> ctx[0] = scopeStruct(a);
                case "fields" -> fields[0] = scopeStruct(a);
                case "loglevel" -> logLevel[0] = toLong(a, Long.MIN_VALUE, Long.MAX_VALUE);
                case "model.emf.uri" -> emf[0] = nameValue(a);
                default -> warnings.accept("line " + a.at().line() + ": unknown event attribute '" + a.name()
                    + "' ignored");
            }
        });
        expect(";", "after the event block");
        PendingEvent pe = new PendingEvent(at, id[0], name[0], streamId[0], ctx[0], fields[0], logLevel[0], emf[0]);
        if (events.isEmpty() || !events.getLast().extendWith(pe)) {
            events.add(pe);
        }
    }

    private static String nameValue(Attribute a) throws MetadataException {
        return switch (a.value()) {
            case Value.Str s -> s.value();
            case Value.Path p -> String.join(".", p.parts());
            case null -> throw error(a.at(), "'" + a.name() + "' must be a name or a string");
            case Value.Int i -> throw error(a.at(), "'" + a.name() + "' must be a name or a string, found " + i.value());
        };
    }

    private void parseClockBlock(Token at) throws MetadataException {
        String[] name = {null};
        String[] uuidText = {null};
        String[] description = {null};
        long[] freq = {1_000_000_000L};
        long[] precision = {0};
        long[] offsetS = {0};
        BigInteger[] offset = {BigInteger.ZERO};
        boolean[] absolute = {false};
        parseAttributeBlock(at, a -> {
            switch (a.name()) {
                case "name" -> name[0] = nameValue(a);
                case "uuid" -> uuidText[0] = parseUuid(a).toString();
                case "description" -> description[0] = nameValue(a);
                case "freq" -> freq[0] = toLong(a, 1, Long.MAX_VALUE);
                case "precision" -> precision[0] = toLong(a, 0, Long.MAX_VALUE);
                case "offset_s" -> offsetS[0] = toLong(a, Long.MIN_VALUE, Long.MAX_VALUE);
                case "offset" -> {
                    if (!(a.value() instanceof Value.Int(BigInteger v))) {
                        throw error(a.at(), "'offset' must be an integer");
                    }
                    offset[0] = v;
                }
                case "absolute" -> absolute[0] = toBool(a);
                default -> warnings.accept("line " + a.at().line() + ": unknown clock attribute '" + a.name()
                    + "' ignored");
            }
        });
        expect(";", "after the clock block");
        if (name[0] == null) {
            throw error(at, "clock has no name");
        }
        if (clocks.containsKey(name[0])) {
            throw error(at, "duplicate clock '" + name[0] + "'");
        }
        // Normalise so that 0 <= offset < freq, carrying whole seconds into offset_s.
        BigInteger[] qr = offset[0].divideAndRemainder(BigInteger.valueOf(freq[0]));
        BigInteger q = qr[0];
        BigInteger r = qr[1];
        if (r.signum() < 0) {
            r = r.add(BigInteger.valueOf(freq[0]));
            q = q.subtract(BigInteger.ONE);
        }
        BigInteger seconds = BigInteger.valueOf(offsetS[0]).add(q);
        if (seconds.bitLength() > 63) {
            throw error(at, "clock '" + name[0] + "' offset is out of range");
        }
        clocks.put(name[0], new ClockClass(name[0], description[0], uuidText[0], freq[0], precision[0],
            seconds.longValue(), r.longValue(), absolute[0]));
    }

    private void parseEnvBlock() throws MetadataException {
        Token at = previous;
        parseAttributeBlock(at, a -> {
            if (a.type() != null) {
                throw error(a.at(), "env entries are values, not types");
            }
            switch (a.value()) {
                case Value.Int(BigInteger v) -> {
                    if (v.bitLength() > 63) {
                        throw error(a.at(), "env value " + v + " does not fit in a signed 64-bit integer");
                    }
                    env.put(a.name(), v.longValue());
                }
                case Value.Str(String s) -> env.put(a.name(), s);
                case Value.Path path -> env.put(a.name(), String.join(".", path.parts()));
            }
        });
        expect(";", "after the env block");
    }

    // ---------------------------------------------------------------- assembly

    private TraceClass assemble() throws MetadataException {
        if (traceBlock == null) {
            throw new MetadataException("metadata has no trace block");
        }
        long streamTotal = 0;
        for (PendingStream s : streams) {
            streamTotal += s.count;
        }
        // Stream ids: first id -> last id of each block or run, to find duplicates.
        TreeMap<Long, Long> streamIds = new TreeMap<>();
        TreeMap<Long, PendingStream> byFirstId = new TreeMap<>();
        for (PendingStream s : streams) {
            long id;
            if (s.id == null) {
                if (streamTotal > 1) {
                    throw error(s.at, "stream has no id, but the trace has several streams");
                }
                id = 0;
            } else {
                id = s.id;
            }
            long last = id + s.count - 1;
            Map.Entry<Long, Long> before = streamIds.floorEntry(last);
            if (before != null && before.getValue() >= id) {
                throw error(s.at, "duplicate stream id " + Math.max(id, before.getKey()));
            }
            streamIds.put(id, last);
            byFirstId.put(id, s);
        }
        if (streamTotal > 1 && (packetHeader == null || packetHeader.member("stream_id") == null)) {
            throw new MetadataException("the trace has several streams but its packet header has no stream_id field");
        }
        Long onlyStream = streamTotal == 1 ? streamIds.firstKey() : null;
        Map<Long, Long> eventCounts = new HashMap<>();
        for (PendingEvent e : events) {
            eventCounts.merge(streamIdOf(e, onlyStream), e.count, Long::sum);
        }
        Map<Long, StreamEvents> eventsByStream = new HashMap<>();
        for (PendingEvent e : events) {
            long streamId;
            if (e.streamId == null) {
                if (streamTotal > 1) {
                    throw error(e.at, "event '" + e.name + "' has no stream_id, but the trace has several streams");
                }
                streamId = streamTotal == 0 ? 0 : onlyStream;
            } else {
                streamId = e.streamId;
                Map.Entry<Long, Long> s = streamIds.floorEntry(streamId);
                if (s == null || s.getValue() < streamId) {
                    if (streamTotal == 0 && streamId == 0) {
                        // an implicit stream class
                    } else {
                        throw error(e.at, "event '" + e.name + "' refers to undefined stream " + streamId);
                    }
                }
            }
            StreamEvents se = eventsByStream.computeIfAbsent(streamId, k -> new StreamEvents());
            long id;
            if (e.id == null) {
                if (!se.ids.isEmpty()) {
                    throw error(e.at, "event '" + e.name + "' has no id, but its stream has several events");
                }
                id = 0;
            } else {
                id = e.id;
            }
            long last = id + e.count - 1;
            Map.Entry<Long, Long> before = se.ids.floorEntry(last);
            if (before != null && before.getValue() >= id) {
                throw error(e.at, "duplicate event id " + Math.max(id, before.getKey()) + " in stream " + streamId);
            }
            if (e.id == null && eventCounts.get(streamId) > 1) {
                throw error(e.at, "event '" + e.name + "' has no id, but its stream has several events");
            }
            se.ids.put(id, last);
            if (e.count >= MIN_RUN) {
                se.runs.add(e.run(streamId));
            } else {
                EventClassRun r = e.count == 1 ? null : e.run(streamId);
                for (long k = 0; k < e.count; k++) {
                    se.classes.put(id + k, r == null ? new EventClass(id, e.name, streamId, e.context, e.payload,
                        e.logLevel, e.emfUri) : r.get(k));
                }
            }
        }
        if (streamTotal == 0 && !eventsByStream.isEmpty()) {
            PendingStream implicit = new PendingStream(traceBlock, 0L, null, null, null);
            byFirstId.put(0L, implicit);
            streamIds.put(0L, 0L);
        }
        TreeMap<Long, StreamClass> streamClasses = new TreeMap<>();
        List<StreamClassRun> streamRuns = new ArrayList<>();
        TreeMap<Long, StreamEvents> withEvents = new TreeMap<>(eventsByStream);
        for (Map.Entry<Long, PendingStream> entry : byFirstId.entrySet()) {
            PendingStream ps = entry.getValue();
            long first = entry.getKey();
            long last = first + ps.count - 1;
            // Stream classes that have events are classes of their own; the others may stay in runs.
            long from = first;
            while (from <= last) {
                Long nextWithEvents = withEvents.ceilingKey(from);
                long to = nextWithEvents == null || nextWithEvents > last ? last : nextWithEvents - 1;
                if (to - from + 1 >= MIN_RUN) {
                    streamRuns.add(new StreamClassRun(from, to - from + 1, ps.packetContext, ps.eventHeader,
                        ps.eventContext));
                } else {
                    for (long id = from; id <= to; id++) {
                        streamClasses.put(id, new StreamClass(id, ps.packetContext, ps.eventHeader, ps.eventContext,
                            new TreeMap<>()));
                    }
                }
                if (to < last) {
                    long id = to + 1;
                    StreamEvents se = withEvents.get(id);
                    se.runs.sort(java.util.Comparator.comparingLong(EventClassRun::firstId));
                    StreamClass sc = new StreamClass(id, ps.packetContext, ps.eventHeader, ps.eventContext,
                        se.classes, se.runs);
                    if (sc.eventHeader() == null && sc.eventCount() > 1) {
                        throw new MetadataException(
                            "a stream with several event classes needs an event header with an id field");
                    }
                    streamClasses.put(id, sc);
                    from = id + 1;
                } else {
                    from = last + 1;
                }
            }
        }
        return new TraceClass(major, minor, traceByteOrder, uuid, packetHeader, clocks, env, streamClasses, streamRuns);
    }

    /** Event classes of one stream, as they are assembled. */
    private static final class StreamEvents {
        final TreeMap<Long, Long> ids = new TreeMap<>();
        final TreeMap<Long, EventClass> classes = new TreeMap<>();
        final List<EventClassRun> runs = new ArrayList<>();
    }

    private static long streamIdOf(PendingEvent e, Long onlyStream) {
        if (e.streamId != null) {
            return e.streamId;
        }
        return onlyStream == null ? 0 : onlyStream;
    }
}
