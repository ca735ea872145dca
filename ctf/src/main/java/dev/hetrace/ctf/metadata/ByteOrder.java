package dev.hetrace.ctf.metadata;

/** Byte order of a basic type. */
public enum ByteOrder {
    BIG_ENDIAN,
    LITTLE_ENDIAN;

    public java.nio.ByteOrder nio() {
        return this == BIG_ENDIAN ? java.nio.ByteOrder.BIG_ENDIAN : java.nio.ByteOrder.LITTLE_ENDIAN;
    }
}
