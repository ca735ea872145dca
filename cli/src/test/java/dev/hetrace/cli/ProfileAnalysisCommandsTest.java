package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hetrace profile import | plan | stats | report} as a user types them: perf stat CSV
 * files (perf 6.1's shape) of isolated and stressed runs imported into one campaign, its
 * statistics with the knee, the report written, plans printed, and bad input in one line.
 */
class ProfileAnalysisCommandsTest {

    @TempDir
    Path dir;

    /** A perf stat -x, file of one run of {@code seconds}. */
    Path perf(String name, double seconds, long faults) throws Exception {
        return Files.writeString(
                dir.resolve(name),
                String.format(
                        Locale.ROOT,
                        """
                # started on Sun Nov 22 12:45:01 2026

                %d,ns,duration_time,%d,100.00,2.068,G/sec
                %d,ns,user_time,%d,100.00,560.631,M/sec
                %d,ns,system_time,%d,100.00,487.307,M/sec
                %.2f,msec,task-clock,262232978,100.00,0.484,CPUs utilized
                %d,,page-faults,262232978,100.00,91.316,K/sec
                <not supported>,,cycles,0,100.00,,
                """,
                        (long) (seconds * 1e9),
                        (long) (seconds * 1e9),
                        (long) (seconds * 0.9e9),
                        (long) (seconds * 0.9e9),
                        (long) (seconds * 0.05e9),
                        (long) (seconds * 0.05e9),
                        seconds * 950,
                        faults));
    }

    @Test
    void importedIsolatedAndStressedRunsGiveTheKneeAndAReport() throws Exception {
        Path campaign = dir.resolve("sweep.json");
        double[][] levels = {{1.00, 1.01, 0.99, 1.02}, {1.04, 1.05, 1.03, 1.06}, {1.30, 1.28, 1.33, 1.31}};
        for (int l = 0; l < levels.length; l++) {
            String[] args = new String[levels[l].length + 7];
            args[0] = "profile";
            args[1] = "import";
            args[2] = "perf-stat";
            for (int k = 0; k < levels[l].length; k++) {
                args[3 + k] = perf("s" + l + "-" + k + ".csv", levels[l][k], 1000 + 10 * k)
                        .toString();
            }
            int at = 3 + levels[l].length;
            args[at] = "--label=stress=" + l;
            args[at + 1] = "-o";
            args[at + 2] = campaign.toString();
            args[at + 3] = "--append";
            Cli.Run r = Cli.run(args);
            assertThat(r.status()).as(r.err()).isZero();
            assertThat(r.out()).startsWith(campaign + ": 4 runs, 0 samples, from 4 files (perf-stat)");
        }
        Cli.Run stats = Cli.run("profile", "stats", campaign.toString(), "--by", "stress");
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.out())
                .contains(
                        "campaign sweep: 12 runs",
                        "not counted: cycles (not supported)",
                        "slowdown vs stress: slowdown of runtime (the default: the campaign does not record what it was swept"
                                + " with), threshold 10 % (the default)\n",
                        "\nknee: level 2, slowdown 1.299 (past 1.100)\nextra-access budget: level 1; its bandwidth is unknown: the"
                                + " campaign has no measurement of the stressor alone at that level\n");
        // past 2 %, even the lowest stressed level is too much: no budget, rather than the isolated level's
        Cli.Run strict = Cli.run("profile", "stats", campaign.toString(), "--threshold", "2%");
        assertThat(strict.out())
                .contains("\nknee: level 1, slowdown 1.040 (past 1.020)\nextra-access budget: none: the"
                        + " lowest stress level measured, 1, already slows the workload past the threshold; a budget, if any, lies"
                        + " below it\n")
                .doesNotContain("stress 0", "level 0");
        // imported runs have task-clock too: the slowdown of the CPU time, as asked
        Cli.Run cpu = Cli.run("profile", "stats", campaign.toString(), "--slowdown-of", "task-clock");
        assertThat(cpu.out())
                .contains(
                        "slowdown vs stress: slowdown of task-clock (asked for), threshold 10 % (the" + " default)\n",
                        "median task-clock ms");
        // task-clock is runtime × 950: first in the ranking
        assertThat(stats.out())
                .containsPattern("correlation with runtime \\(by \\|r\\|\\)\\n.*\\n  task-clock\\s+12\\s+1\\s");

        Cli.Run json = Cli.run("profile", "stats", campaign.toString(), "--format", "json", "--threshold", "40%");
        assertThat(json.status()).as(json.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.get("slowdown").get("knee").isNull()).isTrue();
        assertThat(j.get("slowdown").get("levels").get(2).get("slowdown").asDouble())
                .isEqualTo(1.305 / 1.005, Assertions.within(1e-9));
        assertThat(j.get("quantities").get(0).get("median").asDouble()).isEqualTo(1.045);

        Cli.Run csv = Cli.run("profile", "stats", campaign.toString(), "--format", "csv");
        assertThat(csv.out())
                .startsWith("section,name,statistic,value\n")
                .contains("slowdown,knee,level,2\n", "distribution,runtime,median,1.045\n");

        Path html = dir.resolve("out/sweep.html");
        Cli.Run report = Cli.run("profile", "report", campaign.toString(), "-o", html.toString());
        assertThat(report.status()).as(report.err()).isZero();
        assertThat(Files.readString(html)).contains("id=\"hetrace-profile-data\"", "\"knee\":\"2\"");

        // hetrace report and hetrace view take a campaign too: the same charts, in a file or served
        Path same = dir.resolve("out/same.html");
        Cli.Run viaReport = Cli.run("report", campaign.toString(), "-o", same.toString());
        assertThat(viaReport.status()).as(viaReport.err()).isZero();
        assertThat(viaReport.out()).contains("12 runs");
        assertThat(Files.readString(same)).contains("id=\"hetrace-profile-data\"", "\"knee\":\"2\"");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int[] status = {-1};
        Thread view = new Thread(() -> status[0] =
                Main.run(new ByteArrayOutputStream(), new PrintStream(err, true, StandardCharsets.UTF_8), new String[] {
                    "view", campaign.toString()
                }));
        view.start();
        Matcher url = Pattern.compile("open (http://127\\.0\\.0\\.1:\\d+/)").matcher("");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!url.reset(err.toString(StandardCharsets.UTF_8)).find()) {
            assertThat(view.isAlive()).as(err.toString(StandardCharsets.UTF_8)).isTrue();
            assertThat(System.nanoTime()).isLessThan(deadline);
            Thread.sleep(50);
        }
        try (var client = HttpClient.newHttpClient()) {
            String page = client.send(
                            HttpRequest.newBuilder(URI.create(url.group(1))).build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(page).contains("id=\"hetrace-profile-data\"", "\"knee\":\"2\"");
        }
        view.interrupt();
        view.join(10_000);
        assertThat(status[0]).isZero();
    }

    @Test
    void aSavedExperimentGivesPmctrackSamplesTheirMetricPerThreadAndCoreType() throws Exception {
        Path out = Files.writeString(dir.resolve("mcf.txt"), """
                [Event-to-counter mappings]
                pmc0=instr
                pmc1=cycles
                pmc3=llc_misses
                [Event counts]
                nsample  pid      event      pmc0      pmc1      pmc3
                  1  500    tick      3000000  2000000  60000
                  2  501    tick      1500000  2000000  60000
                  3  500    tick      3000000  2000000  60000
                """);
        Path campaign = dir.resolve("mcf.json");
        assertThat(Cli.run("profile", "import", "pmctrack", out.toString(), "-o", campaign.toString())
                        .status())
                .isZero();
        Path experiment = Files.writeString(dir.resolve("llc.json"), """
                { "name": "llc", "counters": ["instr", "cycles", "unused", "llc_misses"],
                  "metrics": { "ipc": "pmc0 / pmc1", "llc_mpki": "(pmc3*1000)/pmc0" } }
                """);
        Cli.Run r = Cli.run(
                "profile",
                "stats",
                campaign.toString(),
                "--experiment",
                experiment.toString(),
                "--core-types",
                "0-7=big");
        assertThat(r.status()).as(r.err()).isZero();
        // thread 500: 6e6 instructions over 4e6 cycles; 501: 1.5e6 over 2e6; llc: 120000 misses per 6e6 instructions
        assertThat(r.out())
                .containsPattern("ipc per thread\\n.*\\n  500\\s+2\\s+1\\.5\\s")
                .containsPattern("\\n  501\\s+1\\s+0\\.75\\s")
                .containsPattern("llc_mpki per thread\\n.*\\n  500\\s+2\\s+20\\s")
                .contains("ipc per core type")
                // per run, over its totals: 7.5e6 instructions over 6e6 cycles
                .containsPattern("\\n  ipc\\s+1\\s+1\\.25\\s");
        Path html = dir.resolve("mcf.html");
        Cli.Run report = Cli.run(
                "profile",
                "report",
                campaign.toString(),
                "--experiment",
                experiment.toString(),
                "--core-types",
                "0-7=big",
                "-o",
                html.toString());
        assertThat(report.status()).as(report.err()).isZero();
        assertThat(Files.readString(html)).contains("\"threadMetrics\"", "\"metric\":\"llc_mpki\"");
        Files.writeString(experiment, "{ \"name\": \"x\", \"counters\": [], \"metrics\": { \"m\": \"pmc0 +\" } }");
        Cli.Run bad = Cli.run("profile", "stats", campaign.toString(), "--experiment", experiment.toString());
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err())
                .startsWith("hetrace: " + experiment + ": metric m: ")
                .doesNotContain("\n\tat ");
    }

    @Test
    void plansAreThePlansOfTheLibraryInEachFormat() throws Exception {
        Cli.Run text = Cli.run("profile", "plan", "--count", "50", "--registers", "6");
        assertThat(text.out()).startsWith("50 events, 6 registers: 9 runs count every event (the minimum, ceil(50/6))");
        Cli.Run csv =
                Cli.run("profile", "plan", "--events", "a,b,c,d,e", "--registers", "2", "--pairs", "--format", "csv");
        assertThat(csv.status()).isZero();
        assertThat(csv.out().lines().skip(1).count()).isEqualTo(20);
        Cli.Run json = Cli.run("profile", "plan", "--count", "7", "--registers", "3", "--pairs", "--format", "json");
        JsonNode j = new ObjectMapper().readTree(json.out());
        assertThat(j.get("lower_bound").asInt()).isEqualTo(7);
        assertThat(j.get("runs")).hasSize(7);
    }

    @Test
    void badInputIsOneClearLine() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.txt"), "nsample pid event pmc0\n1 200 tick 12x\n");
        Cli.Run r = Cli.run(
                "profile",
                "import",
                "pmctrack",
                bad.toString(),
                "-o",
                dir.resolve("c.json").toString());
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("hetrace: " + bad + ":2: pmc0 is not a number: '12x'\n");
        Cli.Run missing = Cli.run("profile", "stats", dir.resolve("none.json").toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err()).isEqualTo("hetrace: " + dir.resolve("none.json") + ": no such file\n");
        Cli.Run format = Cli.run("profile", "import", "xml", bad.toString(), "-o", "c.json");
        assertThat(format.err())
                .isEqualTo("hetrace: unknown import format 'xml': pmctrack, perf-stat, ctf or probes\n");
        Cli.Run plan = Cli.run("profile", "plan", "--count", "4", "--registers", "1", "--pairs");
        assertThat(plan.err()).isEqualTo("hetrace: pairs of events need at least 2 counter registers, not 1\n");
        Cli.Run usage = Cli.run("profile", "plan", "--registers", "3");
        assertThat(usage.status()).isEqualTo(2);
        assertThat(usage.err().lines().count()).isEqualTo(2);
        assertThat(Cli.run("profile").status()).isEqualTo(2);
    }
}
