package dev.hetrace.tracer.config;

import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * Validates configuration nodes against barectf 3.1.1's own JSON schemas (draft 7, shipped as
 * resources under {@code schemas/}), at the same stages of processing as barectf, so that what
 * barectf's schemas reject is rejected here too. Implements the draft 7 keywords those schemas
 * use; an unknown keyword is a programming error, not silently ignored.
 */
final class SchemaValidator {
    private static final String ID_PREFIX = "https://barectf.org/schemas/";
    private static final List<String> SCHEMAS = List.of(
            "common/common",
            "2/clock-type-pre-include",
            "2/config-min",
            "2/config-pre-field-type-expansion",
            "2/config-pre-include",
            "2/config",
            "2/dst-pre-include",
            "2/ert-pre-include",
            "2/field-type",
            "2/include-prop",
            "2/metadata-pre-include",
            "2/trace-type-pre-include",
            "3/clock-type-pre-include",
            "3/config-pre-field-type-expansion",
            "3/config-pre-include",
            "3/config-pre-log-level-alias-sub",
            "3/config",
            "3/dst-pre-include",
            "3/ert-pre-include",
            "3/field-type",
            "3/include-prop",
            "3/trace-pre-include",
            "3/trace-type-pre-include");
    private static final Map<String, Object> STORE = loadStore();
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

    /** A failure: the path of the offending value (keys and indices), the value, and what is wrong. */
    record Failure(List<Object> path, YamlNode node, String message) {}

    private SchemaValidator() {}

    private static Map<String, Object> loadStore() {
        Map<String, Object> store = new HashMap<>();
        Yaml yaml = new Yaml();
        for (String name : SCHEMAS) {
            try (InputStream in =
                    SchemaValidator.class.getResourceAsStream("/dev/hetrace/tracer/schemas/" + name + ".yaml")) {
                Map<?, ?> schema = yaml.load(Objects.requireNonNull(in, name));
                store.put((String) schema.get("$id"), schema);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return store;
    }

    /**
     * Validates {@code node} (found at {@code basePath}) with the schema of short id
     * {@code config/3/config} style ({@code shortId} is the part between {@code schemas/} and
     * {@code .json}).
     */
    static void validate(YamlNode node, String shortId, List<Object> basePath) throws ConfigException {
        String id = ID_PREFIX + shortId + ".json";
        Object schema = Objects.requireNonNull(STORE.get(id), id);
        Failure f = check(schema, schema, node, new ArrayList<>(basePath));
        if (f != null) {
            throw new ConfigException(f.node().mark(), ConfigPaths.format(f.path()), f.message());
        }
    }

    /** Validates {@code node} with the definition at {@code pointer} (e.g. {@code /definitions/ft}) of a schema. */
    static void validate(YamlNode node, String shortId, String pointer, List<Object> basePath) throws ConfigException {
        String id = ID_PREFIX + shortId + ".json";
        Object schema = Objects.requireNonNull(STORE.get(id), id);
        Failure f = check(pointer(schema, pointer), schema, node, new ArrayList<>(basePath));
        if (f != null) {
            throw new ConfigException(f.node().mark(), ConfigPaths.format(f.path()), f.message());
        }
    }

    @SuppressWarnings("unchecked")
    private static Failure check(Object schemaObj, Object docRoot, YamlNode node, List<Object> path) {
        if (schemaObj instanceof Boolean b) {
            return b ? null : fail(path, node, "no value is allowed here");
        }
        Map<String, Object> schema = (Map<String, Object>) schemaObj;
        if (schema.containsKey("$ref")) {
            // draft 7: a $ref hides its siblings
            String ref = (String) schema.get("$ref");
            Object target;
            Object targetRoot;
            int hash = ref.indexOf('#');
            if (hash == 0) {
                targetRoot = docRoot;
            } else {
                String doc = hash < 0 ? ref : ref.substring(0, hash);
                targetRoot = Objects.requireNonNull(STORE.get(doc), doc);
            }
            target = hash < 0 ? targetRoot : pointer(targetRoot, ref.substring(hash + 1));
            return check(target, targetRoot, node, path);
        }
        for (Map.Entry<String, Object> e : schema.entrySet()) {
            Object v = e.getValue();
            Failure f = switch (e.getKey()) {
                case "$schema", "$id", "title", "description", "definitions", "then", "else" -> null;
                case "type" -> checkType(v, node, path);
                case "enum" -> {
                    for (Object allowed : (List<Object>) v) {
                        if (jsonEquals(allowed, node)) {
                            yield null;
                        }
                    }
                    yield fail(
                            path, node, "expected one of " + listText((List<Object>) v) + ", got " + valueText(node));
                }
                case "const" ->
                    jsonEquals(v, node)
                            ? null
                            : fail(path, node, "expected " + literal(v) + ", got " + valueText(node));
                case "minimum" ->
                    number(node) != null && number(node).compareTo(new BigDecimal(v.toString())) < 0
                            ? fail(path, node, "expected a value >= " + v + ", got " + valueText(node))
                            : null;
                case "maximum" ->
                    number(node) != null && number(node).compareTo(new BigDecimal(v.toString())) > 0
                            ? fail(path, node, "expected a value <= " + v + ", got " + valueText(node))
                            : null;
                case "pattern" ->
                    node instanceof Scalar s
                                    && s.value() instanceof String str
                                    && !pattern((String) v).matcher(str).find()
                            ? fail(path, node, "`" + str + "` does not match the pattern " + v)
                            : null;
                case "minItems" ->
                    node instanceof ListNode l && l.items().size() < ((Number) v).intValue()
                            ? fail(path, node, "expected at least " + v + " item(s)")
                            : null;
                case "maxItems" ->
                    node instanceof ListNode l && l.items().size() > ((Number) v).intValue()
                            ? fail(path, node, "expected at most " + v + " item(s)")
                            : null;
                case "minProperties" ->
                    node instanceof MapNode m && m.entries().size() < ((Number) v).intValue()
                            ? fail(
                                    path,
                                    node,
                                    "expected at least " + v + " propert"
                                            + (((Number) v).intValue() == 1 ? "y" : "ies"))
                            : null;
                case "maxProperties" ->
                    node instanceof MapNode m && m.entries().size() > ((Number) v).intValue()
                            ? fail(
                                    path,
                                    node,
                                    "expected at most " + v + " propert" + (((Number) v).intValue() == 1 ? "y" : "ies"))
                            : null;
                case "required" -> {
                    if (node instanceof MapNode m) {
                        for (Object key : (List<Object>) v) {
                            if (!m.has((String) key)) {
                                yield fail(path, node, "missing required property `" + key + "`");
                            }
                        }
                    }
                    yield null;
                }
                case "properties" -> {
                    if (node instanceof MapNode m) {
                        for (Map.Entry<String, Object> p : ((Map<String, Object>) v).entrySet()) {
                            YamlNode child = m.get(p.getKey());
                            if (child != null) {
                                Failure cf = check(p.getValue(), docRoot, child, with(path, p.getKey()));
                                if (cf != null) {
                                    yield cf;
                                }
                            }
                        }
                    }
                    yield null;
                }
                case "patternProperties" -> {
                    if (node instanceof MapNode m) {
                        for (Map.Entry<String, Object> p : ((Map<String, Object>) v).entrySet()) {
                            Pattern re = pattern(p.getKey());
                            for (Map.Entry<String, YamlNode> c : m.entries().entrySet()) {
                                if (re.matcher(c.getKey()).find()) {
                                    Failure cf = check(p.getValue(), docRoot, c.getValue(), with(path, c.getKey()));
                                    if (cf != null) {
                                        yield cf;
                                    }
                                }
                            }
                        }
                    }
                    yield null;
                }
                case "additionalProperties" -> checkAdditional(schema, v, docRoot, node, path);
                case "dependencies" -> {
                    if (node instanceof MapNode m) {
                        for (Map.Entry<String, Object> d : ((Map<String, Object>) v).entrySet()) {
                            if (!m.has(d.getKey())) {
                                continue;
                            }
                            if (d.getValue() instanceof List<?> keys) {
                                for (Object k : keys) {
                                    if (!m.has((String) k)) {
                                        yield fail(
                                                path, node, "property `" + d.getKey() + "` needs property `" + k + "`");
                                    }
                                }
                            } else {
                                Failure cf = check(d.getValue(), docRoot, node, path);
                                if (cf != null) {
                                    yield cf;
                                }
                            }
                        }
                    }
                    yield null;
                }
                case "items" -> {
                    if (node instanceof ListNode l) {
                        for (int i = 0; i < l.items().size(); i++) {
                            Object itemSchema =
                                    v instanceof List<?> tuple ? (i < tuple.size() ? tuple.get(i) : null) : v;
                            if (itemSchema != null) {
                                Failure cf =
                                        check(itemSchema, docRoot, l.items().get(i), with(path, i));
                                if (cf != null) {
                                    yield cf;
                                }
                            }
                        }
                    }
                    yield null;
                }
                case "allOf" -> {
                    for (Object sub : (List<Object>) v) {
                        Failure cf = check(sub, docRoot, node, path);
                        if (cf != null) {
                            yield cf;
                        }
                    }
                    yield null;
                }
                case "anyOf" -> {
                    List<Failure> failures = new ArrayList<>();
                    for (Object sub : (List<Object>) v) {
                        Failure cf = check(sub, docRoot, node, path);
                        if (cf == null) {
                            yield null;
                        }
                        failures.add(cf);
                    }
                    yield best(failures, path, node);
                }
                case "oneOf" -> {
                    List<Failure> failures = new ArrayList<>();
                    int matches = 0;
                    for (Object sub : (List<Object>) v) {
                        Failure cf = check(sub, docRoot, node, path);
                        if (cf == null) {
                            matches++;
                        } else {
                            failures.add(cf);
                        }
                    }
                    yield matches == 1
                            ? null
                            : matches == 0
                                    ? best(failures, path, node)
                                    : fail(
                                            path,
                                            node,
                                            "ambiguous value: it matches more than one of the allowed forms");
                }
                case "not" ->
                    check(v, docRoot, node, path) == null
                            ? fail(path, node, valueText(node) + " is not allowed here")
                            : null;
                case "if" -> {
                    boolean ok = check(v, docRoot, node, path) == null;
                    Object branch = schema.get(ok ? "then" : "else");
                    if (branch == null) {
                        yield null;
                    }
                    Failure cf = check(branch, docRoot, node, path);
                    if (cf != null && !ok && cf.path().equals(path) && isTypeOnly(v) && isTypeOnly(branch)) {
                        // "if integer then >= 1 else null": say both accepted kinds, not just the else one
                        cf = fail(
                                path,
                                node,
                                "expected " + typeText(((Map<?, ?>) v).get("type")) + " or "
                                        + typeText(((Map<?, ?>) branch).get("type")) + ", got " + YamlNode.kind(node));
                    }
                    yield cf;
                }
                default -> throw new IllegalStateException("JSON schema keyword not implemented: " + e.getKey());
            };
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static boolean isTypeOnly(Object schema) {
        return schema instanceof Map<?, ?> m && m.size() == 1 && m.containsKey("type");
    }

    /** jsonschema's {@code best_match} in spirit: the failure found deepest in the value explains best. */
    private static Failure best(List<Failure> failures, List<Object> path, YamlNode node) {
        Failure best = null;
        for (Failure f : failures) {
            if (best == null || f.path().size() > best.path().size()) {
                best = f;
            }
        }
        if (best == null || best.path().size() > path.size()) {
            return best;
        }
        List<String> msgs = new ArrayList<>();
        for (Failure f : failures) {
            if (f.path().size() == path.size() && !msgs.contains(f.message())) {
                msgs.add(f.message());
            }
        }
        return fail(
                path,
                node,
                msgs.size() == 1 ? msgs.get(0) : "matches none of the allowed forms (" + String.join("; ", msgs) + ")");
    }

    @SuppressWarnings("unchecked")
    private static Failure checkAdditional(
            Map<String, Object> schema, Object additional, Object docRoot, YamlNode node, List<Object> path) {
        if (!(node instanceof MapNode m)) {
            return null;
        }
        Map<String, Object> props = (Map<String, Object>) schema.getOrDefault("properties", Map.of());
        Map<String, Object> patterns = (Map<String, Object>) schema.getOrDefault("patternProperties", Map.of());
        for (Map.Entry<String, YamlNode> c : m.entries().entrySet()) {
            if (props.containsKey(c.getKey())) {
                continue;
            }
            boolean matched = false;
            for (String p : patterns.keySet()) {
                if (pattern(p).matcher(c.getKey()).find()) {
                    matched = true;
                    break;
                }
            }
            if (matched) {
                continue;
            }
            if (Boolean.FALSE.equals(additional)) {
                return fail(with(path, c.getKey()), c.getValue(), "unknown property `" + c.getKey() + "`");
            }
            Failure f = check(additional, docRoot, c.getValue(), with(path, c.getKey()));
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static Failure checkType(Object type, YamlNode node, List<Object> path) {
        if (type instanceof List<?> types) {
            for (Object t : types) {
                if (hasType((String) t, node)) {
                    return null;
                }
            }
        } else if (hasType((String) type, node)) {
            return null;
        }
        return fail(path, node, "expected " + typeText(type) + ", got " + YamlNode.kind(node));
    }

    private static boolean hasType(String type, YamlNode node) {
        Object v = node instanceof Scalar s ? s.value() : null;
        return switch (type) {
            case "object" -> node instanceof MapNode;
            case "array" -> node instanceof ListNode;
            case "null" -> node instanceof Scalar && v == null;
            case "boolean" -> v instanceof Boolean;
            case "string" -> v instanceof String;
            // jsonschema's draft 7 checker: bools are not numbers; 2.0 is an integer
            case "integer" -> v instanceof BigInteger || v instanceof Double d && d == Math.rint(d) && !d.isInfinite();
            case "number" -> v instanceof BigInteger || v instanceof Double;
            default -> throw new IllegalStateException("JSON schema type " + type);
        };
    }

    private static String typeText(Object type) {
        if (type instanceof List<?> types) {
            List<String> parts = new ArrayList<>();
            for (Object t : types) {
                parts.add(typeText(t));
            }
            return String.join(" or ", parts);
        }
        return switch ((String) type) {
            case "object" -> "a mapping";
            case "array" -> "a sequence";
            case "null" -> "null";
            case "boolean" -> "a boolean";
            case "string" -> "a string";
            case "integer" -> "an integer";
            case "number" -> "a number";
            default -> (String) type;
        };
    }

    private static BigDecimal number(YamlNode node) {
        if (node instanceof Scalar s) {
            if (s.value() instanceof BigInteger i) {
                return new BigDecimal(i);
            }
            if (s.value() instanceof Double d && !d.isNaN() && !d.isInfinite()) {
                return BigDecimal.valueOf(d);
            }
        }
        return null;
    }

    private static boolean jsonEquals(Object schemaValue, YamlNode node) {
        if (!(node instanceof Scalar s)) {
            return false; // the schemas only compare scalars
        }
        Object v = s.value();
        if (schemaValue == null || v == null) {
            return schemaValue == v;
        }
        if (schemaValue instanceof Boolean || v instanceof Boolean) {
            return schemaValue.equals(v);
        }
        if (schemaValue instanceof Number n) {
            BigDecimal nv = number(node);
            return nv != null && nv.compareTo(new BigDecimal(n.toString())) == 0;
        }
        return schemaValue.equals(v);
    }

    private static Pattern pattern(String re) {
        return PATTERNS.computeIfAbsent(re, Pattern::compile);
    }

    @SuppressWarnings("unchecked")
    private static Object pointer(Object root, String pointer) {
        Object cur = root;
        for (String part : pointer.split("/")) {
            if (!part.isEmpty()) {
                cur = ((Map<String, Object>) cur).get(part.replace("~1", "/").replace("~0", "~"));
            }
        }
        return Objects.requireNonNull(cur, pointer);
    }

    private static List<Object> with(List<Object> path, Object elem) {
        List<Object> p = new ArrayList<>(path);
        p.add(elem);
        return p;
    }

    private static Failure fail(List<Object> path, YamlNode node, String message) {
        return new Failure(List.copyOf(path), node, message);
    }

    private static String listText(List<Object> values) {
        List<String> parts = new ArrayList<>();
        for (Object o : values) {
            parts.add(literal(o));
        }
        return String.join(", ", parts);
    }

    private static String literal(Object o) {
        return o instanceof String s ? "`" + s + "`" : String.valueOf(o);
    }

    private static String valueText(YamlNode node) {
        return node instanceof Scalar s
                        && (s.value() instanceof String
                                || s.value() instanceof BigInteger
                                || s.value() instanceof Boolean)
                ? "`" + s.value() + "`"
                : YamlNode.kind(node);
    }
}
