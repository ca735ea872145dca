package dev.hetrace.sync;

import dev.hetrace.ctf.api.Event;
import dev.hetrace.ctf.api.FieldNotFoundException;
import dev.hetrace.ctf.api.FieldTypeException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A condition on an event's fields that a match rule's side may add: comparisons
 * {@code FIELD == VALUE} or {@code FIELD != VALUE} joined by {@code &&}, a value being a
 * double-quoted string ({@code name == "rpmsg_send"}) or an integer ({@code 42}, {@code -1},
 * {@code 0x400}). An event lacking the field does not meet it.
 */
final class FieldCondition {
    private static final Pattern TERM = Pattern.compile(
            "\\s*([^\\s=!\"]+)\\s*(==|!=)\\s*(?:\"((?:[^\"\\\\]|\\\\.)*)\"|(-?(?:0[xX][0-9a-fA-F]+|\\d+)))\\s*");

    /** A term; {@code hash}: {@code text}'s {@link Event#stringHash}, compared first so that most events allocate nothing. */
    private record Term(Event.Field field, String path, boolean equal, String text, long hash, long number) {}

    private final Term[] terms;

    private FieldCondition(Term[] terms) {
        this.terms = terms;
    }

    static FieldCondition parse(String condition) {
        List<Term> terms = new ArrayList<>();
        for (String part : condition.split("&&", -1)) {
            Matcher m = TERM.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("condition '" + condition + "': '" + part.strip()
                        + "' is not FIELD == VALUE or FIELD != VALUE (a VALUE is \"text\" or an integer)");
            }
            String text = m.group(3) == null ? null : m.group(3).replaceAll("\\\\(.)", "$1");
            long number = 0;
            if (m.group(4) != null) {
                String g = m.group(4);
                boolean negative = g.startsWith("-");
                String digits = negative ? g.substring(1) : g;
                try {
                    number = digits.startsWith("0x") || digits.startsWith("0X")
                            ? Long.parseUnsignedLong(digits.substring(2), 16)
                            : Long.parseUnsignedLong(digits);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("condition '" + condition + "': " + g + " exceeds 64 bits");
                }
                number = negative ? -number : number;
            }
            terms.add(new Term(
                    Event.field(m.group(1)),
                    m.group(1),
                    m.group(2).equals("=="),
                    text,
                    text == null ? 0 : Event.stringHash(text),
                    number));
        }
        return new FieldCondition(terms.toArray(Term[]::new));
    }

    /** Whether the reader's current event meets the condition. */
    boolean test(Event e) {
        for (Term t : terms) {
            boolean equal;
            try {
                if (!e.has(t.field)) {
                    return false;
                }
                equal = t.text != null
                        ? e.getStringHash(t.field) == t.hash && t.text.equals(e.getString(t.field))
                        : e.getLong(t.field) == t.number;
            } catch (FieldTypeException | FieldNotFoundException wrongKind) {
                return false;
            }
            if (equal != t.equal) {
                return false;
            }
        }
        return true;
    }
}
