package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.TsdlTokens.DYNAMIC_SCOPE_ROOTS;
import static dev.hetrace.ctf.metadata.TsdlTokens.error;
import static dev.hetrace.ctf.metadata.TsdlWords.CTF_KEYWORDS;
import static dev.hetrace.ctf.metadata.TsdlWords.C_TYPE_WORDS;

import dev.hetrace.ctf.metadata.FieldType.EnumMapping;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import dev.hetrace.ctf.metadata.TsdlAttribute.Value;
import dev.hetrace.ctf.metadata.TsdlScopes.Scope;
import dev.hetrace.ctf.metadata.TsdlScopes.StaticRef;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The TSDL types that name others: structs (nested to any depth without recursion), variants
 * with their tags, and enumerations with their labels. Part of {@link TsdlParser}, which parses
 * the member types.
 */
final class TsdlCompoundTypes {
    /** Structs and variants nested deeper than this through recursion are refused (structs in structs do not recurse). */
    private static final int MAX_NESTING = 10_000;

    private int nesting;

    private final TsdlParser parser;
    private final TsdlTokens tokens;
    private final TsdlScopes scopes;

    TsdlCompoundTypes(TsdlParser parser, TsdlTokens tokens, TsdlScopes scopes) {
        this.parser = parser;
        this.tokens = tokens;
        this.scopes = scopes;
    }

    StructType parseStruct(Token at) throws MetadataException {
        Token name = null;
        if (tokens.peek().kind() == Token.Kind.IDENTIFIER && !tokens.peek().is("align")) {
            name = tokens.next();
        }
        if (tokens.peek().is("{")) {
            tokens.next();
            return parseStructBodies(at, name);
        }
        if (name == null) {
            throw error(
                    tokens.peek(),
                    "expected a struct name or '{', found " + tokens.peek().describe());
        }
        StructType type = scopes.findStruct(name.text());
        if (type == null) {
            throw error(name, "unknown struct '" + name.text() + "'");
        }
        int align = parseStructAlign();
        return align > type.minAlignment() ? new StructType(type.members(), align) : type;
    }

    /** An optional {@code align(N)} after a struct; 1 when there is none. */
    private int parseStructAlign() throws MetadataException {
        if (!(tokens.peek().is("align") && tokens.peek(1).is("("))) {
            return 1;
        }
        tokens.next();
        tokens.next();
        Token v = tokens.peek();
        Value value = TsdlAttribute.parseValue(tokens);
        tokens.expect(")", "to close align(");
        if (!(value instanceof Value.Int(BigInteger a)) || a.signum() <= 0 || a.bitCount() != 1 || a.bitLength() > 31) {
            throw error(v, "struct alignment must be a power of two (in bits), found " + Value.text(value));
        }
        return a.intValue();
    }

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
        Scope entryScope = scopes.scope();
        int entryLazy = scopes.lazyScopes();
        int entryStack = scopes.structDepth();
        ArrayList<Object> open = new ArrayList<>();
        boolean done = false;
        try {
            OpenStruct cur = openStruct(at, name);
            while (true) {
                Token t = tokens.peek();
                if (t.is("}")) {
                    tokens.next();
                    scopes.popStruct();
                    scopes.restore(cur.savedScope, cur.savedLazy);
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
                if (tokens.accept(";")) {
                    continue;
                }
                if (t.is("typealias") || t.is("typedef")) {
                    parser.parseDeclaration(true);
                    continue;
                }
                if (t.is("struct")
                        && (tokens.peek(1).is("{")
                                || (tokens.peek(1).kind() == Token.Kind.IDENTIFIER
                                        && !tokens.peek(1).is("align")
                                        && tokens.peek(2).is("{")))) {
                    tokens.next();
                    Token innerName = tokens.peek().is("{") ? null : tokens.next();
                    tokens.next();
                    suspend(open, cur);
                    cur = openStruct(t, innerName);
                    continue;
                }
                FieldType base = parser.parseTypeSpecifier();
                memberDeclarators(cur.members, base, "struct");
            }
        } finally {
            nesting--;
            if (!done) {
                scopes.restore(entryScope, entryLazy);
                scopes.popStructsTo(entryStack);
            }
        }
    }

    private OpenStruct openStruct(Token at, Token name) {
        OpenStruct s = new OpenStruct(at, name, new MemberList(), scopes.scope(), scopes.lazyScopes());
        scopes.enter();
        scopes.pushStruct(s.members);
        return s;
    }

    /** Keeps {@code cur} on the stack while a struct inside it is parsed. */
    private void suspend(ArrayList<Object> open, OpenStruct cur) {
        boolean empty = cur.name == null
                && cur.members.isEmpty()
                && scopes.scope() == cur.savedScope
                && scopes.lazyScopes() == cur.savedLazy + 1;
        if (!empty) {
            open.add(cur); // its members stay on the struct stack, for references
            return;
        }
        scopes.popStruct();
        if (!open.isEmpty()
                && open.getLast() instanceof OpenRun r
                && r.savedScope == cur.savedScope
                && r.savedLazy + r.count == cur.savedLazy
                && cur.at.column() == r.firstAt.column()
                && cur.at.line() == r.firstAt.line() + r.count
                && cur.at.text().equals(r.firstAt.text())) {
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
        scopes.pushStruct(s.members);
        return s;
    }

    /** After a struct's '}': its alignment, then its type (a level of a chain when it extends one), named if it is. */
    private StructType finishStruct(OpenStruct s) throws MetadataException {
        Token name = s.name;
        if (name != null
                && scopes.declaredScope() != null
                && scopes.scope().structs.containsKey(name.text())) {
            throw error(name, "struct '" + name.text() + "' is already defined in this scope");
        }
        StructType type = StructChain.struct(s.members, parseStructAlign());
        if (name != null) {
            scopes.ownScope().structs.put(name.text(), type);
        }
        return type;
    }

    /** The declarators of fields of type {@code base} (or none: a type declared inside a struct), up to the ';'. */
    private void memberDeclarators(MemberList members, FieldType base, String kind) throws MetadataException {
        if (tokens.accept(";")) {
            return; // a named struct/variant/enum declared inside a struct
        }
        do {
            Token nameTok = tokens.fieldName("a " + (kind.equals("variant") ? "variant option" : "field"));
            FieldType type = parser.applyDims(base, parser.parseDims(), nameTok);
            if (type instanceof VariantType v && v.tag() == null && kind.equals("struct")) {
                throw error(nameTok, "variant field '" + nameTok.text() + "' has no tag");
            }
            if (members.indexOf(nameTok.text()) >= 0) {
                throw error(
                        nameTok,
                        "duplicate " + (kind.equals("variant") ? "option" : "field") + " name '" + nameTok.text()
                                + "'");
            }
            members.add(new Member(nameTok.text(), type));
        } while (tokens.accept(","));
        tokens.expect(";", "after the declaration of '" + members.getLast().name() + "'");
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
        Scope saved = scopes.scope();
        int savedLazy = scopes.lazyScopes();
        scopes.enter();
        MemberList members = new MemberList();
        scopes.pushStruct(members);
        try {
            while (!tokens.accept("}")) {
                Token t = tokens.peek();
                if (t.kind() == Token.Kind.END) {
                    throw error(at, "unterminated " + kind + " (missing '}')");
                }
                if (tokens.accept(";")) {
                    continue;
                }
                if (t.is("typealias") || t.is("typedef")) {
                    parser.parseDeclaration(true);
                    continue;
                }
                memberDeclarators(members, parser.parseTypeSpecifier(), kind);
            }
        } finally {
            scopes.popStruct();
            scopes.restore(saved, savedLazy);
        }
        return members;
    }

    VariantType parseVariant(Token at) throws MetadataException {
        Token name = null;
        if (tokens.peek().kind() == Token.Kind.IDENTIFIER) {
            name = tokens.next();
        }
        FieldPath tag = null;
        Token tagAt = null;
        if (tokens.peek().is("<")) {
            tagAt = tokens.next();
            Token t = tokens.peek();
            if (t.is(">")) {
                throw error(t, "variant tag is empty: expected the name of an enumeration field");
            }
            Value v = TsdlAttribute.parseValue(tokens);
            if (!(v instanceof Value.Path(List<String> parts))) {
                throw error(t, "variant tag must be the name of an enumeration field, found " + Value.text(v));
            }
            if ((CTF_KEYWORDS.contains(parts.getFirst()) && !DYNAMIC_SCOPE_ROOTS.contains(parts.getFirst()))
                    || C_TYPE_WORDS.contains(parts.getFirst())) {
                throw error(t, "variant tag cannot be the keyword '" + parts.getFirst() + "'");
            }
            tag = new FieldPath(parts);
            tokens.expect(">", "to close the variant tag");
        }
        VariantType type;
        if (tokens.accept("{")) {
            List<Member> options = parseMembers(at, "variant");
            if (options.isEmpty()) {
                throw error(at, "variant has no options");
            }
            type = new VariantType(tag, options, tag == null ? null : checkVariantTag(tagAt, tag, options));
            if (name != null) {
                if (scopes.declaredScope() != null && scopes.scope().variants.containsKey(name.text())) {
                    throw error(name, "variant '" + name.text() + "' is already defined in this scope");
                }
                scopes.ownScope().variants.put(name.text(), type);
            }
        } else {
            if (name == null) {
                throw error(
                        tokens.peek(),
                        "expected a variant name or '{', found " + tokens.peek().describe());
            }
            VariantType found = scopes.findVariant(name.text());
            if (found == null) {
                throw error(name, "unknown variant '" + name.text() + "'");
            }
            type = tag != null ? found.withTag(tag, checkVariantTag(tagAt, tag, found.options())) : found;
        }
        return type;
    }

    /** The tag must be an enumeration declared before, whose labels name every option. */
    private Member checkVariantTag(Token at, FieldPath path, List<Member> options) throws MetadataException {
        StaticRef target = scopes.checkRelativeReference(at, path, "variant tag");
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
                        ? mappings.hasCountedLabel(
                                ol.runPrefix(e), ol.runFirst(e), ol.runFirst(e) + ol.entrySize(e) - 1)
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

    EnumType parseEnum(Token at) throws MetadataException {
        Token name = null;
        if (tokens.peek().kind() == Token.Kind.IDENTIFIER) {
            name = tokens.next();
        }
        IntegerType container = null;
        if (tokens.accept(":")) {
            Token t = tokens.peek();
            FieldType ct = parser.parseTypeSpecifier();
            if (!(ct instanceof IntegerType it)) {
                throw error(t, "enumeration container must be an integer type");
            }
            container = it;
        }
        if (!tokens.peek().is("{")) {
            if (name == null) {
                throw error(
                        tokens.peek(),
                        "expected an enumeration name or '{', found "
                                + tokens.peek().describe());
            }
            EnumType found = scopes.findEnum(name.text());
            if (found == null) {
                throw error(name, "unknown enumeration '" + name.text() + "'");
            }
            return found;
        }
        Token open = tokens.next();
        if (container == null) {
            FieldType intType = scopes.lookupAlias("int");
            if (!(intType instanceof IntegerType it)) {
                throw error(open, "enumeration without container type needs an integer type named 'int'");
            }
            container = it;
        }
        BigInteger min = container.signed()
                ? BigInteger.ONE.shiftLeft(Math.min(container.size(), 64) - 1).negate()
                : BigInteger.ZERO;
        BigInteger max = container.signed()
                ? BigInteger.ONE.shiftLeft(Math.min(container.size(), 64) - 1).subtract(BigInteger.ONE)
                : BigInteger.ONE.shiftLeft(Math.min(container.size(), 64)).subtract(BigInteger.ONE);
        MappingList mappings = new MappingList();
        BigInteger nextValue = BigInteger.ZERO;
        while (!tokens.accept("}")) {
            Token labelTok = tokens.peek();
            String label;
            if (labelTok.kind() == Token.Kind.IDENTIFIER || labelTok.kind() == Token.Kind.STRING) {
                label = tokens.next().text();
            } else {
                throw error(labelTok, "expected an enumeration label, found " + labelTok.describe());
            }
            BigInteger lo = nextValue;
            BigInteger hi = nextValue;
            if (tokens.accept("=")) {
                lo = enumValue();
                hi = lo;
                if (tokens.accept("...")) {
                    hi = enumValue();
                }
                if (lo.compareTo(hi) > 0) {
                    throw error(
                            labelTok, "enumeration range of '" + label + "' is reversed (" + lo + " ... " + hi + ")");
                }
            }
            if (lo.compareTo(min) < 0 || hi.compareTo(max) > 0) {
                throw error(
                        labelTok,
                        "value of enumeration label '" + label + "' (" + lo
                                + (lo.equals(hi) ? "" : " ... " + hi) + ") does not fit its "
                                + (container.signed() ? "signed" : "unsigned")
                                + " " + container.size() + "-bit container");
            }
            mappings.add(new EnumMapping(label, lo.longValue(), hi.longValue()));
            nextValue = hi.add(BigInteger.ONE);
            if (!tokens.accept(",")) {
                tokens.expect("}", "to close the enumeration");
                break;
            }
        }
        if (mappings.isEmpty()) {
            throw error(open, "enumeration has no labels");
        }
        EnumType type = new EnumType(container, mappings);
        if (name != null) {
            if (scopes.declaredScope() != null && scopes.scope().enums.containsKey(name.text())) {
                throw error(name, "enumeration '" + name.text() + "' is already defined in this scope");
            }
            scopes.ownScope().enums.put(name.text(), type);
        }
        return type;
    }

    private BigInteger enumValue() throws MetadataException {
        Token t = tokens.peek();
        Value v = TsdlAttribute.parseValue(tokens);
        if (!(v instanceof Value.Int(BigInteger i))) {
            throw error(t, "enumeration value must be an integer, found " + Value.text(v));
        }
        return i;
    }
}
