package dev.hetrace.ctf.decode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;

/**
 * The path of the field where decoding failed, as {@link dev.hetrace.ctf.api.Event} takes paths
 * ({@code "payload.regs[2].value"}, {@code "packet_context.content_size"}): its steps are noted
 * innermost first as the error leaves the walk of the nodes ({@link StreamDecoder}), or found in
 * the plan for a packet field. Used only when decoding fails.
 */
final class ErrorPath {
    /** Member and option names (String) and element indexes (Long), innermost first. */
    private final ArrayList<Object> steps = new ArrayList<>();

    /** Notes that the error is in member, option or element {@code step} of the field around it. */
    void add(Object step) {
        steps.add(step);
    }

    void clear() {
        steps.clear();
    }

    /** The path noted, from the root of scope {@code scope} (as the decoder's errors name scopes); clears it. */
    String take(String scope) {
        StringBuilder path = new StringBuilder(scopePrefix(scope));
        for (int i = steps.size() - 1; i >= 0; i--) {
            Object step = steps.get(i);
            if (step instanceof Long k) {
                path.append('[').append(Long.toUnsignedString(k)).append(']');
            } else {
                path.append('.').append(step);
            }
        }
        steps.clear();
        return path.toString();
    }

    /** The first step of the paths of a scope's fields. */
    static String scopePrefix(String scope) {
        return switch (scope) {
            case "packet header" -> "packet_header";
            case "packet context" -> "packet_context";
            case "event header" -> "header";
            case "stream event context" -> "stream_context";
            case "event context" -> "context";
            default -> "payload";
        };
    }

    /** The shown name of member {@code i} of struct {@code n}. */
    static String member(Node n, int i) {
        return i < n.names.length ? n.names[i] : "?";
    }

    /** The shown name of member {@code k} of a run of struct members. */
    static String runMember(Node run, long k) {
        return new String(run.runDisplayPrefix, StandardCharsets.UTF_8) + (run.runFirst + k);
    }

    /** The shown name of the member of level {@code level} (1 = innermost) of a chain that holds the level below. */
    static String chainHole(Node chain, long level) {
        return new String(chain.runDisplayPrefix, StandardCharsets.UTF_8) + (chain.runFirst + level - 1);
    }

    /**
     * The path of the last field with {@code role} decoded in the scope of root {@code root}
     * (named {@code prefix}) whose tape starts at {@code at}, through the variant options
     * decoded, or null (an event header may hold an event id in its options too).
     */
    static String lastDecodedWithRole(Node root, long[] tape, int at, int role, String prefix) {
        String[] found = {null};
        lastDecoded(root, tape, at, role, new StringBuilder(prefix), found);
        return found[0];
    }

    /** Notes the path of {@code n} if it has {@code role}, then of its fields; returns its tape slots. */
    private static int lastDecoded(Node n, long[] t, int at, int role, StringBuilder path, String[] found) {
        if (n.role == role) {
            found[0] = path.toString();
        }
        int length = path.length();
        int slots = switch (n.kind) {
            case Node.STRUCT -> {
                int p = at;
                for (int i = 0; i < n.children.length; i++) {
                    path.append('.').append(member(n, i));
                    p += lastDecoded(n.children[i], t, p, role, path, found);
                    path.setLength(length);
                }
                yield p - at;
            }
            case Node.VARIANT -> {
                int option = (int) t[at];
                path.append('.').append(n.optionName(option));
                yield 1 + lastDecoded(n.children[n.entryOf(option)], t, at + 1, role, path, found);
            }
            case Node.OPTIONAL -> t[at] != 0 ? 1 + lastDecoded(n.element(), t, at + 1, role, path, found) : 1;
            default -> Tape.span(n, t, at);
        };
        path.setLength(length);
        return slots;
    }

    /** The path from {@code root} (named {@code prefix}) to {@code target} through structs and variants, or null. */
    static String to(Node root, Node target, String prefix) {
        StringBuilder path = new StringBuilder(prefix);
        return root != null && target != null && to(root, target, path) ? path.toString() : null;
    }

    private static boolean to(Node n, Node target, StringBuilder path) {
        if (n == target) {
            return true;
        }
        if (n.kind != Node.STRUCT && n.kind != Node.VARIANT) {
            return false;
        }
        int length = path.length();
        for (int i = 0; i < n.children.length; i++) {
            path.append('.').append(member(n, i));
            if (to(n.children[i], target, path)) {
                return true;
            }
            path.setLength(length);
        }
        return false;
    }
}
