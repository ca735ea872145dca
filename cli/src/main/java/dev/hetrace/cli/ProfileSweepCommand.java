package dev.hetrace.cli;

import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import dev.hetrace.profile.ProfileException;
import dev.hetrace.profile.perf.CampaignRunner;
import dev.hetrace.profile.perf.PerfStat;
import dev.hetrace.profile.perf.Stressor;
import dev.hetrace.profile.perf.StressorSpec;
import dev.hetrace.profile.stats.SlowdownCurve;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code hetrace profile sweep}: METrICS' two steps, the stressor alone per level, then the workload against each level. */
@Command(
        name = "sweep",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Measure how a workload slows down as a co-runner stresses memory harder.",
            "",
            "Step 1 (the hardware): the stressor alone at each level for --hardware-time,",
            "its accesses and bytes per second. Step 2: the workload --repeat times against",
            "each level (level 0 = isolated, no co-runner), in rounds that visit every",
            "level once, each repetition under 'perf stat -x,' as in 'hetrace profile run'.",
            "Per level: the median runtime, its spread (quartiles, min, max) and the",
            "slowdown, median at the level / median isolated. The knee is the first level",
            "whose slowdown exceeds 1 + --threshold; the extra-access budget is the",
            "stressor's bandwidth alone at the last stressed level below it (none when",
            "even the lowest stressed level is past the threshold). campaign.json records",
            "--slowdown-of and --threshold: 'hetrace profile stats' and 'report' draw the",
            "same curve and find the same knee unless told otherwise.",
            "",
            "SPEC is TARGET[:stride=BYTES][:rw=read|write|rmw] (TARGET: l1, l2, llc, dram",
            "or a size such as 8M; see 'hetrace profile run --help'); levels run from 0",
            "(off) to 8 (continuous accesses), level L accessing L/8 of the time. The",
            "workload runs on --cpu (default 0), the stressor on --stress-cpus (default:",
            "every other CPU).",
            "",
            "Examples:",
            "  hetrace profile sweep --stressor dram -o sweep -- ./matmul 512",
            "  hetrace profile sweep --stressor dram:stride=64:rw=read --levels 0,2,4,8 \\",
            "      --repeat 5 --cpu 0 --stress-cpus 1 --threshold 10%% \\",
            "      --slowdown-of task-clock -o chase --workload chase:accesses=6M"
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the sweep was measured", "1:perf or the workload failed, or a spec is wrong", "2:usage error"
        })
final class ProfileSweepCommand extends ProfileSubcommand {
    @CommandLine.Mixin
    MeasureOptions options = new MeasureOptions();

    @Option(
            names = "--stressor",
            paramLabel = "SPEC",
            required = true,
            description = "What the co-runner accesses, e.g. dram:stride=64:rw=read.")
    String stressor;

    @Option(
            names = "--levels",
            paramLabel = "L,L...",
            split = ",",
            description = "Stress levels, 0 to 8 (default: 0,1,2,4,8); 0 is added when missing.")
    List<Integer> levels = new ArrayList<>(List.of(0, 1, 2, 4, 8));

    @Option(
            names = "--threshold",
            paramLabel = "PERCENT",
            description = "Acceptable slowdown, e.g. 10%% or 0.1 (default: 10%%).")
    String threshold = "10%";

    @Option(
            names = "--slowdown-of",
            paramLabel = "NAME",
            description =
                    "What the slowdown compares: runtime (wall clock, default), user, system, or a counter such as task-clock (CPU time: leaves out the time the workload waited for its CPU, which dominates on a machine busy with other work). Recorded in the campaign with --threshold.")
    String slowdownOf = "runtime";

    @Option(
            names = "--hardware-time",
            paramLabel = "SECONDS",
            description = "How long step 1 runs the stressor alone per level (default: ${DEFAULT-VALUE}).")
    double hardwareSeconds = 0.5;

    @Override
    public Integer call() throws IOException {
        StressorSpec spec = StressorSpec.parse(stressor);
        double limit = ProfileAnalysisCommand.threshold(threshold);
        List<Integer> lv = new ArrayList<>(new TreeSet<>(levels));
        lv.forEach(Stressor::duty);
        if (!lv.contains(0)) {
            lv.addFirst(0);
        }
        if (hardwareSeconds <= 0) {
            throw new ProfileException("--hardware-time " + hardwareSeconds + ": must be positive");
        }
        if (!slowdownOf.equals("runtime")
                && !slowdownOf.equals("user")
                && !slowdownOf.equals("system")
                && !options.events.contains(slowdownOf)
                && !PerfStat.SOFTWARE_EVENTS.contains(slowdownOf)) {
            throw new ProfileException("--slowdown-of " + slowdownOf
                    + ": not measured (runtime, user, system, a software" + " event, or an event of --events)");
        }
        CampaignRunner runner = options.runner(true, main().err);
        // recorded in the campaign: 'profile stats' and 'report' draw the same curve by default
        Campaign campaign =
                runner.sweep(options.name(), spec, lv, hardwareSeconds, new Campaign.Curve(slowdownOf, limit));
        Path file = options.output.resolve("campaign.json");
        CampaignFile.write(campaign, file);
        return print(text(campaign, runner, spec, SlowdownCurve.of(campaign), hardwareSeconds) + "\nwrote " + file
                + " (the workload's output: " + runner.log() + ")\n");
    }

    static String text(Campaign c, CampaignRunner runner, StressorSpec spec, SlowdownCurve s, double hardwareSeconds) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "step 1: stressor %s alone on CPU %s, %.1f s per level (%s)%n",
                spec,
                ProfileRunCommand.cpus(runner.stressCpus()),
                hardwareSeconds,
                runner.kernel().isPresent() ? "compiled with gcc" : "Java fallback"));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"level", "duty", "accesses/s", "MB/s"});
        for (Map<String, String> h : c.hardware()) {
            rows.add(new String[] {
                h.get("level"), h.get("duty"), sci(h.get("accesses_per_second")), mb(h.get("bytes_per_second"))
            });
        }
        sb.append(TextTable.render(rows, "  ", i -> i > 0));
        sb.append(String.format(
                Locale.ROOT,
                "%nstep 2: %s, %d repetitions per level%s%n",
                runner.label(),
                runner.repeat(),
                runner.cpu() < 0 ? "" : " on CPU " + runner.cpu()));
        rows = new ArrayList<>();
        String unit = s.measure().equals("runtime") ? "median s" : (s.measure() + " " + s.unit()).strip();
        rows.add(new String[] {"level", unit, "q1", "q3", "min", "max", "slowdown", "95% interval"});
        for (SlowdownCurve.Level l : s.levels()) {
            rows.add(new String[] {
                l.label(),
                ProfileRunCommand.decimal(l.runtime().median()),
                ProfileRunCommand.decimal(l.runtime().q1()),
                ProfileRunCommand.decimal(l.runtime().q3()),
                ProfileRunCommand.decimal(l.runtime().min()),
                ProfileRunCommand.decimal(l.runtime().max()),
                String.format(Locale.ROOT, "%.3f", l.slowdown()),
                String.format(Locale.ROOT, "%.3f–%.3f", l.slowdownLow(), l.slowdownHigh())
            });
        }
        sb.append(TextTable.render(rows, "  ", i -> i > 0));
        // the same three lines as 'hetrace profile stats' prints of the campaign
        sb.append('\n')
                .append(s.basis())
                .append('\n')
                .append(s.kneeText())
                .append('\n')
                .append(s.budgetText())
                .append('\n');
        sb.append(ProfileRunCommand.unsupported(c.runs(), runner.events()));
        return sb.toString();
    }

    private static String sci(String v) {
        return sci(Double.parseDouble(v));
    }

    private static String sci(double v) {
        return Double.isNaN(v) ? "-" : v == 0 ? "0" : String.format(Locale.ROOT, "%.3e", v);
    }

    private static String mb(String v) {
        return mb(Double.parseDouble(v));
    }

    private static String mb(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v / 1e6);
    }
}
