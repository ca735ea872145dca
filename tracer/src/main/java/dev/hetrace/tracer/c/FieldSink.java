package dev.hetrace.tracer.c;

import dev.hetrace.tracer.config.FieldType;

/** What a walk over an event record's fields feeds: the {@link Cursor} that writes or sizes them, the {@link RecordBound} that bounds them. */
interface FieldSink {
    /** Moves to the next multiple of {@code alignment} bits. */
    void align(int alignment);

    /**
     * A field of type {@code ft} from the C expression {@code src}; {@code lenSrc} is a dynamic
     * array's length parameter, {@code strLen} a string's byte size (with its NUL) when computed.
     */
    void field(FieldType ft, String src, String lenSrc, String strLen);
}
