package dev.hetrace.ctf.write;

/** The version of CTF whose metadata a writer writes; the data streams are the same for both. */
public enum CtfVersion {
    /** TSDL text, as barectf and LTTng before 2.15 write it. */
    V1_8("1.8"),
    /** A JSON text sequence (CTF2-SPEC-2.0), as LTTng 2.15 and babeltrace2 2.1 write it. */
    V2("2");

    private final String label;

    CtfVersion(String label) {
        this.label = label;
    }

    /** The version as users write it: {@code 1.8} or {@code 2}. */
    public String label() {
        return label;
    }

    /** The version a user wrote ({@code 1.8}, {@code 2} or {@code 2.0}). */
    public static CtfVersion parse(String text) {
        return switch (text.trim()) {
            case "1.8" -> V1_8;
            case "2", "2.0" -> V2;
            default -> throw new IllegalArgumentException("unknown CTF version '" + text + "' (expected 1.8 or 2)");
        };
    }
}
