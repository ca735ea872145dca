package dev.hetrace.view;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Where cores sit on the board, as a layout file says it ({@code view --layout}, {@code report
 * --layout}): nested groups, outermost first, each listing its cores by name, by range
 * ({@code dsp0..dsp15}) or by pattern ({@code dsp*}, {@code arm?}).
 *
 * <pre>
 * groups:
 *   chip0: [dsp0..dsp15]
 *   chip1: [dsp16..dsp31]
 *   host: {cpus: ["master"]}
 * </pre>
 *
 * A core the file places goes there whatever its trace's environment says; the first group that
 * lists it wins.
 */
public record BoardLayout(List<Entry> entries, String digest) {
    /** A core's place ({@code path}, outermost first) when its name matches {@code core}. */
    public record Entry(List<String> path, Pattern core) {}

    /** No layout file: each core where its trace's environment puts it. */
    public static final BoardLayout NONE = new BoardLayout(List.of(), "");

    private static final Pattern RANGE = Pattern.compile("(\\D*)(\\d+)\\.\\.\\1(\\d+)");

    public BoardLayout {
        entries = List.copyOf(entries);
    }

    /** {@code digest}: what names the file's content (a timeline laid out by it is kept under it), "" for none. */
    public BoardLayout(List<Entry> entries) {
        this(entries, "");
    }

    /** Where core {@code name} sits, outermost first; empty when the file does not list it. */
    public List<String> place(String name) {
        for (Entry e : entries) {
            if (e.core().matcher(name).matches()) {
                return e.path();
            }
        }
        return List.of();
    }

    /** Reads a layout file; a file that is not one fails with its name, line and what is wrong. */
    public static BoardLayout read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new IOException(file + ": no such layout file");
        } catch (MalformedInputException e) {
            throw new IOException(file + ": not a text file (UTF-8)");
        }
        Node top;
        try {
            top = new Yaml(new LoaderOptions()).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            throw new IOException(file + ":" + (e.getProblemMark().getLine() + 1) + ": " + e.getProblem());
        }
        if (!(top instanceof MappingNode m)
                || m.getValue().size() != 1
                || !(m.getValue().getFirst().getKeyNode() instanceof ScalarNode k)
                || !k.getValue().equals("groups")) {
            throw new IOException(file + ":" + (top == null ? 1 : line(top))
                    + ": expected `groups:`, a map of group names to lists of cores or to groups");
        }
        List<Entry> out = new ArrayList<>();
        groups(file, m.getValue().getFirst().getValueNode(), List.of(), out);
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return new BoardLayout(out, HexFormat.of().formatHex(d, 0, 6));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void groups(Path file, Node n, List<String> path, List<Entry> out) throws IOException {
        if (n instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode key)
                        || key.getValue().isBlank()) {
                    throw new IOException(file + ":" + line(t.getKeyNode()) + ": a group's name must be text");
                }
                List<String> inner = new ArrayList<>(path);
                inner.add(key.getValue().strip());
                groups(file, t.getValueNode(), List.copyOf(inner), out);
            }
        } else if (n instanceof SequenceNode list && !path.isEmpty()) {
            for (Node c : list.getValue()) {
                if (!(c instanceof ScalarNode s) || s.getValue().isBlank()) {
                    throw new IOException(file + ":" + line(c) + ": a core is named by text: dsp3, dsp0..dsp15, dsp*");
                }
                out.add(new Entry(path, pattern(s.getValue().strip())));
            }
        } else {
            throw new IOException(file + ":" + line(n) + ": expected "
                    + (path.isEmpty()
                            ? "a map of groups"
                            : "group " + String.join("/", path)
                                    + " to list its cores ([dsp0..dsp15]) or its groups ({chip0: [...]})"));
        }
    }

    /** A core name, a range of numbered names ({@code dsp0..dsp15}) or a pattern ({@code *} any text, {@code ?} one character). */
    static Pattern pattern(String spec) {
        Matcher r = RANGE.matcher(spec);
        if (r.matches()) {
            long from = Long.parseLong(r.group(2));
            long to = Long.parseLong(r.group(3));
            List<String> alternatives = new ArrayList<>();
            for (long k = Math.min(from, to); k <= Math.max(from, to) && alternatives.size() <= 100_000; k++) {
                alternatives.add(Long.toString(k));
            }
            return Pattern.compile(Pattern.quote(r.group(1)) + "(?:" + String.join("|", alternatives) + ")");
        }
        StringBuilder b = new StringBuilder();
        for (String part : spec.split("(?=[*?])|(?<=[*?])")) {
            b.append(part.equals("*") ? ".*" : part.equals("?") ? "." : Pattern.quote(part));
        }
        return Pattern.compile(b.toString());
    }

    private static int line(Node n) {
        return n.getStartMark().getLine() + 1;
    }
}
