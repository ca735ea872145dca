package dev.hetrace.ctf.metadata;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.hetrace.ctf.metadata.FieldType.ArrayType;
import dev.hetrace.ctf.metadata.FieldType.BoolType;
import dev.hetrace.ctf.metadata.FieldType.EnumType;
import dev.hetrace.ctf.metadata.FieldType.IntegerType;
import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.OptionalType;
import dev.hetrace.ctf.metadata.FieldType.SequenceType;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VarIntType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The field locations of CTF 2 metadata (lengths and selectors): read, checked against the
 * fields decoded before the one that names them, and turned into {@link FieldPath}s. Knows
 * the scopes read so far and the structs being read.
 */
final class Ctf2Locations {
    private static final List<List<String>> PREFIXES = List.of(
            List.of("trace", "packet", "header"),
            List.of("stream", "packet", "context"),
            List.of("stream", "event", "header"),
            List.of("stream", "event", "context"),
            List.of("event", "context"),
            List.of("event", "fields"));

    private final Ctf2Properties json;
    /** The scopes of the class being read, by origin index; the one being built is in {@link #frames}. */
    private final StructType[] scopes = new StructType[FieldPath.CTF2_ORIGINS.size()];

    private int scope;
    /** Structs being read, innermost first. */
    private final Deque<Frame> frames = new ArrayDeque<>();

    /**
     * A struct being read: its members so far, and the member names that lead to it from its
     * scope's root (arrays, variants and optionals on the way add none: a location goes through
     * them to the element, option or content being decoded).
     */
    private record Frame(List<Member> done, List<String> names) {}

    Ctf2Locations(Ctf2Properties json) {
        this.json = json;
    }

    /** Forgets the scopes from origin index {@code from} on. */
    void clearScopes(int from) {
        for (int i = from; i < scopes.length; i++) {
            scopes[i] = null;
        }
    }

    /** Starts reading the root structure of scope {@code origin}. */
    void beginScope(int origin) {
        scope = origin;
        frames.clear();
    }

    /** The origin index of the scope being read. */
    int scope() {
        return scope;
    }

    /** Sets the root structure of scope {@code origin}, or null when the class has none. */
    void setScope(int origin, StructType root) {
        scopes[origin] = root;
    }

    /** Enters a struct being read, whose members so far are {@code done}. */
    void pushFrame(List<Member> done, List<String> names) {
        frames.push(new Frame(done, names));
    }

    void popFrame() {
        frames.pop();
    }

    boolean selectorSigned() {
        return selectorSigned;
    }

    boolean selectorBool() {
        return selectorBool;
    }

    /** Whether the selector field last located by {@link #location} is signed. */
    private boolean selectorSigned;

    /**
     * Reads a field location and checks that it names an integer field decoded before: with an
     * origin, a scope decoded before or the current one; without, from the innermost struct
     * ({@code null} elements going up one struct).
     */
    FieldPath location(JsonNode fc, String owner, String property, boolean selector) throws MetadataException {
        return location(fc, owner, property, selector, false);
    }

    /** Whether the selector field last located by {@link #location} is a boolean. */
    private boolean selectorBool;

    /** As {@link #location(JsonNode, String, String, boolean)}; {@code boolOk}: the field may be a boolean. */
    FieldPath location(JsonNode fc, String owner, String property, boolean selector, boolean boolOk)
            throws MetadataException {
        String path = owner + "." + property;
        JsonNode loc = json.required(fc, property, owner);
        String origin;
        List<String> parts = new ArrayList<>();
        JsonNode elements;
        if (loc.isArray()) {
            // Drafts of CTF 2 wrote a location as an array: the origin, then the path.
            if (loc.isEmpty() || !loc.get(0).isTextual()) {
                throw json.error(path, "must be a field location object");
            }
            origin = loc.get(0).asText();
            elements = loc.deepCopy();
            ((ArrayNode) elements).remove(0);
        } else if (loc.isObject()) {
            origin = loc.has("origin") ? json.string(loc, "origin", path, true) : null;
            elements = json.required(loc, "path", path);
        } else {
            throw json.error(path, "must be a field location object");
        }
        if (!elements.isArray() || elements.isEmpty()) {
            throw json.error(path + ".path", "must be a non-empty JSON array");
        }
        for (int i = 0; i < elements.size(); i++) {
            JsonNode e = elements.get(i);
            if (e.isNull()) {
                parts.add(null);
            } else if (e.isTextual()) {
                parts.add(e.asText());
            } else {
                throw json.error(path + ".path[" + i + "]", "must be a string or null");
            }
        }
        if (parts.getLast() == null) {
            throw json.error(path + ".path", "the last element must not be null");
        }
        FieldType target;
        FieldPath result;
        if (origin != null) {
            int o = FieldPath.CTF2_ORIGINS.indexOf(origin);
            if (o < 0) {
                throw json.error(path + ".origin", "unknown origin \"" + origin + "\"");
            }
            if (parts.contains(null)) {
                throw json.error(path + ".path", "a location with an origin cannot go up with null");
            }
            if (o > scope) {
                throw json.error(path, "origin " + origin + " is decoded after this field");
            }
            List<Member> root;
            if (o == scope) {
                Frame outer = frames.peekLast();
                root = outer == null ? List.of() : outer.done();
            } else if (scopes[o] == null) {
                throw json.error(path, "origin " + origin + " has no field class here");
            } else {
                root = scopes[o].members();
            }
            target = walk(root, parts, path);
            List<String> full = new ArrayList<>(PREFIXES.get(o));
            full.addAll(parts);
            result = new FieldPath(full);
        } else {
            int up = 0;
            while (parts.get(up) == null) {
                up++;
            }
            if (up >= frames.size()) {
                throw json.error(
                        path + ".path",
                        "goes up " + up + " structures from a field " + (frames.size() - 1) + " deep in its scope");
            }
            Frame from = frames.stream().skip(up).findFirst().orElseThrow();
            List<String> rest = parts.subList(up, parts.size());
            target = walk(from.done(), rest, path);
            if (up == 0) {
                result = new FieldPath(rest);
            } else {
                List<String> full = new ArrayList<>(PREFIXES.get(scope));
                full.addAll(from.names());
                full.addAll(rest);
                result = new FieldPath(full);
            }
        }
        if (target instanceof EnumType et) {
            target = et.container();
        }
        boolean signed;
        selectorBool = false;
        if (target instanceof IntegerType it && it.size() > 64) {
            throw json.error(
                    path,
                    "the " + (selector ? "selector" : "length") + " field at " + describe(origin, parts)
                            + " is an integer of " + it.size() + " bits: at most 64 are supported");
        } else if (target instanceof IntegerType it) {
            signed = it.signed();
        } else if (target instanceof VarIntType vt) {
            signed = vt.signed();
        } else if (boolOk && target instanceof BoolType) {
            signed = false;
            selectorBool = true;
        } else {
            throw json.error(
                    path,
                    "the field at " + describe(origin, parts) + " is not "
                            + (boolOk ? "a boolean or an integer" : "an integer"));
        }
        if (!selector && signed) {
            throw json.error(path, "the length field at " + describe(origin, parts) + " must be unsigned");
        }
        selectorSigned = signed;
        return result;
    }

    private static String describe(String origin, List<String> parts) {
        return (origin == null ? "" : origin + ":")
                + String.join("/", parts.stream().map(p -> p == null ? ".." : p).toList());
    }

    /**
     * The field at {@code parts} from the members {@code root} decoded so far, through structs,
     * arrays, optionals and variants (whose every option may hold it: which one does is known
     * only while decoding). When several fields may be the one, they must be alike: all
     * booleans, all unsigned or all signed integers.
     */
    private FieldType walk(List<Member> root, List<String> parts, String path) throws MetadataException {
        List<List<Member>> levels = List.of(root);
        List<FieldType> found = List.of();
        for (int k = 0; k < parts.size(); k++) {
            if (levels.isEmpty()) {
                throw json.error(path, "\"" + parts.get(k - 1) + "\" is not a structure");
            }
            found = new ArrayList<>();
            List<List<Member>> next = new ArrayList<>();
            for (List<Member> members : levels) {
                FieldType t = null;
                for (Member m : members) {
                    if (m.name().equals(parts.get(k))) {
                        t = m.type();
                    }
                }
                if (t == null) {
                    // A struct being read is no member yet: go on among the members it has so far.
                    List<Member> within = within(members, parts.get(k));
                    if (within != null && k < parts.size() - 1) {
                        next.add(within);
                    }
                    continue;
                }
                for (FieldType leaf : leaves(t, new ArrayList<>())) {
                    found.add(leaf);
                    if (leaf instanceof StructType st) {
                        List<Member> ms = st.members();
                        for (Frame f : frames) {
                            if (f.done() == st.members()) {
                                ms = f.done();
                            }
                        }
                        next.add(ms);
                    }
                }
            }
            if (found.isEmpty() && next.isEmpty()) {
                throw json.error(path, "no field \"" + parts.get(k) + "\" is decoded before this one");
            }
            levels = next;
        }
        if (found.isEmpty()) {
            throw json.error(path, "no field \"" + parts.getLast() + "\" is decoded before this one");
        }
        FieldType first = null;
        for (FieldType t : found) {
            FieldType c = t instanceof EnumType et ? et.container() : t;
            if (c instanceof IntegerType || c instanceof VarIntType || c instanceof BoolType) {
                if (first == null) {
                    first = c;
                } else if (kindOf(first) != kindOf(c)) {
                    throw json.error(
                            path,
                            "the fields the location may name are not alike (booleans, unsigned or signed"
                                    + " integers)");
                }
            }
        }
        return first != null ? first : found.getFirst();
    }

    /** 0 for a boolean, 1 for an unsigned integer, 2 for a signed one. */
    private static int kindOf(FieldType t) {
        return switch (t) {
            case IntegerType it -> it.signed() ? 2 : 1;
            case VarIntType vt -> vt.signed() ? 2 : 1;
            default -> 0;
        };
    }

    /** The field classes a location reaches at {@code t}: through arrays, optionals and every option of variants. */
    private static List<FieldType> leaves(FieldType t, List<FieldType> out) {
        switch (t) {
            case ArrayType a -> leaves(a.element(), out);
            case SequenceType q -> leaves(q.element(), out);
            case OptionalType o -> leaves(o.content(), out);
            case VariantType v -> {
                for (Member m : v.options()) {
                    leaves(m.type(), out);
                }
            }
            default -> out.add(t);
        }
        return out;
    }

    /** The members so far of the struct being read as member {@code name} of the struct whose members are {@code outer}. */
    private List<Member> within(List<Member> outer, String name) {
        List<Frame> inward = new ArrayList<>(frames);
        for (int i = 0; i + 1 < inward.size(); i++) {
            Frame f = inward.get(i);
            if (inward.get(i + 1).done() == outer
                    && f.names() != null
                    && !f.names().isEmpty()
                    && f.names().getLast().equals(name)) {
                return f.done();
            }
        }
        return null;
    }
}
