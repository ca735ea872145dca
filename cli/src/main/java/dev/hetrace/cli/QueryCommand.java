package dev.hetrace.cli;

import dev.hetrace.analysis.index.TraceIndex;
import dev.hetrace.ctf.api.StreamDecodingException;
import dev.hetrace.ctf.metadata.MetadataException;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code hetrace query}: SQL over the index of the traces (events, intervals, calls, messages, wake-ups, sync pairs and messages, statistics, point events, diagnosis). */
@Command(
        name = "query",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run SQL over the traces' tables and print the result.",
            "",
            "The last argument is the SQL; the ones before it are the traces (trace",
            "directories, or folders of them), put on one clock first when there are",
            "several (see 'hetrace stats --help'). The tables are built once per set of",
            "traces and clock options into an index in the cache (a DuckDB file and",
            "Parquet files; saying so on stderr) and reused while the traces are",
            "unchanged; the index of an earlier state of the same traces is then removed.",
            "The SQL is DuckDB's; the index is read-only. Times are ns on the reference",
            "clock (the first trace's, or --reference), durations ns. Names are ENUMs: they",
            "sort in the order they were made (task::varchar sorts alphabetically).",
            "The tables:",
            "",
            "  events      trace, stream, time_ns, name, core, fields (JSON of the",
            "              event's stream_context, context and payload; e.g.",
            "              fields->>'$.payload.next_task')",
            "  intervals   kind (run, task_state, irq), start_ns, end_ns, duration_ns,",
            "              trace, core, task, irq, state (running, idle, preempted,",
            "              blocked, waiting, runnable, dead), queue, depth,",
            "              start_unknown, end_unknown, events_lost",
            "  calls       start_ns, end_ns, duration_ns, self_ns, trace, task,",
            "              function, depth, start_unknown, end_unknown, events_lost",
            "  messages    queue, id, send_ns, send_core, send_task, receive_ns,",
            "              receive_core, receive_task, latency_ns, start_unknown,",
            "              end_unknown",
            "  wakeups     time_ns, task (made runnable), waker (the task running where",
            "              it happened), core, irq (the interrupt that woke it, if any)",
            "  sync_pairs  reference, other, quality, to_other, to_reference,",
            "              accuracy_ns, slope, drift_ppm, pivot_ns, pivot_ref_ns",
            "  sync_messages  rule, sender, receiver, send_ns, receive_ns (own clocks),",
            "              send_ref_ns, receive_ref_ns, latency_ns (reference clock)",
            "  stats       context, name, total_ns, percent, count, min_ns, max_ns,",
            "              avg_ns, interval_min_ns, interval_max_ns, interval_avg_ns,",
            "              self_ns",
            "  traces      trace, path, mapping, events, first_ns, last_ns, reference,",
            "              sync_quality, sync_via, accuracy_ns",
            "  cores       core, trace",
            "  tasks       task, trace, name, tid, idle",
            "  marks       time_ns, name, trace, core: the point events (those no",
            "              interval is made of), as 'hetrace stats' counts them",
            "  counters    time_ns, name, unit, kind (value, total, lost), trace, core,",
            "              task, value, rate_per_s (a running total's rate since the",
            "              series' previous sample): the counters the traces carry",
            "  diagnosis_findings      sentence (those of 'hetrace diagnose')",
            "  diagnosis_outliers      core, core_id, task, task_id, kind, name,",
            "              start_ns, end_ns, median_ns, ratio, preempted_ns,",
            "              blocked_ns, depth (longest first)",
            "  diagnosis_preempted_by  outlier (its row, from 0), task",
            "  diagnosis_silent        trace, core_id, last_ns",
            "  diagnosis_stuck         task, core_id, since_ns",
            "",
            "Examples:",
            "  hetrace query hetrace-demo \\",
            "    \"select name, count(*) from events group by all order by 2 desc\"",
            "  hetrace query board/dsp1 \\",
            "    \"select function, count(*), sum(self_ns) from calls group by all\"",
            "  hetrace query hetrace-demo \\",
            "    \"select * from messages order by latency_ns desc limit 5\"",
            "  hetrace query --format csv board/master board/dsp* \\",
            "    \"select * from stats where context = 'task'\""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:the result was printed",
            "1:a trace could not be read or put on the reference clock, or the SQL failed",
            "2:usage error"
        })
final class QueryCommand extends HetraceCommand {
    enum Format {
        text,
        csv,
        json
    }

    @Parameters(
            arity = "2..*",
            paramLabel = "TRACE... SQL",
            description = "Trace directories or folders of them (see 'hetrace stats --help'), then the SQL.")
    List<String> args = new ArrayList<>();

    @Option(names = "--format", paramLabel = "FORMAT", description = "text (default), csv or json.")
    Format format = Format.text;

    @Option(
            names = "--mapping",
            paramLabel = "FILE",
            description = "A YAML mapping instead of the presets (its format: 'hetrace stats --help').")
    Path mapping;

    @Mixin
    ClockOptions clock = new ClockOptions();

    @Mixin
    IndexOptions index = new IndexOptions();

    /**
     * SQL that may read the diagnosis's tables, which are made the first time they are asked
     * for: one naming them, or listing the tables.
     */
    private static final Pattern MAY_READ_DIAGNOSIS =
            Pattern.compile("(?i)diagnosis|\\bshow\\b|information_schema|duckdb_|query_table");

    @Override
    public Integer call() throws IOException, MetadataException, StreamDecodingException, SQLException {
        String sql = args.getLast();
        List<Path> inputs =
                args.subList(0, args.size() - 1).stream().map(Path::of).toList();
        String text;
        TraceIndex ix = index.open(inputs, clock, mapping, main.err);
        if (MAY_READ_DIAGNOSIS.matcher(sql).find()) {
            ix.diagnose();
        }
        // prepared rather than executed directly: DuckDB's JDBC driver then reports the error itself
        try (Connection c = ix.connect();
                PreparedStatement s = c.prepareStatement(sql)) {
            if (!s.execute()) {
                return 0;
            }
            try (ResultSet r = s.getResultSet()) {
                text = switch (format) {
                    case text -> text(r);
                    case csv -> csv(r);
                    case json -> json(r);
                };
            }
        }
        return print(text);
    }

    /** Whether a column of this DuckDB type holds numbers (its JDBC type says so only for some). */
    private static boolean numeric(ResultSetMetaData md, int column) throws SQLException {
        return switch (md.getColumnType(column)) {
            case Types.TINYINT,
                    Types.SMALLINT,
                    Types.INTEGER,
                    Types.BIGINT,
                    Types.FLOAT,
                    Types.REAL,
                    Types.DOUBLE,
                    Types.DECIMAL,
                    Types.NUMERIC -> true;
            default -> {
                String name = md.getColumnTypeName(column);
                yield name.matches("U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)") || name.startsWith("DECIMAL");
            }
        };
    }

    static String text(ResultSet r) throws SQLException {
        ResultSetMetaData md = r.getMetaData();
        int n = md.getColumnCount();
        boolean[] right = new boolean[n];
        List<String[]> lines = new ArrayList<>();
        String[] head = new String[n];
        for (int i = 0; i < n; i++) {
            head[i] = md.getColumnLabel(i + 1);
            right[i] = numeric(md, i + 1);
        }
        lines.add(head);
        long rows = 0;
        while (r.next()) {
            String[] l = new String[n];
            for (int i = 0; i < n; i++) {
                String v = r.getString(i + 1);
                l[i] = v == null ? "NULL" : v;
            }
            lines.add(l);
            rows++;
        }
        return TextTable.render(lines, "", i -> right[i]) + "(" + rows + (rows == 1 ? " row)" : " rows)") + "\n";
    }

    static String csv(ResultSet r) throws SQLException {
        ResultSetMetaData md = r.getMetaData();
        int n = md.getColumnCount();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i > 0 ? "," : "").append(csvCell(md.getColumnLabel(i + 1)));
        }
        sb.append('\n');
        while (r.next()) {
            for (int i = 0; i < n; i++) {
                String v = r.getString(i + 1);
                sb.append(i > 0 ? "," : "").append(v == null ? "" : csvCell(v));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String csvCell(String v) {
        if (v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
            return "\"" + v.replace("\"", "\"\"") + "\"";
        }
        return v;
    }

    /** A JSON array of one object per row: numbers and booleans as such, JSON columns as JSON, NULL as null. */
    static String json(ResultSet r) throws SQLException {
        ResultSetMetaData md = r.getMetaData();
        int n = md.getColumnCount();
        String[] keys = new String[n];
        int[] types = new int[n];
        boolean[] number = new boolean[n];
        boolean[] raw = new boolean[n];
        for (int i = 0; i < n; i++) {
            keys[i] = TextTable.quote(md.getColumnLabel(i + 1));
            types[i] = md.getColumnType(i + 1);
            number[i] = numeric(md, i + 1);
            raw[i] = md.getColumnTypeName(i + 1).equalsIgnoreCase("JSON");
        }
        StringBuilder sb = new StringBuilder("[");
        String sep = "\n  ";
        while (r.next()) {
            sb.append(sep).append('{');
            for (int i = 0; i < n; i++) {
                sb.append(i > 0 ? ", " : "").append(keys[i]).append(": ");
                String v = r.getString(i + 1);
                if (v == null) {
                    sb.append("null");
                } else if (raw[i] || types[i] == Types.BOOLEAN) {
                    sb.append(v);
                } else if (number[i]) {
                    boolean finite = !(v.equals("nan")
                            || v.equals("inf")
                            || v.equals("-inf")
                            || v.equalsIgnoreCase("NaN")
                            || v.contains("Infinity"));
                    sb.append(finite ? v : "null");
                } else {
                    sb.append(TextTable.quote(v));
                }
            }
            sb.append('}');
            sep = ",\n  ";
        }
        return sb.append(sb.length() == 1 ? "]\n" : "\n]\n").toString();
    }
}
