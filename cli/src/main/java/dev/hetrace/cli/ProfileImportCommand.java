package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.imports.Importer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace profile import}: counter data from other tools into a campaign file. */
@Command(name = "import", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Read counter data from other tools into a campaign (campaign.json).", "",
        "FORMAT is one of (docs/profiling.md describes each):",
        "  pmctrack   pmctrack's output: [Event-to-counter mappings], then",
        "             'nsample pid event pmc0 pmc1 ...' rows, time-based (event tick)",
        "             or event-based; one thread per pid",
        "  perf-stat  'perf stat -x,' output, plain, with -r, -I intervals and",
        "             --per-thread; <not supported>/<not counted> kept as such",
        "  ctf        CTF traces (directories) whose events carry LTTng perf",
        "             contexts (perf_thread_*, perf_cpu_*): per-thread samples",
        "  probes     hetrace's probe CSV (METrICS-like probe exports)", "",
        "Each file gives one run (a probe CSV one per run id); several files are",
        "labelled source=FILE. Malformed input is reported in one line: file, line",
        "and what is wrong.", "",
        "Examples:",
        "  hetrace profile import pmctrack mcf.txt -o mcf.json",
        "  hetrace profile import perf-stat run-*.csv -o runs.json",
        "  hetrace profile import ctf lttng-traces/session/ust -o ust.json"},
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:the campaign was written", "1:an input is malformed or unreadable", "2:usage error"})
final class ProfileImportCommand extends ProfileAnalysisCommand {
    @Parameters(index = "0", paramLabel = "FORMAT", description = "pmctrack, perf-stat, ctf or probes.")
    String format;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "FILE", description = "The files (CTF: trace directories).")
    List<Path> files;

    @Option(names = {"-o", "--output"}, paramLabel = "CAMPAIGN.json", required = true,
        description = "The campaign file to write.")
    Path output;

    @Option(names = "--name", paramLabel = "NAME", description = "The campaign's name (default: the output's file name"
        + " without .json).")
    String name;

    @Override
    int run() throws IOException {
        Importer importer = Importer.named(format);
        for (Path f : files) {
            if (!Files.exists(f)) {
                throw new NoSuchFileException(f.toString());
            }
        }
        String n = name != null ? name : output.getFileName().toString().replaceFirst("\\.json$", "");
        Campaign c = importer.campaign(n, files);
        CampaignFile.write(c, output);
        long samples = c.runs().stream().mapToLong(r -> r.samples().size()).sum();
        return print(String.format(Locale.ROOT, "%s: %d run%s, %d sample%s, from %d file%s (%s)%n", output,
            c.runs().size(), c.runs().size() == 1 ? "" : "s", samples, samples == 1 ? "" : "s", files.size(),
            files.size() == 1 ? "" : "s", importer.format()));
    }
}
