package dev.hetrace.tracer.c;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fixed C text of the generated tracer: a resource file next to this class, cut into named
 * sections whose {@code ${name}} placeholders take what varies per configuration (the file's
 * first lines say how). Each file is read once, on first use; a missing or malformed one fails
 * with its name and what is wrong, since the generator cannot work without it.
 */
final class CTemplate {
    private static final String MARK = "@@ ";
    private static final String END = "end";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_]+)}");
    private static final ConcurrentMap<String, CTemplate> LOADED = new ConcurrentHashMap<>();

    private final String resource;
    /** Per section, its literal text and placeholder names alternating (literal first). */
    private final Map<String, List<String>> sections;

    private CTemplate(String resource, Map<String, List<String>> sections) {
        this.resource = resource;
        this.sections = sections;
    }

    /** The template in resource {@code file} of this package, read on first use. */
    static CTemplate of(String file) {
        return LOADED.computeIfAbsent(file, f -> parse(resourceName(f), read(f)));
    }

    private static String resourceName(String file) {
        return CTemplate.class.getPackageName().replace('.', '/') + "/" + file;
    }

    private static String read(String file) {
        try (InputStream in = CTemplate.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("the C template " + resourceName(file)
                        + " is missing from the classpath: this build of hetrace is incomplete");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the C template " + resourceName(file) + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** Parses a template's text ({@code resource} names it in errors). */
    static CTemplate parse(String resource, String text) {
        Map<String, List<String>> sections = new LinkedHashMap<>();
        String name = null;
        StringBuilder body = new StringBuilder();
        boolean ended = false;
        int lineNumber = 0;
        int nameLine = 0;
        for (String line : text.split("(?<=\n)", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            lineNumber++;
            if (ended) {
                throw malformed(resource, lineNumber, "text after the '@@ end' line");
            }
            if (line.startsWith(MARK)) {
                if (name != null) {
                    sections.put(name, parts(resource, nameLine, body.toString()));
                }
                name = line.substring(MARK.length()).strip();
                nameLine = lineNumber;
                body.setLength(0);
                if (name.equals(END)) {
                    ended = true;
                } else if (name.isEmpty() || sections.containsKey(name)) {
                    throw malformed(
                            resource,
                            lineNumber,
                            name.isEmpty() ? "a section without a name" : "section '" + name + "' again");
                }
            } else if (name != null) {
                body.append(line);
            }
        }
        if (!ended) {
            throw malformed(resource, lineNumber, "no final '@@ end' line (the file is cut short)");
        }
        return new CTemplate(resource, sections);
    }

    private static List<String> parts(String resource, int nameLine, String body) {
        List<String> parts = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(body);
        int from = 0;
        while (m.find()) {
            parts.add(body.substring(from, m.start()));
            parts.add(m.group(1));
            from = m.end();
        }
        String rest = body.substring(from);
        if (rest.contains("${")) {
            throw malformed(resource, nameLine, "a '${' that is not a placeholder in the section starting here");
        }
        parts.add(rest);
        return parts;
    }

    private static IllegalStateException malformed(String resource, int line, String what) {
        return new IllegalStateException("the C template " + resource + " is malformed at line " + line + ": " + what);
    }

    /**
     * The text of section {@code name} with its placeholders replaced: {@code values} holds
     * placeholder names and their values alternately, exactly the section's placeholders.
     */
    String fill(String name, String... values) {
        List<String> parts = sections.get(name);
        if (parts == null) {
            throw new IllegalArgumentException(resource + " has no section '" + name + "'");
        }
        if (values.length % 2 != 0) {
            throw new IllegalArgumentException("placeholder names and values do not pair up: " + List.of(values));
        }
        Map<String, String> byName = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i += 2) {
            byName.put(values[i], values[i + 1]);
        }
        Set<String> used = new HashSet<>();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            if (i % 2 == 0) {
                out.append(parts.get(i));
            } else {
                String value = byName.get(parts.get(i));
                if (value == null) {
                    throw new IllegalArgumentException(
                            resource + ", section '" + name + "': no value for ${" + parts.get(i) + "}");
                }
                out.append(value);
                used.add(parts.get(i));
            }
        }
        if (!used.equals(byName.keySet())) {
            Set<String> unused = new HashSet<>(byName.keySet());
            unused.removeAll(used);
            throw new IllegalArgumentException(resource + ", section '" + name + "' has no placeholder " + unused);
        }
        return out.toString();
    }
}
