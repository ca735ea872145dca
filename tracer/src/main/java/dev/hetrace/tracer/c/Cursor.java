package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.FieldType;
import dev.hetrace.tracer.config.FieldType.DynamicArrayType;
import dev.hetrace.tracer.config.FieldType.EnumerationType;
import dev.hetrace.tracer.config.FieldType.IntegerType;
import dev.hetrace.tracer.config.FieldType.RealType;
import dev.hetrace.tracer.config.FieldType.StaticArrayType;
import dev.hetrace.tracer.config.FieldType.StringType;
import dev.hetrace.tracer.config.FieldType.StructureType;

/**
 * Emits the C statements that lay fields out from a bit position, doing at generation time
 * whatever the layout allows: the position is a C variable (a bit offset, {@code at}) plus a
 * static offset, and the generator knows the variable is a multiple of some power of two. An
 * alignment that this knowledge settles becomes a constant, and a field at a byte boundary is
 * one store at a constant displacement; only an alignment beyond what is known, or a field
 * whose size depends on its value (string, array), moves the variable at run time.
 *
 * <p>The same walk either writes the fields ({@code buf} holds the packet) or only advances
 * the position (to size an event record), so both always agree.
 */
final class Cursor implements FieldSink {
    /** Known alignment of a variable that holds 0 (a packet's start): every alignment is static. */
    static final int AT_ZERO = 1 << 30;

    private final StringBuilder c;
    private final String ind;
    private final String at;
    private final boolean writing;
    private long off;
    private int known;
    private boolean shortStrings;

    /**
     * @param at      the C variable holding the base bit position (updated by the statements)
     * @param known   a power of two (bits) the variable is known to be a multiple of (1: nothing known)
     * @param writing whether to write the fields or only advance the position
     */
    Cursor(StringBuilder c, String ind, String at, int known, boolean writing) {
        this.c = c;
        this.ind = ind;
        this.at = at;
        this.known = known;
        this.writing = writing;
    }

    /**
     * Copies the strings whose size the caller computed with {@code _short_string_size} (at
     * most 32 bytes) inline with {@code _copy_short} instead of calling memcpy.
     */
    Cursor shortStrings() {
        shortStrings = true;
        return this;
    }

    /** The current bit position as a C expression. */
    String position() {
        return off == 0 ? at : "(" + at + " + " + off + ")";
    }

    /** Whether the current position is known to be at a byte boundary. */
    boolean byteAligned() {
        return known >= 8 && off % 8 == 0;
    }

    /** The address of the current byte ({@link #byteAligned()}) in the C array {@code buf}. */
    String bytePointer(String buf) {
        return "&" + buf + "[_BITS_TO_BYTES(" + at + ")]" + (off == 0 ? "" : " + " + off / 8);
    }

    /** Moves to the next multiple of {@code alignment} bits. */
    @Override
    public void align(int alignment) {
        if (alignment <= 1) {
            return;
        }
        if (alignment <= known) {
            off += -off & (alignment - 1);
            return;
        }
        flush();
        c.append(ind)
                .append("_ALIGN(")
                .append(at)
                .append(", ")
                .append(alignment)
                .append(");\n");
        known = alignment;
    }

    /** Skips {@code size} bits (a field written later), aligned first. */
    void skip(int alignment, int size) {
        align(alignment);
        off += size;
    }

    /** Makes the variable hold the current position. */
    void flush() {
        if (off != 0) {
            c.append(ind).append(at).append(" += ").append(off).append(";\n");
            known = (int) Math.min(known, Long.lowestOneBit(off));
            off = 0;
        }
    }

    /**
     * A field of type {@code ft} from the C expression {@code src}; {@code lenSrc} is the
     * length of a dynamic array (its {@code __NAME_len} parameter), {@code strLen} the byte size
     * of a string with its terminating NUL when the caller computed it (else null).
     */
    @Override
    public void field(FieldType ft, String src, String lenSrc, String strLen) {
        field(ft, src, lenSrc, strLen, 0);
    }

    private void field(FieldType ft, String src, String lenSrc, String strLen, int depth) {
        switch (ft) {
            case IntegerType i -> integer(i.alignment(), i.size(), "(uint64_t) (" + src + ")");
            case EnumerationType e -> integer(e.alignment(), e.integer().size(), "(uint64_t) (" + src + ")");
            case RealType r -> {
                if (!writing) {
                    skip(r.alignment(), r.size());
                    return;
                }
                String u = r.size() == 32 ? "f2u" : "d2u";
                c.append(ind)
                        .append("{\n")
                        .append(ind)
                        .append("\tunion _")
                        .append(u)
                        .append(" u;\n\n")
                        .append(ind)
                        .append("\tu.f = (")
                        .append(r.size() == 32 ? "float" : "double")
                        .append(") (")
                        .append(src)
                        .append(");\n");
                Cursor inner = new Cursor(c, ind + "\t", at, known, true);
                inner.off = off;
                inner.integer(r.alignment(), r.size(), "(uint64_t) u.u");
                c.append(ind).append("}\n");
                off = inner.off;
                known = inner.known;
            }
            case StringType s -> {
                align(8);
                String len = strLen != null ? strLen : "((uint64_t) strlen(" + src + ") + 1)";
                if (writing) {
                    c.append(ind)
                            .append(shortStrings && strLen != null ? "_copy_short(" : "memcpy(")
                            .append(bytePointer("buf"))
                            .append(", ")
                            .append(src)
                            .append(", ")
                            .append(len)
                            .append(");\n");
                }
                flush();
                // sizing adds in 64 bits: a string of 2^29 bytes must not wrap to a small record
                c.append(ind)
                        .append(at)
                        .append(writing ? " += _BYTES_TO_BITS(" : " += _BYTES_TO_BITS((uint64_t) ")
                        .append(len)
                        .append(");\n");
                known = Math.min(known, 8);
            }
            // an array is aligned as its elements even when empty, as CTF readers expect
            case StaticArrayType a -> array(Long.toString(a.length()), a.element(), src, depth);
            case DynamicArrayType a -> array(lenSrc, a.element(), src, depth);
            case StructureType s -> throw new IllegalArgumentException("nested structures are not supported");
        }
    }

    private void integer(int alignment, int size, String value) {
        align(alignment);
        if (writing) {
            if (byteAligned() && (size == 8 || size == 16 || size == 32 || size == 64)) {
                c.append(ind)
                        .append("_write_")
                        .append(size)
                        .append("(")
                        .append(bytePointer("buf"))
                        .append(", ")
                        .append(value)
                        .append(");\n");
            } else {
                c.append(ind)
                        .append("_write_bits(buf, ")
                        .append(position())
                        .append(", ")
                        .append(value)
                        .append(", ")
                        .append(size)
                        .append(");\n");
            }
        }
        off += size;
    }

    private void array(String count, FieldType element, String src, int depth) {
        align(element.alignment());
        int[] fixed = fixedSize(element);
        boolean strided = fixed != null && fixed[0] % fixed[1] == 0;
        if (!writing && strided) {
            // every element after the first stays aligned: one multiplication
            flush();
            c.append(ind)
                    .append(at)
                    .append(" += (uint64_t) (")
                    .append(count)
                    .append(") * ")
                    .append(fixed[0])
                    .append(";\n");
            known = Math.min(known, Integer.lowestOneBit(fixed[0]));
            return;
        }
        if (count.equals("0")) {
            return; // an empty static array: `i < 0` would be a -Wtype-limits error
        }
        flush();
        String i = "i" + depth;
        c.append(ind)
                .append("{\n")
                .append(ind)
                .append("\tuint32_t ")
                .append(i)
                .append(";\n\n")
                .append(ind)
                .append("\tfor (")
                .append(i)
                .append(" = 0; ")
                .append(i)
                .append(" < (uint32_t) (")
                .append(count)
                .append("); ")
                .append(i)
                .append("++) {\n");
        // each iteration starts where the previous ended: known only when the stride keeps the alignment
        int start = strided ? Math.min(known, fixed[1]) : 1;
        Cursor body = new Cursor(c, ind + "\t\t", at, start, writing);
        body.field(element, src + "[" + i + "]", "", null, depth + 1);
        body.flush();
        c.append(ind).append("\t}\n").append(ind).append("}\n");
        known = strided ? Math.min(start, Integer.lowestOneBit(fixed[0])) : 1;
    }

    /** {size, alignment} of a field type whose size does not depend on its value, else null. */
    static int[] fixedSize(FieldType ft) {
        return switch (ft) {
            case IntegerType i -> new int[] {i.size(), i.alignment()};
            case EnumerationType e -> new int[] {e.integer().size(), e.alignment()};
            case RealType r -> new int[] {r.size(), r.alignment()};
            default -> null;
        };
    }
}
