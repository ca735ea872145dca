package dev.hetrace.cli;

import dev.hetrace.analysis.index.TraceIndex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code hetrace cache}: what hetrace keeps in its cache (indexes, kept timelines), and removing it. */
@Command(
        name = "cache",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "List what hetrace keeps in its cache, or remove it.",
            "",
            "'hetrace query' and 'export' keep an index of each set of traces (a folder,",
            "PATHS-KEY.index), 'hetrace view' its timeline (PATHS-KEY.timeline): PATHS",
            "hashes the traces' paths, KEY their files' sizes and times too. A new state",
            "of the same traces replaces the old one's, but the entries of traces no",
            "longer read stay. Without options, lists the entries: kind, size, when last",
            "used, the traces (an index knows them; a timeline shares its PATHS with the",
            "index of the same traces, if there is one).",
            "",
            "Examples:",
            "  hetrace cache                     # what is there, and how big",
            "  hetrace cache --older-than 30d    # remove what was not used for 30 days",
            "  hetrace cache --clear             # remove every entry"
        })
final class CacheCommand extends HetraceCommand {
    @Mixin
    IndexOptions index = new IndexOptions();

    @Option(
            names = "--older-than",
            paramLabel = "AGE",
            description = {
                "Remove the entries not used for AGE: a number and a unit,",
                "d (days), h, m or s; e.g. 30d, 12h."
            })
    String olderThan;

    @Option(names = "--clear", description = "Remove every entry.")
    boolean clear;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final Pattern AGE = Pattern.compile("([0-9]+)([dhms])");
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);

    /** Something kept: its file or folder, kind, bytes, last use, the traces it is of (empty: unknown). */
    private record Entry(Path path, String kind, long bytes, Instant used, List<String> traces) {}

    @Override
    public Integer call() throws IOException {
        if (clear && olderThan != null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--clear removes every entry: give it or --older-than, not both");
        }
        Path dir = index.dir();
        Duration age = olderThan == null ? null : age(olderThan);
        if (!Files.isDirectory(dir)) {
            return print(dir + ": no cache yet (nothing kept)\n");
        }
        List<Entry> entries = entries(dir);
        StringBuilder out = new StringBuilder();
        if (clear || age != null) {
            Instant before = clear ? null : Instant.now().minus(age);
            long freed = 0;
            int removed = 0;
            for (Entry e : entries) {
                if (clear || e.used().isBefore(before)) {
                    TraceIndex.deleteTree(e.path());
                    freed += e.bytes();
                    removed++;
                    out.append("removed ")
                            .append(e.path())
                            .append(" (")
                            .append(size(e.bytes()))
                            .append(")\n");
                }
            }
            out.append(String.format(
                    Locale.ROOT,
                    "%s: %d of %d entries removed, %s freed%n",
                    dir,
                    removed,
                    entries.size(),
                    size(freed)));
            return print(out.toString());
        }
        long total = entries.stream().mapToLong(Entry::bytes).sum();
        out.append(String.format(
                Locale.ROOT,
                "%s: %d %s, %s%n",
                dir,
                entries.size(),
                entries.size() == 1 ? "entry" : "entries",
                size(total)));
        for (Entry e : entries) {
            String traces = e.traces().isEmpty()
                    ? switch (e.kind()) {
                        case "timeline" -> "(traces unknown: viewed, never queried)";
                        case "old index" -> "(hetrace's earlier format: never read again)";
                        default -> "(a build cut short, or running now)";
                    }
                    : e.traces().size() == 1
                            ? e.traces().getFirst()
                            : e.traces().getFirst() + " and " + (e.traces().size() - 1) + " more";
            out.append(String.format(
                    Locale.ROOT,
                    "  %-9s %10s  %s  %s%n",
                    e.kind(),
                    size(e.bytes()),
                    WHEN.format(e.used().atZone(ZoneId.systemDefault())),
                    traces));
            out.append("            ").append(e.path().getFileName()).append('\n');
        }
        return print(out.toString());
    }

    /** AGE as typed: a number and a unit. */
    static Duration age(String text) {
        Matcher m = AGE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "--older-than " + text + ": expected a number and a unit (d, h, m, s), e.g. 30d");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "d" -> Duration.ofDays(n);
            case "h" -> Duration.ofHours(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** What hetrace put in {@code dir}, newest use first; anything else there is left alone. */
    private static List<Entry> entries(Path dir) throws IOException {
        List<Path> paths;
        try (Stream<Path> s = Files.list(dir)) {
            // the indexes first: a timeline of the same traces (same PATHS-) is named by its index's traces
            paths = s.sorted(Comparator.comparing((Path p) -> !isIndex(p))).toList();
        }
        Map<String, List<String>> tracesByPaths = new HashMap<>();
        List<Entry> out = new ArrayList<>();
        for (Path p : paths) {
            String name = p.getFileName().toString();
            String kind = name.contains(".tmp-")
                    ? "leftover" // a build cut short (or running now)
                    : isIndex(p)
                            ? "index"
                            : name.endsWith(".timeline")
                                    ? "timeline"
                                    : TraceIndex.OLD_FORMAT.matcher(name).matches() ? "old index" : null;
            if (kind == null) {
                continue;
            }
            List<String> traces = List.of();
            if (kind.equals("index")) {
                try {
                    traces = TraceIndex.tracePaths(p);
                    tracesByPaths.put(TraceIndex.pathsPrefix(name), traces);
                } catch (SQLException | RuntimeException e) {
                    traces = List.of("(unreadable: " + TraceIndex.firstLine(e.getMessage()) + ")");
                }
            } else if (kind.equals("timeline") && !TraceIndex.pathsPrefix(name).isEmpty()) {
                traces = tracesByPaths.getOrDefault(TraceIndex.pathsPrefix(name), List.of());
            }
            out.add(new Entry(
                    p,
                    kind,
                    bytes(p),
                    Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toInstant(),
                    traces));
        }
        out.sort(Comparator.comparing(Entry::used).reversed());
        return out;
    }

    private static boolean isIndex(Path p) {
        String name = p.getFileName().toString();
        return name.endsWith(".index") && !name.contains(".tmp-") && Files.isDirectory(p);
    }

    private static long bytes(Path p) throws IOException {
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            return Files.size(p);
        }
        long n = 0;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) {
                n += Files.size(f);
            }
        }
        return n;
    }

    private static String size(long bytes) {
        return bytes >= 1e9
                ? String.format(Locale.ROOT, "%.2f GB", bytes / 1e9)
                : bytes >= 1e6
                        ? String.format(Locale.ROOT, "%.1f MB", bytes / 1e6)
                        : String.format(Locale.ROOT, "%.1f kB", bytes / 1e3);
    }
}
