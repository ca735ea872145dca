package dev.hetrace.tracer.config;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A YAML value of a barectf configuration, with its source mark. barectf processes its
 * configuration as a tree that is patched in place (inclusions, field type aliases,
 * inheritance, format 2 to 3 conversion) before any model exists, so this tree is mutable;
 * {@link #copy()} gives the deep copies barectf takes with {@code copy.deepcopy}.
 */
public sealed interface YamlNode permits YamlNode.MapNode, YamlNode.ListNode, YamlNode.Scalar {
    Mark mark();

    YamlNode copy();

    /** A mapping whose keys keep their order, as barectf's {@code OrderedDict}s do. */
    final class MapNode implements YamlNode {
        private final Mark mark;
        private final LinkedHashMap<String, YamlNode> entries = new LinkedHashMap<>();

        public MapNode(Mark mark) {
            this.mark = mark;
        }

        @Override
        public Mark mark() {
            return mark;
        }

        public Map<String, YamlNode> entries() {
            return entries;
        }

        public YamlNode get(String key) {
            return entries.get(key);
        }

        public boolean has(String key) {
            return entries.containsKey(key);
        }

        public void put(String key, YamlNode value) {
            entries.put(key, value);
        }

        public YamlNode remove(String key) {
            return entries.remove(key);
        }

        /** The value at {@code key} if it is a mapping, else null. */
        public MapNode map(String key) {
            return entries.get(key) instanceof MapNode m ? m : null;
        }

        /** True if the key is absent or its value is YAML null. */
        public boolean isNull(String key) {
            YamlNode v = entries.get(key);
            return v == null || v instanceof Scalar s && s.value() == null;
        }

        @Override
        public MapNode copy() {
            MapNode m = new MapNode(mark);
            entries.forEach((k, v) -> m.entries.put(k, v.copy()));
            return m;
        }

        @Override
        public String toString() {
            return entries.toString();
        }
    }

    /** A sequence. */
    final class ListNode implements YamlNode {
        private final Mark mark;
        private final List<YamlNode> items = new ArrayList<>();

        public ListNode(Mark mark) {
            this.mark = mark;
        }

        @Override
        public Mark mark() {
            return mark;
        }

        public List<YamlNode> items() {
            return items;
        }

        @Override
        public ListNode copy() {
            ListNode l = new ListNode(mark);
            items.forEach(v -> l.items.add(v.copy()));
            return l;
        }

        @Override
        public String toString() {
            return items.toString();
        }
    }

    /**
     * A scalar as PyYAML (YAML 1.1 resolution, like barectf's loader) types it: null,
     * {@link Boolean}, {@link BigInteger}, {@link Double} or {@link String}.
     */
    record Scalar(Mark mark, Object value) implements YamlNode {
        public Scalar {
            if (value != null
                    && !(value instanceof Boolean
                            || value instanceof BigInteger
                            || value instanceof Double
                            || value instanceof String)) {
                throw new IllegalArgumentException("scalar of " + value.getClass());
            }
        }

        public static Scalar of(Mark mark, Object value) {
            if (value instanceof Integer || value instanceof Long) {
                value = BigInteger.valueOf(((Number) value).longValue());
            }
            return new Scalar(mark, value);
        }

        @Override
        public Scalar copy() {
            return this;
        }

        public boolean isInteger() {
            return value instanceof BigInteger;
        }

        /** Python equality, which is what barectf's comparisons use (but {@code True != 1} here). */
        public boolean valueEquals(Object other) {
            return Objects.equals(value, other);
        }

        @Override
        public String toString() {
            return String.valueOf(value);
        }
    }

    /** A name for a node's kind in error messages. */
    static String kind(YamlNode node) {
        return switch (node) {
            case null -> "nothing";
            case MapNode m -> "a mapping";
            case ListNode l -> "a sequence";
            case Scalar s when s.value() == null -> "null";
            case Scalar s when s.value() instanceof Boolean -> "a boolean";
            case Scalar s when s.value() instanceof BigInteger -> "an integer";
            case Scalar s when s.value() instanceof Double -> "a real number";
            case Scalar s -> "a string";
        };
    }
}
