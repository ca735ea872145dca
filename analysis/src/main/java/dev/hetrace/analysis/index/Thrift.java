package dev.hetrace.analysis.index;

/** Thrift's compact protocol, as much of it as Parquet's metadata needs. */
final class Thrift {
    final Bytes bytes = new Bytes();
    /** The last field id of each open struct. */
    private final int[] last = new int[16];

    private int depth;

    void clear() {
        bytes.clear();
        depth = 0;
        last[0] = 0;
    }

    private void field(int id, int type) {
        int delta = id - last[depth];
        if (delta > 0 && delta <= 15) {
            bytes.put((delta << 4) | type);
        } else {
            bytes.put(type);
            bytes.varint(zigzag(id));
        }
        last[depth] = id;
    }

    void fieldI32(int id, int v) {
        field(id, 5);
        bytes.varint(zigzag(v));
    }

    void fieldI64(int id, long v) {
        field(id, 6);
        bytes.varint(zigzag(v));
    }

    void fieldBinary(int id, byte[] v) {
        field(id, 8);
        binary(v);
    }

    /** Opens a struct field; {@link #stop()} closes it. */
    void fieldStruct(int id) {
        field(id, 12);
        last[++depth] = 0;
    }

    /** Opens a struct that is an element of a list; {@link #stop()} closes it. */
    void fieldStructInList() {
        last[++depth] = 0;
    }

    void fieldList(int id, int elementType, int size) {
        field(id, 9);
        listHeader(elementType, size);
    }

    /** A field whose value (a list of {@code type}'s elements, header included) is already encoded in {@code value}. */
    void fieldRaw(int id, int type, Thrift value) {
        field(id, type);
        bytes.put(value.bytes.b, value.bytes.n);
    }

    void listHeader(int elementType, int size) {
        if (size < 15) {
            bytes.put((size << 4) | elementType);
        } else {
            bytes.put(0xF0 | elementType);
            bytes.varint(size);
        }
    }

    void i32(int v) {
        bytes.varint(zigzag(v));
    }

    void binary(byte[] v) {
        bytes.varint(v.length);
        bytes.put(v, v.length);
    }

    /** Ends the current struct. */
    void stop() {
        bytes.put(0);
        if (depth > 0) {
            depth--;
        }
    }

    private static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }
}
