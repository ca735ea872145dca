package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.imports.Importer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace profile import}: counter data from other tools into a campaign file. */
@Command(
        name = "import",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Read counter data from other tools into a campaign (campaign.json).",
            "",
            "FORMAT is one of:",
            "  pmctrack   pmctrack's output: [Event-to-counter mappings], then",
            "             'nsample pid event pmc0 pmc1 ...' rows, time-based (event tick)",
            "             or event-based; one thread per pid",
            "  perf-stat  'perf stat -x,' output, plain, with -r, -I intervals and",
            "             --per-thread; <not supported>/<not counted> kept as such",
            "  ctf        CTF traces (directories) whose events carry LTTng perf",
            "             contexts (perf_thread_*, perf_cpu_*): per-thread samples",
            "  probes     hetrace's probe CSV (METrICS-like probe exports)",
            "",
            "Each file gives one run (a probe CSV one per run id), named after the file.",
            "--label adds configuration labels to every run read (stress=2 for runs",
            "measured under stress level 2: 'hetrace profile stats' then draws the",
            "slowdown curve); --append adds the runs to an existing campaign. Malformed",
            "input is reported in one line: file, line and what is wrong.",
            "",
            "Examples:",
            "  hetrace profile import pmctrack mcf.txt -o mcf.json",
            "  hetrace profile import perf-stat iso-*.csv --label stress=0 -o sweep.json",
            "  hetrace profile import perf-stat s4-*.csv --label stress=4 --append -o sweep.json",
            "  hetrace profile import ctf lttng-traces/session/ust -o ust.json"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the campaign was written", "1:an input is malformed or unreadable", "2:usage error"})
final class ProfileImportCommand extends ProfileAnalysisCommand {
    @Parameters(index = "0", paramLabel = "FORMAT", description = "pmctrack, perf-stat, ctf or probes.")
    String format;

    @Parameters(
            index = "1..*",
            arity = "1..*",
            paramLabel = "FILE",
            description = "The files (CTF: trace directories).")
    List<Path> files;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "CAMPAIGN.json",
            required = true,
            description = "The campaign file to write.")
    Path output;

    @Option(
            names = "--name",
            paramLabel = "NAME",
            description = "The campaign's name (default: the output's file name" + " without .json).")
    String name;

    @Option(
            names = "--label",
            paramLabel = "KEY=VALUE",
            split = ",",
            description = "Add this configuration label" + " to every run read (repeatable, or comma-separated).")
    List<String> labels = new ArrayList<>();

    @Option(names = "--append", description = "Add the runs to the campaign in the output file (created if missing).")
    boolean append;

    @Override
    int run() throws IOException {
        Importer importer = Importer.named(format);
        Map<String, String> added = new LinkedHashMap<>();
        for (String l : labels) {
            int eq = l.indexOf('=');
            if (eq <= 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--label " + l + ": expected KEY=VALUE");
            }
            added.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
        }
        for (Path f : files) {
            mustExist(f);
        }
        String n = name != null ? name : output.getFileName().toString().replaceFirst("\\.json$", "");
        Campaign c = importer.campaign(n, files, added);
        int before = 0;
        if (append && Files.exists(output)) {
            Campaign old = campaign(output);
            before = old.runs().size();
            List<Run> runs = new ArrayList<>(old.runs());
            runs.addAll(c.runs());
            c = new Campaign(old.name(), old.host(), Importer.relabel(runs, Map.of()), old.hardware(), old.curve());
        }
        CampaignFile.write(c, output);
        long samples = c.runs().subList(before, c.runs().size()).stream()
                .mapToLong(r -> r.samples().size())
                .sum();
        int read = c.runs().size() - before;
        return print(String.format(
                Locale.ROOT,
                "%s: %d run%s, %d sample%s, from %d file%s (%s)%s%n",
                output,
                read,
                read == 1 ? "" : "s",
                samples,
                samples == 1 ? "" : "s",
                files.size(),
                files.size() == 1 ? "" : "s",
                importer.format(),
                before > 0 ? "; " + c.runs().size() + " runs in all" : ""));
    }
}
