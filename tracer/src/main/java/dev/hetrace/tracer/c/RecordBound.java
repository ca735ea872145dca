package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.FieldType;
import dev.hetrace.tracer.config.FieldType.DynamicArrayType;
import dev.hetrace.tracer.config.FieldType.EnumerationType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.RealType;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;
import java.util.ArrayList;
import java.util.List;

/**
 * What the generator knows of a position while laying fields out: the position is congruent to
 * {@code residue} modulo {@code known} (a power of two, in bits), and the bits from the start are
 * at most a constant plus run-time terms (string sizes, array lengths). Walking an event record
 * from its start gives an upper bound of its size that costs one or two instructions to
 * evaluate (an alignment the walk cannot settle counts as its largest padding), and what is
 * known of the record's end: from that, the alignment every record of a stream starts at.
 *
 * <p>Fields whose size cannot be bounded this way (an array of strings, of elements whose size
 * is not a multiple of their alignment) make the walk {@link #exact() inexact}: the caller then
 * computes the size exactly.
 */
final class RecordBound implements FieldSink {
    private int known;
    private long residue;
    private long bits;
    private final List<String> terms = new ArrayList<>();
    private boolean exact = true;
    private long leastVariable;

    /** A walk from a position that is a multiple of {@code known} bits. */
    RecordBound(int known) {
        this.known = known;
    }

    /** Whether every field could be bounded. */
    boolean exact() {
        return exact;
    }

    /** The power of two the current position is known to be congruent modulo. */
    int known() {
        return known;
    }

    /** Whether the current position is known to be a multiple of {@code alignment}. */
    boolean multipleOf(int alignment) {
        return alignment <= known && residue % alignment == 0;
    }

    /** The bound as a C expression: of type uint64_t when it has an array term, else uint32_t. */
    String expression() {
        StringBuilder sb = new StringBuilder(Long.toString(bits));
        for (String t : terms) {
            sb.append(" + ").append(t);
        }
        return sb.toString();
    }

    /** Whether the bound is a constant: no run-time term, every field bounded. */
    boolean constant() {
        return exact && terms.isEmpty();
    }

    /** Whether the bound's run-time terms are only string sizes (no array length). */
    boolean noArrayTerms() {
        return terms.stream().allMatch(t -> t.startsWith("_BYTES_TO_BITS("));
    }

    /**
     * The bound when every string is empty and every dynamic array has no element (bits): what
     * a packet must have room for to hold this record at all.
     */
    long leastBits() {
        return bits + leastVariable;
    }

    /** The constant part of the bound, in bits. */
    long constantBits() {
        return bits;
    }

    @Override
    public void align(int alignment) {
        if (alignment <= 1) {
            return;
        }
        long pad;
        if (alignment <= known) {
            pad = Math.floorMod(-residue, alignment);
            residue = (residue + pad) % known;
        } else {
            // the largest padding from any position congruent to residue modulo known
            pad = alignment - known + Math.floorMod(-residue, known);
            known = alignment;
            residue = 0;
        }
        bits += pad;
    }

    private void advance(long size) {
        bits += size;
        residue = (residue + size) % known;
    }

    @Override
    public void field(FieldType ft, String src, String lenSrc, String strLen) {
        field(ft, ft instanceof StringType ? strLen : lenSrc);
    }

    /** A field of type {@code ft}; {@code sizeTerm} is the C expression of a string's byte size or an array's length. */
    void field(FieldType ft, String sizeTerm) {
        switch (ft) {
            case IntegerType i -> {
                align(i.alignment());
                advance(i.size());
            }
            case EnumerationType e -> {
                align(e.alignment());
                advance(e.integer().size());
            }
            case RealType r -> {
                align(r.alignment());
                advance(r.size());
            }
            case StringType s -> {
                align(8);
                terms.add("_BYTES_TO_BITS(" + sizeTerm + ")");
                leastVariable += 8;
                variable(8);
            }
            case StaticArrayType a -> {
                int[] fixed = Cursor.fixedSize(a.element());
                align(a.element().alignment());
                if (fixed == null || fixed[0] % fixed[1] != 0) {
                    exact = false;
                    leastVariable += a.length() * leastBits(a.element());
                } else {
                    advance(a.length() * fixed[0]);
                }
            }
            case DynamicArrayType a -> {
                int[] fixed = Cursor.fixedSize(a.element());
                align(a.element().alignment());
                if (fixed == null || fixed[0] % fixed[1] != 0) {
                    exact = false;
                } else {
                    terms.add("(uint64_t) (" + sizeTerm + ") * " + fixed[0]);
                    variable(Integer.lowestOneBit(fixed[0]));
                }
            }
            case StructureType s -> throw new IllegalArgumentException("nested structures are not supported");
        }
    }

    /** The fewest bits a field of type {@code ft} takes, padding left out. */
    private static long leastBits(FieldType ft) {
        return switch (ft) {
            case StringType s -> 8;
            case StaticArrayType a -> a.length() * leastBits(a.element());
            case DynamicArrayType a -> 0;
            case StructureType s -> throw new IllegalArgumentException("nested structures are not supported");
            default -> Cursor.fixedSize(ft)[0];
        };
    }

    /** After a run-time number of bits, a multiple of {@code multiple}. */
    private void variable(int multiple) {
        if (multiple < known) {
            known = multiple;
            residue %= known;
        }
    }
}
