package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.decode.TracePlan.Scope;
import dev.hetrace.ctf.metadata.FieldPath;
import dev.hetrace.ctf.metadata.FieldType;
import dev.hetrace.ctf.metadata.MetadataException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The fields that variant tags, sequence and BLOB lengths and optional selectors name, found
 * among the scopes and structs compiled so far, and the registers the decoder passes their
 * values in. Part of the {@link PlanCompiler}.
 */
final class PlanReferences {
    private int registers;
    /** Roots of the scopes compiled so far for the current event, by scope. */
    private final Node[] roots = new Node[Scope.values().length];

    private Scope current;
    /** Structs being compiled, innermost first, with the number of members done so far. */
    private final Deque<Frame> frames = new ArrayDeque<>();
    /** CTF 2 locations go through arrays, variants and optionals; CTF 1.8 paths name a field in the static scope. */
    private final boolean ctf2;

    private record Frame(Node struct, int[] done) {}

    PlanReferences(boolean ctf2) {
        this.ctf2 = ctf2;
    }

    /** Registers given out so far. */
    int registers() {
        return registers;
    }

    /** Starts compiling scope {@code scope}. */
    void beginScope(Scope scope) {
        current = scope;
        frames.clear();
    }

    /** Scope {@code scope} is compiled: its fields may be named from the next scopes. */
    void setRoot(Scope scope, Node root) {
        roots[scope.ordinal()] = root;
    }

    /** Enters struct {@code n}, of which {@code done[0]} members are compiled so far. */
    void pushFrame(Node n, int[] done) {
        frames.push(new Frame(n, done));
    }

    void popFrame() {
        frames.pop();
    }

    void clearRootsFrom(Scope s) {
        for (int i = s.ordinal(); i < roots.length; i++) {
            roots[i] = null;
        }
    }

    /**
     * The fields a length or selector path may name (several when it goes through variant
     * options: the one in the option decoded is the one), and the variants and optionals
     * on its way, whose decoded option the consumer checks (see {@link Node#guardRegisters}).
     */
    record Located(List<Node> targets, List<Guard> guards) {}

    private record Guard(Node node, boolean[] allowed, int parent, int parentValue) {}

    Located locate(FieldPath path, FieldType.Member lexical, String what) throws MetadataException {
        if (!ctf2) {
            return new Located(List.of(resolve(path, lexical, what)), List.of());
        }
        List<String> parts = path.parts();
        Node root = null;
        List<String> rest = parts;
        for (Scope s : Scope.values()) {
            String[] prefix = s.prefix.split("\\.");
            if (parts.size() > prefix.length && parts.subList(0, prefix.length).equals(List.of(prefix))) {
                if (s.ordinal() > current.ordinal()) {
                    throw new MetadataException(what + " '" + path + "' refers to a later scope");
                }
                root = s == current
                        ? frames.peekLast() == null ? null : frames.peekLast().struct()
                        : roots[s.ordinal()];
                if (root == null) {
                    throw new MetadataException(what + " '" + path + "': scope " + s.prefix + " is not defined");
                }
                rest = parts.subList(prefix.length, parts.size());
            }
        }
        if (root == null) {
            // Relative: from the innermost struct.
            root = frames.isEmpty() ? null : frames.peekFirst().struct();
            if (root == null) {
                throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
            }
        }
        List<Node> targets = new ArrayList<>();
        List<Guard> guards = new ArrayList<>();
        reach(root, rest, 0, -1, -1, targets, guards, path, what);
        if (targets.isEmpty()) {
            throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
        }
        if (guards.size() > 64) {
            throw new MetadataException(
                    what + " '" + path + "' goes through more than 64 variants and optionals:" + " not supported");
        }
        return new Located(targets, guards);
    }

    /**
     * Collects the fields {@code parts[k..]} names from {@code v}, the field {@code parts[k - 1]}
     * names (or the root struct): through arrays to their element, through optionals and
     * every option of variants (adding their checks), into structs by member name, among
     * the members compiled so far of the structs being compiled.
     */
    private void reach(
            Node v,
            List<String> parts,
            int k,
            int parent,
            int parentValue,
            List<Node> targets,
            List<Guard> guards,
            FieldPath path,
            String what)
            throws MetadataException {
        switch (v.kind) {
            case Node.ARRAY, Node.SEQUENCE, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.RUN, Node.PACKED_RUN ->
                reach(v.element(), parts, k, parent, parentValue, targets, guards, path, what);
            case Node.VARIANT, Node.OPTIONAL -> {
                Guard g =
                        new Guard(v, new boolean[v.kind == Node.OPTIONAL ? 2 : v.children.length], parent, parentValue);
                int index = guards.size();
                guards.add(g);
                boolean any = false;
                for (int o = 0; o < v.children.length; o++) {
                    int value = v.kind == Node.OPTIONAL ? 1 : o;
                    int before = targets.size();
                    int guardsBefore = guards.size();
                    reach(v.children[o], parts, k, index, value, targets, guards, path, what);
                    if (targets.size() > before) {
                        g.allowed()[value] = true;
                        any = true;
                    } else {
                        guards.subList(guardsBefore, guards.size()).clear();
                    }
                }
                if (!any) {
                    guards.remove(index);
                }
            }
            case Node.STRUCT -> {
                if (k == parts.size()) {
                    return;
                }
                // By name, as memberIndex, but also among the members not compiled yet (no node so far).
                int i = -1;
                for (int j = 0; j < v.rawNames.length && i < 0; j++) {
                    Node c = v.children[j];
                    if (v.rawNames[j].equals(parts.get(k))
                            && (c == null || (c.kind != Node.RUN && c.kind != Node.PACKED_RUN))) {
                        i = j;
                    }
                }
                if (i < 0) {
                    return;
                }
                List<Frame> inward = new ArrayList<>(frames);
                int f = -1;
                for (int j = 0; j < inward.size(); j++) {
                    if (inward.get(j).struct() == v) {
                        f = j;
                    }
                }
                int done = f < 0 ? v.children.length : inward.get(f).done()[0];
                if (i < done) {
                    reach(v.children[i], parts, k + 1, parent, parentValue, targets, guards, path, what);
                } else if (i == done && f > 0 && k + 1 < parts.size()) {
                    // The member being compiled: on into the innermost struct in it being compiled, through
                    // the element, option or content being decoded.
                    reach(inward.get(f - 1).struct(), parts, k + 1, parent, parentValue, targets, guards, path, what);
                }
            }
            case Node.CHAIN ->
                throw new MetadataException(what + " '" + path + "' goes through " + v.length
                        + " nested structs of one shape, whose fields cannot be tags or lengths: not supported");
            default -> {
                if (k == parts.size()) {
                    targets.add(v);
                }
            }
        }
    }

    /**
     * One register for every field a location may name (each writes it when decoded), and
     * the checks of the variants and optionals on the way on {@code consumer}.
     */
    int registerOf(Located located, Node consumer) throws MetadataException {
        int register = -1;
        for (Node t : located.targets()) {
            if (t.register >= 0) {
                if (register >= 0 && register != t.register) {
                    throw new MetadataException("a field location that may name several fields, some of which other"
                            + " locations name: not supported");
                }
                register = t.register;
            }
        }
        if (register < 0) {
            register = registers++;
        }
        for (Node t : located.targets()) {
            t.register = register;
            t.referenced = true;
        }
        List<Guard> guards = located.guards();
        if (!guards.isEmpty()) {
            int count = guards.size();
            consumer.guardRegisters = new int[count];
            consumer.guardAllowed = new boolean[count][];
            consumer.guardParents = new int[count];
            consumer.guardParentValues = new int[count];
            for (int i = 0; i < count; i++) {
                Guard g = guards.get(i);
                if (g.node().register < 0) {
                    g.node().register = registers++;
                }
                consumer.guardRegisters[i] = g.node().register;
                consumer.guardAllowed[i] = g.allowed();
                consumer.guardParents[i] = g.parent();
                consumer.guardParentValues[i] = g.parentValue();
            }
        }
        return register;
    }

    /** Finds the field a tag or length path names: in the static scope first, then absolute. */
    private Node resolve(FieldPath path, FieldType.Member lexical, String what) throws MetadataException {
        List<String> parts = path.parts();
        if (lexical != null) {
            // The member the path named where it was written, found among the enclosing structs.
            for (Frame f : frames) {
                for (int i = 0; i < f.done()[0]; i++) {
                    if (f.struct().children[i].source == lexical) {
                        return walk(f.struct().children[i], parts.subList(1, parts.size()), path, what, null);
                    }
                }
            }
        }
        for (Scope s : Scope.values()) {
            String[] prefix = s.prefix.split("\\.");
            if (parts.size() > prefix.length && parts.subList(0, prefix.length).equals(List.of(prefix))) {
                if (s.ordinal() > current.ordinal()) {
                    throw new MetadataException(what + " '" + path + "' refers to a later scope");
                }
                Node root = s == current
                        ? frames.peekLast() == null ? null : frames.peekLast().struct()
                        : roots[s.ordinal()];
                if (root == null) {
                    throw new MetadataException(what + " '" + path + "': scope " + s.prefix + " is not defined");
                }
                return walk(
                        root,
                        parts.subList(prefix.length, parts.size()),
                        path,
                        what,
                        s == current ? frames.peekLast() : null);
            }
        }
        if (parts.getFirst().equals("env")) {
            throw new MetadataException(what + " '" + path + "': env values cannot be used as lengths or tags");
        }
        // Relative: members declared before, in the innermost struct first.
        for (Frame f : frames) {
            for (int i = 0; i < f.done()[0]; i++) {
                if (f.struct().rawNames[i].equals(parts.getFirst())) {
                    return walk(f.struct().children[i], parts.subList(1, parts.size()), path, what, null);
                }
            }
        }
        // Then the earlier dynamic scopes, nearest first.
        for (int s = current.ordinal() - 1; s >= 0; s--) {
            Node root = roots[s];
            if (root != null && root.memberIndex(parts.getFirst()) >= 0) {
                return walk(root, parts, path, what, null);
            }
        }
        throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
    }

    private Node walk(Node from, List<String> parts, FieldPath path, String what, Frame limit)
            throws MetadataException {
        Node n = from;
        for (int k = 0; k < parts.size(); k++) {
            // A CTF 2 field location goes through arrays to the current element.
            while (ctf2 && (n.kind == Node.ARRAY || n.kind == Node.SEQUENCE)) {
                n = n.element();
            }
            if (n.kind == Node.CHAIN) {
                throw new MetadataException(what + " '" + path + "' goes through " + n.length + " nested structs"
                        + " of one shape, whose fields cannot be tags or lengths: not supported");
            }
            if (n.kind != Node.STRUCT) {
                throw new MetadataException(what + " '" + path + "' goes through a field that is not a struct");
            }
            int i = n.memberIndex(parts.get(k));
            if (i < 0 && n.inRun(parts.get(k))) {
                throw new MetadataException(what + " '" + path + "' names a member of a run of similar members"
                        + " that no relative reference named where it was declared: not supported");
            }
            if (i < 0 || (k == 0 && limit != null && n == limit.struct() && i >= limit.done()[0])) {
                throw new MetadataException(what + " '" + path + "' does not name a field declared before it");
            }
            n = n.children[i];
        }
        return n;
    }
}
