package dev.hetrace.tracer.config;

import java.math.BigInteger;
import java.util.List;

/**
 * A field type of a barectf configuration, as barectf's model has them (after aliases,
 * inheritance and defaults): the shapes a generated tracer can write.
 */
public sealed interface FieldType
        permits FieldType.IntegerType,
                FieldType.EnumerationType,
                FieldType.RealType,
                FieldType.StringType,
                FieldType.StaticArrayType,
                FieldType.DynamicArrayType,
                FieldType.StructureType {

    /** Alignment in bits of the field's first bit. */
    int alignment();

    /** Preferred display base of an integer. */
    enum DisplayBase {
        BINARY(2),
        OCTAL(8),
        DECIMAL(10),
        HEXADECIMAL(16);

        public final int radix;

        DisplayBase(int radix) {
            this.radix = radix;
        }
    }

    /** An integer of 1 to 64 bits; byte order is always the trace's native one. */
    record IntegerType(boolean signed, int size, int alignment, DisplayBase displayBase) implements FieldType {
        /** barectf's default alignment: 8 when the size is a multiple of 8, else 1. */
        public static IntegerType unsigned(int size) {
            return new IntegerType(false, size, size % 8 == 0 ? 8 : 1, DisplayBase.DECIMAL);
        }
    }

    /** A range of values an enumeration label maps, inclusive. */
    record Range(BigInteger lower, BigInteger upper) {}

    /** An enumeration label and its ranges (a set in barectf: no duplicates, order not meaningful). */
    record Mapping(String label, List<Range> ranges) {
        public Mapping {
            ranges = List.copyOf(ranges);
        }
    }

    /** An integer whose values carry labels. */
    record EnumerationType(IntegerType integer, List<Mapping> mappings) implements FieldType {
        public EnumerationType {
            mappings = List.copyOf(mappings);
        }

        @Override
        public int alignment() {
            return integer.alignment();
        }
    }

    /** An IEEE 754 binary32 or binary64 number. */
    record RealType(int size, int alignment) implements FieldType {}

    /** A null-terminated string. */
    record StringType() implements FieldType {
        @Override
        public int alignment() {
            return 8;
        }
    }

    /** An array of {@code length} elements. */
    record StaticArrayType(long length, FieldType element) implements FieldType {
        @Override
        public int alignment() {
            return element.alignment();
        }
    }

    /**
     * An array whose length is the preceding member {@code __NAME_len} (a 32-bit unsigned
     * integer barectf adds to the structure before the array member NAME).
     */
    record DynamicArrayType(FieldType element) implements FieldType {
        @Override
        public int alignment() {
            return element.alignment();
        }
    }

    /** A member of a structure. */
    record Member(String name, FieldType type) {}

    /** A structure; its alignment is the largest of its minimum alignment and its members'. */
    record StructureType(int minimumAlignment, List<Member> members) implements FieldType {
        public StructureType {
            members = List.copyOf(members);
        }

        @Override
        public int alignment() {
            int a = minimumAlignment;
            for (Member m : members) {
                a = Math.max(a, m.type().alignment());
            }
            return a;
        }
    }
}
