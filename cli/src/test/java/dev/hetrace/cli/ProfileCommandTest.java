package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hetrace.ctf.testing.Required;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code hetrace profile run} and {@code sweep} on this machine, with real perf and the compiled memory kernel. */
class ProfileCommandTest {
    @TempDir
    Path dir;

    static void assumePerf() throws Exception {
        boolean perf;
        try {
            Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "task-clock", "--", "true")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            perf = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            perf = false;
        }
        Required.that(
                perf,
                "perf is not installed (linux-perf), or kernel.perf_event_paranoid forbids it:"
                        + " real perf runs skipped");
    }

    /** The median of {@code measure} over a campaign's runs at stress {@code level}, computed here. */
    static double median(Campaign c, String level, String measure) {
        double[] v = c.runs().stream()
                .filter(r -> r.config().get("stress").equals(level))
                .mapToDouble(r -> r.value(measure))
                .sorted()
                .toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The knee line as the campaign's runs give it, of {@code measure} at {@code threshold}. */
    static String knee(Campaign c, List<String> levels, String measure, double threshold) {
        double base = median(c, "0", measure);
        for (String l : levels) {
            double slowdown = median(c, l, measure) / base;
            if (slowdown > 1 + threshold + 1e-12) {
                return String.format(
                        Locale.ROOT, "knee: level %s, slowdown %.3f (past %.3f)", l, slowdown, 1 + threshold);
            }
        }
        return String.format(Locale.ROOT, "no knee: every level stays within a slowdown of %.3f", 1 + threshold);
    }

    @Test
    void statsAndReportDrawTheCurveTheSweepDrewOfTheMeasureItWasSweptWith() throws Exception {
        assumePerf();
        Path out = dir.resolve("agree");
        Cli.Run sweep = Cli.run(
                "profile",
                "sweep",
                "--stressor",
                "2M:stride=64:rw=read",
                "--levels",
                "0,4,8",
                "--repeat",
                "3",
                "--hardware-time",
                "0.2",
                "--slowdown-of",
                "task-clock",
                "--threshold",
                "5%",
                "-o",
                out.toString(),
                "--workload",
                "stream:size=2M:accesses=2M");
        assertThat(sweep.status()).as(sweep.err()).isZero();
        Path file = out.resolve("campaign.json");
        Campaign c = CampaignFile.read(file);
        assertThat(c.curve()).isEqualTo(new Campaign.Curve("task-clock", 0.05));
        List<String> levels = List.of("0", "4", "8");
        String basis = "slowdown of task-clock (as swept), threshold 5 % (as swept)";
        String knee = knee(c, levels, "task-clock", 0.05);
        assertThat(sweep.out()).contains(basis + "\n" + knee + "\nextra-access budget: ");

        Cli.Run stats = Cli.run("profile", "stats", file.toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.out())
                .contains("slowdown vs stress: " + basis + "\n", "\n" + knee + "\n", "median task-clock ms");
        for (String l : levels) {
            // each level's median is task-clock's, not the runtime's
            assertThat(stats.out())
                    .containsPattern("\\n  " + l + "\\s+3\\s+"
                            + Pattern.quote(ProfileStatsCommand.num(median(c, l, "task-clock"))) + "\\s");
        }
        // the budget line is the sweep's, and never the isolated level's
        String budget = stats.out()
                .lines()
                .filter(x -> x.startsWith("extra-access budget: "))
                .findFirst()
                .orElseThrow();
        assertThat(sweep.out()).contains("\n" + budget + "\n");
        assertThat(budget).doesNotContain("level 0", "stress 0", " 0 MB/s", " 0 B/s");

        JsonNode json = new ObjectMapper()
                .readTree(Cli.run("profile", "stats", file.toString(), "--format", "json")
                        .out());
        assertThat(json.at("/slowdown/measure").asText()).isEqualTo("task-clock");
        assertThat(json.at("/slowdown/threshold").asDouble()).isEqualTo(0.05);
        assertThat(json.at("/slowdown/kneeNote").asText()).isEqualTo(knee);
        assertThat(json.at("/slowdown/budgetNote").asText()).isEqualTo(budget);

        Path html = dir.resolve("agree.html");
        Cli.Run report = Cli.run("profile", "report", file.toString(), "-o", html.toString());
        assertThat(report.status()).as(report.err()).isZero();
        assertThat(report.out()).endsWith("\n" + basis + "\n" + knee + "\n" + budget + "\n");
        assertThat(Files.readString(html)).contains("\"measure\":\"task-clock\"", "\"kneeNote\":\"" + knee + "\"");

        // the same option overrides what the campaign records, and says so
        Cli.Run wall = Cli.run("profile", "stats", file.toString(), "--slowdown-of", "runtime", "--threshold", "10%");
        assertThat(wall.status()).as(wall.err()).isZero();
        assertThat(wall.out())
                .contains(
                        "slowdown vs stress: slowdown of runtime (asked for; swept with task-clock),"
                                + " threshold 10 % (asked for; swept with 5 %)\n",
                        "\n" + knee(c, levels, "runtime", 0.10) + "\n");
        Cli.Run wallReport = Cli.run(
                "profile",
                "report",
                file.toString(),
                "--slowdown-of",
                "runtime",
                "--threshold",
                "10%",
                "-o",
                dir.resolve("wall.html").toString());
        assertThat(wallReport.out()).contains("\n" + knee(c, levels, "runtime", 0.10) + "\n");
        Cli.Run cycles = Cli.run(
                "profile",
                "report",
                file.toString(),
                "--slowdown-of",
                "no-such-event",
                "-o",
                dir.resolve("x.html").toString());
        assertThat(cycles.status()).isEqualTo(1);
        assertThat(cycles.err())
                .startsWith("hetrace: --slowdown-of no-such-event: the slowdown of no-such-event cannot be"
                        + " computed: no run of campaign 'stream' has no-such-event (they have runtime, user, system, ")
                .doesNotContain("\tat ");
    }

    @Test
    void aSweepPrintsTheStressorsBandwidthAndTheSlowdownPerLevelAndWritesTheCampaign() throws Exception {
        assumePerf();
        Path out = dir.resolve("sweep");
        Cli.Run r = Cli.run(
                "profile",
                "sweep",
                "--stressor",
                "2M:stride=64:rw=read",
                "--levels",
                "0,8",
                "--repeat",
                "2",
                "--hardware-time",
                "0.2",
                "--events",
                "cycles,instructions",
                "-o",
                out.toString(),
                "--workload",
                "stream:size=2M:accesses=2M");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "step 1: stressor 2M:stride=64:rw=read alone",
                        "step 2: hetrace workload stream",
                        "slowdown",
                        "wrote " + out.resolve("campaign.json"));
        assertThat(r.out()).containsPattern("\\n\\s+0\\s+0\\.0000\\s+0\\s+0\\.0\\n"); // level 0 is no co-runner
        assertThat(r.out()).containsPattern("\\n\\s+8\\s+0\\.9\\d+\\s+\\d\\.\\d+e\\+\\d+\\s+\\d+\\.\\d\\n");
        // level 0's slowdown is 1, with its bootstrap interval
        assertThat(r.out())
                .containsPattern(
                        "\\n\\s+0\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+1\\.000\\s+[0-9.]+–[0-9.]+\\n");
        assertThat(r.out())
                .contains("slowdown of runtime (as swept), threshold 10 % (as swept)\n")
                .containsAnyOf(
                        "\nknee: level 8, slowdown ", "\nno knee: every level stays within a slowdown of 1.100\n");
        Campaign c = CampaignFile.read(out.resolve("campaign.json"));
        assertThat(c.runs()).hasSize(4);
        assertThat(c.hardware()).hasSize(2);
        // an event this machine cannot count is named once, not once per run
        for (String hw : new String[] {"cycles", "instructions"}) {
            if (c.runs().getFirst().unsupported().containsKey(hw)) {
                assertThat(r.out().lines().filter(l -> l.startsWith("this machine did not count") && l.contains(hw)))
                        .hasSize(1);
            }
        }
        assertThat(r.err()).contains("hetrace: step 2: run 4/4, level 8");
    }

    @Test
    void aRunKeepsTheWorkloadsOutputOffHetracesOutputAndSummarizesTheRepetitions() throws Exception {
        assumePerf();
        Path out = dir.resolve("run");
        Cli.Run r = Cli.run(
                "profile", "run", "--repeat", "3", "-o", out.toString(), "--", "sh", "-c", "echo workload-says-hi");
        assertThat(r.status()).as(r.err()).isZero();
        // the label names the command; the words it printed are only in the log
        assertThat(r.out().lines().skip(1)).noneMatch(l -> l.contains("workload-says-hi"));
        assertThat(Files.readString(out.resolve("workload.log"))).contains("workload-says-hi");
        assertThat(r.out()).contains("workload: sh -c echo workload-says-hi (3 repetitions)");
        assertThat(r.out()).containsPattern("\\nruntime s\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n");
        assertThat(r.out()).containsPattern("\\ntask-clock ms\\s+[0-9.]+").containsPattern("\\npage-faults\\s+\\d");
        assertThat(CampaignFile.read(out.resolve("campaign.json")).runs()).hasSize(3);
    }

    @Test
    void badInputIsOneLineAndAFailingWorkloadIsNamedWithItsStatus() throws Exception {
        assumePerf();
        String o = dir.resolve("x").toString();
        Cli.Run spec = Cli.run("profile", "run", "--stressor", "l4", "-o", o, "--", "true");
        assertThat(spec.status()).isEqualTo(1);
        assertThat(spec.err())
                .isEqualTo(
                        "hetrace: stressor 'l4': 'l4' is not a target: l1, l2, llc, dram or a size such as 64K, 8M\n");
        Cli.Run level = Cli.run("profile", "sweep", "--stressor", "dram", "--levels", "0,9", "-o", o, "--", "true");
        assertThat(level.err()).isEqualTo("hetrace: stress level 9 is out of range: 0 (off) to 8 (continuous)\n");
        Cli.Run none = Cli.run("profile", "run", "-o", o);
        assertThat(none.err())
                .isEqualTo(
                        "hetrace: no workload: give a command after '--' (e.g. -- ./bench 512) or --workload SPEC\n");
        Cli.Run missing = Cli.run("profile", "run", "-o", o, "--", "./no-such-bench");
        assertThat(missing.err()).isEqualTo("hetrace: workload './no-such-bench': no such file\n");
        Cli.Run fails = Cli.run("profile", "run", "--repeat", "2", "-o", o, "--", "sh", "-c", "exit 4");
        assertThat(fails.status()).isEqualTo(1);
        assertThat(fails.err())
                .isEqualTo("hetrace: the workload exited with status 4 (repetition 1/2); its output is in "
                        + Path.of(o, "workload.log") + "\n");
        Cli.Run cpu = Cli.run("profile", "run", "--cpu", "4096", "-o", o, "--", "true");
        assertThat(cpu.err()).startsWith("hetrace: --cpu 4096: not a CPU hetrace may run on here (CPUs ");
        Cli.Run list = Cli.run("profile", "run", "--stressor", "l1", "--stress-cpus", "1-x", "-o", o, "--", "true");
        assertThat(list.err())
                .isEqualTo("hetrace: --stress-cpus '1-x' is not a CPU list (e.g. 1 or 1,2 or 1-3): '1-x'\n");
        Cli.Run threshold =
                Cli.run("profile", "sweep", "--stressor", "dram", "--threshold", "ten", "-o", o, "--", "true");
        assertThat(threshold.err()).isEqualTo("hetrace: --threshold ten: expected a slowdown such as 10% or 0.1\n");
    }

    @Test
    void profileAloneShowsItsSubcommandsAndTheHelpTeachesTheSpecs() {
        Cli.Run r = Cli.run("profile");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("run", "sweep");
        String help = new CommandLine(new Main())
                .getSubcommands()
                .get("profile")
                .getSubcommands()
                .get("run")
                .getUsageMessage();
        assertThat(help).contains("TARGET[:stride=BYTES][:rw=read|write|rmw]", "--level", "Examples:", "--stress-cpus");
    }
}
