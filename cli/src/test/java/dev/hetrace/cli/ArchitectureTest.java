package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The modules show the pipeline and depend only on modules to their left: read (ctf),
 * instrument (tracer), correlate (sync), the simulator beside them (sim), understand
 * (analysis), local web pages (web), show (view), measure (profile), then the command line
 * (cli) and the benchmarks (bench); each uses only the modules {@link #MAY_USE} names.
 * Checked on what each module's main code names (imports and qualified names) and on what
 * its pom declares; and the reader's decoder is used outside {@code ctf} only in the few
 * places {@link #CTF_INTERNAL_USES} names.
 */
class ArchitectureTest {
    /** The modules, each allowed to depend on those before it only. */
    static final List<String> ORDER =
            List.of("ctf", "tracer", "sync", "sim", "analysis", "web", "view", "profile", "cli", "bench");

    /**
     * The modules each module may use, all to its left: a stage uses the stages it builds on and
     * no other (the profile module measures runs and serves pages: it needs neither the analysis
     * nor the viewer).
     */
    static final Map<String, Set<String>> MAY_USE = Map.of(
            "ctf", Set.of(),
            "tracer", Set.of("ctf"),
            "sync", Set.of("ctf"),
            "sim", Set.of("ctf", "tracer", "sync"),
            "analysis", Set.of("ctf", "sync"),
            "web", Set.of(),
            "view", Set.of("ctf", "sync", "analysis", "web"),
            "profile", Set.of("ctf", "web"),
            "cli", Set.of("ctf", "tracer", "sync", "sim", "analysis", "web", "view", "profile"),
            "bench", Set.of("ctf", "tracer", "sync", "sim", "analysis", "web", "view", "profile", "cli"));

    /**
     * Types of {@code ctf} that are its decoder, not its reading API ({@code api}, {@code CtfTrace},
     * {@code EventCursor}, {@code EventPosition}), model ({@code metadata}) or writer
     * ({@code write}, {@code text}): the compiled plans and stream decoders, the parallel merge
     * and the packet index.
     */
    static final Pattern CTF_INTERNAL = Pattern.compile(
            "dev\\.hetrace\\.ctf\\.(decode\\.(?:[A-Z]\\w*|\\*)|ParallelMerge|PacketIndex|MergeOrder)(?!\\w)");

    /**
     * The only places outside {@code ctf} that may use its decoder, by source folder, and what
     * each uses (the list may shrink, never grow): copies of traces retimed in place, packet by
     * packet ({@code sync --out}); the benchmarks that measure the decoder itself. The print
     * command's parallel merge goes through the reading API ({@code api.ParallelPrint}).
     */
    static final Map<String, Set<String>> CTF_INTERNAL_USES = Map.of(
            "sync/src/main/java/dev/hetrace/sync/out",
                    Set.of("decode.ClockFields", "decode.Node", "decode.StreamDecoder", "decode.TracePlan"),
            "bench/src/main/java/dev/hetrace/bench", Set.of("decode.StreamDecoder"));

    private static final Pattern NAMED = Pattern.compile("\\bdev\\.hetrace\\.(\\w+)");

    static Path root() {
        return Path.of("..").toAbsolutePath().normalize();
    }

    @Test
    void theAllowedUsesPointLeft() {
        assertThat(MAY_USE.keySet()).containsExactlyInAnyOrderElementsOf(ORDER);
        for (String module : ORDER) {
            assertThat(MAY_USE.get(module))
                    .as("what %s may use", module)
                    .allSatisfy(used -> assertThat(ORDER.indexOf(used)).isLessThan(ORDER.indexOf(module)));
        }
    }

    @Test
    void everyModulesCodeNamesOnlyModulesToItsLeft() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (String module : ORDER) {
            for (Path file : sources(module)) {
                Matcher m = NAMED.matcher(Files.readString(file));
                while (m.find()) {
                    String named = m.group(1);
                    if (ORDER.contains(named)
                            && !named.equals(module)
                            && !MAY_USE.get(module).contains(named)) {
                        wrong.add(root().relativize(file) + " names dev.hetrace." + named);
                    }
                }
            }
        }
        assertThat(wrong)
                .as("dependencies to the right or not allowed (MAY_USE)")
                .isEmpty();
    }

    @Test
    void everyModulesPomDeclaresOnlyModulesToItsLeft() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String module : ORDER) {
            Element pom = DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(root().resolve(module).resolve("pom.xml").toFile())
                    .getDocumentElement();
            NodeList deps = pom.getElementsByTagName("dependency");
            for (int i = 0; i < deps.getLength(); i++) {
                Element d = (Element) deps.item(i);
                String artifact = d.getElementsByTagName("artifactId")
                        .item(0)
                        .getTextContent()
                        .strip();
                if (artifact.startsWith("hetrace-")) {
                    String named = artifact.substring("hetrace-".length());
                    assertThat(ORDER)
                            .as("module of %s in %s/pom.xml", artifact, module)
                            .contains(named);
                    NodeList scope = d.getElementsByTagName("scope");
                    boolean test = scope.getLength() > 0
                            && scope.item(0).getTextContent().strip().equals("test");
                    // tests may build their inputs with any module to the left (a simulated board, say)
                    if (test
                            ? ORDER.indexOf(named) >= ORDER.indexOf(module)
                            : !MAY_USE.get(module).contains(named)) {
                        wrong.add(module + "/pom.xml depends on " + artifact);
                    }
                }
            }
        }
        assertThat(wrong)
                .as("dependencies to the right or not allowed (MAY_USE)")
                .isEmpty();
    }

    @Test
    void theReadersDecoderIsUsedOutsideCtfOnlyWhereAllowed() throws IOException {
        List<String> wrong = new ArrayList<>();
        Map<String, Set<String>> used = new TreeMap<>();
        for (String module : ORDER.subList(1, ORDER.size())) {
            for (Path file : sources(module)) {
                String folder = root().relativize(file.getParent()).toString();
                Matcher m = CTF_INTERNAL.matcher(Files.readString(file));
                while (m.find()) {
                    String type = m.group(1);
                    used.computeIfAbsent(folder, k -> new TreeSet<>()).add(type);
                    if (!CTF_INTERNAL_USES.getOrDefault(folder, Set.of()).contains(type)) {
                        wrong.add(
                                root().relativize(file) + " uses dev.hetrace.ctf." + type
                                        + ": use the reading API (dev.hetrace.ctf.api, CtfTrace, EventCursor), the model or the writer instead");
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
        CTF_INTERNAL_USES.forEach((folder, types) -> assertThat(used.getOrDefault(folder, Set.of()))
                .as("%s no longer uses some of the decoder's types: remove them from the list", folder)
                .containsAll(types));
    }

    @Test
    void everyJavaSourceIsIndentedWithSpaces() throws IOException {
        List<String> tabbed = new ArrayList<>();
        for (String module : ORDER) {
            try (Stream<Path> s = Files.walk(root().resolve(module).resolve("src"))) {
                for (Path file :
                        s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    if (Files.readAllLines(file).stream().anyMatch(l -> l.startsWith("\t"))) {
                        tabbed.add(root().relativize(file).toString());
                    }
                }
            }
        }
        assertThat(tabbed)
                .as("Java sources indented with tabs (four spaces, as .editorconfig says)")
                .isEmpty();
    }

    private static List<Path> sources(String module) throws IOException {
        Path main = root().resolve(module).resolve("src/main/java");
        assertThat(main).as("sources of module %s", module).isDirectory();
        try (Stream<Path> s = Files.walk(main)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
