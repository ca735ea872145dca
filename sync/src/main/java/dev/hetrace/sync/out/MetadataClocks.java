package dev.hetrace.sync.out;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hetrace.ctf.metadata.MetadataException;
import dev.hetrace.ctf.metadata.MetadataReader;
import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites attributes of a trace's clock blocks ({@code freq}, {@code offset_s}, {@code offset},
 * {@code absolute}) and leaves every other character of the metadata as it was (comments, layout,
 * other attributes),
 * so that a synchronized copy differs from its original only where the times do. Packetized
 * metadata is unpacked, edited and packed again in its own byte order, with its own UUID.
 *
 * <p>CTF 2 metadata (a JSON text sequence) gets the same edits in its clock class fragments:
 * {@code frequency}, {@code offset-from-origin} ({@code seconds} and {@code cycles}, normalised
 * so that the cycles are below the frequency, as CTF 2 requires) and, for {@code absolute},
 * {@code "origin": "unix-epoch"} (what CTF 2 says of a clock that is one reference across
 * traces, as hetrace's CTF 2 writer says it). Only the edited fragments are written again;
 * every other fragment keeps its bytes.
 */
final class MetadataClocks {
    private static final int PACKET_MAGIC = 0x75D11D57;
    /** The record separator before every CTF 2 fragment (RFC 7464). */
    private static final char RS = 0x1E;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PACKET_HEADER_BYTES = 37;
    /** LTTng's metadata packets are 4 KiB; any size is valid. */
    private static final int PACKET_BYTES = 4096;

    private MetadataClocks() {}

    /**
     * The metadata file {@code original} with new attribute values: by clock name, by attribute
     * name, the value as TSDL text.
     */
    static byte[] rewrite(byte[] original, Map<String, Map<String, String>> fits) throws MetadataException {
        ByteOrder order = packetOrder(original);
        String text = order == null ? new String(original, StandardCharsets.UTF_8) : MetadataReader.text(original);
        String rewritten = isCtf2(text) ? rewriteJson(text, fits) : rewriteText(text, fits);
        byte[] edited = rewritten.getBytes(StandardCharsets.UTF_8);
        return order == null ? edited : packetize(edited, Arrays.copyOfRange(original, 4, 20), order);
    }

    /** Whether (depacketized) metadata text is CTF 2: a JSON text sequence, starting with a record separator. */
    static boolean isCtf2(String text) {
        return !text.isEmpty() && text.charAt(0) == RS;
    }

    /**
     * The CTF 2 metadata {@code text} with the clock classes named in {@code fits} edited (see
     * the class comment); a clock class is known by its {@code name}, else its {@code id}, as
     * readers name it.
     */
    static String rewriteJson(String text, Map<String, Map<String, String>> fits) throws MetadataException {
        StringBuilder out = new StringBuilder(text.length() + 256);
        Set<String> seen = new HashSet<>();
        int start = text.indexOf(RS);
        out.append(text, 0, start);
        int index = 0;
        while (start >= 0) {
            int end = text.indexOf(RS, start + 1);
            String fragment = text.substring(start + 1, end < 0 ? text.length() : end);
            out.append(RS).append(clockFragment(fragment, index, fits, seen));
            start = end;
            index++;
        }
        for (String name : fits.keySet()) {
            if (!seen.contains(name)) {
                throw new MetadataException("clock '" + name + "' has no clock class fragment in the metadata");
            }
        }
        return out.toString();
    }

    /** The fragment as it was, or edited when it is a clock class to edit (its trailing white space kept). */
    private static String clockFragment(
            String fragment, int index, Map<String, Map<String, String>> fits, Set<String> seen)
            throws MetadataException {
        if (!fragment.contains("clock-class")) {
            return fragment;
        }
        JsonNode node;
        try {
            node = JSON.readTree(fragment);
        } catch (JsonProcessingException e) {
            throw new MetadataException("fragment " + index + ": not JSON: " + e.getOriginalMessage());
        }
        if (!(node instanceof ObjectNode f)
                || !"clock-class".equals(f.path("type").asText())) {
            return fragment;
        }
        String name =
                f.hasNonNull("name") ? f.get("name").asText() : f.path("id").asText();
        Map<String, String> wanted = fits.get(name);
        if (wanted == null) {
            return fragment;
        }
        seen.add(name);
        String where = "fragment " + index + " (clock class \"" + name + "\")";
        try {
            BigInteger frequency = wanted.containsKey("freq")
                    ? new BigInteger(wanted.get("freq"))
                    : f.path("frequency").bigIntegerValue();
            JsonNode old = f.get("offset-from-origin");
            BigInteger seconds = wanted.containsKey("offset_s")
                    ? new BigInteger(wanted.get("offset_s"))
                    : old == null ? BigInteger.ZERO : old.path("seconds").bigIntegerValue();
            BigInteger cycles = wanted.containsKey("offset")
                    ? new BigInteger(wanted.get("offset"))
                    : old == null ? BigInteger.ZERO : old.path("cycles").bigIntegerValue();
            for (String attribute : wanted.keySet()) {
                switch (attribute) {
                    case "freq", "offset_s", "offset" -> {}
                    case "absolute" -> {
                        if (Boolean.parseBoolean(wanted.get(attribute))) {
                            f.put("origin", "unix-epoch");
                        }
                    }
                    default ->
                        throw new MetadataException(
                                where + ": no CTF 2 property for the clock attribute '" + attribute + "'");
                }
            }
            if (frequency.signum() <= 0) {
                throw new MetadataException(where + ": frequency " + frequency + " is not positive");
            }
            if (wanted.containsKey("freq")) {
                f.put("frequency", frequency);
            }
            if (wanted.containsKey("offset_s") || wanted.containsKey("offset") || wanted.containsKey("freq")) {
                // CTF 2 wants 0 <= cycles < frequency: whole seconds move to the seconds
                BigInteger[] qr = cycles.divideAndRemainder(frequency);
                if (qr[1].signum() < 0) {
                    qr[0] = qr[0].subtract(BigInteger.ONE);
                    qr[1] = qr[1].add(frequency);
                }
                seconds = seconds.add(qr[0]);
                if (old != null || seconds.signum() != 0 || qr[1].signum() != 0) {
                    ObjectNode offset = old instanceof ObjectNode o ? o : f.putObject("offset-from-origin");
                    offset.put("seconds", seconds);
                    offset.put("cycles", qr[1]);
                }
            }
        } catch (NumberFormatException e) {
            throw new MetadataException(where + ": " + e.getMessage());
        }
        int trail = fragment.length();
        while (trail > 0 && Character.isWhitespace(fragment.charAt(trail - 1))) {
            trail--;
        }
        try {
            return JSON.writeValueAsString(f) + fragment.substring(trail);
        } catch (JsonProcessingException e) {
            throw new MetadataException(where + ": " + e.getOriginalMessage());
        }
    }

    private static ByteOrder packetOrder(byte[] bytes) {
        if (bytes.length < 4) {
            return null;
        }
        int be = ByteBuffer.wrap(bytes, 0, 4).order(ByteOrder.BIG_ENDIAN).getInt();
        return be == PACKET_MAGIC
                ? ByteOrder.BIG_ENDIAN
                : Integer.reverseBytes(be) == PACKET_MAGIC ? ByteOrder.LITTLE_ENDIAN : null;
    }

    static byte[] packetize(byte[] text, byte[] uuid, ByteOrder order) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length + text.length / 64 + PACKET_BYTES);
        int per = PACKET_BYTES - PACKET_HEADER_BYTES;
        for (int at = 0; at < text.length; at += per) {
            int n = Math.min(per, text.length - at);
            ByteBuffer h = ByteBuffer.allocate(PACKET_HEADER_BYTES).order(order);
            h.putInt(PACKET_MAGIC).put(uuid).putInt(0);
            h.putInt((PACKET_HEADER_BYTES + n) * 8).putInt((PACKET_HEADER_BYTES + n) * 8);
            h.put((byte) 0).put((byte) 0).put((byte) 0).put((byte) 1).put((byte) 8);
            out.writeBytes(h.array());
            out.write(text, at, n);
        }
        return out.toByteArray();
    }

    /** An attribute of a clock block: its name and where its value lies in the text. */
    private record Attribute(String name, int valueStart, int valueEnd) {}

    /** A replacement of {@code [start, end)} by {@code text}. */
    private record Edit(int start, int end, String text) {}

    static String rewriteText(String text, Map<String, Map<String, String>> fits) throws MetadataException {
        List<Edit> edits = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int depth = 0;
        int i = 0;
        int n = text.length();
        while (i < n) {
            int next = skipTrivia(text, i);
            if (next != i) {
                i = next;
                continue;
            }
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
                i++;
            } else if (c == '}') {
                depth--;
                i++;
            } else if (depth == 0
                    && text.startsWith("clock", i)
                    && (i == 0 || !isWord(text.charAt(i - 1)))
                    && (i + 5 >= n || !isWord(text.charAt(i + 5)))) {
                int open = skipAllTrivia(text, i + 5);
                if (open < n && text.charAt(open) == '{') {
                    i = clockBlock(text, open, fits, edits, seen);
                } else {
                    i += 5;
                }
            } else {
                i++;
            }
        }
        for (String name : fits.keySet()) {
            if (!seen.contains(name)) {
                throw new MetadataException("clock '" + name + "' has no clock block in the metadata text");
            }
        }
        StringBuilder out = new StringBuilder(text);
        for (int k = edits.size() - 1; k >= 0; k--) {
            Edit e = edits.get(k);
            out.replace(e.start(), e.end(), e.text());
        }
        return out.toString();
    }

    /** Reads the clock block opening at {@code open}, notes its edits; returns where it ends. */
    private static int clockBlock(
            String text, int open, Map<String, Map<String, String>> fits, List<Edit> edits, Set<String> seen)
            throws MetadataException {
        List<Attribute> attributes = new ArrayList<>();
        int i = open + 1;
        int n = text.length();
        int depth = 1;
        int statement = i;
        int close = -1;
        while (i < n && close < 0) {
            int next = skipTrivia(text, i);
            if (next != i) {
                i = next;
                continue;
            }
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
                if (depth == 0) {
                    close = i;
                }
            } else if (c == ';' && depth == 1) {
                attribute(text, statement, i, attributes);
                statement = i + 1;
            }
            i++;
        }
        if (close < 0) {
            throw new MetadataException("clock block has no closing brace");
        }
        String name = null;
        for (Attribute a : attributes) {
            if (a.name().equals("name")) {
                name = text.substring(a.valueStart(), a.valueEnd())
                        .replace("\"", "")
                        .strip();
            }
        }
        Map<String, String> wanted = name == null ? null : fits.get(name);
        if (wanted != null) {
            seen.add(name);
            Map<String, String> values = new LinkedHashMap<>(wanted);
            for (Attribute a : attributes) {
                String v = values.remove(a.name());
                if (v != null) {
                    edits.add(new Edit(a.valueStart(), a.valueEnd(), v));
                }
            }
            // Attributes the block did not say (their defaults) go at its end.
            StringBuilder missing = new StringBuilder();
            values.forEach((k, v) ->
                    missing.append(' ').append(k).append(" = ").append(v).append(';'));
            if (!missing.isEmpty()) {
                edits.add(new Edit(close, close, missing.append(' ').toString()));
            }
        }
        return close + 1;
    }

    /** Notes {@code name = value} in {@code [from, semicolon)}, if the statement is one. */
    private static void attribute(String text, int from, int semicolon, List<Attribute> out) {
        int eq = -1;
        for (int i = from; i < semicolon; i++) {
            int next = skipTrivia(text, i);
            if (next != i) {
                i = next - 1;
                continue;
            }
            if (text.charAt(i) == '=') {
                eq = i;
                break;
            }
        }
        if (eq < 0) {
            return;
        }
        String name = stripTrivia(text.substring(from, eq));
        int start = skipAllTrivia(text, eq + 1);
        int end = semicolon;
        while (end > start && Character.isWhitespace(text.charAt(end - 1))) {
            end--;
        }
        out.add(new Attribute(name, start, end));
    }

    private static String stripTrivia(String s) {
        return s.replaceAll("/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ").strip();
    }

    private static boolean isWord(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /** Past whitespace and comments from {@code i}. */
    private static int skipAllTrivia(String text, int i) {
        while (i < text.length()) {
            char c = text.charAt(i);
            int next = c == '"' || c == '\'' ? i : skipTrivia(text, i);
            if (next == i) {
                if (!Character.isWhitespace(text.charAt(i))) {
                    return i;
                }
                next = i + 1;
            }
            i = next;
        }
        return i;
    }

    /** Past the comment, string or character literal at {@code i}, or {@code i} itself when none starts there. */
    private static int skipTrivia(String text, int i) {
        int n = text.length();
        char c = text.charAt(i);
        if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
            int end = text.indexOf("*/", i + 2);
            return end < 0 ? n : end + 2;
        }
        if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
            int end = text.indexOf('\n', i + 2);
            return end < 0 ? n : end + 1;
        }
        if (c == '"' || c == '\'') {
            int j = i + 1;
            while (j < n && text.charAt(j) != c) {
                j += text.charAt(j) == '\\' ? 2 : 1;
            }
            return Math.min(n, j + 1);
        }
        return i;
    }
}
