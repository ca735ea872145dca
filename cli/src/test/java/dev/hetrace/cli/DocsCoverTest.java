package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The user documentation keeps up with the command line: every command of {@code hetrace} (as
 * picocli's model of {@link Main} has it) has a section on its task's page whose heading names it
 * ({@code `hetrace stats`}), and that section names every option of the command; README.md and
 * docs/*.md speak to users (no issue numbers, no to-do lists) and their relative links lead to
 * files that exist.
 */
class DocsCoverTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** The page of each top-level command's task; a subcommand is documented on its parent's. */
    private static final Map<String, String> PAGES = new LinkedHashMap<>();

    static {
        PAGES.put("demo", "docs/sim.md");
        PAGES.put("sim", "docs/sim.md");
        PAGES.put("print", "docs/read.md");
        PAGES.put("tracer", "docs/instrument.md");
        PAGES.put("collect", "docs/instrument.md");
        PAGES.put("sync", "docs/sync.md");
        PAGES.put("stats", "docs/analysis.md");
        PAGES.put("diagnose", "docs/analysis.md");
        PAGES.put("waits", "docs/analysis.md");
        PAGES.put("pattern", "docs/analysis.md");
        PAGES.put("query", "docs/analysis.md");
        PAGES.put("export", "docs/analysis.md");
        PAGES.put("cache", "docs/analysis.md");
        PAGES.put("view", "docs/view.md");
        PAGES.put("report", "docs/view.md");
        PAGES.put("profile", "docs/profiling.md");
        PAGES.put("monitor", "docs/profiling.md");
    }

    @Test
    void everyCommandHasASectionOnItsTaskPageThatNamesEachOfItsOptions() throws IOException {
        List<CommandSpec> commands = new ArrayList<>();
        walk(new CommandLine(new Main()), commands);
        assertThat(commands)
                .extracting(CommandSpec::qualifiedName)
                .contains("hetrace print", "hetrace tracer generate", "hetrace profile sweep", "hetrace monitor");
        List<String> missing = new ArrayList<>();
        for (CommandSpec c : commands) {
            String top = c.qualifiedName().split(" ")[1];
            String page = PAGES.get(top);
            if (page == null) {
                missing.add(c.qualifiedName() + ": no page is assigned to '" + top + "' (DocsCoverTest.PAGES)");
                continue;
            }
            List<String> lines = Files.readAllLines(ROOT.resolve(page));
            String section = section(lines, "`" + c.qualifiedName() + "`");
            boolean parentOnly =
                    !c.subcommands().isEmpty() && documentedOptions(c).isEmpty();
            if (section == null) {
                if (!parentOnly) {
                    missing.add(page + ": no heading names `" + c.qualifiedName() + "`");
                }
                continue;
            }
            for (OptionSpec o : documentedOptions(c)) {
                if (!Pattern.compile(Pattern.quote(o.longestName()) + "(?![\\w-])")
                        .matcher(section)
                        .find()) {
                    missing.add(page + ": the section of `" + c.qualifiedName() + "` does not name " + o.longestName());
                }
            }
        }
        assertThat(missing)
                .as("commands and options missing from their task pages")
                .isEmpty();
    }

    @Test
    void readmeLinksEveryTaskPageAndTheArchitecture() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        for (String page : new java.util.TreeSet<>(PAGES.values())) {
            assertThat(readme).as("README.md links " + page).contains("](" + page + ")");
        }
        assertThat(readme).contains("](docs/architecture.md)");
    }

    @Test
    void theDocsSpeakToUsers() throws IOException {
        Pattern issue = Pattern.compile("(?i)\\bissues?\\s+#?\\d+|(?<![\\w&/#])#\\d+\\b");
        Pattern todo = Pattern.compile("(?i)\\bleft to do\\b|\\bTODO\\b|^#+\\s*to do\\b");
        List<String> found = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                String where = ROOT.relativize(doc) + ":" + (i + 1) + ": ";
                if (issue.matcher(lines.get(i)).find()) {
                    found.add(where + "an issue number: " + lines.get(i).strip());
                }
                if (todo.matcher(lines.get(i)).find()) {
                    found.add(where + "a to-do: " + lines.get(i).strip());
                }
            }
        }
        assertThat(found).isEmpty();
    }

    @Test
    void everyRelativeLinkLeadsToAFileThatExists() throws IOException {
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = link.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.startsWith("#") || target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                        continue; // an anchor in the same page, or a URL
                    }
                    links++;
                    String path = target.replaceFirst("#.*$", "");
                    if (!Files.exists(doc.getParent().resolve(path))) {
                        broken.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + target);
                    }
                }
            }
        }
        assertThat(broken).as("relative links to nothing").isEmpty();
        assertThat(links).isGreaterThan(10);
    }

    /** README.md and every page under docs/. */
    private static List<Path> docs() throws IOException {
        List<Path> all = new ArrayList<>();
        all.add(ROOT.resolve("README.md"));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            pages.filter(p -> p.toString().endsWith(".md")).sorted().forEach(all::add);
        }
        return all;
    }

    /** The options a page must name: all but the standard help and version options. */
    private static List<OptionSpec> documentedOptions(CommandSpec c) {
        return c.options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp() && !o.hidden())
                .toList();
    }

    private static void walk(CommandLine cl, List<CommandSpec> out) {
        CommandSpec spec = cl.getCommandSpec();
        if (!spec.name().equals("hetrace")) {
            out.add(spec);
        }
        cl.getSubcommands().forEach((name, child) -> {
            if (!name.equals("help") && !child.getCommandSpec().usageMessage().hidden()) {
                walk(child, out);
            }
        });
    }

    /**
     * The text under the first heading that holds {@code name}, up to the next heading of the same
     * or a higher level (its subsections included); null when no heading holds it. Lines in
     * fenced code blocks are never headings.
     */
    static String section(List<String> lines, String name) {
        boolean fenced = false;
        int level = 0;
        StringBuilder text = null;
        for (String line : lines) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            int h = fenced ? 0 : headingLevel(line);
            if (text != null) {
                if (h > 0 && h <= level) {
                    break;
                }
                text.append(line).append('\n');
            } else if (h > 0 && line.contains(name)) {
                level = h;
                text = new StringBuilder(line).append('\n');
            }
        }
        return text == null ? null : text.toString();
    }

    private static int headingLevel(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '#') {
            n++;
        }
        return n > 0 && n <= 6 && n < line.length() && line.charAt(n) == ' ' ? n : 0;
    }
}
