package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.Run;
import dev.hetrace.profile.perf.CampaignRunner;
import dev.hetrace.profile.perf.Cpus;
import dev.hetrace.profile.perf.Stressor;
import dev.hetrace.profile.perf.StressorSpec;
import dev.hetrace.profile.stats.Distribution;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace profile run}: a workload N times under perf stat, optionally against a stressor. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a workload N times under perf stat and summarize its runtime and counters.",
            "",
            "Each repetition is one 'perf stat -x,' of the command: its runtime (wall",
            "clock), user and system time, and the counters of the events (the software",
            "events task-clock, page-faults, context-switches and cpu-migrations always;",
            "hardware events such as cycles or instructions when this machine's PMU exposes",
            "them: the summary names the events it could not count). The workload's own",
            "output goes to DIR/workload.log; a workload that exits with a non-zero status",
            "stops the campaign. The runs are written to DIR/campaign.json for the",
            "analyses.",
            "",
            "--stressor runs hetrace's memory stressor on the other CPUs during every",
            "repetition: SPEC is TARGET[:stride=BYTES][:rw=read|write|rmw] where TARGET is",
            "l1, l2, llc, dram (a buffer sized from this machine's caches: half of L1, half",
            "of L2, half of the last level, four times the last level) or a size such as",
            "64K or 8M; stride defaults to 64 (one access per cache line), rw to read.",
            "--level L (0 to 8) is its duty cycle in eighths: bursts of accesses, then idle",
            "spins, L/8 of the time accessing; 8 = continuous (default). The stressor is a",
            "C program compiled with gcc into ~/.cache/hetrace; without gcc, a Java thread",
            "stands in (less precise).",
            "",
            "Examples:",
            "  hetrace profile run -- ./matmul 512",
            "  hetrace profile run --repeat 10 --cpu 0 --events cycles,instructions \\",
            "      -o mm -- ./matmul 512",
            "  hetrace profile run --workload chase:size=dram:accesses=1M --cpu 0 \\",
            "      --stressor dram:stride=64:rw=read --level 8 --stress-cpus 1 \\",
            "      -o chase-stressed"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the runs were measured", "1:perf or the workload failed, or a spec is wrong", "2:usage error"
        })
final class ProfileRunCommand extends ProfileSubcommand {
    @CommandLine.Mixin
    MeasureOptions options = new MeasureOptions();

    @Option(
            names = "--stressor",
            paramLabel = "SPEC",
            description = "Run the memory stressor on the other CPUs meanwhile, e.g. dram:stride=64:rw=read.")
    String stressor;

    @Option(
            names = "--level",
            paramLabel = "L",
            description = "The stressor's level, 0 (off) to 8 (continuous) (default: ${DEFAULT-VALUE}).")
    int level = Stressor.MAX_LEVEL;

    @Override
    public Integer call() throws IOException {
        StressorSpec spec = stressor == null ? null : StressorSpec.parse(stressor);
        if (spec != null) {
            Stressor.duty(level);
        }
        CampaignRunner runner = options.runner(spec != null, main().err);
        Campaign campaign = runner.run(options.name(), spec, level);
        Path file = options.output.resolve("campaign.json");
        CampaignFile.write(campaign, file);
        StringBuilder sb = new StringBuilder();
        sb.append("workload: ")
                .append(runner.label())
                .append(" (")
                .append(runner.repeat())
                .append(" repetitions")
                .append(runner.cpu() < 0 ? "" : " on CPU " + runner.cpu())
                .append(")\n");
        if (spec != null) {
            sb.append("stressor: ")
                    .append(spec)
                    .append(" at level ")
                    .append(level)
                    .append(" of ")
                    .append(Stressor.MAX_LEVEL)
                    .append(" on CPU ")
                    .append(cpus(runner.stressCpus()))
                    .append(runner.kernel().isPresent() ? "" : " (Java fallback)")
                    .append('\n');
        }
        sb.append('\n').append(table(campaign.runs(), runner.events()));
        sb.append(unsupported(campaign.runs(), runner.events()));
        sb.append("\nwrote ")
                .append(file)
                .append(" (the workload's output: ")
                .append(runner.log())
                .append(")\n");
        return print(sb.toString());
    }

    static String cpus(List<Integer> cpus) {
        return Cpus.format(cpus);
    }

    /** Median, quartiles, min and max of the runtime, user and system time and every counter over the runs. */
    static String table(List<Run> runs, List<String> order) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"", "median", "q1", "q3", "min", "max"});
        rows.add(row("runtime s", runs, "runtime"));
        rows.add(row("user s", runs, "user"));
        rows.add(row("system s", runs, "system"));
        Set<String> names = new LinkedHashSet<>();
        order.stream()
                .filter(e -> runs.stream().anyMatch(r -> r.counters().containsKey(e)))
                .forEach(names::add);
        runs.forEach(r -> names.addAll(r.counters().keySet()));
        for (String n : names) {
            rows.add(row(n.equals("task-clock") ? "task-clock ms" : n, runs, n));
        }
        return TextTable.render(rows, "", i -> i > 0);
    }

    private static String[] row(String label, List<Run> runs, String value) {
        Distribution s =
                Distribution.of(runs.stream().mapToDouble(r -> r.value(value)).toArray());
        return new String[] {label, num(s.median()), num(s.q1()), num(s.q3()), num(s.min()), num(s.max())};
    }

    static String num(double v) {
        if (!Double.isNaN(v) && v == Math.rint(v) && Math.abs(v) < 1e12) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return decimal(v);
    }

    /** {@code v} with decimals whatever its value, so that a column of measurements lines up. */
    static String decimal(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.1f" : a >= 1 ? "%.3f" : "%.4f", v);
    }

    /** The events no run could count, named once with their reasons. */
    static String unsupported(List<Run> runs, List<String> order) {
        Map<String, String> reasons = new TreeMap<>(Comparator.comparingInt((String e) -> {
                    int i = order.indexOf(e);
                    return i < 0 ? Integer.MAX_VALUE : i;
                })
                .thenComparing(e -> e));
        runs.forEach(r -> r.unsupported().forEach(reasons::putIfAbsent));
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        reasons.forEach((event, reason) ->
                byReason.computeIfAbsent(reason, k -> new ArrayList<>()).add(event));
        StringBuilder sb = new StringBuilder();
        byReason.forEach((reason, events) -> sb.append("\nthis machine did not count ")
                .append(String.join(", ", events))
                .append(": ")
                .append(reason)
                .append('\n'));
        return sb.toString();
    }
}
