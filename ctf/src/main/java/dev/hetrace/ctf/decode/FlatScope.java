package dev.hetrace.ctf.decode;

import java.util.ArrayList;
import java.util.List;

/**
 * A scope's decode plan as a flat list of steps, for the common scopes made only of structs,
 * integers of up to 64 bits, floats, strings and variants of those (event headers and most
 * payloads): {@link StreamDecoder} runs the steps in a loop instead of walking the node tree,
 * and fills the tape exactly as the walk would. Scopes with arrays, sequences or runs keep
 * the walk. Immutable once built.
 */
final class FlatScope {
    static final int INT = 0;
    static final int FLOAT = 1;
    static final int STRING = 2;
    static final int ALIGN = 3;
    static final int VARIANT = 4;
    static final int JUMP = 5;

    /** Step kinds. */
    final int[] op;
    /** INT, FLOAT: alignment in bits; ALIGN: the alignment; JUMP: target step. */
    final int[] arg;
    /** INT, FLOAT: size in bits. */
    final int[] size;
    final boolean[] bigEndian;
    final boolean[] signed;
    /** INT: the integer is a tag or length, samples a clock or has a role (see {@link Node}). */
    final boolean[] effects;
    final Node[] node;
    /** VARIANT: first step of each option. */
    final int[][] optionStep;
    /** Most tape slots one pass can append. */
    final int maxSlots;

    private FlatScope(List<Step> steps, int maxSlots) {
        int n = steps.size();
        op = new int[n];
        arg = new int[n];
        size = new int[n];
        bigEndian = new boolean[n];
        signed = new boolean[n];
        effects = new boolean[n];
        node = new Node[n];
        optionStep = new int[n][];
        for (int i = 0; i < n; i++) {
            Step s = steps.get(i);
            op[i] = s.op;
            arg[i] = s.arg;
            node[i] = s.node;
            optionStep[i] = s.options;
            if (s.node != null && (s.op == INT || s.op == FLOAT)) {
                size[i] = s.node.size;
                bigEndian[i] = s.node.bigEndian;
                signed[i] = s.node.signed;
                effects[i] = s.op == INT && (s.node.register >= 0 || s.node.clock >= 0 || s.node.role != Node.ROLE_NONE);
            }
        }
        this.maxSlots = maxSlots;
    }

    private static final class Step {
        final int op;
        int arg;
        final Node node;
        int[] options;

        Step(int op, int arg, Node node) {
            this.op = op;
            this.arg = arg;
            this.node = node;
        }
    }

    /** The flat plan of a scope, or null when the scope holds something only the tree walk decodes. */
    static FlatScope of(Node root) {
        List<Step> steps = new ArrayList<>();
        int[] slots = {0};
        if (!emit(root, steps, slots, 0)) {
            return null;
        }
        return new FlatScope(steps, slots[0]);
    }

    private static boolean emit(Node n, List<Step> steps, int[] slots, int depth) {
        if (depth > 64 || steps.size() > 4096) {
            return false;
        }
        switch (n.kind) {
            case Node.INT -> {
                steps.add(new Step(INT, n.align, n));
                slots[0]++;
                return true;
            }
            case Node.FLOAT -> {
                steps.add(new Step(FLOAT, n.align, n));
                slots[0]++;
                return true;
            }
            case Node.STRING -> {
                steps.add(new Step(STRING, 8, n));
                slots[0] += 2;
                return true;
            }
            case Node.STRUCT -> {
                if (n.align > 1) {
                    steps.add(new Step(ALIGN, n.align, n));
                }
                for (Node c : n.children) {
                    if (!emit(c, steps, slots, depth + 1)) {
                        return false;
                    }
                }
                return true;
            }
            case Node.VARIANT -> {
                if (n.entryStart != null) {
                    return false; // runs of options: the walk handles them
                }
                Step v = new Step(VARIANT, 0, n);
                steps.add(v);
                slots[0]++;
                int before = slots[0];
                int most = 0;
                v.options = new int[n.children.length];
                List<Step> jumps = new ArrayList<>();
                for (int o = 0; o < n.children.length; o++) {
                    v.options[o] = steps.size();
                    slots[0] = before;
                    if (!emit(n.children[o], steps, slots, depth + 1)) {
                        return false;
                    }
                    most = Math.max(most, slots[0] - before);
                    Step jump = new Step(JUMP, 0, null);
                    steps.add(jump);
                    jumps.add(jump);
                }
                for (Step j : jumps) {
                    j.arg = steps.size();
                }
                slots[0] = before + most;
                return true;
            }
            default -> {
                return false;
            }
        }
    }
}
