package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.FloatType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StringType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import java.util.List;

/** Cheap structural comparisons of types, used to recognise runs of identical declarations. */
final class Types {
    private static final int MAX_DEPTH = 4;
    static final int MAX_MEMBERS = 16;

    private Types() {}

    /**
     * Whether two values (types, usually) are the same: identical, or small types that are equal
     * (integers, floats, strings, small structs of those). Never walks a large or deep type.
     */
    static boolean same(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a instanceof FieldType x && b instanceof FieldType y) {
            return sameType(x, y, 0);
        }
        return false;
    }

    static boolean sameType(FieldType a, FieldType b, int depth) {
        if (a == b) {
            return true;
        }
        if (depth > MAX_DEPTH) {
            return false;
        }
        return switch (a) {
            case IntegerType i -> i.equals(b);
            case FloatType f -> f.equals(b);
            case StringType s -> s.equals(b);
            case EnumType e ->
                b instanceof EnumType o
                        && e.container().equals(o.container())
                        && e.mappings().size() <= MAX_MEMBERS
                        && e.mappings().equals(o.mappings());
            case StructType s ->
                b instanceof StructType o
                        && s.minAlignment() == o.minAlignment()
                        && sameMembers(s.members(), o.members(), depth + 1);
            default -> false;
        };
    }

    static boolean sameMembers(List<Member> a, List<Member> b, int depth) {
        if (a.size() != b.size() || a.size() > MAX_MEMBERS) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            Member x = a.get(i);
            Member y = b.get(i);
            if (!x.name().equals(y.name()) || !sameType(x.type(), y.type(), depth)) {
                return false;
            }
        }
        return true;
    }
}
