package dev.hetrace.ctf.decode;

/**
 * Decides which fields babeltrace2 shows, so that text output matches it: integers with a
 * special role or mapped to a clock are hidden unless another field depends on them;
 * a struct is shown when it is empty or shows a member; a variant shows all its options if
 * it shows any; an array shows when its element does.
 */
final class Visibility {
    private Visibility() {}

    static void apply(TracePlan plan) {
        hide(plan.packetHeader);
        for (TracePlan.StreamPlan sp : plan.distinctStreams()) {
            compute(sp.packetContext);
            hide(sp.eventHeader);
            compute(sp.eventContext);
            for (TracePlan.EventPlan ep : sp.distinctEvents()) {
                compute(ep.context);
                compute(ep.payload);
            }
        }
    }

    /** Packet and event headers have no place in babeltrace2's output. */
    private static void hide(Node n) {
        if (n != null) {
            n.visible = false;
            for (Node c : n.children) {
                hide(c);
            }
        }
    }

    private static boolean compute(Node n) {
        if (n == null) {
            return false;
        }
        boolean visible = switch (n.kind) {
            case Node.INT, Node.BIG_INT, Node.VARINT -> (n.clock < 0 && n.role == Node.ROLE_NONE) || n.referenced;
            case Node.FLOAT, Node.STRING, Node.BOOL -> true;
            case Node.STRUCT -> {
                boolean any = n.children.length == 0;
                for (Node c : n.children) {
                    any |= compute(c);
                }
                yield any;
            }
            case Node.VARIANT -> {
                boolean any = false;
                for (Node c : n.children) {
                    any |= compute(c);
                }
                if (any) {
                    for (Node c : n.children) {
                        c.visible = true;
                    }
                }
                yield any;
            }
            default -> compute(n.element());
        };
        n.visible = visible;
        return visible;
    }
}
