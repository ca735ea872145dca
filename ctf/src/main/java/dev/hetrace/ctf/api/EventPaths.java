package dev.hetrace.ctf.api;

import dev.hetrace.ctf.decode.Node;
import dev.hetrace.ctf.decode.Tape;
import dev.hetrace.ctf.decode.TracePlan.EventPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * Field paths of {@link Event} ({@code "point.x"}, {@code "packet_context.cpu_id"},
 * {@code "values[3]"}) resolved once per event class: the scope, then the steps from its
 * struct to the field. Reading the field in an event follows the steps ({@link Event}).
 */
final class EventPaths {
    private EventPaths() {}

    /** Where a path starts; unprefixed names are searched in the first four, in this order. */
    enum Scope {
        PAYLOAD("payload"),
        CONTEXT("context"),
        STREAM_CONTEXT("stream_context"),
        PACKET_CONTEXT("packet_context"),
        HEADER("header"),
        PACKET_HEADER("packet_header");

        static final Scope[] SEARCHED = {PAYLOAD, CONTEXT, STREAM_CONTEXT, PACKET_CONTEXT};

        final String prefix;

        Scope(String prefix) {
            this.prefix = prefix;
        }

        static Scope named(String name) {
            for (Scope s : values()) {
                if (s.prefix.equals(name)) {
                    return s;
                }
            }
            return null;
        }
    }

    static final int MEMBER = 0;
    static final int OPTION = 1;
    static final int ELEMENT = 2;
    /** An element of a packed array: its value is read from the trace, not the tape; always the last step. */
    static final int PACKED_ELEMENT = 3;

    /**
     * A path resolved in one event class: the scope, then the steps from the scope's struct to
     * the field (member or option index, or element index), or why it does not resolve.
     */
    static final class Resolved {
        final String path;
        final Scope scope;
        final int[] kinds;
        final long[] args;
        final Node leaf;
        /** Why the path names no field ("" when there is nothing more to say), or null when it does. */
        final String missing;

        final int fixedSlot;

        Resolved(String path, Scope scope, int[] kinds, long[] args, Node leaf, String missing, int fixedSlot) {
            this.path = path;
            this.scope = scope;
            this.kinds = kinds;
            this.args = args;
            this.leaf = leaf;
            this.missing = missing;
            this.fixedSlot = fixedSlot;
        }

        boolean packedElement() {
            return kinds.length > 0 && kinds[kinds.length - 1] == PACKED_ELEMENT;
        }
    }

    /** The root of scope {@code s} in event class {@code ep}. */
    static Node rootNode(EventPlan ep, Scope s, Node packetHeader) {
        return switch (s) {
            case PAYLOAD -> ep.payload;
            case CONTEXT -> ep.context;
            case STREAM_CONTEXT -> ep.stream.eventContext;
            case PACKET_CONTEXT -> ep.stream.packetContext;
            case HEADER -> ep.stream.eventHeader;
            case PACKET_HEADER -> packetHeader;
        };
    }

    /** Resolves {@code path} in event class {@code ep}; when it names no field, a resolution that says why. */
    static Resolved resolve(EventPlan ep, String path, Node packetHeader) {
        List<Object> segments = parse(path);
        if (segments == null) {
            return missing(path, "'" + path + "' is not a field path (names separated by '.', with optional [index])");
        }
        if (segments.getFirst() instanceof String first && segments.size() > 1) {
            Scope s = Scope.named(first);
            if (s != null && rootNode(ep, s, packetHeader) != null) {
                Resolved r = walk(path, s, rootNode(ep, s, packetHeader), segments.subList(1, segments.size()));
                if (r != null) {
                    return r;
                }
            }
        }
        for (Scope s : Scope.SEARCHED) {
            Node root = rootNode(ep, s, packetHeader);
            if (root != null) {
                Resolved r = walk(path, s, root, segments);
                if (r != null) {
                    return r;
                }
            }
        }
        return missing(path, null);
    }

    private static Resolved missing(String path, String why) {
        return new Resolved(path, null, null, null, null, why != null ? why : "", -1);
    }

    /** Names and indices of a path ("a.b[2].c" is a, b, 2, c), or null when it is malformed. */
    private static List<Object> parse(String path) {
        List<Object> out = new ArrayList<>();
        for (String part : path.split("\\.", -1)) {
            int bracket = part.indexOf('[');
            String name = bracket < 0 ? part : part.substring(0, bracket);
            if (name.isEmpty()) {
                return null;
            }
            out.add(name);
            while (bracket >= 0) {
                int close = part.indexOf(']', bracket);
                if (close < 0) {
                    return null;
                }
                try {
                    out.add(Long.parseLong(part.substring(bracket + 1, close)));
                } catch (NumberFormatException e) {
                    return null;
                }
                if (close + 1 < part.length() && part.charAt(close + 1) != '[') {
                    return null;
                }
                bracket = close + 1 < part.length() ? close + 1 : -1;
            }
        }
        return out;
    }

    /**
     * Follows the segments from a scope's struct; null when they do not name a field there. A
     * member of a run of members ({@code arg0, arg1}, compiled as one run) is the run's element.
     */
    private static Resolved walk(String path, Scope scope, Node root, List<Object> segments) {
        int[] kinds = new int[2 * segments.size()];
        long[] args = new long[2 * segments.size()];
        int j = 0;
        Node n = root;
        for (int i = 0; i < segments.size(); i++) {
            Object seg = segments.get(i);
            if (seg instanceof String name) {
                int index = switch (n.kind) {
                    case Node.STRUCT -> n.memberIndexByName(name);
                    case Node.VARIANT -> optionIndex(n, name);
                    default -> -1;
                };
                long inRun = -1;
                if (n.kind == Node.STRUCT
                        && (index < 0
                                || n.children[index].kind == Node.RUN
                                || n.children[index].kind == Node.PACKED_RUN)) {
                    long where = n.runMember(name);
                    if (where >= 0) {
                        index = (int) (where >>> 32);
                        inRun = where & 0xffff_ffffL;
                    } else {
                        index = -1;
                    }
                }
                if (index < 0) {
                    return null;
                }
                kinds[j] = n.kind == Node.STRUCT ? MEMBER : OPTION;
                args[j++] = index;
                n = n.children[index];
                if (inRun >= 0) {
                    if (n.isPacked() && i != segments.size() - 1) {
                        return null; // members of packed runs are scalars
                    }
                    kinds[j] = n.isPacked() ? PACKED_ELEMENT : ELEMENT;
                    args[j++] = inRun;
                    n = n.element();
                }
            } else {
                long k = (Long) seg;
                if (k < 0) {
                    return null;
                }
                if (n.isPacked()) {
                    if (i != segments.size() - 1) {
                        return null; // elements of packed arrays are scalars
                    }
                    kinds[j] = PACKED_ELEMENT;
                } else if (n.kind == Node.ARRAY || n.kind == Node.SEQUENCE) {
                    kinds[j] = ELEMENT;
                    if (n.kind == Node.ARRAY && k >= n.length) {
                        return null;
                    }
                } else {
                    return null;
                }
                args[j++] = k;
                n = n.element();
            }
        }
        kinds = java.util.Arrays.copyOf(kinds, j);
        args = java.util.Arrays.copyOf(args, j);
        return new Resolved(path, scope, kinds, args, n, null, fixedSlot(root, kinds, args));
    }

    /**
     * The field's slot relative to its scope's start when it does not depend on the data (members
     * of structs whose earlier members have a fixed size on the tape), else -1: then the common
     * read is one addition.
     */
    private static int fixedSlot(Node root, int[] kinds, long[] args) {
        long slot = 0;
        Node n = root;
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i] != MEMBER) {
                return -1;
            }
            int index = (int) args[i];
            for (int k = 0; k < index; k++) {
                long span = Tape.fixedSpan(n.children[k]);
                if (span < 0) {
                    return -1;
                }
                slot += span;
            }
            if (slot > Integer.MAX_VALUE) {
                return -1;
            }
            n = n.children[index];
        }
        return (int) slot;
    }

    private static int optionIndex(Node variant, String name) {
        for (int i = 0; i < variant.names.length; i++) {
            if (variant.names[i].equals(name) || variant.rawNames[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
