package dev.hetrace.ctf.decode;

/** Navigation in a decoded tape (see {@link Node} for the layout). */
public final class Tape {
    private Tape() {}

    /** Tape slots taken by the field of node {@code n} whose tape starts at {@code at}. */
    public static int span(Node n, long[] t, int at) {
        return switch (n.kind) {
            case Node.INT, Node.BIG_INT, Node.FLOAT, Node.BOOL -> 1;
            case Node.STRING, Node.VARINT, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> 2;
            case Node.STRUCT -> {
                int p = at;
                for (Node c : n.children) {
                    p += span(c, t, p);
                }
                yield p - at;
            }
            case Node.VARIANT -> 1 + span(n.children[n.entryOf((int) t[at])], t, at + 1);
            case Node.OPTIONAL -> t[at] != 0 ? 1 + span(n.element(), t, at + 1) : 1;
            case Node.ARRAY, Node.RUN -> {
                int p = at;
                for (long k = 0; k < n.length; k++) {
                    p += span(n.element(), t, p);
                }
                yield p - at;
            }
            case Node.SEQUENCE -> {
                int p = at + 1;
                long count = t[at];
                for (long k = 0; k < count; k++) {
                    p += span(n.element(), t, p);
                }
                yield p - at;
            }
            case Node.CHAIN -> {
                int before = (int) (n.length * n.chainBeforeSlots);
                Node core = n.element().children[n.chainHole];
                yield before + span(core, t, at + before) + (int) (n.length * n.chainAfterSlots);
            }
            default -> throw new IllegalStateException();
        };
    }

    /** Tape slots of a field of node {@code n} when they do not depend on the data, else -1. */
    public static long fixedSpan(Node n) {
        return switch (n.kind) {
            case Node.INT, Node.BIG_INT, Node.FLOAT, Node.BOOL -> 1;
            case Node.STRING, Node.VARINT, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> 2;
            case Node.STRUCT -> {
                long sum = 0;
                for (Node c : n.children) {
                    long s = fixedSpan(c);
                    if (s < 0) {
                        yield -1;
                    }
                    sum += s;
                }
                yield sum > Integer.MAX_VALUE ? -1 : sum;
            }
            case Node.ARRAY, Node.RUN -> {
                long s = fixedSpan(n.element());
                yield s < 0 || (s > 0 && n.length > Integer.MAX_VALUE / s) ? -1 : s * n.length;
            }
            case Node.CHAIN -> {
                long s = fixedSpan(n.element());
                long perLevel = n.chainBeforeSlots + n.chainAfterSlots;
                yield s < 0 || (perLevel > 0 && n.length > Integer.MAX_VALUE / perLevel)
                        ? -1
                        : s + perLevel * (n.length - 1);
            }
            default -> -1;
        };
    }

    /** Relative slot of member {@code index} of struct {@code s} whose tape starts at {@code at}. */
    public static int relativeSlot(Node s, int index, long[] t, int at) {
        int p = at;
        for (int i = 0; i < index; i++) {
            p += span(s.children[i], t, p);
        }
        return p - at;
    }
}
