package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Required;
import dev.hetrace.profile.Campaign;
import dev.hetrace.profile.CampaignFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace profile run} and {@code sweep} on this machine, with real perf and the compiled memory kernel. */
class ProfileCommandTest {
    @TempDir
    Path dir;

    static void assumePerf() throws Exception {
        boolean perf;
        try {
            Process p = new ProcessBuilder("perf", "stat", "-x,", "-e", "task-clock", "--", "true")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            perf = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            perf = false;
        }
        Required.that(perf, "perf is not installed (linux-perf), or kernel.perf_event_paranoid forbids it:"
            + " real perf runs skipped");
    }

    @Test
    void aSweepPrintsTheStressorsBandwidthAndTheSlowdownPerLevelAndWritesTheCampaign() throws Exception {
        assumePerf();
        Path out = dir.resolve("sweep");
        Cli.Run r = Cli.run("profile", "sweep", "--stressor", "2M:stride=64:rw=read", "--levels", "0,8", "--repeat", "2",
            "--hardware-time", "0.2", "--events", "cycles,instructions", "-o", out.toString(),
            "--workload", "stream:size=2M:accesses=2M");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).contains("step 1: stressor 2M:stride=64:rw=read alone", "step 2: hetrace workload stream",
            "slowdown", "wrote " + out.resolve("campaign.json"));
        assertThat(r.out()).containsPattern("\\n\\s+0\\s+0\\.0000\\s+0\\s+0\\.0\\n"); // level 0 is no co-runner
        assertThat(r.out()).containsPattern("\\n\\s+8\\s+0\\.9\\d+\\s+\\d\\.\\d+e\\+\\d+\\s+\\d+\\.\\d\\n");
        // level 0's slowdown is 1, with its bootstrap interval
        assertThat(r.out()).containsPattern("\\n\\s+0\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\s+1\\.000\\s+[0-9.]+–[0-9.]+\\n");
        assertThat(r.out()).containsAnyOf("knee (threshold 10%)", "no knee (threshold 10%)");
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
        Cli.Run r = Cli.run("profile", "run", "--repeat", "3", "-o", out.toString(), "--", "sh", "-c", "echo workload-says-hi");
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
        assertThat(spec.err()).isEqualTo(
            "hetrace: stressor 'l4': 'l4' is not a target: l1, l2, llc, dram or a size such as 64K, 8M\n");
        Cli.Run level = Cli.run("profile", "sweep", "--stressor", "dram", "--levels", "0,9", "-o", o, "--", "true");
        assertThat(level.err()).isEqualTo("hetrace: stress level 9 is out of range: 0 (off) to 8 (continuous)\n");
        Cli.Run none = Cli.run("profile", "run", "-o", o);
        assertThat(none.err()).isEqualTo(
            "hetrace: no workload: give a command after '--' (e.g. -- ./bench 512) or --workload SPEC\n");
        Cli.Run missing = Cli.run("profile", "run", "-o", o, "--", "./no-such-bench");
        assertThat(missing.err()).isEqualTo("hetrace: workload './no-such-bench': no such file\n");
        Cli.Run fails = Cli.run("profile", "run", "--repeat", "2", "-o", o, "--", "sh", "-c", "exit 4");
        assertThat(fails.status()).isEqualTo(1);
        assertThat(fails.err()).isEqualTo("hetrace: the workload exited with status 4 (repetition 1/2); its output is in "
            + Path.of(o, "workload.log") + "\n");
        Cli.Run cpu = Cli.run("profile", "run", "--cpu", "4096", "-o", o, "--", "true");
        assertThat(cpu.err()).startsWith("hetrace: --cpu 4096: not a CPU hetrace may run on here (CPUs ");
        Cli.Run list = Cli.run("profile", "run", "--stressor", "l1", "--stress-cpus", "1-x", "-o", o, "--", "true");
        assertThat(list.err()).isEqualTo("hetrace: --stress-cpus '1-x' is not a CPU list (e.g. 1 or 1,2 or 1-3): '1-x'\n");
        Cli.Run threshold = Cli.run("profile", "sweep", "--stressor", "dram", "--threshold", "ten", "-o", o, "--", "true");
        assertThat(threshold.err()).isEqualTo("hetrace: --threshold ten: expected a slowdown such as 10% or 0.1\n");
    }

    @Test
    void profileAloneShowsItsSubcommandsAndTheHelpTeachesTheSpecs() {
        Cli.Run r = Cli.run("profile");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("run", "sweep");
        String help = new picocli.CommandLine(new Main()).getSubcommands().get("profile").getSubcommands().get("run")
            .getUsageMessage();
        assertThat(help).contains("TARGET[:stride=BYTES][:rw=read|write|rmw]", "--level", "Examples:", "--stress-cpus");
    }
}
