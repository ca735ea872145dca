package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace monitor} on real commands: it stops with them, prints a summary, saves its files; bad input in one line. */
class MonitorCommandTest {
    // about half a second of shell arithmetic: several 100 ms samples even on an idle machine
    static final String BUSY = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done";

    @Test
    void aCommandIsWatchedUntilItExitsThenSummarizedAndSaved(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("run1");
        Cli.Run r = Cli.run(
                "monitor",
                "--no-serve",
                "--interval",
                "100",
                "--metric",
                "cpu=task-clock*100/interval",
                "--metric",
                "user=user-time*100/interval",
                "-o",
                out.toString(),
                "--",
                "sh",
                "-c",
                BUSY);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err())
                .contains("every 100 ms; saving to " + out)
                .contains("' exited with status 0; saved in " + out);
        assertThat(r.out())
                .containsPattern("1 thread\\(s\\) over \\d+\\.\\d s:")
                .contains("cpu time (s)")
                .containsPattern("\\n  sh +\\d+ ")
                .contains("all threads");
        assertThat(Files.readAllLines(out.resolve("metrics.csv")).getFirst())
                .isEqualTo("time_s,tid,thread,active,cpu,user");
        assertThat(Files.readAllLines(out.resolve("samples.csv"))).hasSizeGreaterThan(1);
        assertThat(out.resolve("campaign.json")).exists();

        // the same settings again, from the saved configuration
        Path again = dir.resolve("run2");
        Cli.Run r2 = Cli.run(
                "monitor",
                "--no-serve",
                "--config",
                out.resolve("monitor.json").toString(),
                "-o",
                again.toString(),
                "--",
                "sh",
                "-c",
                BUSY);
        assertThat(r2.status()).as(r2.err()).isZero();
        assertThat(r2.err()).contains("every 100 ms");
        assertThat(Files.readString(again.resolve("monitor.json")))
                .isEqualTo(Files.readString(out.resolve("monitor.json")));
    }

    @Test
    void thePageIsServedAndDurationStopsACommandThatRunsOn(@TempDir Path dir) {
        Cli.Run r = Cli.run(
                "monitor",
                "--duration",
                "0.6",
                "--interval",
                "200",
                "-o",
                dir.resolve("m").toString(),
                "--",
                "sleep",
                "30");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err())
                .containsPattern("open http://127\\.0\\.0\\.1:\\d+/  \\(Ctrl-C to stop\\)")
                .contains("stopping 'sleep 30' (--duration is over)")
                .contains("stopped after 0.6 s");
    }

    @Test
    void badInputIsOneLine(@TempDir Path dir) {
        Cli.Run none = Cli.run("monitor", "--no-serve");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err().strip()).startsWith("hetrace: monitor: give either --pid PID or a command after '--'");

        Cli.Run both = Cli.run("monitor", "--pid", "1", "--", "true");
        assertThat(both.status()).isEqualTo(2);

        Cli.Run metric = Cli.run("monitor", "--metric", "ipc=instructions/(cycles", "--", "true");
        assertThat(metric.status()).isEqualTo(2);
        assertThat(metric.err().strip())
                .isEqualTo("hetrace: formula 'instructions/(cycles', column 21: ')' is missing");

        Cli.Run unmeasured = Cli.run("monitor", "--metric", "ipc=instructions/cycles", "--", "true");
        assertThat(unmeasured.status()).isEqualTo(2);
        assertThat(unmeasured.err()).contains("uses 'cycles', 'instructions', not measured: add them to --events");

        Cli.Run pid =
                Cli.run("monitor", "--pid", "999999999", "-o", dir.resolve("x").toString());
        assertThat(pid.status()).isEqualTo(1);
        assertThat(pid.err().strip()).isEqualTo("hetrace: --pid 999999999: no such process");

        Cli.Run cmd = Cli.run("monitor", "--no-serve", "-o", dir.resolve("y").toString(), "--", "/no/such/program");
        assertThat(cmd.status()).isEqualTo(1);
        assertThat(cmd.err().lines().toList())
                .hasSize(1)
                .allMatch(l -> l.startsWith("hetrace: cannot run '/no/such/program': "));
        assertThat(List.of(none, both, metric, unmeasured, pid, cmd))
                .allMatch(x -> !x.err().contains("\tat "));
    }
}
