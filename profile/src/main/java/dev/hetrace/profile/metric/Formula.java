package dev.hetrace.profile.metric;

import dev.hetrace.profile.ProfileException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * A metric as a formula over counters, as PMCTrackApp's users write them: {@code ipc =
 * instructions / cycles}, {@code llc_mpki = llc_misses * 1000 / instructions}, {@code
 * (pmc3*1000)/pmc0}. Numbers, counter names, {@code + - * /}, unary minus and parentheses.
 *
 * <p>A counter name is letters, digits, {@code _ . :} and dashes between them, as perf names
 * events ({@code task-clock}, {@code L1-dcache-load-misses}, {@code pmc0}); so {@code a-b} is one
 * name and a subtraction needs spaces: {@code a - b}. A formula evaluates to NaN when a counter
 * it uses is missing or NaN, and a division by zero gives NaN too, never an infinity: a metric
 * that cannot be computed for a sample is shown as a gap, not as a spike.
 */
public final class Formula {

    private sealed interface Node permits Num, Name, Neg, Bin {}

    private record Num(double value) implements Node {}

    private record Name(String name) implements Node {}

    private record Neg(Node operand) implements Node {}

    private record Bin(char op, Node left, Node right) implements Node {}

    private final String text;
    private final Node root;
    private final Set<String> names;

    private Formula(String text, Node root, Set<String> names) {
        this.text = text;
        this.root = root;
        this.names = Set.copyOf(names);
    }

    /** Parses a formula; a malformed one gets a {@link ProfileException} naming the column. */
    public static Formula parse(String text) {
        Parser parser = new Parser(text);
        Node root = parser.sum();
        parser.skipSpaces();
        if (parser.at < text.length()) {
            throw parser.error("unexpected '" + text.charAt(parser.at) + "'");
        }
        return new Formula(text.strip(), root, parser.names);
    }

    /** The counter names the formula uses. */
    public Set<String> names() {
        return names;
    }

    /** The formula's value with these counter values (NaN for a counter that is absent). */
    public double evaluate(ToDoubleFunction<String> counters) {
        return eval(root, counters);
    }

    private static double eval(Node node, ToDoubleFunction<String> counters) {
        return switch (node) {
            case Num n -> n.value();
            case Name n -> counters.applyAsDouble(n.name());
            case Neg n -> -eval(n.operand(), counters);
            case Bin b -> {
                double l = eval(b.left(), counters);
                double r = eval(b.right(), counters);
                yield switch (b.op()) {
                    case '+' -> l + r;
                    case '-' -> l - r;
                    case '*' -> l * r;
                    default -> r == 0 ? Double.NaN : l / r;
                };
            }
        };
    }

    @Override
    public String toString() {
        return text;
    }

    private static final class Parser {
        private final String text;
        private final Set<String> names = new LinkedHashSet<>();
        private int at;

        Parser(String text) {
            this.text = text;
        }

        Node sum() {
            Node left = product();
            for (skipSpaces(); at < text.length() && (peek() == '+' || peek() == '-'); skipSpaces()) {
                char op = text.charAt(at++);
                left = new Bin(op, left, product());
            }
            return left;
        }

        Node product() {
            Node left = unary();
            for (skipSpaces(); at < text.length() && (peek() == '*' || peek() == '/'); skipSpaces()) {
                char op = text.charAt(at++);
                left = new Bin(op, left, unary());
            }
            return left;
        }

        Node unary() {
            skipSpaces();
            if (at < text.length() && peek() == '-') {
                at++;
                return new Neg(unary());
            }
            return primary();
        }

        Node primary() {
            skipSpaces();
            if (at >= text.length()) {
                throw error("a number, a counter or '(' is missing");
            }
            char c = peek();
            if (c == '(') {
                at++;
                Node inner = sum();
                skipSpaces();
                if (at >= text.length() || peek() != ')') {
                    throw error("')' is missing");
                }
                at++;
                return inner;
            }
            if (Character.isDigit(c) || c == '.') {
                int start = at;
                while (at < text.length() && (Character.isDigit(peek()) || peek() == '.')) {
                    at++;
                }
                if (at < text.length() && (peek() == 'e' || peek() == 'E')) {
                    int mark = at++;
                    if (at < text.length() && (peek() == '+' || peek() == '-')) {
                        at++;
                    }
                    if (at < text.length() && Character.isDigit(peek())) {
                        while (at < text.length() && Character.isDigit(peek())) {
                            at++;
                        }
                    } else {
                        at = mark;
                    }
                }
                try {
                    return new Num(Double.parseDouble(text.substring(start, at)));
                } catch (NumberFormatException e) {
                    at = start;
                    throw error(
                            "malformed number '" + text.substring(start, Math.min(text.length(), start + 20)) + "'");
                }
            }
            if (isNameChar(c)) {
                int start = at;
                while (at < text.length()
                        && (isNameChar(peek())
                                || peek() == '-'
                                        && at + 1 < text.length()
                                        && isNameChar(text.charAt(at + 1))
                                        && at > start)) {
                    at++;
                }
                String name = text.substring(start, at);
                names.add(name);
                return new Name(name);
            }
            throw error("unexpected '" + c + "'");
        }

        private static boolean isNameChar(char c) {
            return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == ':';
        }

        char peek() {
            return text.charAt(at);
        }

        void skipSpaces() {
            while (at < text.length() && Character.isWhitespace(peek())) {
                at++;
            }
        }

        ProfileException error(String what) {
            return new ProfileException("formula '" + text + "', column " + (at + 1) + ": " + what);
        }
    }
}
