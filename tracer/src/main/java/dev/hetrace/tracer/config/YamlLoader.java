package dev.hetrace.tracer.config;

import dev.hetrace.ctf.FileFailure;
import dev.hetrace.tracer.config.YamlNode.ListNode;
import dev.hetrace.tracer.config.YamlNode.MapNode;
import dev.hetrace.tracer.config.YamlNode.Scalar;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Loads a YAML file into {@link YamlNode}s typed as barectf's loader (PyYAML, YAML 1.1
 * resolution) types them, keeping each value's line and column. SnakeYAML resolves implicit
 * tags with the same YAML 1.1 rules as PyYAML ({@code yes}/{@code on} are booleans, {@code 010}
 * is octal), so configurations mean the same thing to both.
 */
public final class YamlLoader {
    /** The tag that makes a document a barectf 3 configuration. */
    public static final String CONFIG_V3_TAG = "tag:barectf.org,2020/3/config";

    /** A loaded document: its root, and whether it carried the barectf 3 configuration tag. */
    public record Document(YamlNode root, boolean v3Tagged) {}

    private YamlLoader() {}

    public static Document load(Path file) throws ConfigException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException(null, null, "cannot read " + file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException(null, null, "cannot read " + file + ": " + FileFailure.reason(e));
        }
        return load(file, new StringReader(text));
    }

    public static Document load(Path file, Reader reader) throws ConfigException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(true); // PyYAML keeps the last value, and so does barectf
        Node root;
        try {
            root = new Yaml(options).compose(reader);
        } catch (MarkedYAMLException e) {
            org.yaml.snakeyaml.error.Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            throw new ConfigException(
                    m == null ? null : new Mark(file, m.getLine() + 1, m.getColumn() + 1),
                    null,
                    "invalid YAML: " + e.getProblem());
        } catch (YAMLException e) {
            throw new ConfigException(new Mark(file, 1, 1), null, "invalid YAML: " + e.getMessage());
        }
        if (root == null) {
            return new Document(new Scalar(new Mark(file, 1, 1), null), false);
        }
        boolean v3 = root.getTag().getValue().equals(CONFIG_V3_TAG);
        if (v3 && !(root instanceof MappingNode)) {
            throw new ConfigException(mark(file, root), "$", "the tag `" + CONFIG_V3_TAG + "` needs a mapping");
        }
        return new Document(convert(file, root, true), v3);
    }

    private static Mark mark(Path file, Node node) {
        org.yaml.snakeyaml.error.Mark m = node.getStartMark();
        return m == null ? new Mark(file, 1, 1) : new Mark(file, m.getLine() + 1, m.getColumn() + 1);
    }

    private static YamlNode convert(Path file, Node node, boolean root) throws ConfigException {
        Mark mark = mark(file, node);
        Tag tag = node.getTag();
        switch (node) {
            case MappingNode mapping -> {
                if (!(tag.equals(Tag.MAP) || root && tag.getValue().equals(CONFIG_V3_TAG))) {
                    throw unknownTag(mark, tag);
                }
                MapNode map = new MapNode(mark);
                for (NodeTuple t : flattenMerges(file, mapping)) {
                    YamlNode key = convert(file, t.getKeyNode(), false);
                    if (!(key instanceof Scalar k)) {
                        throw new ConfigException(key.mark(), null, "a mapping key must be a scalar");
                    }
                    map.put(keyText(k), convert(file, t.getValueNode(), false));
                }
                return map;
            }
            case SequenceNode sequence -> {
                if (!tag.equals(Tag.SEQ)) {
                    throw unknownTag(mark, tag);
                }
                ListNode list = new ListNode(mark);
                for (Node item : sequence.getValue()) {
                    list.items().add(convert(file, item, false));
                }
                return list;
            }
            case ScalarNode scalar -> {
                return new Scalar(mark, scalarValue(mark, tag, scalar.getValue()));
            }
            default -> throw new ConfigException(mark, null, "unsupported YAML node");
        }
    }

    /** PyYAML's {@code flatten_mapping}: {@code <<} keys merge the entries of other mappings under this one's. */
    private static List<NodeTuple> flattenMerges(Path file, MappingNode mapping) throws ConfigException {
        List<NodeTuple> merged = new ArrayList<>();
        List<NodeTuple> own = new ArrayList<>();
        for (NodeTuple t : mapping.getValue()) {
            if (t.getKeyNode().getTag().equals(Tag.MERGE)) {
                Node v = t.getValueNode();
                if (v instanceof MappingNode m) {
                    merged.addAll(flattenMerges(file, m));
                } else if (v instanceof SequenceNode s) {
                    List<NodeTuple> fromSeq = new ArrayList<>();
                    for (Node item : s.getValue()) {
                        if (!(item instanceof MappingNode m)) {
                            throw new ConfigException(mark(file, item), null, "a merge key (<<) needs mappings");
                        }
                        fromSeq.addAll(0, flattenMerges(file, m));
                    }
                    merged.addAll(fromSeq);
                } else {
                    throw new ConfigException(mark(file, v), null, "a merge key (<<) needs a mapping");
                }
            } else {
                own.add(t);
            }
        }
        merged.addAll(own);
        return merged;
    }

    private static String keyText(Scalar key) {
        return key.value() == null
                ? "None"
                : switch (key.value()) {
                    case Boolean b -> b ? "True" : "False";
                    default -> key.value().toString();
                };
    }

    private static ConfigException unknownTag(Mark mark, Tag tag) {
        return new ConfigException(mark, null, "unsupported YAML tag `" + tag.getValue() + "`");
    }

    private static Object scalarValue(Mark mark, Tag tag, String text) throws ConfigException {
        if (tag.equals(Tag.STR)) {
            return text;
        }
        if (tag.equals(Tag.NULL)) {
            return null;
        }
        if (tag.equals(Tag.BOOL)) {
            String t = text.toLowerCase();
            return t.equals("yes") || t.equals("true") || t.equals("on");
        }
        if (tag.equals(Tag.INT)) {
            return parseInt(mark, text);
        }
        if (tag.equals(Tag.FLOAT)) {
            String t = text.replace("_", "").toLowerCase();
            if (t.endsWith(".inf")) {
                return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (t.equals(".nan")) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(t);
            } catch (NumberFormatException e) {
                throw new ConfigException(mark, null, "invalid real number `" + text + "`");
            }
        }
        if (tag.equals(Tag.TIMESTAMP)) {
            return text; // barectf never wants a date; keeping the text makes any use a type error
        }
        throw unknownTag(mark, tag);
    }

    /** PyYAML's {@code construct_yaml_int} (YAML 1.1: {@code 0b}, {@code 0x}, leading-0 octal, base 60). */
    static BigInteger parseInt(Mark mark, String text) throws ConfigException {
        String t = text.replace("_", "");
        int sign = 1;
        if (t.startsWith("-")) {
            sign = -1;
            t = t.substring(1);
        } else if (t.startsWith("+")) {
            t = t.substring(1);
        }
        try {
            BigInteger v;
            if (t.equals("0")) {
                v = BigInteger.ZERO;
            } else if (t.startsWith("0b")) {
                v = new BigInteger(t.substring(2), 2);
            } else if (t.startsWith("0x")) {
                v = new BigInteger(t.substring(2), 16);
            } else if (t.startsWith("0")) {
                v = new BigInteger(t.substring(1), 8);
            } else if (t.contains(":")) {
                v = BigInteger.ZERO;
                for (String digit : t.split(":")) {
                    v = v.multiply(BigInteger.valueOf(60)).add(new BigInteger(digit));
                }
            } else {
                v = new BigInteger(t);
            }
            return sign < 0 ? v.negate() : v;
        } catch (NumberFormatException e) {
            throw new ConfigException(mark, null, "invalid integer `" + text + "`");
        }
    }

    static Document load(Path file, String text) throws ConfigException {
        return load(file, new StringReader(text));
    }
}
