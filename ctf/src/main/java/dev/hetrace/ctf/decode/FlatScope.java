package dev.hetrace.ctf.decode;

import java.util.ArrayList;
import java.util.List;

/**
 * A scope's decode plan as a flat list of steps, for the common scopes made only of structs,
 * integers of up to 64 bits, floats, strings and variants of those (event headers and most
 * payloads), which {@link FlatCode} compiles into straight-line code that fills the tape
 * exactly as {@link StreamDecoder}'s walk of the node tree would. Scopes with arrays,
 * sequences or runs keep the walk. Immutable once built.
 */
final class FlatScope {
    static final int INT = 0;
    static final int FLOAT = 1;
    static final int STRING = 2;
    static final int ALIGN = 3;
    static final int VARIANT = 4;
    static final int JUMP = 5;
    /**
     * Consecutive whole-byte integers and floats without side effects, at fixed offsets from a
     * byte boundary: one bounds check, then one read each ({@link #blockOffset}, {@link #blockRead}).
     */
    static final int BLOCK = 6;

    /** Readers of block fields: unsigned, signed, or float, by byte width and byte order. */
    static final int U8 = 0;

    static final int S8 = 1;
    static final int U16 = 2;
    static final int S16 = 3;
    static final int U32 = 4;
    static final int S32 = 5;
    static final int X64 = 6;
    static final int BE = 8;
    /** Marks a floating point field among a block's readers (read like an unsigned integer of its size). */
    static final int REAL = 16;

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
    /** BLOCK: byte offset and reader of each field, and the block's size in bits. */
    final int[][] blockOffset;

    final int[][] blockRead;
    final int[] blockBits;
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
        blockOffset = new int[n][];
        blockRead = new int[n][];
        blockBits = new int[n];
        for (int i = 0; i < n; i++) {
            Step s = steps.get(i);
            op[i] = s.op;
            arg[i] = s.arg;
            node[i] = s.node;
            optionStep[i] = s.options;
            if (s.op == BLOCK) {
                blockOffset[i] = s.offsets.stream().mapToInt(Integer::intValue).toArray();
                blockRead[i] = s.reads.stream().mapToInt(Integer::intValue).toArray();
                blockBits[i] = s.bits;
            }
            if (s.node != null && (s.op == INT || s.op == FLOAT)) {
                size[i] = s.node.size;
                bigEndian[i] = s.node.bigEndian;
                signed[i] = s.node.signed;
                effects[i] =
                        s.op == INT && (s.node.register >= 0 || s.node.clock >= 0 || s.node.role != Node.ROLE_NONE);
            }
        }
        this.maxSlots = maxSlots;
    }

    private static final class Step {
        final int op;
        int arg;
        final Node node;
        int[] options;
        List<Integer> offsets;
        List<Integer> reads;
        int bits;

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
        return new FlatScope(blocks(steps), slots[0]);
    }

    /** Whole-byte field that a block can read: 8 to 64 bits aligned on bytes, no tag, length, clock or role. */
    private static int reader(Step s) {
        if ((s.op != INT && s.op != FLOAT) || s.arg != 8) {
            return -1;
        }
        Node n = s.node;
        if (s.op == INT && (n.register >= 0 || n.clock >= 0 || n.role != Node.ROLE_NONE)) {
            return -1;
        }
        boolean sign = s.op == INT && n.signed;
        int r = switch (n.size) {
            case 8 -> sign ? S8 : U8;
            case 16 -> sign ? S16 : U16;
            case 32 -> sign ? S32 : U32;
            case 64 -> X64;
            default -> -1;
        };
        return r < 0 ? -1 : r | (n.bigEndian && n.size > 8 ? BE : 0) | (s.op == FLOAT ? REAL : 0);
    }

    /**
     * Groups runs of at least two block-readable fields (whose alignment is at most a byte, so
     * that from a byte boundary their offsets are fixed) into BLOCK steps. Jump targets move
     * with the steps.
     */
    private static List<Step> blocks(List<Step> steps) {
        List<Step> out = new ArrayList<>();
        int[] newIndex = new int[steps.size() + 1];
        int i = 0;
        while (i < steps.size()) {
            int j = i;
            while (j < steps.size() && reader(steps.get(j)) >= 0 && !isJumpTarget(steps, j, i)) {
                j++;
            }
            if (j - i >= 2) {
                Step b = new Step(BLOCK, 8, null);
                b.offsets = new ArrayList<>();
                b.reads = new ArrayList<>();
                int bits = 0;
                for (int k = i; k < j; k++) {
                    b.offsets.add(bits / 8);
                    b.reads.add(reader(steps.get(k)));
                    bits += steps.get(k).node.size;
                    newIndex[k] = out.size();
                }
                b.bits = bits;
                out.add(b);
                i = j;
            } else {
                newIndex[i] = out.size();
                out.add(steps.get(i));
                i++;
            }
        }
        newIndex[steps.size()] = out.size();
        for (Step s : out) {
            if (s.op == JUMP) {
                s.arg = newIndex[s.arg];
            } else if (s.op == VARIANT) {
                for (int o = 0; o < s.options.length; o++) {
                    s.options[o] = newIndex[s.options[o]];
                }
            }
        }
        return out;
    }

    /** Whether step {@code j} (after {@code start}) is where a variant option begins or a jump lands. */
    private static boolean isJumpTarget(List<Step> steps, int j, int start) {
        if (j == start) {
            return false;
        }
        for (Step s : steps) {
            if (s.op == JUMP && s.arg == j) {
                return true;
            }
            if (s.op == VARIANT) {
                for (int o : s.options) {
                    if (o == j) {
                        return true;
                    }
                }
            }
        }
        return false;
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
                if (n.charset.unitBytes() > 1) {
                    return false; // UTF-16 and UTF-32 strings end with a wider NUL: the walk reads them
                }
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
                if (n.entryStart != null || n.register >= 0 || n.guardRegisters != null) {
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
