package dev.hetrace.ctf.metadata;

import dev.hetrace.ctf.metadata.FieldType.Member;
import dev.hetrace.ctf.metadata.FieldType.StructType;
import dev.hetrace.ctf.metadata.FieldType.VariantType;
import java.util.AbstractList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The members of one level of a chain of nested structs, stored in constant space however deep
 * the chain is. A chain of {@code levels} levels over a {@code core} type is
 * <pre>
 *   L0 = core
 *   Lk = struct { before...; Lk-1 prefix(first + k - 1); after...; } align(minAlignment)   for k = 1 .. levels
 * </pre>
 * ({@code struct { struct { ... struct { uint8_t field; } s_depth_0; ... } s_depth_N-2; } s_depth_N-1}:
 * one chain of N levels). The struct of level {@code levels} has these members; the member
 * that holds the next level down (the "hole", at index {@link #holeIndex()}) is made on
 * demand, as a struct whose members are the same chain one level shorter. The other members
 * ({@code before}, {@code after}) are the same at every level.
 */
public final class StructChain extends AbstractList<Member> implements RandomAccess {
    private final FieldType core;
    private final List<Member> before;
    private final List<Member> after;
    private final String prefix;
    private final long first;
    private final long levels;
    private final int minAlignment;
    private int alignment = -1;

    /**
     * @param levels at least 1; the hole of level {@code k} is named {@code prefix + (first + k - 1)}
     */
    public StructChain(
            FieldType core,
            List<Member> before,
            List<Member> after,
            String prefix,
            long first,
            long levels,
            int minAlignment) {
        if (levels < 1 || first < 0 || first + levels < 0) {
            throw new IllegalArgumentException("bad chain: " + levels + " levels from counter " + first);
        }
        this.core = Objects.requireNonNull(core);
        this.before = List.copyOf(before);
        this.after = List.copyOf(after);
        this.prefix = Objects.requireNonNull(prefix);
        this.first = first;
        this.levels = levels;
        this.minAlignment = minAlignment;
    }

    public FieldType core() {
        return core;
    }

    /** Members before the hole, the same at every level. */
    public List<Member> before() {
        return before;
    }

    /** Members after the hole, the same at every level. */
    public List<Member> after() {
        return after;
    }

    public String prefix() {
        return prefix;
    }

    /** Counter in the name of the innermost hole (the member of level 1 that holds the core). */
    public long first() {
        return first;
    }

    /** Number of levels (nested structs) above the core. */
    public long levels() {
        return levels;
    }

    public int minAlignment() {
        return minAlignment;
    }

    /** Index of the member holding the next level down. */
    public int holeIndex() {
        return before.size();
    }

    /** Name of the hole of level {@code k} (1 to {@link #levels()}). */
    public String holeName(long k) {
        return prefix + (first + k - 1);
    }

    /** The struct of level {@code k} (1 to {@link #levels()}) of this chain. */
    public StructType level(long k) {
        if (k < 1 || k > levels) {
            throw new IndexOutOfBoundsException("level " + k + " of " + levels);
        }
        return new StructType(k == levels ? this : new StructChain(this, k), minAlignment);
    }

    private StructChain(StructChain c, long levels) {
        this.core = c.core;
        this.before = c.before;
        this.after = c.after;
        this.prefix = c.prefix;
        this.first = c.first;
        this.levels = levels;
        this.minAlignment = c.minAlignment;
        this.alignment = c.alignment;
    }

    /** This chain with one more level on top (its hole named {@code prefix + (first + levels)}). */
    public StructChain extended() {
        return new StructChain(this, levels + 1);
    }

    @Override
    public int size() {
        return before.size() + 1 + after.size();
    }

    @Override
    public Member get(int index) {
        int h = before.size();
        if (index < h) {
            return before.get(index);
        }
        if (index == h) {
            return new Member(holeName(levels), levels == 1 ? core : level(levels - 1));
        }
        return after.get(index - h - 1);
    }

    /** Alignment of every level: the largest of the minimum, the members' and the core's (as a struct computes it). */
    public int levelAlignment() {
        if (alignment < 0) {
            int a = Math.max(1, minAlignment);
            for (Member m : before) {
                a = m.type() instanceof VariantType ? a : Math.max(a, m.type().alignment());
            }
            for (Member m : after) {
                a = m.type() instanceof VariantType ? a : Math.max(a, m.type().alignment());
            }
            alignment = core instanceof VariantType ? a : Math.max(a, core.alignment());
        }
        return alignment;
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (o instanceof StructChain c) {
            return levels == c.levels
                    && first == c.first
                    && minAlignment == c.minAlignment
                    && prefix.equals(c.prefix)
                    && before.equals(c.before)
                    && after.equals(c.after)
                    && core.equals(c.core);
        }
        return false;
    }

    @Override
    public int hashCode() {
        return Objects.hash(core, before, after, prefix, first, levels, minAlignment);
    }

    @Override
    public String toString() {
        return "[chain of " + levels + " nested structs: " + before + " + " + prefix + "N (N = " + first + " inside .. "
                + (first + levels - 1) + " outside) + " + after + ", over " + core + "]";
    }

    /**
     * The struct these members make, as a chain when they extend one: {@code members} (with
     * {@code minAlignment}) is returned as a level of a chain when one of them, named by a
     * prefix and counter, is a struct of the same shape whose counterpart is named by the
     * counter one less. Members that a reference named ({@code pinned}) prevent it.
     */
    static StructType struct(MemberList members, int minAlignment) {
        int n = members.size();
        if (n == 0 || n > Types.MAX_MEMBERS || members.hasPinned() || members.entryCount() != n) {
            return new StructType(members, minAlignment);
        }
        for (int h = 0; h < n; h++) {
            Member m = members.get(h);
            if (!(m.type() instanceof StructType inner) || inner.minAlignment() != minAlignment) {
                continue;
            }
            CountedName c = CountedName.of(m.name());
            if (c == null || c.number() == 0) {
                continue;
            }
            if (inner.members() instanceof StructChain chain) {
                if (chain.holeIndex() == h
                        && chain.size() == n
                        && chain.prefix.equals(c.prefix())
                        && chain.first + chain.levels == c.number()
                        && sameExcept(members, chain, h)) {
                    return new StructType(chain.extended(), minAlignment);
                }
                continue;
            }
            List<Member> im = inner.members();
            if (im.size() != n) {
                continue;
            }
            Member hole = im.get(h);
            if (!hole.name().equals(c.prefix() + (c.number() - 1))
                    || !sameExcept(members, im, h)
                    || (im instanceof MemberList ml && ml.hasPinned())) {
                continue;
            }
            return new StructType(
                    new StructChain(
                            hole.type(),
                            members.subList(0, h),
                            members.subList(h + 1, n),
                            c.prefix(),
                            c.number() - 1,
                            2,
                            minAlignment),
                    minAlignment);
        }
        return new StructType(members, minAlignment);
    }

    private static boolean sameExcept(List<Member> a, List<Member> b, int h) {
        for (int i = 0; i < a.size(); i++) {
            if (i == h) {
                continue;
            }
            Member x = a.get(i);
            Member y = b.get(i);
            if (!x.name().equals(y.name()) || !Types.sameType(x.type(), y.type(), 1)) {
                return false;
            }
        }
        return true;
    }
}
