package dev.hetrace.ctf.metadata;

import java.util.List;

/**
 * A reference to another field, as written in TSDL for a variant tag or a sequence length:
 * either relative ({@code len}, {@code inner.len}) or absolute, starting with a dynamic scope
 * prefix ({@code stream.event.context.len}).
 */
public record FieldPath(List<String> parts) {
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
