package dev.hetrace.ctf.decode;

import dev.hetrace.ctf.metadata.FieldType;

/**
 * One field of a compiled decode plan: a {@link FieldType} at one place of one scope, with
 * its references (variant tag, sequence length) resolved to value registers. Decoding walks
 * these nodes and appends values to a tape of longs:
 * <ul>
 *   <li>INT, FLOAT: one slot (the value, or the raw IEEE bits)</li>
 *   <li>BIG_INT (more than 64 bits): one slot, the bit position of the value</li>
 *   <li>STRING: two slots, byte position and byte length (without the NUL)</li>
 *   <li>STRUCT: no slot, its members follow</li>
 *   <li>VARIANT: one slot, the selected option index, then that option</li>
 *   <li>OPTIONAL: one slot, 1 when its content is there (then its content) or 0</li>
 *   <li>ARRAY: its elements; SEQUENCE: one slot (the length), then its elements</li>
 *   <li>PACKED_ARRAY, PACKED_SEQUENCE (elements are fixed-size scalars with no padding
 *       between them): two slots, bit position of the first element and the count; elements
 *       are read from the buffer when asked for, so a huge array costs nothing</li>
 *   <li>RUN, PACKED_RUN: a run of struct members of one type named {@code prefix + counter},
 *       laid out as ARRAY and PACKED_ARRAY are</li>
 *   <li>CHAIN: {@link #length} structs nested in one another, each with the same members but
 *       one, the next struct down, named {@code prefix + counter} (see
 *       {@link dev.hetrace.ctf.metadata.StructChain}); its child is the struct of the innermost
 *       level, whose member {@link #chainHole} is the core. Laid out as the nested structs
 *       are: the members before the hole of every level (outermost first), the core, then
 *       the members after the hole of every level (innermost first)</li>
 * </ul>
 */
public final class Node {
    public static final int INT = 0;
    public static final int BIG_INT = 1;
    public static final int FLOAT = 2;
    public static final int STRING = 3;
    public static final int STRUCT = 4;
    public static final int VARIANT = 5;
    public static final int ARRAY = 6;
    public static final int SEQUENCE = 7;
    public static final int PACKED_ARRAY = 8;
    public static final int PACKED_SEQUENCE = 9;
    /** Consecutive struct members of one type named prefix + counter, decoded one by one (like ARRAY). */
    public static final int RUN = 10;
    /** Such members when they are fixed-size scalars without padding: two slots (like PACKED_ARRAY). */
    public static final int PACKED_RUN = 11;
    /** Nested structs of one shape whose nesting members are named prefix + counter (see the class comment). */
    public static final int CHAIN = 12;
    /** A CTF 2 variable-length (LEB128) integer; two tape slots: its value and its length in bits. */
    public static final int VARINT = 13;
    /** A CTF 2 fixed-length boolean; one tape slot: its bits (false when zero). */
    public static final int BOOL = 14;
    /** A CTF 2 optional: one tape slot (1 when its content, its only child, is there), then its content if so. */
    public static final int OPTIONAL = 20;

    /** Special roles babeltrace2 gives some fields; such fields are not shown in the text output. */
    public static final int ROLE_NONE = 0;

    public static final int ROLE_MAGIC = 1;
    public static final int ROLE_UUID = 2;
    public static final int ROLE_STREAM_ID = 3;
    public static final int ROLE_STREAM_INSTANCE_ID = 4;
    public static final int ROLE_TIMESTAMP_BEGIN = 5;
    public static final int ROLE_TIMESTAMP_END = 6;
    public static final int ROLE_EVENTS_DISCARDED = 7;
    public static final int ROLE_PACKET_SIZE = 8;
    public static final int ROLE_CONTENT_SIZE = 9;
    public static final int ROLE_PACKET_SEQ_NUM = 10;
    public static final int ROLE_EVENT_ID = 11;
    static final int ROLE_COUNT = 12;

    public final int kind;
    /**
     * Where CTF 2 metadata defines this field's class, as its errors name a place ({@code
     * fragment 3 (event record class "e"): $.payload-field-class.member-classes[1].field-class}),
     * for the decoder's errors to name it too; null for CTF 1.8.
     */
    public String place;
    /** The struct member this node was compiled from, to resolve paths by identity. */
    FieldType.Member source;

    public final FieldType type;
    /** Alignment in bits. */
    public final int align;
    /** Size in bits of INT, BIG_INT and FLOAT nodes (and of packed elements). */
    public int size;

    public boolean signed;
    public boolean bigEndian;
    /** Members of a struct, options of a variant, or the single element node of an array. */
    public Node[] children = new Node[0];
    /** Names as written in TSDL (used to resolve paths and select variant options). */
    public String[] rawNames = new String[0];
    /** Names as shown: one leading underscore removed, as the CTF specification asks. */
    public String[] names = new String[0];
    /** {@link #names} in UTF-8, followed by " = ", ready to print. */
    public byte[][] nameEquals = new byte[0][];
    /** Fixed array length. */
    public long length;
    /** Register written when this integer is decoded (it is a tag or a length), or -1. */
    public int register = -1;
    /** Register holding the length of a sequence or the tag of a variant. */
    public int sourceRegister = -1;
    /** For a variant: which option a tag value selects. */
    VariantSelector selector;

    public boolean tagSigned;
    /**
     * For a variant whose options include runs: index of the first option of each child (one
     * child per single option or run of options), else null (one child per option).
     */
    public int[] entryStart;
    /** For a variant child that is a run of options: the raw name prefix and first counter; else null. */
    public String[] runPrefixes;

    public long[] runFirsts;
    /** For an enumeration: its labels, by value. */
    public EnumTable enumTable;
    /**
     * For RUN and PACKED_RUN: the raw name prefix of the members, its shown form in UTF-8, the
     * first counter. For CHAIN: those of the hole members (the first counter is the innermost's).
     */
    public String runPrefix;

    public byte[] runDisplayPrefix;
    public long runFirst;
    /** For CHAIN: index of the member of each level that holds the next level down (the core at level 1). */
    public int chainHole;
    /** For CHAIN: tape slots of the members before, and after, the hole of one level. */
    public int chainBeforeSlots;

    public int chainAfterSlots;
    /**
     * For an optional with an integer selector: the ranges {@code [lo0, hi0, lo1, hi1, ...]}
     * of selector values that enable its content; null for a boolean selector.
     */
    public long[] optionalRanges;
    /** For a packed array or sequence of bytes: a CTF 2 BLOB, shown as bytes rather than as an array. */
    public boolean blob;
    /** For a BLOB: its IANA media type. */
    public String mediaType;
    /**
     * For a node whose length or selector field is located through variants or optionals
     * (CTF 2): the checks, made before reading that field's register, that the variants and
     * optionals on the way were decoded with an option leading to it. Check {@code i} reads
     * the register of variant or optional {@code guardRegisters[i]} (the child index it
     * decoded; 1 or 0 for an optional) and applies only when check {@code guardParents[i]}
     * (or none, -1) applied and its value was {@code guardParentValues[i]}; the value must be
     * one of {@code guardAllowed[i]}.
     */
    public int[] guardRegisters;

    public boolean[][] guardAllowed;
    public int[] guardParents;
    public int[] guardParentValues;
    /** Integer display base (2, 8, 10, 16). */
    public int base = 10;
    /** An array or sequence of bytes meant as text (8-bit integers with an encoding): shown as a string. */
    public boolean text;
    /**
     * Encoding of the text of a STRING node or of a text array or sequence: UTF-8 but where CTF 2
     * says UTF-16 or UTF-32 (lengths and positions stay in bytes).
     */
    public FieldType.Encoding charset = FieldType.Encoding.UTF8;
    /**
     * For a CTF 2 bit map (an INT node): its flag names, in metadata order, and for each the
     * mask of its bits in the value; null for any other node.
     */
    public String[] flagNames;

    public long[] flagMasks;
    /** Index of the clock this integer samples, or -1. */
    public int clock = -1;

    public int role = ROLE_NONE;
    /** Whether babeltrace2 would show this field; computed once the plan is complete. */
    public boolean visible = true;
    /** Some later field refers to this one (tag or length), which keeps it visible. */
    public boolean referenced;
    /** Lower bound of the encoded size in bits, to reject absurd lengths before looping. */
    public long minBits;
    /** For a scope's root: its flat plan, once looked for (null if the scope needs the tree walk). */
    FlatScope flat;

    boolean flatChecked;
    /** ... and its compiled form (null if not compiled). */
    FlatCode.Decoder code;

    boolean codeChecked;
    /** Times this scope root was decoded before being compiled (racy: a hint only). */
    int uses;

    Node(int kind, FieldType type, int align) {
        this.kind = kind;
        this.type = type;
        this.align = align;
    }

    public Node element() {
        return children[0];
    }

    /** Index of the member with this TSDL name, or -1. */
    public int memberIndex(String rawName) {
        for (int i = 0; i < rawNames.length; i++) {
            if (rawNames[i].equals(rawName) && children[i].kind != RUN && children[i].kind != PACKED_RUN) {
                return i;
            }
        }
        return -1;
    }

    /** Whether a member with this TSDL name is inside a run of members of this struct. */
    public boolean inRun(String rawName) {
        return runMember(rawName) >= 0;
    }

    /**
     * Where a member of a run of members of this struct ({@code arg0, arg1}: one RUN or
     * PACKED_RUN child) is: the child's index × 2^32 + the member's index in the run, or −1 when
     * no run holds a member of this TSDL name (or shown name).
     */
    public long runMember(String name) {
        for (int i = 0; i < children.length; i++) {
            Node c = children[i];
            if (c.kind != RUN && c.kind != PACKED_RUN) {
                continue;
            }
            for (String prefix : new String[] {c.runPrefix, TracePlan.displayName(c.runPrefix)}) {
                if (!name.startsWith(prefix)) {
                    continue;
                }
                String digits = name.substring(prefix.length());
                if (!digits.isEmpty()
                        && digits.length() <= 18
                        && digits.chars().allMatch(d -> d >= '0' && d <= '9')
                        && (digits.length() == 1 || digits.charAt(0) != '0')) {
                    long k = Long.parseLong(digits) - c.runFirst;
                    if (k >= 0 && k < c.length) {
                        return ((long) i << 32) | k;
                    }
                }
            }
        }
        return -1;
    }

    /** Index of the member with this shown name (or TSDL name), or -1. */
    public int memberIndexByName(String name) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return memberIndex(name);
    }

    /** Whether {@code v} lies in one of the inclusive ranges {@code [lo0, hi0, lo1, hi1, ...]}. */
    public static boolean inRanges(long[] ranges, long v, boolean signed) {
        for (int k = 0; k < ranges.length; k += 2) {
            boolean in = signed
                    ? ranges[k] <= v && v <= ranges[k + 1]
                    : Long.compareUnsigned(ranges[k], v) <= 0 && Long.compareUnsigned(v, ranges[k + 1]) <= 0;
            if (in) {
                return true;
            }
        }
        return false;
    }

    /** For an optional: whether selector value {@code v} enables its content. */
    public boolean optionalEnabled(long v) {
        return optionalRanges == null ? v != 0 : inRanges(optionalRanges, v, tagSigned);
    }

    /**
     * For a node with {@link #guardRegisters}: whether the registers say its length or selector
     * field was decoded in the current option of every variant and optional on its way.
     */
    public boolean guardsHold(long[] regs) {
        long applied = 0;
        for (int i = 0; i < guardRegisters.length; i++) {
            int parent = guardParents[i];
            boolean reached = parent < 0
                    || (((applied >>> parent) & 1) != 0 && regs[guardRegisters[parent]] == guardParentValues[i]);
            if (!reached) {
                continue; // in an option or content not decoded: its register says nothing
            }
            long v = regs[guardRegisters[i]];
            if (v < 0 || v >= guardAllowed[i].length || !guardAllowed[i][(int) v]) {
                return false;
            }
            applied |= 1L << i;
        }
        return true;
    }

    public boolean isPacked() {
        return kind == PACKED_ARRAY || kind == PACKED_SEQUENCE || kind == PACKED_RUN;
    }

    /** For a variant: the child that decodes option {@code option}. */
    public int entryOf(int option) {
        if (entryStart == null) {
            return option;
        }
        int lo = 0;
        int hi = entryStart.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (entryStart[mid] <= option) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** For a variant: the option a tag value selects, or -1. */
    public int selectOption(long tag) {
        return selector.select(tag);
    }

    /** For a variant: the name of option {@code option} as written in TSDL. */
    public String rawOptionName(int option) {
        int e = entryOf(option);
        if (runPrefixes == null || runPrefixes[e] == null) {
            return rawNames[e];
        }
        return runPrefixes[e] + (runFirsts[e] + option - entryStart[e]);
    }

    /** For CHAIN: the TSDL name of the hole of level {@code k} (1 = innermost). */
    public String chainHoleName(long k) {
        return runPrefix + (runFirst + k - 1);
    }

    /** For RUN and PACKED_RUN: the TSDL name of member {@code k} of the run. */
    public String runMemberName(long k) {
        return runPrefix + (runFirst + k);
    }

    /** For a variant: the shown name of option {@code option}. */
    public String optionName(int option) {
        int e = entryOf(option);
        if (runPrefixes == null || runPrefixes[e] == null) {
            return names[e];
        }
        String p = runPrefixes[e];
        return TracePlan.displayName(p) + (runFirsts[e] + option - entryStart[e]);
    }

    /** Number of tape slots a scalar occupies (0 for compound nodes). */
    public int scalarSlots() {
        return switch (kind) {
            case INT, BIG_INT, FLOAT -> 1;
            case STRING, PACKED_ARRAY, PACKED_SEQUENCE, PACKED_RUN -> 2;
            default -> 0;
        };
    }
}
