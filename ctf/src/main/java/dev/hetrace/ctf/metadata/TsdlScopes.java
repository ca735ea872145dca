package dev.hetrace.ctf.metadata;

import static dev.hetrace.ctf.metadata.TsdlTokens.DYNAMIC_SCOPE_ROOTS;
import static dev.hetrace.ctf.metadata.TsdlTokens.error;

import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The names a TSDL parser sees at one point: nested scopes of type aliases and named
 * structs, variants and enumerations, and the stack of structures being parsed, in which
 * variant tags and sequence lengths are looked up.
 */
final class TsdlScopes {
    /** Marks, in the struct stack, the start of a dynamic scope definition ({@code fields := ...}). */
    static final MemberList STRUCT_SCOPE_BOUNDARY = new MemberList();
    /** Marks the root of the struct stack: no struct. */
    static final MemberList NO_STRUCT = new MemberList();

    private Scope scope = new Scope(null);
    /**
     * Scopes entered inside {@link #scope} in which nothing is declared yet: they are made when
     * something is ({@link #ownScope()}), so that deeply nested structs cost no scope each.
     */
    private int lazyScopes;
    /** Members declared so far in each structure being parsed, innermost last; null marks a non-struct scope. */
    private final Deque<MemberList> structStack = new ArrayDeque<>();

    /** The names declared in one scope (a struct, a variant, a block, or the top level). */
    static final class Scope {
        final Scope parent;
        final NameTable<FieldType> aliases = new NameTable<>();
        final NameTable<StructType> structs = new NameTable<>();
        final NameTable<VariantType> variants = new NameTable<>();
        final NameTable<EnumType> enums = new NameTable<>();

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    /** The innermost scope made so far (saved with {@link #lazyScopes()} and given back to {@link #restore}). */
    Scope scope() {
        return scope;
    }

    int lazyScopes() {
        return lazyScopes;
    }

    void restore(Scope saved, int savedLazy) {
        scope = saved;
        lazyScopes = savedLazy;
    }

    /** Enters a scope, made only when something is declared in it. */
    void enter() {
        lazyScopes++;
    }

    void pushStruct(MemberList members) {
        structStack.push(members);
    }

    void popStruct() {
        structStack.pop();
    }

    int structDepth() {
        return structStack.size();
    }

    /** Drops the structs pushed since the stack was {@code depth} deep (a parse that failed). */
    void popStructsTo(int depth) {
        while (structStack.size() > depth) {
            structStack.pop();
        }
    }

    void defineAlias(Token at, String name, FieldType type) throws MetadataException {
        if (lazyScopes == 0 && scope.aliases.containsKey(name)) {
            throw error(at, "type '" + name + "' is already defined in this scope");
        }
        ownScope().aliases.put(name, type);
    }

    StructType findStruct(String name) {
        StructType type = null;
        for (Scope s = scope; s != null && type == null; s = s.parent) {
            type = s.structs.get(name);
        }
        return type;
    }

    VariantType findVariant(String name) {
        VariantType found = null;
        for (Scope s = scope; s != null && found == null; s = s.parent) {
            found = s.variants.get(name);
        }
        return found;
    }

    EnumType findEnum(String name) {
        EnumType found = null;
        for (Scope s = scope; s != null && found == null; s = s.parent) {
            found = s.enums.get(name);
        }
        return found;
    }

    /** The innermost scope, made now if nothing was declared in it yet. */
    Scope ownScope() {
        if (lazyScopes > 0) {
            scope = new Scope(scope);
            lazyScopes = 0;
        }
        return scope;
    }

    /** The innermost scope if something is declared in it, else null. */
    Scope declaredScope() {
        return lazyScopes == 0 ? scope : null;
    }

    FieldType lookupAlias(String name) {
        for (Scope s = scope; s != null; s = s.parent) {
            FieldType t = s.aliases.get(name);
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** A tag or length found in the static scope: the member its path starts from, and the field it names. */
    record StaticRef(Member member, FieldType type) {}

    /**
     * A relative tag or length path must name a field declared before, in the struct being parsed
     * or an enclosing one; outside of any struct it can never resolve.
     */
    StaticRef checkRelativeReference(Token at, FieldPath path, String what) throws MetadataException {
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
                        if (!(target instanceof StructType st)
                                || st.member(path.parts().get(i)) == null) {
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
}
