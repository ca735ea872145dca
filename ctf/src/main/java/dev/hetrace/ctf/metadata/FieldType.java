package dev.hetrace.ctf.metadata;

import java.util.List;
import java.util.Set;

/**
 * A field type, as declared in CTF 1.8 TSDL or CTF 2 JSON metadata. Immutable; a type may be shared by several
 * fields (typealias, typedef, named structs). Byte orders are already resolved: no type
 * in a parsed trace says "native".
 */
public sealed interface FieldType
        permits FieldType.IntegerType,
                FieldType.FloatType,
                FieldType.StringType,
                FieldType.EnumType,
                FieldType.StructType,
                FieldType.VariantType,
                FieldType.ArrayType,
                FieldType.SequenceType,
                FieldType.VarIntType,
                FieldType.BoolType,
                FieldType.BitArrayType,
                FieldType.OptionalType,
                FieldType.BlobType {

    /** Alignment of the field in bits (a power of two). Variants align on their selected option. */
    int alignment();

    /** Character encoding of strings and of integers meant to be printed as text. */
    enum Encoding {
        NONE,
        UTF8,
        ASCII,
        UTF16BE,
        UTF16LE,
        UTF32BE,
        UTF32LE;

        /** Bytes per code unit: 1 for UTF-8 (and ASCII), 2 for UTF-16, 4 for UTF-32. */
        public int unitBytes() {
            return switch (this) {
                case UTF16BE, UTF16LE -> 2;
                case UTF32BE, UTF32LE -> 4;
                default -> 1;
            };
        }

        /** Whether code units are big-endian (UTF-16BE, UTF-32BE). */
        public boolean bigEndian() {
            return this == UTF16BE || this == UTF32BE;
        }
    }

    /**
     * A fixed-size integer, 1 to 64 bits, at any alignment.
     *
     * @param base         display base: 2, 8, 10 or 16
     * @param mappedClock  name of the clock this integer samples ({@code map = clock.NAME.value}), or null
     * @param roles        what the field means to the decoder, as CTF 2 metadata says (empty for CTF 1.8)
     */
    record IntegerType(
            int size,
            int alignment,
            boolean signed,
            ByteOrder byteOrder,
            int base,
            Encoding encoding,
            String mappedClock,
            Set<Role> roles)
            implements FieldType {
        public IntegerType {
            roles = Set.copyOf(roles);
        }

        public IntegerType(
                int size,
                int alignment,
                boolean signed,
                ByteOrder byteOrder,
                int base,
                Encoding encoding,
                String mappedClock) {
            this(size, alignment, signed, byteOrder, base, encoding, mappedClock, Set.of());
        }

        public IntegerType withByteOrder(ByteOrder order) {
            return new IntegerType(size, alignment, signed, order, base, encoding, mappedClock, roles);
        }
    }

    /**
     * A CTF 2 variable-length integer: unsigned or signed LEB128, whole bytes, byte-aligned.
     *
     * @param base     preferred display base: 2, 8, 10 or 16
     * @param mappings labels of ranges of values (empty: none), as an enumeration's
     * @param roles    what the field means to the decoder
     */
    record VarIntType(boolean signed, int base, List<EnumMapping> mappings, Set<Role> roles) implements FieldType {
        public VarIntType {
            mappings = List.copyOf(mappings);
            roles = Set.copyOf(roles);
        }

        @Override
        public int alignment() {
            return 8;
        }
    }

    /** A CTF 2 fixed-length boolean: false when all its bits are zero, 1 to 64 bits. */
    record BoolType(int size, int alignment, ByteOrder byteOrder) implements FieldType {}

    /**
     * A CTF 2 fixed-length bit array, 1 to 64 bits, read as an unsigned integer (bit i of the
     * value is element i of the array); a bit map when it has flags.
     *
     * @param flags the ranges of bit indexes of each flag of a bit map, in the order the metadata
     *              gives them (a flag of several ranges has several entries); empty for a bit array
     */
    record BitArrayType(int size, int alignment, ByteOrder byteOrder, List<BitFlag> flags) implements FieldType {
        public BitArrayType {
            flags = List.copyOf(flags);
        }
    }

    /** One range of bit indexes of a bit map flag: bits {@code lowBit} to {@code highBit}, inclusive. */
    record BitFlag(String name, long lowBit, long highBit) {}

    /** An IEEE 754 binary floating-point number; {@code size() = expDig + mantDig}. */
    record FloatType(int expDig, int mantDig, int alignment, ByteOrder byteOrder) implements FieldType {
        public int size() {
            return expDig + mantDig;
        }
    }

    /** A NUL-terminated string, always byte-aligned. */
    record StringType(Encoding encoding) implements FieldType {
        @Override
        public int alignment() {
            return 8;
        }
    }

    /** One label of an enumeration: the inclusive range [low, high] (unsigned when the container is). */
    record EnumMapping(String label, long low, long high) {
        public boolean contains(long value, boolean signed) {
            return signed
                    ? low <= value && value <= high
                    : Long.compareUnsigned(low, value) <= 0 && Long.compareUnsigned(value, high) <= 0;
        }
    }

    /** An integer whose values map to labels. */
    record EnumType(IntegerType container, List<EnumMapping> mappings) implements FieldType {
        public EnumType {
            mappings = mappings instanceof MappingList ? mappings : List.copyOf(mappings);
        }

        @Override
        public int alignment() {
            return container.alignment();
        }
    }

    /** A named member of a structure, or an option of a variant. */
    record Member(String name, FieldType type) {}

    /** A sequence of named fields; aligned on max(minAlignment, alignment of its members). */
    record StructType(List<Member> members, int minAlignment) implements FieldType {
        public StructType {
            members = members instanceof MemberList || members instanceof StructChain ? members : List.copyOf(members);
        }

        @Override
        public int alignment() {
            int align = Math.max(1, minAlignment);
            if (members instanceof MemberList ml) {
                return Math.max(align, ml.maxAlignment());
            }
            if (members instanceof StructChain chain) {
                return Math.max(align, chain.levelAlignment());
            }
            for (Member m : members) {
                if (!(m.type() instanceof VariantType)) {
                    align = Math.max(align, m.type().alignment());
                }
            }
            return align;
        }

        public Member member(String name) {
            if (members instanceof MemberList ml) {
                int i = ml.indexOf(name);
                return i < 0 ? null : ml.get(i);
            }
            for (Member m : members) {
                if (m.name().equals(name)) {
                    return m;
                }
            }
            return null;
        }
    }

    /**
     * A tagged union ({@code tagField}: see {@link SequenceType}): the tag (an enumeration field found by {@code tag}, a relative or absolute
     * path) selects the option whose name equals the tag's label. {@code tag} is null for a
     * variant declared without tag, which may only be used once given one.
     *
     * @param optionRanges when not null (CTF 2), the tag is an integer and selects the option
     *                     whose ranges (one list per option; labels unused) hold its value
     */
    record VariantType(FieldPath tag, List<Member> options, Member tagField, List<List<EnumMapping>> optionRanges)
            implements FieldType {
        public VariantType {
            options = options instanceof MemberList ? options : List.copyOf(options);
            optionRanges = optionRanges == null
                    ? null
                    : optionRanges.stream().map(List::copyOf).toList();
        }

        public VariantType(FieldPath tag, List<Member> options, Member tagField) {
            this(tag, options, tagField, null);
        }

        public VariantType(FieldPath tag, List<Member> options) {
            this(tag, options, null, null);
        }

        /** A variant has no alignment of its own: it takes its selected option's. */
        @Override
        public int alignment() {
            return 1;
        }

        public VariantType withTag(FieldPath newTag, Member newTagField) {
            return new VariantType(newTag, options, newTagField, optionRanges);
        }
    }

    /**
     * A fixed-length array.
     *
     * @param roles what the field means to the decoder, as CTF 2 metadata says of a static-length
     *              BLOB (an array of bytes here); empty for CTF 1.8
     */
    record ArrayType(FieldType element, long length, Set<Role> roles) implements FieldType {
        public ArrayType {
            roles = Set.copyOf(roles);
        }

        public ArrayType(FieldType element, long length) {
            this(element, length, Set.of());
        }

        @Override
        public int alignment() {
            return element.alignment();
        }
    }

    /**
     * A variable-length array whose length is the value of the integer field at {@code length}.
     * {@code lengthField}, when known, is the member the path named where the sequence was
     * declared (paths are resolved in the lexical scope of the declaration, which matters for
     * typedefs used deeper than where they were defined).
     */
    record SequenceType(FieldType element, FieldPath length, Member lengthField) implements FieldType {
        public SequenceType(FieldType element, FieldPath length) {
            this(element, length, null);
        }

        @Override
        public int alignment() {
            return element.alignment();
        }
    }

    /**
     * A CTF 2 optional: its content is there when its selector (a boolean, or an integer whose
     * value lies in {@code selectorRanges}) says so, and takes no bits otherwise.
     *
     * @param selector       the selector field, resolved as a sequence length is
     * @param selectorRanges the integer ranges that enable the content (labels unused), or null
     *                       for a boolean selector
     */
    record OptionalType(FieldPath selector, FieldType content, List<EnumMapping> selectorRanges) implements FieldType {
        public OptionalType {
            selectorRanges = selectorRanges == null ? null : List.copyOf(selectorRanges);
        }

        /** An optional has no alignment of its own: it takes its content's when it is there. */
        @Override
        public int alignment() {
            return 1;
        }
    }

    /**
     * A CTF 2 BLOB: bytes with a media type, of a static length or of the length the unsigned
     * integer field at {@code lengthField} holds.
     *
     * @param length      number of bytes of a static-length BLOB (unused when {@code lengthField} is set)
     * @param lengthField the length field of a dynamic-length BLOB, or null for a static-length one
     * @param mediaType   IANA media type of the bytes
     * @param roles       what the field means to the decoder (the metadata stream UUID)
     */
    record BlobType(long length, FieldPath lengthField, String mediaType, Set<Role> roles) implements FieldType {
        public static final String OCTET_STREAM = "application/octet-stream";

        public BlobType {
            roles = Set.copyOf(roles);
        }

        @Override
        public int alignment() {
            return 8;
        }
    }
}
