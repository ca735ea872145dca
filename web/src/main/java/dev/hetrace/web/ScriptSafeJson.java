package dev.hetrace.web;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;

/**
 * JSON that can be put inside a script element of a self-contained page (the offline report,
 * the profile report): '<' is written as \u003c, so that no string in the data closes its
 * script element or opens another.
 */
public final class ScriptSafeJson {
    private ScriptSafeJson() {}

    /** A JSON factory writing script-safe JSON. */
    public static JsonFactory factory() {
        JsonFactory json = new JsonFactory();
        json.setCharacterEscapes(new NoClosingTags());
        return json;
    }

    private static final class NoClosingTags extends CharacterEscapes {
        private final int[] escapes = standardAsciiEscapesForJSON();

        NoClosingTags() {
            escapes['<'] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }
}
