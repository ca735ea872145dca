package dev.hetrace.ctf.decode;

/** Navigation in a decoded tape (see {@link Node} for the layout). */
public final class Tape {
    private Tape() {
    }

    /** Tape slots taken by the field of node {@code n} whose tape starts at {@code at}. */
    public static int span(Node n, long[] t, int at) {
        return switch (n.kind) {
            case Node.INT, Node.BIG_INT, Node.FLOAT -> 1;
            case Node.STRING, Node.PACKED_ARRAY, Node.PACKED_SEQUENCE, Node.PACKED_RUN -> 2;
            case Node.STRUCT -> {
                int p = at;
                for (Node c : n.children) {
                    p += span(c, t, p);
                }
                yield p - at;
            }
            case Node.VARIANT -> 1 + span(n.children[n.entryOf((int) t[at])], t, at + 1);
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
            default -> throw new IllegalStateException();
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
