package dev.hetrace.ctf.metadata;

import java.util.List;

/**
 * A reference to another field, as written in TSDL for a variant tag or a sequence length:
 * either relative ({@code len}, {@code inner.len}) or absolute, starting with a dynamic scope
 * prefix ({@code stream.event.context.len}).
 */
public record FieldPath(List<String> parts) {
    /**
     * The origins of CTF 2 field locations, in decoding order: the same scopes as CTF 1.8's
     * prefixes {@code trace.packet.header} to {@code event.fields}.
     */
    public static final List<String> CTF2_ORIGINS = List.of(
            "packet-header",
            "packet-context",
            "event-record-header",
            "event-record-common-context",
            "event-record-specific-context",
            "event-record-payload");

    public FieldPath {
        parts = List.copyOf(parts);
    }

    public static FieldPath parse(String dotted) {
        return new FieldPath(List.of(dotted.split("\\.")));
    }

    @Override
    public String toString() {
        return String.join(".", parts);
    }
}
