package dev.hetrace.view;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Perfetto trace as Debian's {@code protoc} decodes it against Perfetto's schema (the shared
 * specs' {@code perfetto_trace.proto}), read back into a tree of messages: what the tests check
 * the written files with, through a decoder that is not hetrace's.
 */
final class PerfettoText {
    /** A message: its fields by name, each a list of values (strings, as protoc prints them) or messages. */
    static final class Msg {
        final Map<String, List<Object>> fields = new LinkedHashMap<>();

        void add(String name, Object v) {
            fields.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
        }

        List<Msg> all(String name) {
            List<Msg> out = new ArrayList<>();
            for (Object o : fields.getOrDefault(name, List.of())) {
                out.add((Msg) o);
            }
            return out;
        }

        Msg msg(String name) {
            List<Msg> a = all(name);
            return a.isEmpty() ? null : a.getFirst();
        }

        boolean has(String name) {
            return fields.containsKey(name);
        }

        String str(String name) {
            List<Object> v = fields.get(name);
            return v == null ? null : (String) v.getFirst();
        }

        List<String> strs(String name) {
            List<String> out = new ArrayList<>();
            for (Object o : fields.getOrDefault(name, List.of())) {
                out.add((String) o);
            }
            return out;
        }

        long num(String name) {
            return Long.parseUnsignedLong(str(name));
        }
    }

    private PerfettoText() {}

    /** The schema in the shared specs: skips here, fails under CI when absent. */
    static Path schema() {
        Path p = Path.of("../../shared/specs/perfetto/perfetto_trace.proto")
                .toAbsolutePath()
                .normalize();
        Required.that(Files.isRegularFile(p), "Perfetto's schema is not at " + p);
        return p;
    }

    /** The packets of {@code file}, decoded by protoc. */
    static List<Msg> decode(Path file) throws IOException, InterruptedException {
        Required.tool("protoc", "--version");
        Path schema = schema();
        Path text = Files.createTempFile(file.getParent(), "decoded", ".txt");
        Path err = Files.createTempFile(file.getParent(), "decoded", ".err");
        Process p = new ProcessBuilder(
                        "protoc",
                        "--proto_path=" + schema.getParent(),
                        "--decode=perfetto.protos.Trace",
                        schema.getFileName().toString())
                .redirectInput(file.toFile())
                .redirectOutput(text.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(err)).isZero();
        assertThat(Files.readString(err)).as("protoc's warnings").isEmpty();
        Msg trace = parse(Files.readAllLines(text, StandardCharsets.UTF_8));
        Files.delete(text);
        Files.delete(err);
        return trace.all("packet");
    }

    static Msg parse(List<String> lines) {
        List<Msg> stack = new ArrayList<>();
        stack.add(new Msg());
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.equals("}")) {
                stack.removeLast();
            } else if (line.endsWith(" {")) {
                Msg child = new Msg();
                stack.getLast().add(line.substring(0, line.length() - 2), child);
                stack.add(child);
            } else {
                int colon = line.indexOf(": ");
                String value = line.substring(colon + 2);
                stack.getLast().add(line.substring(0, colon), value.startsWith("\"") ? unquote(value) : value);
            }
        }
        assertThat(stack).hasSize(1);
        return stack.getFirst();
    }

    /** A string as protoc's text format writes it (C escapes, octal for other bytes), as UTF-8. */
    static String unquote(String q) {
        byte[] out = new byte[q.length()];
        int n = 0;
        for (int i = 1; i < q.length() - 1; i++) {
            char c = q.charAt(i);
            if (c != '\\') {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                for (byte x : b) {
                    if (n == out.length) {
                        out = java.util.Arrays.copyOf(out, out.length * 2);
                    }
                    out[n++] = x;
                }
                continue;
            }
            char e = q.charAt(++i);
            int v;
            switch (e) {
                case 'n' -> v = '\n';
                case 't' -> v = '\t';
                case 'r' -> v = '\r';
                case '"', '\'', '\\' -> v = e;
                default -> {
                    v = Integer.parseInt(q.substring(i, i + 3), 8);
                    i += 2;
                }
            }
            out[n++] = (byte) v;
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
