package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.ctf.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hetrace stats}: the statistics table of a trace, a board or a sim folder, as text, CSV or JSON; errors in one line. */
class StatsCommandTest {
    @TempDir
    Path dir;

    private Path board() {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run(
                "sim", "--cores", "3", "--inject", "preempt:dsp1,dsp2", "--seed", "4", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        return board;
    }

    @Test
    void aSimFolderGivesTheWholeBoardsTableSynchronizedWithTheIntruderOnlyOnTheFaultyCores() {
        Path board = board();
        Cli.Run r = Cli.run("stats", board.toString());
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "master (lttng-ust-cyg-profile)",
                        "dsp2 (rtos)",
                        "\ncore\n",
                        "\nidle\n",
                        "\ntask\n",
                        "\nirq\n",
                        "\nfunction\n");
        assertThat(r.out()).containsPattern("dsp1/intruder\\s+\\d");
        assertThat(r.out()).doesNotContain("dsp0/intruder");
        assertThat(r.out()).containsPattern("dsp0/sobel_filter\\s+\\d");
        // the master's functions, traced by address, named by the truth's symbols
        assertThat(r.out()).containsPattern("master/join_results\\s+\\d").doesNotContain("master/0x");
    }

    @Test
    void csvAndJsonGiveTheSameRowsAndARangeNarrowsThem() {
        Path dsp1 = board().resolve("dsp1");
        Cli.Run csv = Cli.run("stats", "--format", "csv", dsp1.toString());
        Cli.Run json = Cli.run("stats", "--format", "json", dsp1.toString());
        assertThat(csv.status()).as(csv.err()).isZero();
        assertThat(json.status()).as(json.err()).isZero();
        List<String> lines = csv.out().lines().toList();
        assertThat(lines.getFirst()).startsWith("context,name,total_ns,percent,count");
        String sobel = lines.stream()
                .filter(l -> l.startsWith("task,sobel,"))
                .findFirst()
                .orElseThrow();
        String[] f = sobel.split(",");
        assertThat(json.out()).contains("{\"context\": \"task\", \"name\": \"sobel\", \"total_ns\": " + f[2] + ",");
        assertThat(json.out().lines().filter(l -> l.contains("\"context\"")).count())
                .isEqualTo(lines.size() - 1);

        Cli.Run narrow = Cli.run("stats", "--format", "csv", "--range", "0,100ms", dsp1.toString());
        assertThat(narrow.status()).as(narrow.err()).isZero();
        String narrowSobel = narrow.out()
                .lines()
                .filter(l -> l.startsWith("task,sobel,"))
                .findFirst()
                .orElseThrow();
        assertThat(Long.parseLong(narrowSobel.split(",")[2]))
                .isLessThan(Long.parseLong(f[2]))
                .isLessThanOrEqualTo(100_000_000L);
    }

    @Test
    void anLttngKernelTraceGivesARowPerCpuAndPerThreadWithItsId() {
        Path trace = Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation");
        Cli.Run r = Cli.run("stats", trace.toString());
        assertThat(r.status()).as(r.err()).isZero();
        // the folder holds one trace, kernel/
        assertThat(r.out())
                .contains("(lttng-kernel)")
                .containsPattern("\\n  kernel/cpu0\\s+\\d")
                .containsPattern("lttng-consumerd\\[\\d+]\\s+\\d");
    }

    @Test
    void errorsAreOneLine() throws Exception {
        Cli.Run missing = Cli.run("stats", dir.resolve("nothing").toString());
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err().strip()).startsWith("hetrace: ").doesNotContain("\n");

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "events:\n  - {event: task_switch, does: jump}\n");
        Path dsp0 = board().resolve("dsp0");
        Cli.Run mapping = Cli.run("stats", "--mapping", bad.toString(), dsp0.toString());
        assertThat(mapping.status()).isEqualTo(1);
        assertThat(mapping.err().strip())
                .isEqualTo(
                        "hetrace: " + bad + ":2: does: 'jump' is not one of switch, enter, exit,"
                                + " irq-entry, irq-exit, send, receive, wait, wake, fork, exec, rename, task-exit, task-free, task-info, counter");

        Cli.Run range = Cli.run("stats", "--range", "5ms", dsp0.toString());
        assertThat(range.status()).isEqualTo(2);
        assertThat(range.err()).contains("--range 5ms: expected START,END");
    }

    /** Out of memory is one line naming the limit reached: the heap, or the native memory the state model's tables live in. */
    @Test
    void outOfMemoryNamesTheLimitReachedAndTheOptionThatRaisesIt() {
        String heap = Main.outOfMemory(new OutOfMemoryError("Java heap space"));
        String tables = Main.outOfMemory(new OutOfMemoryError(
                "Cannot reserve 98304 bytes of direct buffer memory (allocated: 1073741824, limit: 1073741824)"));
        assertThat(heap)
                .contains("the Java heap's")
                .contains("HETRACE_JAVA_OPTS=-Xmx")
                .doesNotContain("\n");
        assertThat(tables)
                .contains("the 1.1 GB the JVM allows the analyses' tables outside its heap")
                .contains("HETRACE_JAVA_OPTS=-Xmx")
                .doesNotContain("\n");
    }
}
