package dev.hetrace.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.hetrace.analysis.index.IndexTables;
import dev.hetrace.ctf.api.CtfReader;
import dev.hetrace.ctf.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code hetrace query} and {@code hetrace export}: SQL over a trace's, a board's or a sim folder's tables; errors in one line. */
class QueryCommandTest {
    @TempDir
    Path dir;

    private Cli.Run query(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "query";
        all[1] = "--cache";
        all[2] = dir.resolve("cache").toString();
        System.arraycopy(args, 0, all, 3, args.length);
        return Cli.run(all);
    }

    private Path board() {
        Path board = dir.resolve("board");
        Cli.Run sim = Cli.run("sim", "--cores", "2", "--seed", "4", "--images", "2", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        return board;
    }

    private static long events(Path... traces) throws Exception {
        long n = 0;
        for (Path t : traces) {
            try (CtfReader r = CtfReader.open(t)) {
                while (r.next()) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void aSimFolderIsIndexedOnceThenQueriedFromTheCache() throws Exception {
        Path board = board();
        Cli.Run first = query("--format", "csv", board.toString(), "select count(*) as n from events");
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.err()).startsWith("hetrace: indexing 3 traces");
        assertThat(first.out())
                .isEqualTo(
                        "n\n" + events(board.resolve("master"), board.resolve("dsp0"), board.resolve("dsp1")) + "\n");

        Cli.Run again = query(
                "--format",
                "csv",
                board.toString(),
                "select trace, count(*) as n from events group by trace order by trace");
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.err()).isEmpty();
        // names sort in the traces' order (master first), not alphabetically: they are ENUMs
        assertThat(again.out().lines().toList())
                .containsExactly(
                        "trace,n",
                        "master," + events(board.resolve("master")),
                        "dsp0," + events(board.resolve("dsp0")),
                        "dsp1," + events(board.resolve("dsp1")));
    }

    @Test
    void theDiagnosisTablesAnswerTheFirstQueryThatNamesThemAsDiagnoseSays() {
        Path board = dir.resolve("board");
        Cli.Run sim =
                Cli.run("sim", "--cores", "3", "--seed", "4", "--inject", "preempt:dsp1", "--out", board.toString());
        assertThat(sim.status()).as(sim.err()).isZero();
        Cli.Run events = query(board.toString(), "select count(*) from events");
        assertThat(events.status()).as(events.err()).isZero();

        Cli.Run tables = query("--format", "csv", board.toString(), "show tables");
        assertThat(tables.out().lines()).contains("diagnosis_findings", "diagnosis_outliers", "diagnosis_stuck");
        Cli.Run findings = query(
                "--format", "csv", board.toString(), "select sentence from diagnosis_findings order by 1 limit 1");
        assertThat(findings.status()).as(findings.err()).isZero();
        Cli.Run diagnose = Cli.run("diagnose", "--cache", dir.resolve("cache").toString(), board.toString());
        assertThat(diagnose.status()).as(diagnose.err()).isZero();
        String first = findings.out().lines().skip(1).findFirst().orElseThrow();
        assertThat(first).contains("preempted");
        assertThat(diagnose.out().replaceAll("\\s+", " "))
                .contains(first.replace("\"", "").replaceAll("\\s+", " "));
    }

    @Test
    void textCsvAndJsonGiveTheSameRows() {
        Path dsp0 = board().resolve("dsp0");
        String sql = "select task, count(*) as runs, sum(duration_ns) as ns, bool_or(end_unknown) as open "
                + "from intervals where kind = 'run' group by task order by task";
        Cli.Run csv = query("--format", "csv", dsp0.toString(), sql);
        Cli.Run json = query("--format", "json", dsp0.toString(), sql);
        Cli.Run text = query(dsp0.toString(), sql);
        assertThat(csv.status()).as(csv.err()).isZero();
        assertThat(json.status()).as(json.err()).isZero();
        assertThat(text.status()).as(text.err()).isZero();
        List<String> rows = csv.out().lines().skip(1).toList();
        assertThat(rows).isNotEmpty();
        assertThat(text.out()).contains("(" + rows.size() + " rows)");
        for (String row : rows) {
            String[] f = row.split(",");
            assertThat(json.out())
                    .contains("{\"task\": \"" + f[0] + "\", \"runs\": " + f[1] + ", \"ns\": " + f[2] + ", \"open\": "
                            + f[3] + "}");
            assertThat(text.out()).containsPattern(Pattern.quote(f[0]) + "\\s+" + f[1] + "\\s+" + f[2]);
        }
    }

    @Test
    void anEventsFieldsAreJsonInJsonOutput() {
        Path dsp0 = board().resolve("dsp0");
        Cli.Run json = query(
                "--format",
                "json",
                dsp0.toString(),
                "select name, fields from events where name = 'task_switch' order by time_ns limit 1");
        assertThat(json.status()).as(json.err()).isZero();
        assertThat(json.out()).containsPattern("\"fields\": \\{.*\"payload\":\\{.*\"next_task\":\"");
    }

    @Test
    void badSqlIsOneLineFromDuckDbAndExitsOne() {
        Path dsp0 = board().resolve("dsp0");
        Cli.Run bad = query(dsp0.toString(), "selec count(*) from events");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.out()).isEmpty();
        assertThat(bad.err()
                        .lines()
                        .filter(l -> !l.startsWith("hetrace: indexing"))
                        .toList())
                .singleElement()
                .asString()
                .startsWith("hetrace: Parser Error")
                .contains("selec");
        Cli.Run table = query(dsp0.toString(), "select * from nothing");
        assertThat(table.status()).isEqualTo(1);
        assertThat(table.err().lines().toList())
                .singleElement()
                .asString()
                .startsWith("hetrace: Catalog Error")
                .contains("nothing");
        // the index is read-only
        Cli.Run drop = query(dsp0.toString(), "drop table events");
        assertThat(drop.status()).isEqualTo(1);
        assertThat(drop.err().lines().toList()).hasSize(1);
        assertThat(query("--format", "csv", dsp0.toString(), "select count(*) > 0 from events")
                        .out())
                .endsWith("true\n");
    }

    @Test
    void aMissingTraceIsOneLine() {
        Cli.Run r = query(dir.resolve("nothing").toString(), "select 1");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("hetrace: " + dir.resolve("nothing") + ": no such file or directory\n");
        Cli.Run usage = Cli.run("query", "select 1");
        assertThat(usage.status()).isEqualTo(2);
    }

    @Test
    void aMappingFileIsUsedAndAChangeToItMakesANewIndex() throws Exception {
        Path dsp0 = board().resolve("dsp0");
        Path mapping = dir.resolve("calls.yaml");
        Files.writeString(mapping, """
            name: calls-only
            events:
              - {event: func_entry, does: enter, func: func}
              - {event: func_exit, does: exit, func: func}
            """);
        String sql =
                "select (select mapping from traces) as m, (select count(*) from intervals where kind = 'run') as runs, "
                        + "(select count(*) from calls) > 0 as calls";
        Cli.Run calls = query("--format", "csv", "--mapping", mapping.toString(), dsp0.toString(), sql);
        assertThat(calls.status()).as(calls.err()).isZero();
        assertThat(calls.err()).startsWith("hetrace: indexing 1 trace ");
        assertThat(calls.out()).isEqualTo("m,runs,calls\ncalls-only,0,true\n");
        Cli.Run presets = query("--format", "csv", dsp0.toString(), sql);
        assertThat(presets.out()).startsWith("m,runs,calls\nrtos,").doesNotContain("rtos,0,");

        Files.writeString(
                mapping, Files.readString(mapping) + "  - {event: task_switch, does: switch, next: next_task}\n");
        Cli.Run changed = query("--format", "csv", "--mapping", mapping.toString(), dsp0.toString(), sql);
        assertThat(changed.err()).startsWith("hetrace: indexing 1 trace ");
        assertThat(changed.out()).startsWith("m,runs,calls\ncalls-only,").doesNotContain("calls-only,0,");

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "events:\n  - {event: task_switch, does: jump}\n");
        Cli.Run wrong = query("--mapping", bad.toString(), dsp0.toString(), "select 1");
        assertThat(wrong.status()).isEqualTo(1);
        assertThat(wrong.err().strip())
                .startsWith("hetrace: " + bad + ":2: does: 'jump'")
                .doesNotContain("\n");
    }

    @Test
    void helpListsTheTablesAndExamples() {
        String help = new CommandLine(new Main()).getSubcommands().get("query").getUsageMessage();
        for (String table : IndexTables.NAMES) {
            assertThat(help).containsPattern("\\n  " + table + " ");
        }
        assertThat(help).contains("The last argument is the SQL", "Examples:");
    }

    @Test
    void anLttngKernelTraceCountsItsSwitchesPerCpu() throws Exception {
        Path trace = Corpus.trace("babeltrace/succeed/lttng-tracefile-rotation");
        long direct = 0;
        try (CtfReader r = CtfReader.open(trace)) {
            while (r.next()) {
                if (r.event().name().equals("sched_switch") && r.event().getLong("cpu_id") == 1) {
                    direct++;
                }
            }
        }
        Cli.Run r = query(
                "--format",
                "csv",
                trace.toString(),
                "select count(*) from events where name = 'sched_switch' and core = 'kernel/cpu1'");
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("count_star()\n" + direct + "\n");
    }

    @Test
    void parquetExportIsReadBackByDuckDbWithTheIndexsCounts() throws Exception {
        Path board = board();
        Path out = dir.resolve("parquet");
        Cli.Run r = Cli.run(
                "export", "--cache", dir.resolve("cache").toString(), "--parquet", out.toString(), board.toString());
        assertThat(r.status()).as(r.err()).isZero();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement()) {
            for (String table : IndexTables.NAMES) {
                Path file = out.resolve(table + ".parquet");
                assertThat(file).isRegularFile();
                Cli.Run count = query("--format", "csv", board.toString(), "select count(*) as n from " + table);
                assertThat(count.status()).as(count.err()).isZero();
                try (ResultSet rs = s.executeQuery("select count(*) from read_parquet('" + file + "')")) {
                    rs.next();
                    assertThat("n\n" + rs.getLong(1) + "\n").as(table).isEqualTo(count.out());
                    assertThat(r.out()).contains(file + ": " + rs.getLong(1) + " row");
                }
            }
            try (ResultSet rs = s.executeQuery("select count(*) from read_parquet('" + out.resolve("events.parquet")
                    + "') where json_extract_string(fields, '$.payload.next_task') is not null")) {
                rs.next();
                assertThat(rs.getLong(1)).isPositive();
            }
        }
        Files.writeString(dir.resolve("file"), "x");
        Cli.Run notDir = Cli.run(
                "export",
                "--cache",
                dir.resolve("cache").toString(),
                "--parquet",
                dir.resolve("file").toString(),
                board.toString());
        assertThat(notDir.status()).isEqualTo(1);
        assertThat(notDir.err().lines().toList()).singleElement().asString().contains("not a directory");
        assertThat(Cli.run("export", board.toString()).status()).isEqualTo(2);
    }
}
