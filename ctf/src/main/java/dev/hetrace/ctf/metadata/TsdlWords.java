package dev.hetrace.ctf.metadata;

import java.util.Set;

/**
 * The reserved words of TSDL: its keywords and the C type words. The parser refuses them as
 * names; a writer of TSDL must not write a name that is one of them.
 */
public final class TsdlWords {
    private TsdlWords() {}

    /** TSDL's own keywords. */
    public static final Set<String> CTF_KEYWORDS = Set.of(
            "align",
            "callsite",
            "clock",
            "enum",
            "env",
            "event",
            "floating_point",
            "integer",
            "stream",
            "string",
            "struct",
            "trace",
            "typealias",
            "typedef",
            "variant");
    /** The C words TSDL takes for types. */
    public static final Set<String> C_TYPE_WORDS = Set.of(
            "const",
            "char",
            "double",
            "float",
            "int",
            "long",
            "short",
            "signed",
            "unsigned",
            "void",
            "_Bool",
            "_Complex",
            "_Imaginary");

    /** Whether {@code name} is reserved: a TSDL keyword or a C type word. */
    public static boolean reserved(String name) {
        return CTF_KEYWORDS.contains(name) || C_TYPE_WORDS.contains(name);
    }
}
